//! Code mode (`code_mode_tools: true`): the agent's tools reach the model as one tool,
//! `run_tools_with_javascript`, whose script calls them as plain synchronous functions.
//!
//! This crate owns the JavaScript side only: the tool's description and schema
//! ([`description`], [`parameters`]) and the engine ([`run`]), an embedded QuickJS with a memory
//! limit and an interrupt check. It knows nothing of hooks or approvals: every call a script
//! makes goes to a [`Host`], and the runtime (tether-core) answers it through the same path as
//! a call the model makes, so the engine cannot bypass a hook. Kept out of tether-tools so the
//! C build of QuickJS is paid only by the crates that run scripts.

mod describe;
mod engine;

use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

pub use describe::{description, parameters};
pub use engine::run;

/// The one tool the model sees for the wrapped tools.
pub const TOOL_NAME: &str = "run_tools_with_javascript";
/// Its `tool_category` (docker-agent's).
pub const CATEGORY: &str = "code mode";
/// Tools of this category stay callable directly: the model keeps its plan in them.
pub const DIRECT_CATEGORY: &str = "todo";

/// A tool the script can call, as its function is described and checked.
#[derive(Debug, Clone, Copy)]
pub struct Function<'a> {
    pub name: &'a str,
    pub description: &'a str,
    /// JSON schema of the arguments object.
    pub parameters: &'a Value,
}

impl Function<'_> {
    /// The schema's `required` argument names.
    fn required(&self) -> Vec<&str> {
        self.parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

/// How far one script may go. A script that passes a limit stops with an uncatchable error;
/// what it printed and the calls it made are kept in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The script's own running time. Time blocked in tool calls does not count: each tool has
    /// its own timeout, and a call may wait for the user's confirmation.
    pub time: Duration,
    /// The JavaScript heap, in bytes.
    pub memory: usize,
    /// Tool calls per script.
    pub calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            time: Duration::from_secs(60),
            memory: 128 << 20,
            calls: 1000,
        }
    }
}

/// The host's answer to one call of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The tool's output: the function's return value.
    Output(String),
    /// The call was refused or failed: thrown as an `Error` with this message, which the script
    /// may catch.
    Failed(String),
    /// The script must end (cancelled, the run was stopped by a hook, a loop): thrown, and the
    /// script is interrupted whether it catches the error or not; until then its calls are
    /// refused and its console is mute.
    Stop(String),
}

/// Answers the script's tool calls. Called on the script's thread, which waits for the answer.
pub trait Host {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> Reply;
}

/// The tool's result, as the model reads it (JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ScriptResult {
    /// What the script returned (a string as is, an object or array as JSON, nothing as ""),
    /// or, when it failed, why.
    pub value: String,
    /// `console.log`, `info`, `debug`, `trace` and `warn`, one line per call.
    pub stdout: String,
    /// `console.error`.
    pub stderr: String,
    /// The calls the script made, kept only when it failed (they explain the failure).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallInfo>,
    /// The script threw, or a limit stopped it.
    #[serde(skip)]
    pub failed: bool,
}

impl ScriptResult {
    /// The JSON text the model gets.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// One call the script made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallInfo {
    pub name: String,
    pub arguments: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
