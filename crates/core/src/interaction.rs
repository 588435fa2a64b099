//! Where the runtime's events go and where it asks the user: the two seams an embedder (the
//! terminal, a server) implements. Every event and question names its session, so one
//! implementation can serve many sessions at once.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use tether_protocol::RuntimeEvent;

/// Receives every event. Called from the runtime's task: keep it cheap.
pub trait EventSink: Send + Sync + std::fmt::Debug {
    fn emit(&self, session_id: &str, event: RuntimeEvent);

    /// An event of a session that `conversation` started (a `transfer_task` sub-agent's):
    /// a server sends it to that conversation's client. By default, like any other event.
    fn emit_for(&self, conversation: &str, session_id: &str, event: RuntimeEvent) {
        let _ = conversation;
        self.emit(session_id, event);
    }
}

/// Where the runtime asks the user.
pub trait Interaction: Send + Sync + std::fmt::Debug {
    /// Asks whether a tool call may run.
    fn confirm_tool<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation>;

    /// Asks whether to go on past the agent's `max_iterations`.
    fn approve_more_iterations(&self, limit: u32) -> BoxFuture<'_, bool>;

    /// Answers an MCP server's request for input (elicitation). Without a user: declined.
    fn elicit<'a>(
        &'a self,
        request: &'a tether_mcp::Elicitation,
    ) -> BoxFuture<'a, tether_mcp::ElicitationAnswer> {
        let _ = request;
        Box::pin(std::future::ready(tether_mcp::ElicitationAnswer::Decline))
    }
}

/// A tool call waiting for approval.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationRequest {
    /// The conversation the user sees: the top-level session, also when a sub-agent asks.
    pub session_id: String,
    pub agent: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub arguments: serde_json::Value,
    /// `blast_radius`, `category`, `reason` and other hook annotations.
    pub metadata: Option<std::collections::BTreeMap<String, String>>,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// Run this call.
    Yes,
    /// Run this and every later call of the session without asking.
    All,
    /// Do not run it (the model is told, with the reason if any).
    No { reason: Option<String> },
    /// The user cancelled (Ctrl-C): this call and the rest of the batch are cancelled.
    Cancelled,
}

/// A sink that drops everything (tests, embedders that only want the outcome).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _: &str, _: RuntimeEvent) {}
}

/// An interaction that never approves (non-interactive runs without `--yolo`).
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Interaction for DenyAll {
    fn confirm_tool<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        Box::pin(async { Confirmation::No { reason: None } })
    }

    fn approve_more_iterations(&self, _: u32) -> BoxFuture<'_, bool> {
        Box::pin(async { false })
    }
}

/// Shared handles the phases need.
pub(crate) type Sink = Arc<dyn EventSink>;

/// Which conversation each running sub-session belongs to, so its events reach the client of
/// the conversation that started it.
#[derive(Debug, Default)]
pub(crate) struct Lineage(RwLock<HashMap<String, String>>);

impl Lineage {
    pub(crate) fn enter(&self, session_id: &str, conversation: &str) {
        if let Ok(mut m) = self.0.write() {
            m.insert(session_id.to_owned(), conversation.to_owned());
        }
    }

    pub(crate) fn leave(&self, session_id: &str) {
        if let Ok(mut m) = self.0.write() {
            m.remove(session_id);
        }
    }

    fn conversation(&self, session_id: &str) -> Option<String> {
        let m = self.0.read().ok()?;
        if m.is_empty() {
            return None;
        }
        m.get(session_id).cloned()
    }
}

/// The sink the runtime emits to: events of sub-sessions name their conversation.
#[derive(Debug)]
pub(crate) struct LineageSink {
    pub(crate) inner: Sink,
    pub(crate) lineage: Arc<Lineage>,
}

impl LineageSink {
    /// `inner`, wrapped, and the lineage it reads.
    pub(crate) fn wrap(inner: Sink) -> (Sink, Arc<Lineage>) {
        let lineage = Arc::new(Lineage::default());
        let sink = Arc::new(Self {
            inner,
            lineage: Arc::clone(&lineage),
        });
        (sink, lineage)
    }
}

impl EventSink for LineageSink {
    fn emit(&self, session_id: &str, event: RuntimeEvent) {
        match self.lineage.conversation(session_id) {
            Some(conversation) => self.inner.emit_for(&conversation, session_id, event),
            None => self.inner.emit(session_id, event),
        }
    }
}
