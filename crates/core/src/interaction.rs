//! Where the runtime's events go and where it asks the user: the two seams an embedder (the
//! terminal, a server) implements. Every event and question names its session, so one
//! implementation can serve many sessions at once.

use std::sync::Arc;

use futures::future::BoxFuture;
use tether_protocol::RuntimeEvent;

/// Receives every event. Called from the runtime's task: keep it cheap.
pub trait EventSink: Send + Sync + std::fmt::Debug {
    fn emit(&self, session_id: &str, event: RuntimeEvent);
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
