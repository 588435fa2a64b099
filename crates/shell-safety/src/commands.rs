//! A shell line as permission rules see it: every command it runs, in every form a rule might
//! name it, and whether anything in it escapes what a rule can read.
//!
//! A deny rule such as `rm *` must hold however the model writes the command: `/bin/rm`,
//! `env rm`, `x; rm`, `$(rm …)`, `bash -c 'rm …'`. [`CommandLine::forms`] lists each simple
//! command as written, as evaluated (quotes removed), with its program's directory stripped,
//! and again after every wrapper (`sudo`, `env`, `xargs`, `timeout`, …) and inside every shell
//! string (`bash -c`, `eval`, heredocs fed to a shell), so a deny rule can be tested against
//! each. An allow rule must hold for less: [`CommandLine::units`] gives the simple commands as
//! written, and only when nothing in the line substitutes, redirects to a file or hides a
//! command from view; then every unit must be allowed on its own.

use tree_sitter::Node;

use crate::paths;
use crate::script::{self, Command, RedirectOp, Script};
use crate::word::{Word, command_name};
use crate::wrappers::{self, Wrap};

/// How many shell strings deep (`bash -c "bash -c '…'"`) forms are collected.
const MAX_NESTING: usize = 4;

/// How many wrappers (`sudo env nice …`) are peeled off one command.
const MAX_WRAPPERS: usize = 16;

/// Node kinds a line may contain and still be split into units an allow rule can judge on
/// their own. Anything else (substitutions, arithmetic, `[[ … ]]`, heredocs, brace and
/// parameter expansions with operators) runs or rewrites text the rule never sees.
const PLAIN_KINDS: &[&str] = &[
    "program",
    "list",
    "pipeline",
    "command",
    "command_name",
    "word",
    "string",
    "string_content",
    "raw_string",
    "ansi_c_string",
    "concatenation",
    "simple_expansion",
    "variable_name",
    "special_variable_name",
    "variable_assignment",
    "subshell",
    "compound_statement",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "do_group",
    "case_statement",
    "case_item",
    "negated_command",
    "function_definition",
    "redirected_statement",
    "file_redirect",
    "file_descriptor",
    "number",
    "comment",
];

/// A parsed shell line; see the module doc.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandLine {
    forms: Vec<String>,
    open: Vec<String>,
    units: Option<Vec<String>>,
    opaque: bool,
}

/// What follows a command's words when it runs.
#[derive(Debug, Clone, Copy)]
enum Tail<'a> {
    /// Nothing: the words are the whole command.
    Closed,
    /// Arguments unknown until run time are appended (`xargs rm`, an alias used later).
    Appended,
    /// This text is replaced by input unknown until run time (`{}` of `find -exec`).
    Placeholder(&'a str),
}

impl CommandLine {
    /// Parses `line` as `bash -c` would run it. Never fails: what cannot be read is reported
    /// by [`Self::is_opaque`] and withholds [`Self::units`].
    pub fn parse(line: &str) -> Self {
        let mut out = Self {
            forms: vec![line.to_owned(), line.trim().to_owned()],
            open: Vec::new(),
            units: None,
            opaque: false,
        };
        let Ok((script, tree)) = script::build_with_tree(line) else {
            out.opaque = true;
            out.forms.dedup();
            return out;
        };
        out.collect(&script, 0, Tail::Closed);
        out.open.sort();
        out.open.dedup();
        out.units = plain_units(&script, tree.root_node());
        let whole = out.forms.remove(0);
        out.forms.retain(|f| !f.is_empty());
        out.forms.insert(0, whole);
        out.forms.dedup();
        out
    }

    /// The whole line, then every simple command in every form a deny or ask rule is tested
    /// against (see the module doc).
    pub fn forms(&self) -> &[String] {
        &self.forms
    }

    /// Beginnings of commands whose rest is unknown until run time (`xargs rm` runs `rm `
    /// and then whatever its input holds): a deny or ask rule that could match some
    /// continuation of one of these must be taken to match.
    pub fn open_forms(&self) -> &[String] {
        &self.open
    }

    /// Some command's program cannot be told before it runs (a computed name, a syntax error,
    /// a shell reading a script from a pipe, nesting too deep): any deny rule may apply.
    pub fn is_opaque(&self) -> bool {
        self.opaque
    }

    /// The simple commands as written, for allow rules; `None` when the line also substitutes,
    /// redirects to or from a file, feeds a heredoc or cannot be read, so that no unit covers
    /// what it does.
    pub fn units(&self) -> Option<&[String]> {
        self.units.as_deref()
    }

    fn collect(&mut self, script: &Script<'_>, depth: usize, tail: Tail<'_>) {
        self.opaque |= script.too_deep;
        if script.has_error {
            // tree-sitter recovered from an error: bash may split the line differently, so
            // every operator-separated piece is a form too.
            self.opaque = true;
            self.forms.extend(rough_pieces(script.source));
        }
        for command in &script.commands {
            // Substitutions inside words and assignments are commands of their own here.
            self.forms.push(command.text.trim().to_owned());
            if !command.argv.is_empty() {
                self.argv(&command.argv, command, script, depth, 0, tail);
            }
        }
    }

    /// Adds the forms of `argv` run as (part of) `command`, peeling wrappers.
    fn argv(
        &mut self,
        argv: &[Word],
        command: &Command<'_>,
        script: &Script<'_>,
        depth: usize,
        peeled: usize,
        tail: Tail<'_>,
    ) {
        let Some((head, args)) = argv.split_first() else {
            return;
        };
        if peeled > MAX_WRAPPERS {
            self.opaque = true;
            return;
        }
        // An unquoted glob in the program's name (`/bin/r?`, `r[m]`) picks the program from
        // the files present when it runs.
        if head.opaque || head.computed || head.glob {
            self.opaque = true;
        }
        let words: Vec<&str> = argv.iter().map(Word::as_str).collect();
        let name = command_name(&head.text);
        let mut forms = vec![words.join(" ")];
        if head.text.contains('/') {
            let mut short = vec![name.as_str()];
            short.extend(args.iter().map(Word::as_str));
            forms.push(short.join(" "));
        }
        for form in &forms {
            match tail {
                Tail::Closed => {}
                Tail::Appended => self.open.push(format!("{form} ")),
                Tail::Placeholder(mark) => {
                    if let Some(at) = form.find(mark) {
                        self.open.push(form[..at].to_owned());
                    }
                }
            }
        }
        self.forms.extend(forms);
        if name == "find" {
            for inner in find_exec(args) {
                self.argv(
                    inner,
                    command,
                    script,
                    depth,
                    peeled + 1,
                    Tail::Placeholder("{}"),
                );
            }
            return;
        }
        if name == "alias" {
            // An alias runs its text with the arguments it is later given.
            for value in args.iter().filter_map(|w| w.text.split_once('=')) {
                self.nested(value.1, depth, Tail::Appended);
            }
            return;
        }
        match wrappers::peel(&name, args) {
            Some(Wrap::Exec {
                rest,
                placeholder,
                appends,
                ..
            }) => {
                let tail = match (&placeholder, appends) {
                    (Some(mark), _) => Tail::Placeholder(mark),
                    (None, true) => Tail::Appended,
                    (None, false) => tail,
                };
                self.argv(rest, command, script, depth, peeled + 1, tail);
            }
            Some(Wrap::Script { text, .. }) => self.nested(&text, depth, Tail::Closed),
            Some(Wrap::Bare { .. }) => {}
            None if (wrappers::is_shell(&name) && reads_stdin(args))
                || runs_script_from_stdin(&name, args) =>
            {
                match &command.stdin_text {
                    Some(text) => self.nested(text, depth, Tail::Closed),
                    None => self.opaque = true,
                }
            }
            // `sh <(…)`, `source <(…)`, `bash "$f"`: the script is known only when it runs.
            None if runs_script(&name) && script_operand(args).is_some_and(|w| w.opaque) => {
                self.opaque = true;
            }
            None if script.defines_function(&name) => {}
            None => {}
        }
    }

    fn nested(&mut self, text: &str, depth: usize, tail: Tail<'_>) {
        if depth >= MAX_NESTING {
            self.opaque = true;
            return;
        }
        self.forms.push(text.trim().to_owned());
        match script::build(text) {
            Ok(inner) => self.collect(&inner, depth + 1, tail),
            Err(_) => self.opaque = true,
        }
    }
}

/// Commands that run a script file named by their first operand.
fn runs_script(name: &str) -> bool {
    wrappers::is_shell(name) || name == "." || name == "source"
}

/// The script file a shell or `source` runs: its first operand after the options.
fn script_operand(args: &[Word]) -> Option<&Word> {
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        match word.text.as_str() {
            "--" => return iter.next(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => {
                iter.next();
            }
            t if !word.opaque && (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 => {}
            _ => return Some(word),
        }
    }
    None
}

/// `bash /dev/stdin`, `. /dev/stdin`, `source /proc/self/fd/0`: a script read from stdin.
fn runs_script_from_stdin(name: &str, args: &[Word]) -> bool {
    runs_script(name)
        && script_operand(args).is_some_and(|w| {
            matches!(
                w.text.as_str(),
                "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "-"
            )
        })
}

/// `find … -exec CMD … ;` (and `-execdir`, `-ok`, `-okdir`): the commands find runs.
fn find_exec(args: &[Word]) -> Vec<&[Word]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(
            args[i].text.as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            let start = i + 1;
            let end = args[start..]
                .iter()
                .position(|w| w.text == ";" || w.text == "+")
                .map_or(args.len(), |p| start + p);
            out.push(&args[start..end]);
            i = end;
        }
        i += 1;
    }
    out
}

/// A shell given no script operand and no `-c` reads its script from stdin.
fn reads_stdin(args: &[Word]) -> bool {
    let mut iter = args.iter();
    for word in iter.by_ref() {
        match word.text.as_str() {
            "-s" => return true,
            "--" => return iter.next().is_none(),
            t if t.starts_with('-') || t.starts_with('+') => {}
            _ => return false,
        }
    }
    true
}

/// The line cut at every shell operator, each piece with and without its program's directory.
fn rough_pieces(line: &str) -> Vec<String> {
    let pieces = line.split(['\n', ';', '&', '|', '(', ')', '`', '{', '}', '<', '>']);
    let mut out = Vec::new();
    for piece in pieces {
        let piece = piece.trim().trim_start_matches('$').trim();
        if piece.is_empty() {
            continue;
        }
        out.push(piece.to_owned());
        if let Some((head, rest)) = piece.split_once(char::is_whitespace)
            && head.contains('/')
        {
            out.push(format!("{} {}", command_name(head), rest.trim_start()));
        }
    }
    out
}

/// The simple commands of a line an allow rule can judge one by one, or `None`.
fn plain_units(script: &Script<'_>, root: Node<'_>) -> Option<Vec<String>> {
    if script.has_error || script.too_deep {
        return None;
    }
    let harmless = script.redirects.iter().all(|r| match r.op {
        RedirectOp::Duplicate => r
            .target
            .text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-'),
        RedirectOp::Write | RedirectOp::Append => {
            !r.target.opaque && paths::is_harmless_sink(&r.target.text)
        }
        RedirectOp::Read => false,
    });
    if !harmless || script.commands.iter().any(|c| c.stdin_text.is_some()) {
        return None;
    }
    if !all_plain(root, 0) {
        return None;
    }
    Some(
        script
            .commands
            .iter()
            .map(|c| c.text.trim().to_owned())
            .collect(),
    )
}

fn all_plain(node: Node<'_>, depth: usize) -> bool {
    if depth > 256 {
        return false;
    }
    if node.is_named() && !PLAIN_KINDS.contains(&node.kind()) {
        return false;
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .all(|child| all_plain(child, depth + 1))
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
