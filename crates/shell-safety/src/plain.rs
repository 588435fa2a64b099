//! Whether a command is a plain word list: text the shell would split on blanks and run as one
//! program, with nothing to interpret. The hooks engine uses it to skip the shell for such
//! commands (`./hooks/check.sh --strict`, `jq -c '.tool_input'`), so a "yes" must never be
//! wrong: the words are limited to characters that mean nothing to sh, bash or dash and to
//! single-quoted text (which the shell takes literally), the command may not name a shell
//! builtin or reserved word, and the parse must be one simple command of such words.

use tree_sitter::Node;

use crate::parser;

/// Bytes a plain word may hold. Everything else (quotes, `$`, `` ` ``, `\`, globs, braces, `~`,
/// `#`, `!`, `^`, redirections, operators, non-ASCII) means the shell would interpret the text.
fn plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'.' | b'/' | b',' | b':' | b'+' | b'=' | b'@' | b'%' | b'-'
        )
}

/// Names that sh, bash or dash resolve before `PATH`: reserved words and builtins. A command
/// named so must go through the shell, which would not run the program of that name.
const SHELL_NAMES: &[&str] = &[
    ".",
    ":",
    "[",
    "[[",
    "]]",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "case",
    "cd",
    "chdir",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "coproc",
    "declare",
    "dirs",
    "disown",
    "do",
    "done",
    "echo",
    "elif",
    "else",
    "enable",
    "esac",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "fi",
    "for",
    "function",
    "getopts",
    "hash",
    "help",
    "history",
    "if",
    "in",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "select",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "then",
    "time",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "until",
    "wait",
    "while",
];

/// The words of `command` (single quotes removed) when it is a plain word list the shell
/// would run as `argv = words` with no interpretation; `None` otherwise (then it must go through the shell).
///
/// ```
/// use tether_shell_safety::plain_words;
///
/// assert_eq!(plain_words("./hooks/check.sh --strict"), Some(vec!["./hooks/check.sh".to_owned(), "--strict".to_owned()]));
/// assert_eq!(plain_words("jq -c '.tool_input'"), Some(vec!["jq".to_owned(), "-c".to_owned(), ".tool_input".to_owned()]));
/// assert_eq!(plain_words("./check.sh \"a b\""), None);
/// assert_eq!(plain_words("check.sh $HOME"), None);
/// assert_eq!(plain_words("echo hi"), None);
/// ```
pub fn plain_words(command: &str) -> Option<Vec<String>> {
    let words = split(command)?;
    let (name_raw, name) = words.first()?;
    // `NAME=value cmd` is an assignment, and a bare name is looked up as a builtin first (a
    // quoted name too, so the name may not be quoted at all). A leading `%` may name a job.
    if name_raw != name
        || name.contains('=')
        || name.starts_with('%')
        || (!name.contains('/') && SHELL_NAMES.contains(&name.as_str()))
    {
        return None;
    }
    let bytes = command.as_bytes();
    let tree = parser::parse(command).ok()?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let simple = root.named_child(0)?;
    if simple.kind() != "command" {
        return None;
    }
    // The parse must agree: one command whose name and arguments are the words found by
    // splitting on blanks, and nothing else (no redirection, no assignment).
    let mut parsed = Vec::with_capacity(words.len());
    let mut cursor = simple.walk();
    for child in simple.named_children(&mut cursor) {
        let node = if child.kind() == "command_name" {
            let mut inner = child.walk();
            let only: Vec<Node<'_>> = child.named_children(&mut inner).collect();
            match only.as_slice() {
                [word] => *word,
                _ => return None,
            }
        } else {
            child
        };
        if !literal(node) {
            return None;
        }
        parsed.push(node.utf8_text(bytes).ok()?);
    }
    let agree =
        parsed.len() == words.len() && parsed.iter().zip(&words).all(|(p, (raw, _))| p == raw);
    agree.then(|| words.into_iter().map(|(_, value)| value).collect())
}

/// A bare word, a single-quoted string, or a run of them with nothing between.
fn literal(node: Node<'_>) -> bool {
    match node.kind() {
        "word" | "number" | "raw_string" => true,
        "concatenation" => {
            let mut cursor = node.walk();
            let parts: Vec<Node<'_>> = node.children(&mut cursor).collect();
            parts
                .iter()
                .all(|p| matches!(p.kind(), "word" | "number" | "raw_string"))
        }
        _ => false,
    }
}

/// The words of `command` split on blanks, each as written and as the shell passes it: plain
/// bytes, and single-quoted text (literal to the shell, but for the quote itself; control
/// characters refused). `None` for anything else.
fn split(command: &str) -> Option<Vec<(String, String)>> {
    let mut words = Vec::new();
    let mut raw = String::new();
    let mut value = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        if quoted {
            match c {
                '\'' => quoted = false,
                c if c.is_control() => return None,
                c => value.push(c),
            }
            raw.push(c);
            continue;
        }
        match c {
            ' ' | '\t' => {
                if started {
                    words.push((std::mem::take(&mut raw), std::mem::take(&mut value)));
                    started = false;
                }
            }
            '\'' => {
                quoted = true;
                started = true;
                raw.push(c);
            }
            c if c.is_ascii() && plain_byte(c as u8) => {
                started = true;
                raw.push(c);
                value.push(c);
            }
            _ => return None,
        }
    }
    if quoted {
        return None;
    }
    if started {
        words.push((raw, value));
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_and_arguments_are_words() {
        for (command, words) in [
            ("./hooks/check.sh", vec!["./hooks/check.sh"]),
            (
                "/usr/bin/python3 guard.py --mode=strict",
                vec!["/usr/bin/python3", "guard.py", "--mode=strict"],
            ),
            ("  jq   -c .  ", vec!["jq", "-c", "."]),
            (
                "node hooks/a.js 10 a,b user@host:22 50%",
                vec!["node", "hooks/a.js", "10", "a,b", "user@host:22", "50%"],
            ),
            ("./bin/echo x", vec!["./bin/echo", "x"]),
            ("sed -u 's/.*/{}/'", vec!["sed", "-u", "s/.*/{}/"]),
            (
                "jq -c '.tool_input | {cmd: .command}' x'$HOME'y ''",
                vec!["jq", "-c", ".tool_input | {cmd: .command}", "x$HOMEy", ""],
            ),
        ] {
            let expected: Vec<String> = words.into_iter().map(str::to_owned).collect();
            assert_eq!(plain_words(command), Some(expected), "{command}");
        }
    }

    #[test]
    fn anything_the_shell_interprets_is_not_plain() {
        for command in [
            "",
            "   ",
            "./a.sh \"quoted arg\"",
            "./a.sh 'x",
            "./a.sh 'x'\"y\"",
            "./a.sh 'a\nb'",
            "'echo' hi",
            "'./a.sh' x",
            "./a.sh $HOME",
            "./a.sh ${X}",
            "./a.sh ~/x",
            "~/bin/a.sh",
            "./a.sh *.txt",
            "./a.sh a?",
            "./a.sh [ab]",
            "./a.sh {a,b}",
            "./a.sh > out",
            "./a.sh < in",
            "./a.sh | cat",
            "./a.sh; ./b.sh",
            "./a.sh && ./b.sh",
            "./a.sh &",
            "./a.sh # comment",
            "./a.sh a\\ b",
            "./a.sh `id`",
            "./a.sh $(id)",
            "FOO=1 ./a.sh",
            "./a.sh\n./b.sh",
            "echo hi",
            "cd /tmp",
            "exit 3",
            "true",
            "if",
            "! ./a.sh",
            "./a.sh é",
            "%1",
        ] {
            assert_eq!(plain_words(command), None, "{command:?}");
        }
    }
}
