//! Reading, writing and editing single files.
//!
//! Reads are capped so a stray `read_file` on a disk image cannot exhaust memory, and binary
//! files are described rather than dumped: bytes the model cannot read cost tokens and can
//! derail it. Edits are all-or-nothing: every `oldText` is checked before anything is
//! written, so a failed call leaves the file as it was.

use std::io::Read;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Call, PathArgs};
use crate::args::parse;
use crate::{ToolError, ToolResult};

/// Larger files are refused by `read_file` (the model should search or slice them instead).
pub(super) const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// How much of a file is inspected to decide whether it is binary.
const SNIFF_BYTES: usize = 8 * 1024;

#[derive(Debug, Deserialize)]
struct ReadMultipleArgs {
    paths: Option<Vec<String>>,
    json: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Debug, Deserialize)]
struct EditArgs {
    path: String,
    /// An array of edits; some models send it JSON-encoded as a string, which we accept.
    edits: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Edit {
    old_text: String,
    new_text: String,
}

/// Binary as browsers sniff it (WHATWG MIME sniffing): control bytes that text never holds.
/// Invalid UTF-8 alone is not binary: Latin-1 text is still worth showing.
fn looks_binary(head: &[u8]) -> bool {
    head.iter()
        .any(|b| matches!(b, 0x00..=0x08 | 0x0b | 0x0e..=0x1a | 0x1c..=0x1f))
}

/// The file's text (invalid UTF-8 replaced), or `None` when its head looks binary.
pub(super) fn decode_text(bytes: Vec<u8>) -> Option<String> {
    if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        return None;
    }
    Some(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

fn describe_binary(path: &str, len: usize) -> String {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let kind = match ext.as_str() {
        "png" => "a PNG image",
        "jpg" | "jpeg" => "a JPEG image",
        "gif" => "a GIF image",
        "webp" => "a WebP image",
        _ => "a binary file",
    };
    format!("`{path}` is {kind} ({len} bytes); its content is not shown")
}

/// Reads one file as text, or describes it when it is binary.
fn read_text(call: &Call, path: &str) -> Result<String, ToolError> {
    let resolved = call.path(path)?;
    let read_err = |e: std::io::Error| ToolError::io("read", path, &e);
    // Everything below works on the one opened file.
    let mut file = call.fs().read(&resolved).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_dir() {
        return Err(ToolError::Rejected(format!(
            "`{path}` is a directory; use list_directory or directory_tree"
        )));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(ToolError::Rejected(format!(
            "`{path}` is too large to read ({} bytes; the limit is {MAX_READ_BYTES}); use search_files_content, or the shell tool with head, tail or sed",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(read_err)?;
    let len = bytes.len();
    Ok(decode_text(bytes).unwrap_or_else(|| describe_binary(path, len)))
}

pub(super) fn read_file(call: &Call) -> Result<String, ToolError> {
    let args: PathArgs = parse(&call.tool, &call.args)?;
    read_text(call, &args.path)
}

/// Text: `=== path ===` sections. JSON: an object from each path to its content, or to
/// `{"error": message}` when it could not be read. An error only when every read failed.
pub(super) fn read_multiple_files(call: &Call) -> ToolResult {
    let args: ReadMultipleArgs = match parse(&call.tool, &call.args) {
        Ok(args) => args,
        Err(e) => return e.into(),
    };
    let paths = args.paths.unwrap_or_default();
    if paths.is_empty() {
        return ToolError::invalid(&call.tool, "`paths` is empty").into();
    }
    let mut results = Vec::with_capacity(paths.len());
    for path in &paths {
        if call.cancel.is_cancelled() {
            return ToolError::Cancelled.into();
        }
        results.push((path, read_text(call, path)));
    }
    let all_failed = results.iter().all(|(_, r)| r.is_err());
    let content = if args.json.unwrap_or(false) {
        let map: Map<String, Value> = results
            .into_iter()
            .map(|(path, r)| {
                let value = match r {
                    Ok(text) => Value::String(text),
                    Err(e) => serde_json::json!({"error": e.to_string()}),
                };
                (path.clone(), value)
            })
            .collect();
        Value::Object(map).to_string()
    } else {
        let mut out = String::new();
        for (path, r) in results {
            let body = r.unwrap_or_else(|e| format!("error: {e}"));
            out.push_str(&format!("=== {path} ===\n{body}\n\n"));
        }
        out
    };
    ToolResult {
        content,
        is_error: all_failed,
        spool: None,
        structured: None,
    }
}

pub(super) fn write_file(call: &Call) -> Result<String, ToolError> {
    let args: WriteArgs = parse(&call.tool, &call.args)?;
    let resolved = call.path(&args.path)?;
    let fs = call.fs();
    if let Some(parent) = resolved.parent() {
        fs.create_dirs(parent)
            .map_err(|e| ToolError::io("create the parent directory of", &args.path, &e))?;
    }
    fs.write(&resolved, args.content.as_bytes())
        .map_err(|e| ToolError::io("write", &args.path, &e))?;
    Ok(format!(
        "File written successfully: {} ({} bytes)",
        args.path,
        args.content.len()
    ))
}

fn parse_edits(tool: &str, edits: Option<Value>) -> Result<Vec<Edit>, ToolError> {
    let value = match edits {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(encoded)) => serde_json::from_str(&encoded)
            .map_err(|e| ToolError::invalid(tool, format!("`edits` is not a JSON array: {e}")))?,
        Some(value) => value,
    };
    serde_json::from_value(value).map_err(|e| ToolError::invalid(tool, format!("`edits`: {e}")))
}

pub(super) fn edit_file(call: &Call) -> Result<String, ToolError> {
    let args: EditArgs = parse(&call.tool, &call.args)?;
    let edits = parse_edits(&call.tool, args.edits)?;
    let path = args.path.as_str();
    if edits.is_empty() {
        return Err(ToolError::invalid(&call.tool, "`edits` is empty"));
    }
    let resolved = call.path(path)?;
    let fs = call.fs();
    let mut bytes = Vec::new();
    fs.read(&resolved)
        .and_then(|mut file| file.read_to_end(&mut bytes))
        .map_err(|e| ToolError::io("read", path, &e))?;
    let mut text = String::from_utf8(bytes).map_err(|_| {
        ToolError::Rejected(format!(
            "`{path}` is not UTF-8 text; edit_file only edits text files"
        ))
    })?;
    let count = edits.len();
    for (i, edit) in edits.iter().enumerate() {
        let n = i + 1;
        if edit.old_text.is_empty() {
            return Err(ToolError::Rejected(format!(
                "edit {n} of {count}: `oldText` is empty; nothing was written"
            )));
        }
        match text.matches(edit.old_text.as_str()).count() {
            1 => text = text.replacen(edit.old_text.as_str(), &edit.new_text, 1),
            0 => {
                return Err(ToolError::Rejected(format!(
                    "edit {n} of {count}: `oldText` was not found in `{path}` (after the edits before it); nothing was written"
                )));
            }
            k => {
                return Err(ToolError::Rejected(format!(
                    "edit {n} of {count}: `oldText` appears {k} times in `{path}`; include more surrounding text so it matches once, or send one edit per occurrence; nothing was written"
                )));
            }
        }
    }
    fs.write(&resolved, text.as_bytes())
        .map_err(|e| ToolError::io("write", path, &e))?;
    let plural = if count == 1 { "edit" } else { "edits" };
    Ok(format!(
        "File edited successfully: {path} ({count} {plural} applied)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_sniffing_follows_control_bytes_not_utf8_validity() {
        let cases: [(&[u8], bool); 6] = [
            (b"plain text\n", false),
            (b"tabs\tand\r\nnewlines\x0c", false),
            (b"caf\xe9 in latin-1", false),
            (b"\x89PNG\r\n\x1a\n", true),
            (b"ELF\x00\x01", true),
            (b"", false),
        ];
        for (bytes, want) in cases {
            assert_eq!(looks_binary(bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn binary_descriptions_name_images_by_extension() {
        assert_eq!(
            describe_binary("img/logo.PNG", 10),
            "`img/logo.PNG` is a PNG image (10 bytes); its content is not shown"
        );
        assert_eq!(
            describe_binary("a.out", 3),
            "`a.out` is a binary file (3 bytes); its content is not shown"
        );
    }
}
