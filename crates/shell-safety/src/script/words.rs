//! Shell words evaluated while the tree is walked: quotes removed, `$(echo …)` resolved where
//! its output is literal, expansions kept as their source text and marked.

use tree_sitter::Node;

use super::Builder;
use crate::word::{self, Word};

impl<'s> Builder<'s> {
    pub(super) fn word(&mut self, node: Node<'_>, depth: usize) -> Word {
        let mut word = Word::default();
        self.append(node, &mut word, depth);
        word
    }

    pub(super) fn append(&mut self, node: Node<'_>, word: &mut Word, depth: usize) {
        if self.deep(depth) {
            word.opaque = true;
            return;
        }
        let src = self.text(node);
        match node.kind() {
            "word" => word.glob |= word::push_unquoted(src, &mut word.text),
            "raw_string" => word.text.push_str(strip(src, "'", "'")),
            "ansi_c_string" => word::push_ansi_c(strip(src, "$'", "'"), &mut word.text),
            "string" | "translated_string" => self.append_string(node, word, depth),
            "simple_expansion" | "expansion" | "arithmetic_expansion" => {
                word.computed = true;
                word.opaque = true;
                word.text.push_str(src);
            }
            "command_substitution" | "process_substitution" => {
                word.computed = true;
                let resolved = if node.kind() == "command_substitution" {
                    match self.resolved.get(&node.id()) {
                        Some(known) => known.clone(),
                        None => {
                            let value = self.resolve_echo(node, depth);
                            self.resolved.insert(node.id(), value.clone());
                            value
                        }
                    }
                } else {
                    None
                };
                match resolved {
                    Some(text) => word.text.push_str(&text),
                    None => {
                        word.opaque = true;
                        word.text.push_str(src);
                    }
                }
                word.fetches |= self.fetching.contains(&node.id());
            }
            "brace_expression" => {
                word.glob = true;
                word.text.push_str(src);
            }
            "concatenation" | "command_name" => {
                let mut cursor = node.walk();
                let mut open = None;
                for child in node.children(&mut cursor) {
                    // The grammar leaves `{a,b}` as plain words; bash expands it into several.
                    match (child.kind(), self.text(child)) {
                        ("word", "{") => open = Some(child.end_byte()),
                        ("word", "}") => {
                            let source = self.script.source;
                            let inner = open.and_then(|o| source.get(o..child.start_byte()));
                            word.glob |= inner.is_some_and(|i| i.contains(',') || i.contains(".."));
                        }
                        _ => {}
                    }
                    self.append(child, word, depth + 1);
                }
            }
            _ => word.text.push_str(src),
        }
    }

    /// Double-quoted strings: literal gaps between the children are content too.
    pub(super) fn append_string(&mut self, node: Node<'_>, word: &mut Word, depth: usize) {
        let source = self.script.source;
        let open = if node.kind() == "translated_string" {
            2
        } else {
            1
        };
        let end = node.end_byte().saturating_sub(1).max(node.start_byte());
        let mut pos = node.start_byte() + open;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.start_byte() > pos {
                word::push_double_quoted(
                    source.get(pos..child.start_byte()).unwrap_or(""),
                    &mut word.text,
                );
            }
            pos = pos.max(child.end_byte());
            match child.kind() {
                "string_content" => word::push_double_quoted(self.text(child), &mut word.text),
                _ if !child.is_named() => {}
                _ => self.append(child, word, depth + 1),
            }
        }
        if end > pos {
            word::push_double_quoted(source.get(pos..end).unwrap_or(""), &mut word.text);
        }
    }

    /// Resolves `$(echo rm)` / `` `printf rm` `` with literal arguments to their output, so a
    /// command name built that way is still recognised.
    pub(super) fn resolve_echo(&mut self, node: Node<'_>, depth: usize) -> Option<String> {
        let mut cursor = node.walk();
        let mut inner = node.named_children(&mut cursor);
        let only = inner.next()?;
        if inner.next().is_some() || only.kind() != "command" {
            return None;
        }
        let mut words = Vec::new();
        let mut cursor = only.walk();
        let mut more = cursor.goto_first_child();
        while more {
            match cursor.field_name() {
                Some("name" | "argument") => words.push(self.word(cursor.node(), depth + 1)),
                _ if cursor.node().is_named() => return None,
                _ => {}
            }
            more = cursor.goto_next_sibling();
        }
        if words.iter().any(|w| w.opaque) {
            return None;
        }
        let (name, args) = words.split_first()?;
        let output = match word::command_name(&name.text).as_str() {
            "echo" => {
                let start = args.iter().take_while(|a| is_echo_flag(&a.text)).count();
                let texts: Vec<&str> = args[start..].iter().map(Word::as_str).collect();
                texts.join(" ")
            }
            "printf" if args.len() == 1 && !args[0].text.contains(['%', '\\']) => {
                args[0].text.clone()
            }
            _ => return None,
        };
        Some(output.trim_end_matches('\n').to_owned())
    }
}

fn is_echo_flag(text: &str) -> bool {
    text.len() > 1
        && text.starts_with('-')
        && text[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
}

fn strip<'a>(src: &'a str, open: &str, close: &str) -> &'a str {
    src.strip_prefix(open)
        .and_then(|s| s.strip_suffix(close))
        .unwrap_or(src)
}
