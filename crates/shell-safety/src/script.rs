//! From a tree-sitter tree to an owned model of what a script runs.
//!
//! Rules never look at syntax nodes: they see [`Command`]s (evaluated words, prefix
//! assignments, what arrives on stdin), [`Redirect`]s, [`Script::pipelines`] and
//! [`Function`]s. Every `command` node anywhere in the tree becomes a `Command`, whether it sits
//! in a list, a loop body, a `$(…)` inside an argument or a heredoc, so no rule can miss a
//! command because of where it was written. Recursion over the tree is bounded; a deeper tree is
//! reported as [`Script::too_deep`] rather than risking the stack.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::scan::{fetching_substitutions, subtree_any};
use crate::word::Word;
use crate::{Error, parser};

mod evaluated;
mod words;

pub(crate) use evaluated::is_integer;

/// Deepest syntax-tree nesting we walk (long `&&` chains nest one level per operator).
const MAX_TREE_DEPTH: usize = 256;

/// What one parsed script runs.
#[derive(Debug, Default)]
pub(crate) struct Script<'s> {
    pub(crate) source: &'s str,
    /// Every simple command, in source order of their first token.
    pub(crate) commands: Vec<Command<'s>>,
    /// Every file redirection (`>`, `>>`, `<`, `>&`), wherever it appears.
    pub(crate) redirects: Vec<Redirect<'s>>,
    /// Each pipeline's stages; a stage is the index of its command when the stage is a simple
    /// command (possibly redirected), `None` for subshells, groups and the like.
    pub(crate) pipelines: Vec<Vec<Option<usize>>>,
    pub(crate) functions: Vec<Function<'s>>,
    /// Top-level statements (comments excluded); zero for an empty command.
    pub(crate) statements: usize,
    /// tree-sitter had to recover from a syntax error somewhere.
    pub(crate) has_error: bool,
    /// Part of the tree was deeper than we walk.
    pub(crate) too_deep: bool,
    /// Text bash evaluates as arithmetic or as a variable name at run time, and variables
    /// assigned without a `NAME=value` word.
    pub(crate) evaluated: Evaluated<'s>,
}

/// What bash evaluates besides commands: an arithmetic expression evaluates the variables it
/// names, and an array subscript inside one runs the `$(…)` it holds, so `x='a[$(cmd)]';
/// echo $((x))` runs `cmd`.
#[derive(Debug, Default)]
pub(crate) struct Evaluated<'s> {
    /// Arithmetic text: `$((…))`, `((…))`, `for ((…))`, array subscripts, `${v:offset}`, the
    /// operands of `[[ a -eq b ]]`; names whose value is itself read as a name: `${!name}`,
    /// `${name@P}` (prompt expansion), the subscript in `[[ -v a[i] ]]`; and the unquoted
    /// expansions of `[ … ]`, which split into words that may become operators.
    pub(crate) texts: Vec<Evaluation<'s>>,
    /// Variables set by `for NAME in …`, `select NAME in …` and `${NAME:=value}`, with the
    /// text that sets them.
    pub(crate) assigned: Vec<(Assignment, &'s str)>,
}

/// One piece of text bash evaluates, and the construct it sits in (for the finding).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Evaluation<'s> {
    /// What bash evaluates (`x` of `${!x}`, `i` of `a[i]`).
    pub(crate) text: &'s str,
    /// The construct around it (`${!x}`, `a[i]`), quoted in the finding.
    pub(crate) shown: &'s str,
}

impl Script<'_> {
    pub(crate) fn defines_function(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f.name == name)
    }
}

/// One simple command: `NAME=value … name args…`.
#[derive(Debug)]
pub(crate) struct Command<'s> {
    /// Source text of the command (without its redirections).
    pub(crate) text: &'s str,
    pub(crate) assignments: Vec<Assignment>,
    /// Name and arguments, evaluated; empty for a bare assignment.
    pub(crate) argv: Vec<Word>,
    /// Heredoc body or here-string fed to the command.
    pub(crate) stdin_text: Option<String>,
    /// stdin comes from a substitution that downloads (`bash < <(curl …)`).
    pub(crate) stdin_fetches: bool,
}

impl<'s> Command<'s> {
    /// A command with nothing parsed yet but its source text.
    fn new(text: &'s str) -> Self {
        Self {
            text,
            assignments: Vec::new(),
            argv: Vec::new(),
            stdin_text: None,
            stdin_fetches: false,
        }
    }
}

/// A `NAME=value` prefix, bare statement or `export`/`local` operand.
#[derive(Debug)]
pub(crate) struct Assignment {
    pub(crate) name: String,
    pub(crate) value: Word,
}

/// A file redirection and the statement it belongs to.
#[derive(Debug)]
pub(crate) struct Redirect<'s> {
    pub(crate) op: RedirectOp,
    pub(crate) target: Word,
    /// Source text of the redirected statement, for the finding.
    pub(crate) text: &'s str,
    /// The simple command whose output is redirected, if the statement is one.
    pub(crate) command: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectOp {
    /// `<`, `<&`
    Read,
    /// `>`, `>|`, `&>`: truncates the target.
    Write,
    /// `>>`, `&>>`
    Append,
    /// `>&N`: duplicates a descriptor, or writes to a file when the target is not a number.
    Duplicate,
}

/// A shell function definition, summarised for fork-bomb detection.
#[derive(Debug)]
pub(crate) struct Function<'s> {
    pub(crate) text: &'s str,
    pub(crate) name: String,
    /// How many commands in the body call the function itself.
    pub(crate) self_calls: usize,
    /// The body puts something in the background (`&`).
    pub(crate) backgrounds: bool,
}

/// Parses `source` and builds its model.
pub(crate) fn build(source: &str) -> Result<Script<'_>, Error> {
    build_with_tree(source).map(|(script, _)| script)
}

/// [`build`], keeping the syntax tree for callers that look at node kinds too.
pub(crate) fn build_with_tree(source: &str) -> Result<(Script<'_>, tree_sitter::Tree), Error> {
    let tree = parser::parse(source)?;
    let script = build_from(source, &tree);
    Ok((script, tree))
}

fn build_from<'s>(source: &'s str, tree: &tree_sitter::Tree) -> Script<'s> {
    let root = tree.root_node();
    let mut builder = Builder {
        script: Script {
            source,
            has_error: root.has_error(),
            ..Script::default()
        },
        fetching: fetching_substitutions(root, source),
        resolved: HashMap::new(),
    };
    let mut cursor = root.walk();
    builder.script.statements = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .count();
    builder.walk(root, 0);
    builder.script
}

struct Builder<'s> {
    script: Script<'s>,
    /// Ids of substitution nodes with a downloader somewhere inside.
    fetching: HashSet<usize>,
    /// `$(echo …)` resolutions by node id: nested substitutions are evaluated once, not once
    /// per enclosing level.
    resolved: HashMap<usize, Option<String>>,
}

impl<'s> Builder<'s> {
    fn text(&self, node: Node<'_>) -> &'s str {
        self.script.source.get(node.byte_range()).unwrap_or("")
    }

    /// Whether `depth` is past the limit; only that branch is skipped, so a command after a
    /// pathological one is still seen.
    fn deep(&mut self, depth: usize) -> bool {
        let deep = depth > MAX_TREE_DEPTH;
        self.script.too_deep |= deep;
        deep
    }

    fn walk(&mut self, node: Node<'_>, depth: usize) {
        if self.deep(depth) {
            return;
        }
        match node.kind() {
            "command" => self.command(node, depth),
            "redirected_statement" => self.redirected(node, depth),
            "pipeline" => self.pipeline(node, None, depth),
            "file_redirect" => {
                let text = node.parent().map_or("", |parent| self.text(parent));
                self.file_redirect(node, text, None, depth);
            }
            "function_definition" => self.function(node, depth),
            "declaration_command" | "unset_command" => self.declaration(node, depth),
            "arithmetic_expansion" | "c_style_for_statement" => {
                let text = match node.child_by_field_name("body") {
                    Some(body) => self.span(node.start_byte(), body.start_byte()),
                    None => self.text(node),
                };
                self.evaluates(text, text);
                self.children(node, depth);
            }
            "compound_statement" if node.child(0).is_some_and(|c| c.kind() == "((") => {
                self.evaluates(self.text(node), self.text(node));
                self.children(node, depth);
            }
            "subscript" => {
                if let Some(index) = node.child_by_field_name("index") {
                    self.evaluates(self.text(index), self.text(node));
                }
                self.children(node, depth);
            }
            "test_command" => {
                if node.child(0).is_some_and(|c| c.kind() == "[") {
                    self.split_expansions(node);
                }
                self.children(node, depth);
            }
            "expansion" => {
                self.expansion(node, depth);
                self.children(node, depth);
            }
            "binary_expression" | "unary_expression" => {
                self.test_operands(node);
                self.children(node, depth);
            }
            "for_statement" => {
                self.loop_variable(node, depth);
                self.children(node, depth);
            }
            "array" => {
                self.array_indices(node);
                self.children(node, depth);
            }
            "variable_assignment"
                if !node
                    .parent()
                    .is_some_and(|p| matches!(p.kind(), "command" | "declaration_command")) =>
            {
                let assignment = self.assignment(node, depth);
                self.script.commands.push(Command {
                    assignments: vec![assignment],
                    ..Command::new(self.text(node))
                });
                self.children(node, depth);
            }
            _ => self.children(node, depth),
        }
    }

    fn children(&mut self, node: Node<'_>, depth: usize) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.walk(child, depth + 1);
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize) {
        let index = self.script.commands.len();
        let mut command = Command::new(self.text(node));
        let mut cursor = node.walk();
        let mut more = cursor.goto_first_child();
        while more {
            let child = cursor.node();
            match (cursor.field_name(), child.kind()) {
                (Some("name" | "argument"), _) => command.argv.push(self.word(child, depth + 1)),
                (_, "variable_assignment") => {
                    command.assignments.push(self.assignment(child, depth + 1));
                }
                (_, "herestring_redirect") => {
                    let stdin = self.herestring(child, depth + 1);
                    command.stdin_fetches |= stdin.fetches;
                    command.stdin_text = Some(stdin.text);
                }
                _ => {}
            }
            more = cursor.goto_next_sibling();
        }
        let text = command.text;
        self.script.commands.push(command);
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "file_redirect" {
                self.file_redirect(child, text, Some(index), depth + 1);
            } else {
                self.walk(child, depth + 1);
            }
        }
    }

    fn declaration(&mut self, node: Node<'_>, depth: usize) {
        let mut command = Command::new(self.text(node));
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                if command.argv.is_empty() {
                    command.argv.push(Word::literal(child.kind()));
                }
            } else if child.kind() == "variable_assignment" {
                command.assignments.push(self.assignment(child, depth + 1));
            } else if child.kind() != "comment" {
                command.argv.push(self.word(child, depth + 1));
            }
        }
        self.script.commands.push(command);
        self.children(node, depth);
    }

    fn assignment(&mut self, node: Node<'_>, depth: usize) -> Assignment {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_owned())
            .unwrap_or_default();
        let value = node
            .child_by_field_name("value")
            .map(|v| self.word(v, depth + 1))
            .unwrap_or_default();
        Assignment { name, value }
    }

    fn herestring(&mut self, node: Node<'_>, depth: usize) -> Word {
        let mut cursor = node.walk();
        let mut words = node.named_children(&mut cursor);
        words
            .next()
            .map(|w| self.word(w, depth + 1))
            .unwrap_or_default()
    }

    fn redirected(&mut self, node: Node<'_>, depth: usize) {
        let text = self.text(node);
        let body = node
            .child_by_field_name("body")
            .filter(|b| b.kind() == "command")
            .map(|_| self.script.commands.len());
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "file_redirect" => self.file_redirect(child, text, body, depth + 1),
                "heredoc_redirect" => self.heredoc(child, text, body, depth + 1),
                "herestring_redirect" => {
                    let stdin = self.herestring(child, depth + 1);
                    if let Some(command) = body.and_then(|i| self.script.commands.get_mut(i)) {
                        command.stdin_fetches |= stdin.fetches;
                        command.stdin_text = Some(stdin.text);
                    }
                    self.walk(child, depth + 1);
                }
                _ => self.walk(child, depth + 1),
            }
        }
    }

    fn heredoc(&mut self, node: Node<'_>, text: &'s str, body: Option<usize>, depth: usize) {
        if self.deep(depth) {
            return;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "heredoc_body" => {
                    let content = self.text(child).to_owned();
                    if let Some(command) = body.and_then(|i| self.script.commands.get_mut(i)) {
                        command.stdin_text = Some(content);
                    }
                    self.walk(child, depth + 1);
                }
                // `cat <<EOF | sh`: the pipeline hangs off the heredoc; the body is stage 0.
                "pipeline" => self.pipeline(child, Some(body), depth + 1),
                "file_redirect" => self.file_redirect(child, text, body, depth + 1),
                _ => self.walk(child, depth + 1),
            }
        }
    }

    fn file_redirect(
        &mut self,
        node: Node<'_>,
        text: &'s str,
        command: Option<usize>,
        depth: usize,
    ) {
        if self.deep(depth) {
            return;
        }
        let mut op = None;
        let mut target = None;
        let mut cursor = node.walk();
        let mut more = cursor.goto_first_child();
        while more {
            let child = cursor.node();
            if cursor.field_name() == Some("destination") {
                if target.is_none() {
                    target = Some(self.word(child, depth + 1));
                }
            } else if !child.is_named() && op.is_none() {
                op = Some(match child.kind() {
                    "<" | "<&" | "<&-" => RedirectOp::Read,
                    ">>" | "&>>" => RedirectOp::Append,
                    ">&" | ">&-" => RedirectOp::Duplicate,
                    _ => RedirectOp::Write,
                });
            }
            more = cursor.goto_next_sibling();
        }
        let target = target.unwrap_or_default();
        let op = op.unwrap_or(RedirectOp::Write);
        if op == RedirectOp::Read
            && target.fetches
            && let Some(owner) = command.and_then(|i| self.script.commands.get_mut(i))
        {
            owner.stdin_fetches = true;
        }
        self.script.redirects.push(Redirect {
            op,
            target,
            text,
            command,
        });
        self.children(node, depth);
    }

    /// `prefix` is the heredoc command that feeds a pipeline written after `<<EOF`.
    fn pipeline(&mut self, node: Node<'_>, prefix: Option<Option<usize>>, depth: usize) {
        if self.deep(depth) {
            return;
        }
        let mut stages: Vec<Option<usize>> = prefix.into_iter().collect();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() || child.kind() == "comment" {
                continue;
            }
            let before = self.script.commands.len();
            let simple = match child.kind() {
                "command" => true,
                "redirected_statement" => child
                    .child_by_field_name("body")
                    .is_some_and(|b| b.kind() == "command"),
                _ => false,
            };
            self.walk(child, depth + 1);
            stages.push(simple.then_some(before));
        }
        self.script.pipelines.push(stages);
    }

    fn function(&mut self, node: Node<'_>, depth: usize) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_owned())
            .unwrap_or_default();
        let start = self.script.commands.len();
        self.children(node, depth);
        let self_calls = self.script.commands[start..]
            .iter()
            .filter(|c| c.argv.first().is_some_and(|w| w.text == name))
            .count();
        let backgrounds = node
            .child_by_field_name("body")
            .is_some_and(|body| subtree_any(body, |n| n.kind() == "&" && !n.is_named()));
        self.script.functions.push(Function {
            text: self.text(node),
            name,
            self_calls,
            backgrounds,
        });
    }
}
