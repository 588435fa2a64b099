//! The typed form of a tool's failure. The model only ever sees it as text
//! (`ToolResult { is_error: true, .. }`), so each message names the argument or path in
//! backticks and says what to do differently.

use std::io;

/// Why a tool call failed. Every tool returns these through `ToolResult::from`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema (missing field, wrong type, bad glob or
    /// regex). Returned by every tool before it touches anything; retryable by the model with
    /// corrected arguments.
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments { tool: String, message: String },
    /// A filesystem call failed on `path` (as the model wrote it). Returned by the filesystem
    /// tools; retryable once the path is fixed, not if it is a permission problem.
    #[error("cannot {action} `{path}`: {message}")]
    Io {
        action: &'static str,
        path: String,
        message: String,
    },
    /// The request is well-formed but cannot be carried out as asked (an `oldText` not found,
    /// a directory passed to `read_file`, a file too large). Returned by the filesystem and
    /// todo tools; retryable with a different request.
    #[error("{0}")]
    Rejected(String),
    /// The call was cancelled (Ctrl-C) before it finished. Not retryable within this turn.
    #[error("cancelled")]
    Cancelled,
    /// The tool's worker task died. Returned by the filesystem tools; not retryable.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ToolError {
    pub(crate) fn io(action: &'static str, path: &str, e: &io::Error) -> Self {
        Self::Io {
            action,
            path: path.to_owned(),
            message: io_message(e),
        }
    }

    pub(crate) fn invalid(tool: &str, message: impl Into<String>) -> Self {
        Self::InvalidArguments {
            tool: tool.to_owned(),
            message: message.into(),
        }
    }
}

/// Short lowercase text for the errors a model can act on; the OS text for the rest.
fn io_message(e: &io::Error) -> String {
    use io::ErrorKind as K;
    let text = match e.kind() {
        K::NotFound => "no such file or directory",
        K::PermissionDenied => "permission denied",
        K::AlreadyExists => "it already exists",
        K::NotADirectory => "not a directory",
        K::IsADirectory => "it is a directory",
        K::DirectoryNotEmpty => "the directory is not empty",
        K::ReadOnlyFilesystem => "read-only file system",
        K::StorageFull => "no space left on device",
        _ => return e.to_string(),
    };
    text.to_owned()
}
