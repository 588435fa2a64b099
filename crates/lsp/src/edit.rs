//! Applying a server's text edits to files on disk. Positions are UTF-16 code units, as
//! LSP counts them by default; a server's edit never writes outside the workspace.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::uri;

/// One edit: a range of (line, UTF-16 column) positions and its new text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextEdit {
    start: (usize, usize),
    end: (usize, usize),
    new_text: String,
}

fn position(v: &Value, at: &str) -> Option<(usize, usize)> {
    let p = v.pointer(at)?;
    let line = usize::try_from(p.get("line")?.as_u64()?).ok()?;
    let col = usize::try_from(p.get("character")?.as_u64()?).ok()?;
    Some((line, col))
}

/// `TextEdit[]` from a server's answer.
pub(crate) fn text_edits(v: &Value) -> Result<Vec<TextEdit>, String> {
    let list = v.as_array().ok_or("the server's edits are not a list")?;
    list.iter()
        .map(|e| {
            Some(TextEdit {
                start: position(e, "/range/start")?,
                end: position(e, "/range/end")?,
                new_text: e.get("newText")?.as_str()?.to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| "the server sent a malformed text edit".to_owned())
}

/// The byte offset of a (line, UTF-16 column) position; past the end of a line is its end,
/// past the last line is the end of the text.
fn offset(text: &str, (line, col): (usize, usize)) -> usize {
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0;
    for (i, c) in text[start..end].char_indices() {
        if units >= col {
            return start + i;
        }
        units += c.len_utf16();
    }
    end
}

/// `text` with `edits` applied (they are non-overlapping, as LSP requires; applied from the
/// last to the first so earlier offsets stay valid).
pub(crate) fn apply(text: &str, edits: &[TextEdit]) -> Result<String, String> {
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, e.start),
                offset(text, e.end),
                e.new_text.as_str(),
            )
        })
        .collect();
    spans.sort_by_key(|s| (s.0, s.1));
    for pair in spans.windows(2) {
        if pair[0].1 > pair[1].0 {
            return Err("the server sent overlapping edits".to_owned());
        }
    }
    let mut out = text.to_owned();
    for (start, end, new) in spans.into_iter().rev() {
        if start > end {
            return Err("the server sent an edit whose end is before its start".to_owned());
        }
        out.replace_range(start..end, new);
    }
    Ok(out)
}

/// Edits per file of a `WorkspaceEdit`, in the order the server gave them.
pub(crate) fn workspace_edit(v: &Value) -> Result<Vec<(PathBuf, Vec<TextEdit>)>, String> {
    let mut out: Vec<(PathBuf, Vec<TextEdit>)> = Vec::new();
    let mut add = |uri_text: &str, edits: &Value| -> Result<(), String> {
        let path = uri::to_path(uri_text)
            .ok_or_else(|| format!("the server wants to edit `{uri_text}`, which is not a file"))?;
        let edits = text_edits(edits)?;
        match out.iter_mut().find(|(p, _)| *p == path) {
            Some((_, list)) => list.extend(edits),
            None => out.push((path, edits)),
        }
        Ok(())
    };
    if let Some(changes) = v.get("documentChanges").and_then(Value::as_array) {
        for change in changes {
            if change.get("kind").is_some() {
                return Err(
                    "the server wants to create, rename or delete files, which Tether does not do"
                        .to_owned(),
                );
            }
            let uri_text = change
                .pointer("/textDocument/uri")
                .and_then(Value::as_str)
                .ok_or("the server sent a malformed document change")?;
            add(uri_text, change.get("edits").unwrap_or(&Value::Null))?;
        }
    } else if let Some(changes) = v.get("changes").and_then(Value::as_object) {
        for (uri_text, edits) in changes {
            add(uri_text, edits)?;
        }
    }
    Ok(out)
}

/// Checks that `path` is a regular file inside `root` (both canonical), for writing.
pub(crate) fn writable(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let real =
        std::fs::canonicalize(path).map_err(|e| format!("cannot edit {}: {e}", path.display()))?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if !real.starts_with(&root) {
        return Err(format!(
            "the server wants to edit {}, which is outside the workspace {}",
            path.display(),
            root.display()
        ));
    }
    if !real.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(start: (usize, usize), end: (usize, usize), text: &str) -> TextEdit {
        TextEdit {
            start,
            end,
            new_text: text.to_owned(),
        }
    }

    #[test]
    fn edits_count_columns_in_utf16_units() {
        // `é` is one UTF-16 unit and two bytes; `😀` is two units and four bytes.
        let text = "é😀x = 1\nprint(x)\n";
        let out = apply(
            text,
            &[edit((0, 3), (0, 4), "y"), edit((1, 6), (1, 7), "y")],
        )
        .unwrap();
        assert_eq!(out, "é😀y = 1\nprint(y)\n");
    }

    #[test]
    fn overlapping_or_reversed_edits_are_refused() {
        let err = apply(
            "abcdef",
            &[edit((0, 0), (0, 3), "x"), edit((0, 2), (0, 4), "y")],
        );
        assert!(err.unwrap_err().contains("overlapping"));
        let err = apply("abcdef", &[edit((0, 4), (0, 1), "x")]);
        assert!(err.unwrap_err().contains("before its start"));
    }

    #[test]
    fn positions_past_the_end_clamp() {
        assert_eq!(apply("ab\n", &[edit((0, 9), (7, 0), "!")]).unwrap(), "ab!");
    }

    #[test]
    fn file_operations_and_foreign_uris_are_refused() {
        let ops = json!({"documentChanges": [{"kind": "create", "uri": "file:///x"}]});
        assert!(
            workspace_edit(&ops)
                .unwrap_err()
                .contains("create, rename or delete")
        );
        let web = json!({"changes": {"https://x/y": []}});
        assert!(workspace_edit(&web).unwrap_err().contains("not a file"));
    }

    #[test]
    fn an_edit_outside_the_workspace_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::NamedTempFile::new().unwrap();
        let err = writable(root.path(), other.path()).unwrap_err();
        assert!(err.contains("outside the workspace"), "{err}");
        let inside = root.path().join("a.py");
        std::fs::write(&inside, "x").unwrap();
        assert!(writable(root.path(), &inside).is_ok());
    }
}
