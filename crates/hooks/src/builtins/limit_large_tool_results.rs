//! `limit_large_tool_results` (always on): a tool result over 50 KiB or 2,000 lines from the
//! `filesystem`, `shell`, `mcp` or `a2a` categories is written to a per-session temp file and
//! replaced by a notice plus its tail; the `session_end` leg deletes the session's files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;
use tether_protocol::{HookEvent, HookOutput, HookSpecificOutput};

use crate::registry::{Builtin, BuiltinCall};

pub const LIMIT_BYTES: usize = 51_200;
pub const LIMIT_LINES: usize = 2_000;
const CATEGORIES: [&str; 4] = ["filesystem", "shell", "mcp", "a2a"];

/// Where the files go: `<root>/tether-tool-results/<session>/`.
#[derive(Debug, Default)]
pub struct LimitLargeToolResults {
    /// The temp root; `None` is the system temp directory.
    root: Option<PathBuf>,
}

impl LimitLargeToolResults {
    pub fn with_root(root: impl Into<PathBuf>) -> Self {
        Self {
            root: Some(root.into()),
        }
    }

    /// The directory holding one session's files.
    pub fn session_dir(&self, session_id: &str) -> PathBuf {
        let root = self.root.clone().unwrap_or_else(std::env::temp_dir);
        let id = if session_id.is_empty() {
            "unknown".to_owned()
        } else {
            path_escape(session_id)
        };
        root.join("tether-tool-results").join(id)
    }
}

/// Escapes everything but unreserved URL characters, so an id is one safe path segment.
fn path_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Lines as `split_inclusive('\n')` counts them: a trailing newline ends the last line.
pub(crate) fn line_count(text: &str) -> usize {
    let n = text.bytes().filter(|b| *b == b'\n').count();
    if text.is_empty() || text.ends_with('\n') {
        n
    } else {
        n + 1
    }
}

pub(crate) fn exceeds(text: &str) -> bool {
    text.len() > LIMIT_BYTES || line_count(text) > LIMIT_LINES
}

/// The last 2,000 lines, then at most the last 51,200 bytes, never starting mid-character.
pub(crate) fn tail(text: &str) -> &str {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut start = 0;
    let mut seen = 0;
    for (i, b) in body.bytes().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == LIMIT_LINES {
                start = i + 1;
                break;
            }
        }
    }
    let mut tail = &text[start..];
    if tail.len() > LIMIT_BYTES {
        tail = &tail[tail.ceil_char_boundary(tail.len() - LIMIT_BYTES)..];
    }
    tail
}

pub(crate) fn notice(len: usize, path: &Path, tail: &str) -> String {
    format!(
        "Tool call result was too large ({len} bytes; limit {LIMIT_BYTES} bytes). The full result is available in a file: {}\n\nShowing the last {LIMIT_LINES} lines (up to {LIMIT_BYTES} bytes):\n\n{tail}",
        path.display()
    )
}

fn write_full(dir: &Path, text: &str) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // The session's directory is Tether's own: one others can read is tightened.
    tether_exec::private::create_dir(dir, dir)?;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("tool-result-{nanos:08x}{n:04x}.txt"));
        match tether_exec::private::open(
            &path,
            std::fs::OpenOptions::new().write(true).create_new(true),
        ) {
            Ok(mut f) => {
                f.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
}

impl Builtin for LimitLargeToolResults {
    fn name(&self) -> &'static str {
        "limit_large_tool_results"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let input = call.input;
            match call.event {
                HookEvent::SessionEnd => {
                    let dir = self.session_dir(&input.session_id);
                    match std::fs::remove_dir_all(&dir) {
                        Ok(()) => Ok(None),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                        Err(e) => Err(format!("cannot remove `{}`: {e}", dir.display())),
                    }
                }
                HookEvent::ToolResponseTransform => {
                    let Some(text) = input.tool_response.as_deref() else {
                        return Ok(None);
                    };
                    if !CATEGORIES.contains(&input.tool_category.as_str()) || !exceeds(text) {
                        return Ok(None);
                    }
                    // A spooled output is already on disk in full: point at it instead of
                    // writing a copy of its tail.
                    let (len, path) = match &input.tool_response_file {
                        Some(file) => {
                            let len = std::fs::metadata(file).map_or(text.len(), |m| {
                                usize::try_from(m.len()).unwrap_or(usize::MAX)
                            });
                            (len, file.clone())
                        }
                        None => {
                            let dir = self.session_dir(&input.session_id);
                            let path = write_full(&dir, text).map_err(|e| {
                                format!(
                                    "cannot write the full result under `{}`: {e}",
                                    dir.display()
                                )
                            })?;
                            (text.len(), path)
                        }
                    };
                    Ok(Some(HookOutput {
                        hook_specific_output: Some(Box::new(HookSpecificOutput {
                            hook_event_name: call.event.wire_name().to_owned(),
                            updated_tool_response: Some(notice(len, &path, tail(text))),
                            ..HookSpecificOutput::default()
                        })),
                        ..HookOutput::default()
                    }))
                }
                _ => Ok(None),
            }
        })
    }
}
