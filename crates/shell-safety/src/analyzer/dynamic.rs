//! Text that bash evaluates as code although no command runs it: arithmetic and name
//! references.
//!
//! Bash evaluates `$((x))`, `((…))`, `[[ x -eq 1 ]]`, array subscripts and `${v:x}` as
//! arithmetic, and arithmetic evaluates the value of every variable it names, recursively; an
//! array subscript met on the way is expanded, running any `$(…)` in it. So
//! `x='a[$(rm -rf ~)]'; echo $((x))` deletes the home directory, and so do `test -v 'a[$(…)]'`,
//! `printf -v 'a[$(…)]' x`, `read 'a[$(…)]'` and `declare -n r='a[$(…)]'; echo $r`, which
//! look the name up. A variable is *tainted* when the script gives it a value other than a
//! literal whole number (a word, a substitution's output, a line read from a file, a file name
//! from a glob): evaluating it may run whatever that value holds. Variables from the
//! environment are the user's, not the command's author's, so they are not tainted.

use crate::findings::{assignment_finding, generic, worse};
use crate::script::{Command, Evaluation, Script, is_integer};
use crate::word::{Word, command_name};
use crate::wrappers;
use crate::{CONFIRMATION_REASON, Finding};

/// Variables bash itself fills with text from elsewhere: the last argument (`$_`), lines read
/// without a name, regex captures, the arguments of the current call, the directory a `cd`
/// entered; and `IFS`, whose known value splits a word where the author wants
/// (`foo${IFS}--pre=sh`).
const FILLED_BY_BASH: &[&str] = &[
    "_",
    "IFS",
    "PWD",
    "OLDPWD",
    "FUNCNAME",
    "BASH_SOURCE",
    "REPLY",
    "MAPFILE",
    "OPTARG",
    "BASH_REMATCH",
    "BASH_ARGV",
    "BASH_COMMAND",
    "BASH_EXECUTION_STRING",
    "COMP_WORDS",
    "COMP_LINE",
    "READLINE_LINE",
    "DIRSTACK",
];

/// Builtins whose operands name variables they assign (`read NAME`, `printf -v NAME`,
/// `getopts OPTS NAME`, `wait -p NAME`).
const ASSIGNING: &[&str] = &["read", "mapfile", "readarray", "getopts", "printf", "wait"];

/// The variables of one script (and of the scripts that run it) that may hold attacker text.
#[derive(Debug, Default)]
pub(super) struct Taint {
    names: Vec<String>,
}

impl Taint {
    /// Collects the tainted variables of `script`, adding `inherited` (those of the script that
    /// runs it: `x=… bash -c 'echo $((x))'`).
    pub(super) fn of(script: &Script<'_>, inherited: &[String]) -> Self {
        let mut names = inherited.to_vec();
        let mut add = |name: &str| {
            let base = name.split_once('[').map_or(name, |(base, _)| base);
            if !names.iter().any(|n| n == base) {
                names.push(base.to_owned());
            }
        };
        let assignments = script
            .commands
            .iter()
            .flat_map(|c| &c.assignments)
            .chain(script.evaluated.assigned.iter().map(|(a, _)| a));
        for assignment in assignments {
            if !holds_number(&assignment.value) {
                add(&assignment.name);
            }
        }
        for command in &script.commands {
            let (argv, _) = wrappers::innermost(&command.argv);
            let Some((head, args)) = argv.split_first() else {
                continue;
            };
            let name = command_name(&head.text);
            if ASSIGNING.contains(&name.as_str()) {
                for word in args {
                    if is_plain_name(&word.text) {
                        add(&word.text);
                    }
                }
            } else if is_declaration(&name) && declaration_flags(args).contains('n') {
                // A name reference reads and writes its target: `declare -n r=x; read r`.
                for assignment in &command.assignments {
                    add(&assignment.value.text);
                }
            }
        }
        Self { names }
    }

    pub(super) fn names(&self) -> &[String] {
        &self.names
    }

    fn has(&self, name: &str) -> bool {
        FILLED_BY_BASH.contains(&name) || self.names.iter().any(|n| n == name)
    }

    /// Whether evaluating `text` as arithmetic (or as a name) may evaluate attacker text.
    pub(super) fn evaluates_unknown(&self, text: &str) -> bool {
        match reads(text) {
            Some(names) => names.iter().any(|n| self.has(n)),
            None => true,
        }
    }

    /// Whether an opaque word may hold attacker text at run time: anything but plain
    /// references (`$NAME`, `${NAME}`, `${#NAME}`) to untainted variables. An operator can
    /// supply text of its own (`${unset:---pre=sh}`), and a word with no visible expansion
    /// stands for input we never see (`{}` of `find -exec`, `xargs -I`).
    pub(super) fn unknown(&self, word: &Word) -> bool {
        if !word.text.contains(['$', '`']) {
            return true;
        }
        match plain_references(&word.text) {
            Some(names) => names.iter().any(|n| self.has(n)),
            None => true,
        }
    }
}

/// A value that is always a whole number: a literal, `$((…))`, `${#x}`, `$?`, `$#`, `$$`, `$!`.
fn holds_number(value: &Word) -> bool {
    let text = value.text.as_str();
    if !value.opaque && !value.glob {
        return text.is_empty() || is_integer(text);
    }
    let arithmetic = (text.starts_with("$((") && text.ends_with("))"))
        || (text.starts_with("$[") && text.ends_with(']'));
    let length = text.starts_with("${#") && text.ends_with('}') && text[3..].find('$').is_none();
    arithmetic || length || matches!(text, "$?" | "$#" | "$$" | "$!")
}

/// The variables an arithmetic text reads, or `None` when it evaluates text we cannot see: a
/// substitution's output, a positional parameter, quoted or escaped text (`'a[$(…)]'` is
/// evaluated after its quotes are removed).
fn reads(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        match b {
            b'\'' | b'\\' | b'`' => return None,
            b'<' | b'>' if next == Some(b'(') => return None,
            b'$' => match next {
                Some(b'(') if bytes.get(i + 2) == Some(&b'(') => i += 3,
                Some(b'(' | b'\'' | b'0'..=b'9' | b'@' | b'*') => return None,
                Some(b'{') => {
                    i += 2;
                    while bytes.get(i).is_some_and(|c| matches!(c, b'!' | b'#')) {
                        i += 1;
                    }
                    if bytes
                        .get(i)
                        .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'@' | b'*'))
                    {
                        return None;
                    }
                }
                _ => i += 1,
            },
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
                // `0x1f`, `16#ff`: part of a number, not a name.
                let in_number = start
                    .checked_sub(1)
                    .and_then(|p| bytes.get(p))
                    .is_some_and(|c| c.is_ascii_digit() || *c == b'#');
                if !in_number {
                    names.push(&text[start..i]);
                }
            }
            _ => i += 1,
        }
    }
    Some(names)
}

/// The variables a word's expansions name when each is a plain `$NAME`, `${NAME}` or
/// `${#NAME}` (or `$?`, `$#`, `$$`, `$!`); `None` for anything else: an operator, a
/// substitution, a positional parameter.
fn plain_references(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'`' => return None,
            b'$' => {
                let braced = bytes.get(i) == Some(&b'{');
                if braced {
                    i += 1;
                    if bytes.get(i) == Some(&b'#') {
                        i += 1;
                    }
                } else if bytes
                    .get(i)
                    .is_some_and(|c| matches!(c, b'?' | b'#' | b'$' | b'!'))
                {
                    i += 1;
                    continue;
                }
                let start = i;
                if !bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                {
                    return None;
                }
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
                names.push(&text[start..i]);
                if braced {
                    if bytes.get(i) != Some(&b'}') {
                        return None;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
    }
    Some(names)
}

/// `NAME` or `NAME[0]`: a variable name bash looks up without evaluating anything.
fn is_plain_name(text: &str) -> bool {
    let (name, index) = match text.split_once('[') {
        Some((name, rest)) => match rest.strip_suffix(']') {
            Some(index) => (name, Some(index)),
            None => return false,
        },
        None => (text, None),
    };
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    identifier && index.is_none_or(|i| matches!(i, "@" | "*") || is_integer(i))
}

/// `a[…$…]` or ``a[…`…]``: text that runs a substitution when evaluated as a name.
fn has_subscript_expansion(text: &str) -> bool {
    text.find('[')
        .is_some_and(|open| text[open..].contains(['$', '`']))
}

/// A `$` or backquote outside quotes in `source`: an expansion bash splits into words.
fn has_unquoted_expansion(source: &str) -> bool {
    let mut quote = None;
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => {
                chars.next();
            }
            (None, '\'' | '"') => quote = Some(c),
            (None, '$' | '`') => return true,
            _ => {}
        }
    }
    false
}

fn is_declaration(name: &str) -> bool {
    matches!(
        name,
        "declare" | "typeset" | "local" | "export" | "readonly"
    )
}

/// The letters of a declaration's option words (`-ni` → `ni`).
fn declaration_flags(args: &[Word]) -> String {
    args.iter()
        .take_while(|w| w.text != "--" && w.text.starts_with(['-', '+']) && !w.opaque)
        .filter(|w| w.text.starts_with('-'))
        .flat_map(|w| w.text[1..].chars())
        .collect()
}

const EVALUATES_RUN_TIME_TEXT: &str = "Command evaluates text known only at run time as arithmetic or a variable name, which can run commands.";
const EVALUATED_NAME: &str =
    "Command gives a builtin a variable name that bash evaluates, which can run commands.";
const NAME_REFERENCE: &str =
    "Command makes a name reference to something other than a plain shell variable.";

fn evaluates(command: &str, reason: &str) -> Finding {
    Finding {
        category: Some("dynamic-command"),
        ..generic(command, reason)
    }
}

/// The finding for text bash evaluates as arithmetic or a name (see [`Script::evaluated`]).
pub(super) fn evaluated_finding(evaluation: &Evaluation<'_>, taint: &Taint) -> Option<Finding> {
    taint
        .evaluates_unknown(evaluation.text)
        .then(|| evaluates(evaluation.shown, EVALUATES_RUN_TIME_TEXT))
}

/// Checks a name a builtin assigns or looks up: it must be a plain literal name, and assigning
/// it must not change what later commands run (`read PATH`).
fn name_finding(word: &Word, assigns: bool, command: &Command<'_>) -> Option<Finding> {
    if word.opaque || !is_plain_name(&word.text) {
        return Some(evaluates(command.text, EVALUATED_NAME));
    }
    if assigns {
        let value = Word {
            opaque: true,
            ..Word::default()
        };
        return assignment_finding(&word.text, &value, command.text);
    }
    None
}

/// The builtins [`builtin`] rates: those that take variable names.
pub(super) fn takes_names(name: &str) -> bool {
    matches!(
        name,
        "read" | "printf" | "test" | "[" | "unset" | "getopts" | "wait"
    ) || is_declaration(name)
}

/// Rates a builtin that takes variable names (`read`, `printf -v`, `test -v`, `unset`,
/// `getopts`, `wait -p`, `declare` and its kin): `None` when it may run silently.
pub(super) fn builtin(
    name: &str,
    args: &[Word],
    command: &Command<'_>,
    taint: &Taint,
) -> Option<Finding> {
    if name == "test" || name == "[" {
        return test(name, args, command, taint);
    }
    // An expansion holding attacker text may become an option or a name (`read $x`).
    if args.iter().any(|w| w.opaque && taint.unknown(w)) {
        return Some(evaluates(command.text, EVALUATES_RUN_TIME_TEXT));
    }
    match name {
        "read" => read(args, command),
        "printf" => match args {
            [flag, target, ..] if flag.text == "-v" => name_finding(target, true, command),
            [flag, ..] if flag.text.starts_with("-v") && !flag.opaque => {
                name_finding(&Word::literal(&flag.text[2..]), true, command)
            }
            _ => None,
        },
        "getopts" => args
            .get(1)
            .and_then(|target| name_finding(target, true, command)),
        "wait" => match wrappers::option_value(args, 'p', "") {
            Some(target) => name_finding(&Word::literal(&target), true, command),
            None => None,
        },
        "unset" => {
            let start = wrappers::skip_options(args, "", &[]);
            args[start..]
                .iter()
                .map(|w| name_finding(w, true, command))
                .fold(None, worse)
        }
        _ => declaration(name, args, command, taint),
    }
}

/// `read [-a NAME] [opts] NAME…`.
fn read(args: &[Word], command: &Command<'_>) -> Option<Finding> {
    let mut names: Vec<Word> = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        if word.text == "--" {
            break;
        }
        if !word.is_option() {
            i -= 1;
            break;
        }
        for (pos, c) in word.text.char_indices().skip(1) {
            if "adinNptu".contains(c) {
                let attached = &word.text[pos + c.len_utf8()..];
                let value = if attached.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned().unwrap_or_default()
                } else {
                    Word::literal(attached)
                };
                if c == 'a' {
                    names.push(value);
                }
                break;
            }
        }
    }
    names.extend(args.get(i..).unwrap_or(&[]).iter().cloned());
    names
        .iter()
        .map(|w| name_finding(w, true, command))
        .fold(None, worse)
}

/// `declare`, `typeset`, `local`, `export`, `readonly`: quoted `NAME=value` operands are
/// assignments too (`export 'PATH=.'`); `-n` makes a name reference, `-i` evaluates every
/// value assigned as arithmetic.
fn declaration(name: &str, args: &[Word], command: &Command<'_>, taint: &Taint) -> Option<Finding> {
    let flags = declaration_flags(args);
    let nameref = flags.contains('n') && name != "export";
    let start = args
        .iter()
        .position(|w| !w.text.starts_with(['-', '+']) || w.opaque || w.text == "--")
        .map_or(args.len(), |p| p + usize::from(args[p].text == "--"));
    let own = command
        .argv
        .first()
        .is_some_and(|head| command_name(&head.text) == name);
    let mut found = None;
    let mut assigned: Vec<(String, Word)> = Vec::new();
    for word in &args[start..] {
        match word.text.split_once('=') {
            Some((target, value)) => {
                found = worse(found, name_finding(&Word::literal(target), false, command));
                let value = Word {
                    text: value.to_owned(),
                    ..word.clone()
                };
                found = worse(found, assignment_finding(target, &value, command.text));
                assigned.push((target.to_owned(), value));
            }
            None => {
                found = worse(found, name_finding(word, false, command));
                if nameref {
                    // The first assignment to an unbound reference picks its target.
                    found = worse(found, Some(evaluates(command.text, NAME_REFERENCE)));
                }
                if flags.contains('i') && taint.has(&word.text) {
                    found = worse(
                        found,
                        Some(evaluates(command.text, EVALUATES_RUN_TIME_TEXT)),
                    );
                }
            }
        }
    }
    if own {
        assigned.extend(
            command
                .assignments
                .iter()
                .map(|a| (a.name.clone(), a.value.clone())),
        );
    }
    for (target, value) in &assigned {
        if nameref {
            let harmless = !value.opaque
                && is_plain_name(&value.text)
                && assignment_finding(&value.text, &Word::default(), command.text).is_none();
            if !harmless {
                found = worse(found, Some(evaluates(command.text, NAME_REFERENCE)));
            }
        }
        if flags.contains('i') && (taint.has(target) || !holds_number(value)) {
            found = worse(
                found,
                Some(evaluates(command.text, EVALUATES_RUN_TIME_TEXT)),
            );
        }
    }
    found
}

/// `test` and `[`: `-v NAME` and `-R NAME` evaluate a subscript in `NAME`; an expansion
/// holding attacker text may become `-v` and its operand once split into words.
fn test(name: &str, args: &[Word], command: &Command<'_>, taint: &Taint) -> Option<Finding> {
    let args = match (name, args.split_last()) {
        ("[", Some((last, rest))) if last.text == "]" => rest,
        _ => args,
    };
    if args.iter().any(|w| has_subscript_expansion(&w.text)) {
        return Some(evaluates(command.text, EVALUATED_NAME));
    }
    for (i, word) in args.iter().enumerate() {
        if !word.opaque
            && matches!(word.text.as_str(), "-v" | "-R")
            && let Some(operand) = args.get(i + 1)
            && let Some(found) = name_finding(operand, false, command)
        {
            return Some(found);
        }
    }
    if !args.iter().any(|w| w.opaque && taint.unknown(w)) {
        return None;
    }
    // Quoted expansions stay one word each, so the operator positions are known.
    let literal = |w: &Word| !w.opaque;
    let fixed_shape = !has_unquoted_expansion(command.text)
        && match args {
            [_] => true,
            [op, _] => literal(op),
            [_, op, _] => literal(op) && is_binary_test(&op.text),
            _ => false,
        };
    (!fixed_shape).then(|| generic(command.text, CONFIRMATION_REASON))
}

fn is_binary_test(op: &str) -> bool {
    matches!(
        op,
        "=" | "=="
            | "!="
            | "<"
            | ">"
            | "-eq"
            | "-ne"
            | "-lt"
            | "-le"
            | "-gt"
            | "-ge"
            | "-nt"
            | "-ot"
            | "-ef"
            | "-a"
            | "-o"
    )
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn arithmetic_reads_names_and_refuses_what_it_cannot_see() {
        assert_eq!(reads("$((i + n*2))"), Some(vec!["i", "n"]));
        assert_eq!(reads("0x1f + 16#ff + ${#a} + b"), Some(vec!["b"]));
        assert_eq!(reads("\"$count\" + 1"), Some(vec!["count"]));
        assert_eq!(reads("$(( $(cat f) ))"), None);
        assert_eq!(reads("'a[$(id)]'"), None);
        assert_eq!(reads("a[\\$(id)]"), None);
        assert_eq!(reads("$1 + 1"), None);
        assert_eq!(reads("${@}"), None);
    }

    #[test]
    fn only_plain_references_are_read_as_variables() {
        assert_eq!(plain_references("$HOME/src"), Some(vec!["HOME"]));
        assert_eq!(plain_references("${a}x${#b}$?"), Some(vec!["a", "b"]));
        assert_eq!(plain_references("${x:---pre=sh}"), None);
        assert_eq!(plain_references("${HOME/#*/-o}"), None);
        assert_eq!(plain_references("$(id)"), None);
        assert_eq!(plain_references("$1"), None);
    }

    #[test]
    fn plain_names_have_no_evaluated_subscript() {
        let plain: Vec<bool> = ["x", "_a1", "a[0]", "a[@]", "a[i]", "a[$(id)]", "1x", "a[0"]
            .iter()
            .map(|t| is_plain_name(t))
            .collect();
        assert_eq!(plain, [true, true, true, true, false, false, false, false]);
    }

    #[test]
    fn unquoted_expansions_are_found_outside_quotes_only() {
        assert!(has_unquoted_expansion("[ -f $f ]"));
        assert!(!has_unquoted_expansion("[ -f \"$f\" ]"));
        assert!(!has_unquoted_expansion("[ '$x' = \\$y ]"));
        assert!(has_unquoted_expansion("[ \"a\" = `x` ]"));
    }
}
