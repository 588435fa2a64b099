//! Cutting a document into chunks of at most `size` characters, consecutive chunks sharing
//! `overlap` characters. With word boundaries a cut moves back to the last whitespace so no
//! word is split. Code-aware chunking cuts source files between top-level definitions with
//! the grammars Tether ships: shell (tree-sitter-bash, also used by the shell checks) and Go
//! (the one grammar docker-agent ships, 1.5 MB of C). Every other file type falls back to
//! text chunking, as docker-agent does for languages it has no grammar for. A code-aware
//! chunk also names the definitions it holds, for semantic summaries.

use std::fmt::Write as _;
use std::path::Path;

use tether_config::Chunking;

/// The definitions a code-aware chunk holds (empty for text chunks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    /// `(name, kind)` in order: kind is `function`, `method` or `type`.
    pub defined: Vec<(String, &'static str)>,
    /// A method's receiver (Go), for the first definition.
    pub receiver: Option<String>,
    /// The file's package (Go).
    pub package: Option<String>,
}

impl Symbols {
    /// Lines put above a semantic summary (each ends in a newline; empty when nothing is known).
    pub(crate) fn header(&self) -> String {
        let mut out = String::new();
        if let Some((name, kind)) = self.defined.first() {
            let _ = writeln!(out, "Function: {name} ({kind})");
        }
        if let Some(r) = &self.receiver {
            let _ = writeln!(out, "Receiver: {r}");
        }
        if let Some(p) = &self.package {
            let _ = writeln!(out, "Package: {p}");
        }
        if self.defined.len() > 1 {
            let _ = writeln!(out, "Also contains: {}", self.others());
        }
        out
    }

    /// The `${ast_context}` of a semantic prompt, as docker-agent formats it.
    pub(crate) fn ast_context(&self) -> String {
        let Some((name, kind)) = self.defined.first() else {
            return String::new();
        };
        let mut out = format!("AST context:\n- Symbol: {name}\n- Kind: {kind}");
        if let Some(r) = &self.receiver {
            let _ = write!(out, "\n- Receiver: {r}");
        }
        if let Some(p) = &self.package {
            let _ = write!(out, "\n- Package: {p}");
        }
        if self.defined.len() > 1 {
            let _ = write!(
                out,
                "\n- Additional symbols: {}\n- Symbol count: {}",
                self.others(),
                self.defined.len()
            );
        }
        out
    }

    fn others(&self) -> String {
        self.defined
            .iter()
            .skip(1)
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The grammars code-aware chunking knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grammar {
    Shell,
    Go,
}

impl Grammar {
    fn of(path: &Path) -> Option<Self> {
        match path.extension().and_then(|e| e.to_str())? {
            "sh" | "bash" => Some(Self::Shell),
            "go" => Some(Self::Go),
            _ => None,
        }
    }

    fn language(self) -> tree_sitter::Language {
        match self {
            Self::Shell => tree_sitter_bash::LANGUAGE.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

/// The chunks of `text`, in order; empty for a blank text.
pub fn chunk(text: &str, path: &Path, cfg: &Chunking) -> Vec<String> {
    chunks_with_symbols(text, path, cfg)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// The chunks of `text` with the definitions each holds.
pub fn chunks_with_symbols(text: &str, path: &Path, cfg: &Chunking) -> Vec<(String, Symbols)> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    if cfg.code_aware
        && let Some(grammar) = Grammar::of(path)
        && let Some(chunks) = code_chunks(text, grammar, cfg)
    {
        return chunks;
    }
    text_chunks(text, cfg)
        .into_iter()
        .map(|c| (c, Symbols::default()))
        .collect()
}

/// Plain text chunking by characters (not bytes: a cut never splits a character).
pub fn text_chunks(text: &str, cfg: &Chunking) -> Vec<String> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let size = cfg.size.max(1);
    let overlap = cfg.overlap.min(size - 1);
    let byte_at = |i: usize| if i >= n { text.len() } else { chars[i].0 };
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = (start + size).min(n);
        if cfg.respect_word_boundaries && end < n && !chars[end].1.is_whitespace() {
            // Back to the last whitespace inside the chunk, if the chunk has one past its
            // overlap (else the word is longer than the chunk and must be cut).
            if let Some(ws) = (start + overlap + 1..end)
                .rev()
                .find(|&i| chars[i].1.is_whitespace())
            {
                end = ws + 1;
            }
        }
        let piece = text[byte_at(start)..byte_at(end)].trim();
        if !piece.is_empty() {
            out.push(piece.to_owned());
        }
        if end >= n {
            break;
        }
        let mut next = end.saturating_sub(overlap).max(start + 1);
        if cfg.respect_word_boundaries && overlap > 0 {
            // Start the overlap at a word's beginning.
            while next < end && !chars[next - 1].1.is_whitespace() {
                next += 1;
            }
        }
        while next < n && chars[next].1.is_whitespace() {
            next += 1;
        }
        start = next;
    }
    out
}

/// Top-level nodes of a source file packed into chunks of at most `size` characters; a node
/// larger than that is text-chunked. `None` when the file does not parse at all.
fn code_chunks(text: &str, grammar: Grammar, cfg: &Chunking) -> Option<Vec<(String, Symbols)>> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar.language()).ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut package = None;
    let mut out = Vec::new();
    let mut current = String::new();
    let mut symbols = Symbols::default();
    let mut prev_end = 0;
    let flush = |current: &mut String, symbols: &mut Symbols, out: &mut Vec<(String, Symbols)>| {
        if !current.trim().is_empty() {
            out.push((current.trim().to_owned(), std::mem::take(symbols)));
        }
        current.clear();
        *symbols = Symbols::default();
    };
    for node in root.children(&mut cursor) {
        // Comments just before a definition travel with it.
        let piece = text.get(prev_end..node.end_byte())?;
        prev_end = node.end_byte();
        if node.kind() == "package_clause" {
            package = node
                .named_child(0)
                .and_then(|n| text.get(n.byte_range()))
                .map(str::to_owned);
        }
        let defined = definition(node, text);
        if piece.chars().count() > cfg.size {
            flush(&mut current, &mut symbols, &mut out);
            let mut own = Symbols::default();
            add(&mut own, defined);
            out.extend(
                text_chunks(piece, cfg)
                    .into_iter()
                    .map(|c| (c, own.clone())),
            );
            continue;
        }
        if current.chars().count() + piece.chars().count() > cfg.size {
            flush(&mut current, &mut symbols, &mut out);
        }
        current.push_str(piece);
        add(&mut symbols, defined);
    }
    if let Some(rest) = text.get(prev_end..) {
        current.push_str(rest);
    }
    flush(&mut current, &mut symbols, &mut out);
    for (_, s) in &mut out {
        s.package.clone_from(&package);
    }
    Some(out)
}

fn add(symbols: &mut Symbols, defined: Option<(String, &'static str, Option<String>)>) {
    if let Some((name, kind, receiver)) = defined {
        if symbols.defined.is_empty() {
            symbols.receiver = receiver;
        }
        symbols.defined.push((name, kind));
    }
}

/// The name, kind and receiver of a top-level definition.
fn definition(
    node: tree_sitter::Node<'_>,
    text: &str,
) -> Option<(String, &'static str, Option<String>)> {
    let field = |n: tree_sitter::Node<'_>, f: &str| {
        n.child_by_field_name(f)
            .and_then(|c| text.get(c.byte_range()))
            .map(str::to_owned)
    };
    match node.kind() {
        "function_definition" | "function_declaration" => {
            Some((field(node, "name")?, "function", None))
        }
        "method_declaration" => Some((field(node, "name")?, "method", field(node, "receiver"))),
        "type_declaration" => {
            let spec = node.named_child(0)?;
            Some((field(spec, "name")?, "type", None))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn cfg(size: usize, overlap: usize, words: bool) -> Chunking {
        Chunking {
            size,
            overlap,
            respect_word_boundaries: words,
            code_aware: true,
        }
    }

    #[test]
    fn chunks_respect_size_and_overlap() {
        let got = text_chunks("abcdefghij", &cfg(4, 1, false));
        assert_eq!(got, ["abcd", "defg", "ghij"]);
    }

    #[test]
    fn word_boundaries_never_cut_a_word() {
        let got = text_chunks("alpha beta gamma delta", &cfg(12, 0, true));
        assert_eq!(got, ["alpha beta", "gamma delta"]);
    }

    #[test]
    fn multibyte_text_is_cut_between_characters() {
        let got = text_chunks("ééééé", &cfg(2, 0, false));
        assert_eq!(got, ["éé", "éé", "é"]);
    }

    #[test]
    fn shell_scripts_are_cut_between_functions() {
        let script = "# one\nfoo() {\n  echo foo\n}\n\n# two\nbar() {\n  echo bar\n}\n";
        let got = chunk(script, Path::new("x.sh"), &cfg(30, 0, true));
        assert_eq!(
            got,
            [
                "# one\nfoo() {\n  echo foo\n}",
                "# two\nbar() {\n  echo bar\n}"
            ]
        );
    }

    #[test]
    fn other_files_fall_back_to_text_chunking() {
        let got = chunk(
            "fn a() {}\nfn b() {}\n",
            Path::new("x.rs"),
            &cfg(9, 0, true),
        );
        assert_eq!(got, ["fn a() {}", "fn b() {}"]);
    }

    #[test]
    fn go_files_are_cut_between_declarations_and_name_them() {
        let src = "package store\n\n// Open opens.\nfunc Open() {}\n\ntype DB struct{}\n\nfunc (d *DB) Close() error {\n\treturn nil\n}\n";
        let got = chunks_with_symbols(src, Path::new("db.go"), &cfg(70, 0, true));
        let texts: Vec<&str> = got.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            texts,
            [
                "package store\n\n// Open opens.\nfunc Open() {}\n\ntype DB struct{}",
                "func (d *DB) Close() error {\n\treturn nil\n}"
            ]
        );
        assert_eq!(
            got[0].1.defined,
            [("Open".to_owned(), "function"), ("DB".to_owned(), "type")]
        );
        assert_eq!(got[1].1.receiver.as_deref(), Some("(d *DB)"));
        assert_eq!(got[1].1.package.as_deref(), Some("store"));
        assert_eq!(
            got[1].1.ast_context(),
            "AST context:\n- Symbol: Close\n- Kind: method\n- Receiver: (d *DB)\n- Package: store"
        );
        assert_eq!(
            got[0].1.header(),
            "Function: Open (function)\nPackage: store\nAlso contains: DB\n"
        );
    }
}
