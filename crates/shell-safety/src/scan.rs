//! Scans of the syntax tree that do not build the model: which substitutions download
//! something, and pre-order searches. Iterative (no recursion), so a deep tree costs time
//! proportional to its size and no stack.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::{rules, word, wrappers};

pub(crate) fn src_of<'a>(source: &'a str, node: Node<'_>) -> &'a str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Whether a `command` node runs a downloader, directly or behind a wrapper (`sudo curl`).
fn runs_downloader(command: Node<'_>, source: &str) -> bool {
    let mut names = Vec::new();
    let mut cursor = command.walk();
    let mut more = cursor.goto_first_child();
    while more {
        let node = cursor.node();
        // Only short literal words can name a program; skipping the rest keeps this linear
        // when arguments are themselves long nested substitutions.
        let literal = matches!(
            node.kind(),
            "command_name" | "word" | "raw_string" | "string"
        ) && node.byte_range().len() <= 64;
        if matches!(cursor.field_name(), Some("name" | "argument")) && literal {
            let cleaned: String = src_of(source, node)
                .chars()
                .filter(|c| !matches!(c, '\\' | '\'' | '"'))
                .collect();
            names.push(word::command_name(&cleaned));
        }
        more = cursor.goto_next_sibling();
    }
    let Some((first, rest)) = names.split_first() else {
        return false;
    };
    rules::is_downloader(first)
        || (wrappers::is_prefix_wrapper(first) && rest.iter().any(|n| rules::is_downloader(n)))
}

/// Substitutions (`$(…)`, `<(…)`) that run a downloader anywhere inside, found in one pass:
/// each downloader marks its enclosing substitutions, innermost first, stopping at one already
/// marked (everything outside it is marked too).
pub(crate) fn fetching_substitutions(root: Node<'_>, source: &str) -> HashSet<usize> {
    let is_substitution =
        |n: Node<'_>| matches!(n.kind(), "command_substitution" | "process_substitution");
    let mut marked = HashSet::new();
    let mut open: Vec<usize> = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if is_substitution(node) {
            open.push(node.id());
        }
        if node.kind() == "command" && !open.is_empty() && runs_downloader(node, source) {
            for id in open.iter().rev() {
                if !marked.insert(*id) {
                    break;
                }
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if is_substitution(cursor.node()) {
                open.pop();
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return marked;
            }
        }
    }
}

/// Pre-order search of a subtree without recursion.
pub(crate) fn subtree_any(node: Node<'_>, mut pred: impl FnMut(Node<'_>) -> bool) -> bool {
    let mut cursor = node.walk();
    loop {
        if pred(cursor.node()) {
            return true;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return false;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::parser;

    fn fetching_texts(source: &str) -> Vec<String> {
        let Ok(tree) = parser::parse(source) else {
            return Vec::new();
        };
        let marked = fetching_substitutions(tree.root_node(), source);
        let mut texts = Vec::new();
        let mut cursor = tree.root_node().walk();
        loop {
            let node = cursor.node();
            if marked.contains(&node.id()) {
                texts.push(src_of(source, node).to_owned());
            }
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return texts;
                }
            }
        }
    }

    #[test]
    fn every_substitution_around_a_download_is_marked() {
        assert_eq!(
            fetching_texts("echo $(a $(sudo curl -s x) b) $(ls) <(wget y)"),
            vec!["$(a $(sudo curl -s x) b)", "$(sudo curl -s x)", "<(wget y)"]
        );
        assert_eq!(fetching_texts("curl x | sh"), Vec::<String>::new());
    }
}
