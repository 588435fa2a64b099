//! What an MCP server may ask of the program it runs in: the user (elicitation) and the
//! user's view of what happens (events). The runtime implements [`McpHost`]; the client never
//! prints and never reads a terminal.

use std::fmt;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

/// A server's request for input from the user (MCP elicitation, form mode).
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// The server, as in `mcp:SERVER:TOOL`.
    pub server: String,
    /// What the server says it needs.
    pub message: String,
    /// The requested schema: an object whose properties are strings, numbers, booleans or
    /// enums (`properties`, `required`).
    pub schema: Value,
}

/// The user's answer to an [`Elicitation`].
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationAnswer {
    /// The filled-in form.
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the question (Ctrl-C).
    Cancel,
}

/// Something worth telling the user or the log.
#[derive(Debug, Clone, PartialEq)]
pub enum McpEvent {
    /// A server is starting (first start or a restart).
    Starting { server: String, restart: u32 },
    /// A server answered `initialize`; its tools are listed.
    Ready { server: String, tools: usize },
    /// A server could not start, or stopped; `reason` includes its stderr tail.
    Failed { server: String, reason: String },
    /// A server sent a log message (`notifications/message`).
    Log {
        server: String,
        level: String,
        text: String,
    },
    /// A server changed its tool list; it is listed again before the next model call.
    ToolsChanged { server: String },
}

/// The runtime side of every server of an agent.
pub trait McpHost: Send + Sync + fmt::Debug {
    /// Asks the user; implementations without a user answer [`ElicitationAnswer::Decline`].
    fn elicit<'a>(&'a self, request: &'a Elicitation) -> BoxFuture<'a, ElicitationAnswer>;

    /// Reports an event (cheap; called from the client's tasks).
    fn event(&self, event: McpEvent);
}

/// A host with no user: elicitations are declined, events dropped (tests, `tether mcp list`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoUser;

impl McpHost for NoUser {
    fn elicit<'a>(&'a self, _: &'a Elicitation) -> BoxFuture<'a, ElicitationAnswer> {
        Box::pin(std::future::ready(ElicitationAnswer::Decline))
    }

    fn event(&self, _: McpEvent) {}
}
