//! The text a script hands bash to evaluate as code: arithmetic, array subscripts, name
//! references, `[[ … ]]` operands and expansions with operators (`Script::evaluated`), found
//! while the tree is walked.

use tree_sitter::Node;

use super::{Assignment, Builder, Evaluation};
use crate::word::Word;

impl<'s> Builder<'s> {
    pub(super) fn span(&self, start: usize, end: usize) -> &'s str {
        self.script.source.get(start..end).unwrap_or("").trim_end()
    }

    pub(super) fn evaluates(&mut self, text: &'s str, shown: &'s str) {
        self.script.evaluated.texts.push(Evaluation { text, shown });
    }

    /// The unquoted expansions of `[ … ]` (not inside another command).
    pub(super) fn split_expansions(&mut self, test: Node<'_>) {
        let mut stack = vec![test];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                match child.kind() {
                    "simple_expansion"
                    | "expansion"
                    | "command_substitution"
                    | "process_substitution" => {
                        self.evaluates(self.text(child), self.text(test));
                    }
                    "string" | "raw_string" | "ansi_c_string" | "translated_string" => {}
                    _ => stack.push(child),
                }
            }
        }
    }

    /// `${!name}`, `${name@P}`, `${name:offset:length}` and `${name:=value}`.
    pub(super) fn expansion(&mut self, node: Node<'_>, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let name = children
            .iter()
            .find(|c| c.kind() == "variable_name")
            .map(|c| self.text(*c));
        for (i, child) in children.iter().enumerate() {
            let next = children.get(i + 1);
            match child.kind() {
                "!" if next.is_some_and(|n| n.kind() == "variable_name") => {
                    if let Some(name) = name {
                        self.evaluates(name, self.text(node));
                    }
                }
                "@" if next.is_some_and(|n| n.kind() == "P") => {
                    if let Some(name) = name {
                        self.evaluates(name, self.text(node));
                    }
                }
                ":" => {
                    let end = children.last().map_or(node.end_byte(), Node::start_byte);
                    let text = self.span(child.end_byte(), end);
                    self.evaluates(text, self.text(node));
                    return;
                }
                ":=" | "=" => {
                    let Some(name) = name else { return };
                    let value = match next.filter(|n| n.is_named()) {
                        Some(value) => self.word(*value, depth + 1),
                        None => Word::default(),
                    };
                    let assignment = Assignment {
                        name: name.to_owned(),
                        value,
                    };
                    let text = self.text(node);
                    self.script.evaluated.assigned.push((assignment, text));
                    return;
                }
                _ => {}
            }
        }
    }

    /// `[[ a -eq b ]]` evaluates both operands as arithmetic (`[ a -eq b ]` only reads
    /// numbers); `-v a[i]` and `-R a[i]` evaluate the subscript in either.
    pub(super) fn test_operands(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let Some(operator) = node
            .children(&mut cursor)
            .find(|c| c.kind() == "test_operator")
        else {
            return;
        };
        let shown = self.text(node);
        match self.text(operator) {
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" if in_double_brackets(node) => {
                let mut cursor = node.walk();
                for operand in node.named_children(&mut cursor) {
                    if operand.id() != operator.id() {
                        self.evaluates(self.text(operand), shown);
                    }
                }
            }
            "-v" | "-R" => {
                let Some(operand) = operator.next_named_sibling() else {
                    return;
                };
                let text = self.text(operand);
                let plain = text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
                if let Some(open) = text.find('[') {
                    self.evaluates(&text[open..], shown);
                } else if !plain {
                    self.evaluates(text, shown);
                }
            }
            _ => {}
        }
    }

    /// `for NAME in words` sets `NAME` to each word in turn (to the positional parameters
    /// without `in`); only whole numbers are known to be harmless in arithmetic.
    pub(super) fn loop_variable(&mut self, node: Node<'_>, depth: usize) {
        let Some(variable) = node.child_by_field_name("variable") else {
            return;
        };
        let mut cursor = node.walk();
        let values: Vec<Node<'_>> = node.children_by_field_name("value", &mut cursor).collect();
        let mut numbers = !values.is_empty();
        for value in &values {
            let word = self.word(*value, depth + 1);
            numbers &= !word.opaque && (is_integer(&word.text) || is_number_range(&word.text));
        }
        let value = if numbers {
            Word::literal("0")
        } else {
            Word {
                text: "$@".to_owned(),
                computed: true,
                opaque: true,
                ..Word::default()
            }
        };
        let end = node
            .child_by_field_name("body")
            .map_or(node.end_byte(), |b| b.start_byte());
        let assignment = Assignment {
            name: self.text(variable).to_owned(),
            value,
        };
        let text = self.span(node.start_byte(), end);
        self.script.evaluated.assigned.push((assignment, text));
    }

    /// `a=([i]=x)`: an indexed array's subscripts are arithmetic.
    pub(super) fn array_indices(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        for element in node.named_children(&mut cursor) {
            let text = self.text(element);
            if let Some(index) = text
                .strip_prefix('[')
                .and_then(|rest| rest.find("]=").map(|end| &rest[..end]))
            {
                self.evaluates(index, text);
            }
        }
    }
}

/// Whether a test expression sits in `[[ … ]]` rather than `[ … ]`.
fn in_double_brackets(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(parent) = current {
        if parent.kind() == "test_command" {
            return parent.child(0).is_some_and(|c| c.kind() == "[[");
        }
        current = parent.parent();
    }
    false
}

/// `42`, `-1`: a literal whole number.
pub(crate) fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `{1..10}` or `{1..10..2}`: a brace expansion into whole numbers.
fn is_number_range(text: &str) -> bool {
    text.strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .is_some_and(|inner| {
            let parts: Vec<&str> = inner.split("..").collect();
            (2..=3).contains(&parts.len()) && parts.iter().all(|p| is_integer(p))
        })
}
