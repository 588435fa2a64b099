//! Toolsets the agent can call (docker-agent's tool names and argument shapes).
//!
//! A tool never decides whether it may run: the runtime's approval chain does that before
//! [`Tool::call`]. A tool's failure is a [`ToolResult`] with `is_error`, not a Rust error, so
//! the model sees what went wrong ([`ToolError`] is only the typed form of those messages).
//! Names, descriptions and argument schemas follow docker-agent's recorded requests, so a
//! model prompted for docker-agent behaves the same here.

mod a2a;
mod api;
mod args;
mod calculator;
mod datetime;
mod environment;
mod error;
mod fetch;
mod filesystem;
mod git;
mod html;
mod input;
mod jobs;
mod memory;
mod memory_inject;
mod net;
mod open_url;
mod openapi;
mod plan;
mod random;
mod scheduler;
mod schema;
mod script;
mod shell;
mod skills;
mod small;
mod tasks;
mod think;
mod todo;
mod toolset;
mod toon;
mod webhook;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use a2a::A2aToolset;
pub use api::ApiTool;
pub use calculator::{CALCULATOR_INSTRUCTION, CalculatorTool};
pub use datetime::{DATETIME_INSTRUCTION, DatetimeTool};
pub use environment::{ENVIRONMENT_INSTRUCTION, EnvironmentTool};
pub use error::ToolError;
pub use fetch::{FETCH_INSTRUCTION, FetchTool};
pub use filesystem::{
    FILESYSTEM_INSTRUCTION, FilesystemTool, file_instruction, filesystem_instruction,
    read_real_path, write_real_path,
};
pub use git::{GIT_INSTRUCTION, GitTool};
pub use input::{check_arguments, parse_arguments};
pub use jobs::{JOBS_INSTRUCTION, JobTable, JobTool, OUTPUT_CAP};
pub use memory::{MEMORY_INSTRUCTION, MemoryTool};
pub use memory_inject::{DEFAULT_MAX_INJECT_MEMORIES, relevant_memories};
pub use open_url::{OpenUrlTool, open_url_instruction};
pub use openapi::OpenApiToolset;
pub use plan::{PLAN_INSTRUCTION, PlanTool};
pub use random::RandomTool;
pub use scheduler::{SCHEDULER_INSTRUCTION, SchedulerTool};
pub use script::{ScriptTool, script_instruction};
pub use shell::{DEFAULT_TIMEOUT, KEEP_IN_MEMORY, SHELL_INSTRUCTION, ShellTool, default_spool_dir};
pub use skills::{Skill, SkillBody, discover, skill_dirs, skill_tools, skills_instruction};
pub use tasks::{TASKS_INSTRUCTION, TasksTool};
pub use think::ThinkTool;
pub use todo::{TODO_INSTRUCTION, Todo, TodoList, TodoStatus, TodoTool};
pub use toolset::{SharedState, build_toolset, build_toolset_with};
pub use toon::toonify;
pub use webhook::{WEBHOOK_INSTRUCTION, WebhookTool};

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
    /// Reads only: approved without asking (after the `pre_tool_use` hooks).
    pub read_only: bool,
    /// `shell`, `filesystem`, `think`, `todo`, `mcp`, `api`, `openapi`, `model` … (hook Input
    /// `tool_category`).
    pub category: &'static str,
}

/// Where a long call reports how far it got (MCP progress notifications).
pub trait ProgressSink: Send + Sync {
    /// `progress` grows with each report; `total` when known.
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>);
}

/// Everything a call may use besides its arguments.
#[derive(Clone, Copy)]
pub struct ToolContext<'a> {
    /// Relative paths resolve against this directory.
    pub working_dir: &'a Path,
    /// Cancelled on Ctrl-C: a running process is killed.
    pub cancel: &'a CancellationToken,
    /// Extra environment for processes the tool starts (on top of this process's).
    pub env: &'a [(OsString, OsString)],
    /// Progress reports of this call go here.
    pub progress: Option<&'a dyn ProgressSink>,
}

impl fmt::Debug for ToolContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("working_dir", &self.working_dir)
            .field("cancel", &self.cancel)
            .field("env", &self.env)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What a call produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
    /// A file holding the call's full output when `content` only holds its tail (the shell
    /// tool spools huge output). The caller owns the file; it survives this result.
    pub spool: Option<PathBuf>,
    /// An MCP tool's `structuredContent`, kept beside the text the model reads.
    pub structured: Option<Value>,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Self::default()
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            ..Self::default()
        }
    }
}

impl From<ToolError> for ToolResult {
    fn from(e: ToolError) -> Self {
        Self::error(e.to_string())
    }
}

/// A callable tool.
pub trait Tool: Send + Sync + fmt::Debug {
    fn definition(&self) -> &ToolDefinition;

    /// Another name hooks and permission rules know the tool by (`mcp:SERVER:TOOL`).
    fn qualified_name(&self) -> Option<&str> {
        None
    }

    /// Runs the tool. `args` is the call's arguments object (after any hook rewrite).
    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult>;

    /// Runs the tool for the session `session_id`: what the runtime calls. A tool whose state
    /// belongs to the session (the plan) reads the id; the others just [`Tool::call`].
    fn call_in_session<'a>(
        &'a self,
        session_id: &'a str,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let _ = session_id;
        self.call(args, ctx)
    }
}

/// The tools of one toolset entry of an agent, plus the system-prompt text that goes with them.
#[derive(Debug, Clone, Default)]
pub struct Toolset {
    pub tools: Vec<Arc<dyn Tool>>,
    /// Appended to the agent's instruction as its own system message.
    pub instruction: Option<String>,
}
