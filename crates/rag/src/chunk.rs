//! Cutting a document into chunks of at most `size` characters, consecutive chunks sharing
//! `overlap` characters. With word boundaries a cut moves back to the last whitespace so no
//! word is split. Code-aware chunking cuts shell scripts between top-level commands and
//! function definitions (the grammar Tether ships, tree-sitter-bash); every other file type
//! falls back to text chunking, as docker-agent does for languages it has no grammar for.

use std::path::Path;

use tether_config::Chunking;

/// The chunks of `text`, in order; empty for a blank text.
pub fn chunk(text: &str, path: &Path, cfg: &Chunking) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let is_shell = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("sh" | "bash")
    );
    if cfg.code_aware
        && is_shell
        && let Some(chunks) = shell_chunks(text, cfg)
    {
        return chunks;
    }
    text_chunks(text, cfg)
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

/// Top-level nodes of a shell script packed into chunks of at most `size` characters; a node
/// larger than that is text-chunked. `None` when the script does not parse at all.
fn shell_chunks(text: &str, cfg: &Chunking) -> Option<Vec<String>> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_end = 0;
    for node in root.children(&mut cursor) {
        // Comments just before a definition travel with it.
        let piece = text.get(prev_end..node.end_byte())?;
        prev_end = node.end_byte();
        if piece.chars().count() > cfg.size {
            if !current.trim().is_empty() {
                out.push(current.trim().to_owned());
            }
            current.clear();
            out.extend(text_chunks(piece, cfg));
            continue;
        }
        if current.chars().count() + piece.chars().count() > cfg.size && !current.trim().is_empty()
        {
            out.push(current.trim().to_owned());
            current.clear();
        }
        current.push_str(piece);
    }
    if let Some(rest) = text.get(prev_end..) {
        current.push_str(rest);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    Some(out)
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
}
