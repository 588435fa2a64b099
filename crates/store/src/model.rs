//! The values the store takes and gives back.
//!
//! They are plain data with public fields so the runtime can build them inline. Nullable
//! columns that a later update may need to clear are `Option<Option<T>>` in [`SessionUpdate`]:
//! `None` leaves the column alone, `Some(None)` clears it, `Some(Some(v))` sets it.

use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::Value;
use tether_protocol::{Message, Usage};

/// What the runtime knows when a session starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// The session id; also the `session_id` every hook receives.
    pub id: String,
    /// The session that spawned this one (`transfer_task`); `None` for a top-level session.
    pub parent_id: Option<String>,
    /// The agent running the session.
    pub agent: String,
    /// The directory tools run in.
    pub working_dir: PathBuf,
    /// The first user prompt, shown by `tether sessions list`.
    pub first_prompt: Option<String>,
}

/// A partial update of a session's metadata; every call also bumps `updated_at`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionUpdate {
    /// The agent now running the session (after a handoff).
    pub agent: Option<String>,
    /// The persisted `session_start` context (docs/design.md D1): a later one replaces the earlier one.
    pub session_context: Option<Option<String>>,
    /// The summary of the latest compaction.
    pub summary: Option<Option<String>>,
    /// Input tokens as the runtime accounts them (the store does not add them up).
    pub input_tokens: Option<u64>,
    /// Output tokens as the runtime accounts them.
    pub output_tokens: Option<u64>,
    /// Cost in USD as the runtime accounts it.
    pub cost: Option<f64>,
    pub first_prompt: Option<Option<String>>,
    /// The git worktree the session runs in (`--worktree`), re-attached on resume.
    pub worktree_path: Option<Option<PathBuf>>,
    pub worktree_branch: Option<Option<String>>,
    /// Free-form JSON for whatever has no column yet; replaces the stored value whole.
    pub extra: Option<Value>,
}

/// A session's stored metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMeta {
    pub id: String,
    pub parent_id: Option<String>,
    pub agent: String,
    pub created_at: Timestamp,
    /// Bumped by every write to the session (messages, usage, metadata).
    pub updated_at: Timestamp,
    pub first_prompt: Option<String>,
    pub session_context: Option<String>,
    pub summary: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost: f64,
    pub worktree_path: Option<PathBuf>,
    pub worktree_branch: Option<String>,
    pub working_dir: PathBuf,
    /// `{}` until an update sets it.
    pub extra: Value,
}

/// A session as [`Store::load`](crate::Store::load) returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSession {
    pub meta: SessionMeta,
    /// The history in the order it was appended (or as `replace_messages` left it).
    pub messages: Vec<Message>,
    /// Ids of the direct sub-sessions, oldest first.
    pub sub_sessions: Vec<String>,
}

/// One line of `tether sessions list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub updated_at: Timestamp,
    pub agent: String,
    pub first_prompt: Option<String>,
}

/// The accounting of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRecord {
    /// `provider/model` as configured.
    pub model_id: String,
    pub usage: Usage,
    /// Cost in USD; `None` when the model has no pricing.
    pub cost: Option<f64>,
    /// When the call finished.
    pub at: Timestamp,
}
