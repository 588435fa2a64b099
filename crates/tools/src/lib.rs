//! Toolsets the agent can call (docker-agent's tool names and argument shapes).
//!
//! A tool never decides whether it may run: the runtime's approval chain does that before
//! [`Tool::call`]. A tool's failure is a [`ToolResult`] with `is_error`, not a Rust error, so
//! the model sees what went wrong.

use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
    /// Reads only: approved without asking (after the `pre_tool_use` hooks).
    pub read_only: bool,
    /// `shell`, `filesystem`, `think`, `todo` (hook Input `tool_category`).
    pub category: &'static str,
}

/// Everything a call may use besides its arguments.
#[derive(Debug, Clone, Copy)]
pub struct ToolContext<'a> {
    /// Relative paths resolve against this directory.
    pub working_dir: &'a Path,
    /// Cancelled on Ctrl-C: a running process is killed.
    pub cancel: &'a CancellationToken,
    /// Extra environment for processes the tool starts (on top of this process's).
    pub env: &'a [(OsString, OsString)],
}

/// What a call produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
        }
    }
}

/// A callable tool.
pub trait Tool: Send + Sync + fmt::Debug {
    fn definition(&self) -> &ToolDefinition;

    /// Runs the tool. `args` is the call's arguments object (after any hook rewrite).
    fn call<'a>(&'a self, args: &'a Map<String, Value>, ctx: ToolContext<'a>) -> BoxFuture<'a, ToolResult>;
}

/// The tools of one toolset entry of an agent, plus the system-prompt text that goes with them.
#[derive(Debug, Clone, Default)]
pub struct Toolset {
    pub tools: Vec<Arc<dyn Tool>>,
    /// Appended to the agent's instruction as its own system message.
    pub instruction: Option<String>,
}
