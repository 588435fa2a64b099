//! The seam to where sessions are kept: SQLite in production (tether-store, adapted by the
//! CLI), anything in tests. The runtime calls it before it moves on (see `persistence`).

use tether_protocol::{Message, Usage};

use crate::session::Session;

/// A session store (SQLite in production; anything in tests).
pub trait SessionStore: Send + Sync + std::fmt::Debug {
    /// Creates the session row (`first_prompt` for listings).
    fn create(
        &self,
        session: &Session,
        working_dir: &str,
        first_prompt: Option<&str>,
    ) -> Result<(), String>;
    /// Appends one message; durable when it returns.
    fn append(&self, session_id: &str, message: &Message) -> Result<(), String>;
    /// Saves the session's metadata (agent, context, summary, tokens, cost).
    fn update(&self, session: &Session) -> Result<(), String>;
    /// Replaces the whole history (after a compaction).
    fn replace_messages(&self, session_id: &str, messages: &[Message]) -> Result<(), String>;
    /// Records one model call's usage and cost.
    fn record_usage(
        &self,
        session_id: &str,
        model_id: &str,
        usage: &Usage,
        cost: Option<f64>,
    ) -> Result<(), String>;
    /// The `limit` most recently updated top-level sessions, most recent first
    /// (`list_sessions`). A store that keeps no history says so.
    fn history(&self, limit: usize) -> Result<Vec<StoredInfo>, String> {
        let _ = limit;
        Err("session history is not available in this runtime".to_owned())
    }
    /// A session's header and messages (`read_session`); `None` when unknown.
    fn transcript(&self, id: &str) -> Result<Option<(StoredInfo, Vec<Message>)>, String> {
        let _ = id;
        Err("session history is not available in this runtime".to_owned())
    }
}

/// What `list_sessions` shows of a stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredInfo {
    pub id: String,
    /// The session's first prompt, shortened.
    pub title: String,
    /// RFC 3339, UTC, seconds.
    pub created_at: String,
    pub num_messages: usize,
}
