//! A conversation: its history and what survives from one submission to the next.

use std::sync::Arc;

use tether_config::PermissionPattern;
use tether_protocol::{Message, Role};

use crate::household::{Household, Inbox};

/// One session. Persisted fields are marked; the rest lives only in memory.
#[derive(Debug, Clone)]
pub struct Session {
    /// Persisted. Also the `session_id` every hook receives.
    pub id: String,
    /// Persisted. The agent currently answering.
    pub agent: String,
    /// Persisted. The session that spawned this one (sub-sessions of `transfer_task`).
    pub parent_id: Option<String>,
    /// Persisted. A session-specific instruction after the agent's (a transferred task).
    pub instruction: Option<String>,
    /// Persisted. The compaction summary standing in for the history before it.
    pub summary: Option<String>,
    /// Persisted. The conversation, without system prompts or hook contexts.
    pub messages: Vec<Message>,
    /// Persisted. `session_start` context (docs/design.md D1), sent on every model call.
    pub session_context: String,
    /// Transient. `post_tool_use` and `stop` contexts for the next model call (docs/design.md D3).
    pub pending_context: Vec<String>,
    /// Every tool call is approved (`--yolo`, or the user answered "all").
    pub tools_approved: bool,
    /// Tools the user approved for the rest of the session.
    pub approved_tools: Vec<PermissionPattern>,
    /// Persisted. Context pressure: the latest call's input tokens plus estimates for the
    /// messages added since.
    pub input_tokens: u64,
    /// Persisted. The latest call's output tokens.
    pub output_tokens: u64,
    /// Persisted. USD spent on priced calls.
    pub cost: f64,
    /// A write to the session store failed (reported once; the run goes on in memory).
    pub store_failed: bool,
    /// Files holding huge tool outputs; deleted when the session ends.
    pub spool_files: Vec<std::path::PathBuf>,
    /// Persisted. The agent file the session runs (`tether hooks replay` re-decides under it
    /// by default).
    pub agent_file: Option<std::path::PathBuf>,
    /// Persisted (in the store's `extra`). What a program serving the session keeps with it
    /// (`tether serve api`: title, yolo, approvals), so another server process sees it too.
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// A `background_agents` task: it runs beside its caller, takes no steering or
    /// follow-ups, and asks nobody.
    pub background: bool,
    /// Budgets spent, background tasks and queued messages, shared with the sessions this one
    /// starts.
    pub(crate) household: Arc<Household>,
}

impl Session {
    pub fn new(id: impl Into<String>, agent: impl Into<String>) -> Self {
        let id = id.into();
        Self {
            household: Arc::new(Household::new(&id)),
            id,
            agent: agent.into(),
            parent_id: None,
            instruction: None,
            summary: None,
            messages: Vec::new(),
            session_context: String::new(),
            pending_context: Vec::new(),
            tools_approved: false,
            approved_tools: Vec::new(),
            input_tokens: 0,
            output_tokens: 0,
            cost: 0.0,
            store_failed: false,
            spool_files: Vec::new(),
            agent_file: None,
            extra: serde_json::Map::new(),
            background: false,
        }
    }

    /// A session this one starts (a sub-agent's, a background task's): it spends from the
    /// same budgets and shares the background tasks and the queues.
    pub(crate) fn child(&self, id: impl Into<String>, agent: impl Into<String>) -> Self {
        let mut child = Self::new(id, agent);
        child.parent_id = Some(self.id.clone());
        child.household = Arc::clone(&self.household);
        child.agent_file.clone_from(&self.agent_file);
        child
    }

    /// The conversation this session belongs to: its own id, or the top-level session that
    /// started it.
    pub fn conversation(&self) -> &str {
        &self.household.conversation
    }

    /// Where messages typed while this session runs go.
    pub fn inbox(&self) -> Inbox {
        Inbox(Arc::clone(&self.household))
    }

    /// Text of the latest user message.
    pub fn last_user_message(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(Message::text)
            .unwrap_or_default()
    }

    /// Text of the latest assistant message.
    pub fn last_assistant_message(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::text)
            .unwrap_or_default()
    }
}
