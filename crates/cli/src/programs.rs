//! "Is this hook's program on `PATH`?" — a conservative scan of a command hook's shell text for
//! the programs it runs, so `tether hooks check` can warn about a typo before a guard silently
//! fails. It only reports words it is sure are command names.

use std::path::Path;

use tether_exec::find_in_path;

/// Shell keywords and builtins: never programs to look up.
const SHELL_WORDS: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "in",
    "function",
    "select",
    "time",
    "!",
    "{",
    "}",
    "[[",
    "]]",
    "[",
    "test",
    "echo",
    "printf",
    "read",
    "cd",
    "export",
    "local",
    "declare",
    "typeset",
    "readonly",
    "unset",
    "set",
    "shift",
    "return",
    "exit",
    "source",
    ".",
    "eval",
    "exec",
    "trap",
    "wait",
    "true",
    "false",
    ":",
    "break",
    "continue",
    "let",
    "alias",
    "unalias",
    "command",
    "builtin",
    "type",
    "hash",
    "umask",
    "ulimit",
    "getopts",
    "pwd",
    "kill",
    "jobs",
    "fg",
    "bg",
    "disown",
    "mapfile",
    "readarray",
    "shopt",
    "caller",
    "enable",
    "help",
    "history",
    "logout",
    "popd",
    "pushd",
    "dirs",
    "suspend",
    "times",
    "compgen",
    "complete",
];

/// Command words of `script`, run in `cwd`, that resolve to nothing. `project_vars` name
/// variables that hold `project` when the hook runs (`TETHER_PROJECT_DIR`), so
/// `"$TETHER_PROJECT_DIR"/x.sh` is checked too.
pub(crate) fn missing_programs(
    script: &str,
    cwd: &Path,
    path_var: &str,
    project: &Path,
    project_vars: &[&str],
) -> Vec<String> {
    let script = with_project_dir(script, project, project_vars);
    let mut missing = Vec::new();
    for word in command_words(&script) {
        let found = if word.contains('/') {
            let p = cwd.join(&word);
            p.is_file()
        } else {
            SHELL_WORDS.contains(&word.as_str()) || find_in_path(&word, path_var).is_some()
        };
        if !found && !missing.contains(&word) {
            missing.push(word);
        }
    }
    missing
}

/// Letters, digits and `_-./+` only: a path or command name with nothing for the shell to
/// expand or quote.
fn is_plain(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+'))
}

/// `script` with `$VAR`, `${VAR}` and their double-quoted forms replaced by `cwd` for each of
/// `vars`, when `cwd` is a plain path (otherwise the script is left as it is).
pub(crate) fn with_project_dir(script: &str, cwd: &Path, vars: &[&str]) -> String {
    let dir = cwd.display().to_string();
    if !is_plain(&dir) {
        return script.to_owned();
    }
    let mut out = script.to_owned();
    for var in vars {
        for form in [
            format!("\"${{{var}}}\""),
            format!("\"${var}\""),
            format!("${{{var}}}"),
            format!("${var}"),
        ] {
            out = out.replace(&form, &dir);
        }
    }
    out
}

/// The first word of every simple command we can see plainly (skipping heredoc bodies,
/// comments, assignments and anything with quotes or expansions).
fn command_words(script: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut heredoc_end: Option<String> = None;
    for line in script.lines() {
        let trimmed = line.trim();
        if let Some(end) = &heredoc_end {
            if trimmed == end {
                heredoc_end = None;
            }
            continue;
        }
        if trimmed.starts_with('#') {
            continue;
        }
        // `<<TAG` opens a heredoc; `<<<word` is a here-string, with no body.
        let heredoc = trimmed.match_indices("<<").find(|(pos, _)| {
            !trimmed[pos + 2..].starts_with('<') && !trimmed[..*pos].ends_with('<')
        });
        if let Some((pos, _)) = heredoc {
            let rest = trimmed[pos + 2..].trim_start_matches('-').trim_start();
            let tag: String = rest
                .trim_start_matches(['\'', '"'])
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !tag.is_empty() {
                heredoc_end = Some(tag);
            }
        }
        for segment in split_commands(trimmed) {
            if let Some(w) = first_word(&segment) {
                words.push(w);
            }
        }
    }
    words
}

/// Splits a line at `|`, `&`, `;`, `$(` and backquotes outside single and double quotes; the
/// text inside quotes is dropped (it is data, not commands), except `$(` inside double quotes.
/// Redirections (`>&2`, `2>&1`, `&>file`, `>|f`, `<&0`, `<<<word`) and their targets are
/// dropped as the shell reads them: the `&` of `>&2` is not a background `&`.
fn split_commands(line: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut single = false;
    let mut double = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !single => {
                chars.next();
            }
            // A word with quoted parts (`"$DIR"/x.sh`) cannot be judged: the quote stays in it.
            '\'' if !double => {
                single = !single;
                cur.push('\'');
            }
            '"' if !single => {
                double = !double;
                cur.push('"');
            }
            '$' if !single && chars.peek() == Some(&'(') => {
                chars.next();
                parts.push(std::mem::take(&mut cur));
                double = false;
            }
            '&' if !single && !double && chars.peek() == Some(&'>') => {
                chars.next();
                skip_redirection('>', &mut chars);
                cur.push(' ');
            }
            '>' | '<' if !single && !double => {
                strip_fd_number(&mut cur);
                skip_redirection(c, &mut chars);
                cur.push(' ');
            }
            '|' | '&' | ';' | '`' | '(' | ')' if !single && !double => {
                parts.push(std::mem::take(&mut cur));
            }
            _ if single || double => {}
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// Drops the file-descriptor number that opens a redirection (`2` of `2>&1`) when it is a word
/// of its own (in `x2>f` the shell reads `x2` as an argument).
fn strip_fd_number(cur: &mut String) {
    let kept = cur.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if kept < cur.len() && (kept == 0 || cur[..kept].ends_with(char::is_whitespace)) {
        cur.truncate(kept);
    }
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Consumes `c` when it comes next.
fn eat(chars: &mut Chars<'_>, c: char) -> bool {
    chars.next_if_eq(&c).is_some()
}

/// After the first character `first` (`>` or `<`) of a redirection operator: consumes the rest
/// of the operator (`>>`, `>&`, `>|`, `<<`, `<<-`, `<<<`, `<&`, `<>`) and its target word.
fn skip_redirection(first: char, chars: &mut Chars<'_>) {
    if first == '>' {
        let _ = eat(chars, '>') || eat(chars, '&') || eat(chars, '|');
    } else if eat(chars, '<') {
        let _ = eat(chars, '<') || eat(chars, '-');
    } else {
        let _ = eat(chars, '&') || eat(chars, '>');
    }
    while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
        chars.next();
    }
    // The target word, quotes included (`>"$LOG"`, `<<<'text'`).
    let mut quote: Option<char> = None;
    while let Some(&c) = chars.peek() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_whitespace()
                || matches!(c, '|' | '&' | ';' | '(' | ')' | '<' | '>' | '`') =>
            {
                break;
            }
            None => {}
        }
        chars.next();
    }
}

fn first_word(segment: &str) -> Option<String> {
    let mut tokens = segment.split_whitespace();
    let mut word = tokens.next()?;
    // Skip leading assignments (`FOO=bar cmd`) and keywords that precede a command.
    while word.contains('=')
        || matches!(
            word,
            "!" | "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "time" | "{"
        )
    {
        word = tokens.next()?;
    }
    (is_plain(word) && !word.starts_with('-')).then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_command_words_and_skips_heredocs_assignments_and_keywords() {
        let script = "INPUT=$(cat)\nCMD=$(echo \"$INPUT\" | jq -r '.x')\nif echo \"$CMD\" | grep -q x; then\n  cat <<EOF\n{\"a\": 1}\nnotacommand here\nEOF\nelse\n  FOO=1 ./scripts/guard.sh --flag && osascript -e x\nfi\n# comment-cmd\n";
        assert_eq!(
            command_words(script),
            [
                "cat",
                "echo",
                "jq",
                "echo",
                "grep",
                "cat",
                "./scripts/guard.sh",
                "osascript",
                "fi"
            ]
        );
        assert_eq!(
            command_words("if echo \"$CMD\" | grep -qiE 'rm|sudo|mkfs'; then x-prog; fi"),
            ["echo", "grep", "x-prog", "fi"]
        );
    }

    #[test]
    fn redirections_are_read_as_the_shell_reads_them() {
        let script = "if true; then\n  echo \"nope\" >&2\n  exit 2\nfi";
        assert_eq!(command_words(script), ["true", "echo", "exit", "fi"]);
        let cases: &[(&str, &[&str])] = &[
            ("echo x 2>&1 | grep y", &["echo", "grep"]),
            ("cmd &>/dev/null; next", &["cmd", "next"]),
            ("cmd &>> log && next", &["cmd", "next"]),
            ("cmd >| out.txt", &["cmd"]),
            ("read line <&0", &["read"]),
            ("grep -q x <<< \"$INPUT\" && ok", &["grep", "ok"]),
            ("cat <<<word", &["cat"]),
            ("jq . 2> err.log >out.json", &["jq"]),
            (">&2 echo nope", &["echo"]),
            ("2>/dev/null rm -f x", &["rm"]),
            ("cmd 3<> file", &["cmd"]),
            ("cmd 1>&2 & other", &["cmd", "other"]),
            ("x2>f", &["x2"]),
            ("exec 3>&- ; done", &["exec", "done"]),
        ];
        for (script, words) in cases {
            assert_eq!(&command_words(script), words, "{script}");
        }
        // A here-string has no body: the next line is a command again.
        assert_eq!(command_words("cat <<< x\nls"), ["cat", "ls"]);
    }

    #[test]
    fn reports_only_what_does_not_resolve() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("guard.sh"), "").unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        let missing = missing_programs(
            "./guard.sh && ./missing.sh; cat x | no-such-program-xyz",
            dir.path(),
            &path,
            dir.path(),
            &[],
        );
        assert_eq!(missing, ["./missing.sh", "no-such-program-xyz"]);
    }

    #[test]
    fn project_dir_variables_are_resolved_and_other_quoted_words_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("hooks")).unwrap();
        std::fs::write(dir.path().join("hooks/guard.sh"), "").unwrap();
        let vars = ["TETHER_PROJECT_DIR", "CLAUDE_PROJECT_DIR"];
        let check = |script: &str| missing_programs(script, dir.path(), "", dir.path(), &vars);
        assert_eq!(
            check("\"$CLAUDE_PROJECT_DIR\"/hooks/guard.sh"),
            [] as [String; 0]
        );
        assert_eq!(
            check("${TETHER_PROJECT_DIR}/hooks/guard.sh"),
            [] as [String; 0]
        );
        let d = dir.path().display();
        assert_eq!(
            check("\"$TETHER_PROJECT_DIR\"/hooks/gone.sh"),
            [format!("{d}/hooks/gone.sh")]
        );
        // A variable it cannot know: no guess, no warning.
        assert_eq!(check("\"$HOOKS\"/guard.sh"), [] as [String; 0]);
    }
}
