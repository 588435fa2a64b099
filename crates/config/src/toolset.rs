//! Validated toolsets: what an agent's `toolsets:` entry (or a `toolsets:` definition it
//! uses) resolves to, and the toolset types Tether implements.

use serde_json::Value;

use crate::diagnostic::Origin;
use crate::mcp::McpServer;

/// A toolset of an agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolset {
    pub kind: ToolsetKind,
    /// Only these tools of the set are exposed; `None` = all. For MCP toolsets the server's
    /// raw tool names.
    pub tools: Option<Vec<String>>,
    /// Shell only: classify commands with `safer_shell` on the preempt lane.
    pub safer: bool,
    /// The toolset's system-prompt text: replaces the built-in text, or wraps it where it
    /// holds `{ORIGINAL_INSTRUCTIONS}`.
    pub instruction: Option<String>,
    /// Shell: variables for the commands the tool runs. MCP: the server's variables (see
    /// [`McpTransport`]).
    pub env: Vec<(String, String)>,
    /// MCP: tools are exposed as `NAME_tool`, and `NAME` is the server in `mcp:NAME:tool`.
    pub name: Option<String>,
    /// Tools kept out of the model's list until `add_tool` activates them.
    pub defer: Defer,
    /// Only the tools that declare themselves read-only are exposed.
    pub readonly: bool,
    /// Unanchored regexes over tool names (as the model sees them) whose JSON-object output
    /// is re-encoded as TOON; checked at load.
    pub toon: Vec<String>,
    /// The model that handles the turn right after one of these tools ran (a `models:` name
    /// or `provider/model`).
    pub model: Option<String>,
    /// `type: mcp`: the server.
    pub mcp: Option<McpServer>,
    /// `type: lsp`: the language server.
    pub lsp: Option<crate::LspServer>,
    /// `type: script`: its named commands, in file order.
    pub scripts: Vec<Script>,
    /// `type: memory`: the database file; `type: tasks`: the JSON file of tasks (default
    /// `tasks.json`). Relative to the working directory.
    pub path: Option<String>,
    /// `type: fetch`: the request timeout.
    pub timeout: Option<std::time::Duration>,
    /// `type: fetch`, `api`, `openapi`: private and loopback addresses may be reached.
    pub allow_private_ips: bool,
    /// `type: api`: the one HTTP tool.
    pub api: Option<ApiConfig>,
    /// `type: openapi`: where the document is (an `http(s)` URL or a file path, `${env.NAME}`
    /// expanded when the run starts).
    pub url: Option<String>,
    /// `type: openapi`: headers of every request (`${env.NAME}` expanded at call time).
    pub headers: Vec<(String, String)>,
    /// `type: openapi`: the cut of a response's text (`None`: no cut).
    pub max_output_bytes: Option<usize>,
    /// `type: todo`: one list for every agent of the run.
    pub shared: bool,
    /// `type: filesystem`: commands run after a write or an edit of a matching file.
    pub post_edit: Vec<PostEdit>,
    /// `type: filesystem`: honour `.gitignore` and skip `.git` in walks (default true).
    pub ignore_vcs: bool,
    /// `type: filesystem`: when not empty, every path the tools touch must be inside one of
    /// these directories (entries as written: `.`, `~/…`, relative to the working directory,
    /// absolute; `$NAME` expands when a tool runs).
    pub allow_list: Vec<String>,
    /// `type: filesystem`: paths inside these directories are refused, even when
    /// `allow_list` holds them (same entry forms).
    pub deny_list: Vec<String>,
    /// `type: fetch`: when not empty, only hosts matching one of these may be fetched (each
    /// redirect too).
    pub allowed_domains: Vec<crate::DomainPattern>,
    /// `type: fetch`: hosts matching one of these are refused (each redirect too). Never
    /// given together with `allowed_domains`.
    pub blocked_domains: Vec<crate::DomainPattern>,
    /// `type: fetch`: `<`, `>` and `&` in a multi-URL JSON result are written `\u003c`,
    /// `\u003e`, `\u0026`.
    pub escape_html: bool,
    /// `type: model_picker`: the models `change_model` may switch to.
    pub models: Vec<String>,
    /// `type: webhook`: where `send_webhook` delivers.
    pub webhook: Option<crate::WebhookConfig>,
    /// `type: rag` (or an agent's `rag:` entry): the source its tool searches.
    pub rag: Option<std::sync::Arc<crate::rag::RagSource>>,
    /// `type: mcp_catalog`: when not empty, only these catalog server ids are offered.
    pub allowed_servers: Vec<String>,
    /// `type: mcp_catalog`: these catalog server ids are never offered (over
    /// `allowed_servers`).
    pub blocked_servers: Vec<String>,
    pub origin: Origin,
}

/// `api_config:` of a `type: api` toolset.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiConfig {
    /// The tool's name.
    pub name: String,
    /// The tool's description (and the toolset's system-prompt text).
    pub instruction: String,
    /// `${env.NAME}` and `${ARG}` (a declared argument, only in the path and query) expand.
    pub endpoint: String,
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: String,
    pub headers: Vec<(String, String)>,
    /// JSON Schema properties of the arguments, in file order.
    pub args: Vec<(String, Value)>,
    pub required: Vec<String>,
    /// The response's shape, told to the model in the tool's description (the body stays text).
    pub output_schema: Option<Value>,
}

impl ApiConfig {
    /// The methods an `api` tool may use.
    pub const METHODS: [&'static str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
}

/// A `post_edit:` entry of a `type: filesystem` toolset.
#[derive(Debug, Clone, PartialEq)]
pub struct PostEdit {
    /// A glob over the file name (or, when it holds a `/`, over the path relative to the
    /// working directory).
    pub path: String,
    /// Run with `$SHELL -c`; the edited file's path is in `$path` and `$file`.
    pub cmd: String,
}

/// A named command of a `type: script` toolset: a tool that runs `cmd` with `$SHELL -c`,
/// its arguments in the environment (so `${name}` in `cmd` is the shell's expansion).
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub name: String,
    pub cmd: String,
    pub description: String,
    /// JSON Schema properties of the arguments, in file order.
    pub args: Vec<(String, serde_json::Value)>,
    pub required: Vec<String>,
    pub env: Vec<(String, String)>,
    pub working_dir: Option<String>,
}

impl Toolset {
    /// A toolset of `kind` with every option at its default (built in code, not read).
    pub fn of_kind(kind: ToolsetKind) -> Self {
        Self {
            kind,
            tools: None,
            safer: false,
            instruction: None,
            env: Vec::new(),
            name: None,
            defer: Defer::None,
            readonly: false,
            toon: Vec::new(),
            model: None,
            mcp: None,
            lsp: None,
            scripts: Vec::new(),
            path: None,
            timeout: None,
            allow_private_ips: false,
            api: None,
            url: None,
            headers: Vec::new(),
            max_output_bytes: None,
            shared: false,
            post_edit: Vec::new(),
            ignore_vcs: true,
            allow_list: Vec::new(),
            deny_list: Vec::new(),
            allowed_domains: Vec::new(),
            blocked_domains: Vec::new(),
            escape_html: false,
            models: Vec::new(),
            webhook: None,
            rag: None,
            allowed_servers: Vec::new(),
            blocked_servers: Vec::new(),
            origin: Origin::synthetic(kind.type_name()),
        }
    }

    /// The toolset an agent's `rag: [NAME]` entry stands for.
    pub fn of_rag(source: std::sync::Arc<crate::rag::RagSource>) -> Self {
        Self {
            rag: Some(source),
            ..Self::of_kind(ToolsetKind::Rag)
        }
    }
}

/// Deferred loading (`defer:`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Defer {
    /// Every tool is in the model's list.
    #[default]
    None,
    /// Every tool of the set waits for `add_tool` (an MCP server still starts with the run, so
    /// `search_tool` can find its tools).
    All,
    /// These tools wait for `add_tool`.
    Tools(Vec<String>),
}

impl Defer {
    /// Whether `tool` (its name as written in `tools:`) is deferred.
    pub fn covers(&self, tool: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Tools(names) => names.iter().any(|n| n == tool),
        }
    }
}

/// The toolset types Tether implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolsetKind {
    Shell,
    Filesystem,
    Think,
    Todo,
    Mcp,
    Script,
    UserPrompt,
    Memory,
    Fetch,
    Api,
    OpenApi,
    ModelPicker,
    BackgroundAgents,
    // Small built-in toolsets (see `small.rs`).
    Calculator,
    Random,
    Datetime,
    Environment,
    OpenUrl,
    Webhook,
    Git,
    Rag,
    Lsp,
    /// A remote agent over the A2A protocol: one tool per skill of its card.
    A2a,
    /// `read_file`, `write_file` and `edit_file` of `filesystem`, with its path rules.
    File,
    /// A task list with priorities and dependencies, kept in a JSON file (`path`).
    Tasks,
    /// One markdown plan per session, shared by the agents that run in it.
    Plan,
    /// Earlier sessions of the store, listed and read back as context.
    SessionContext,
    /// Shell commands that keep running in the background.
    BackgroundJobs,
    /// Instructions delivered back to the agent at a time or on an interval.
    Scheduler,
    /// Remote MCP servers from a catalog, enabled on demand.
    McpCatalog,
}

impl ToolsetKind {
    pub const ALL: &'static [Self] = &[
        Self::Shell,
        Self::Filesystem,
        Self::Think,
        Self::Todo,
        Self::Mcp,
        Self::Script,
        Self::UserPrompt,
        Self::Memory,
        Self::Fetch,
        Self::Api,
        Self::OpenApi,
        Self::ModelPicker,
        Self::BackgroundAgents,
        Self::Calculator,
        Self::Random,
        Self::Datetime,
        Self::Environment,
        Self::OpenUrl,
        Self::Webhook,
        Self::Git,
        Self::Rag,
        Self::Lsp,
        Self::A2a,
        Self::File,
        Self::Tasks,
        Self::Plan,
        Self::SessionContext,
        Self::BackgroundJobs,
        Self::Scheduler,
        Self::McpCatalog,
    ];

    /// The `type:` of each, in `ALL`'s order.
    pub const NAMES: [&'static str; Self::ALL.len()] = {
        let mut names = [""; Self::ALL.len()];
        let mut i = 0;
        while i < Self::ALL.len() {
            names[i] = Self::ALL[i].type_name();
            i += 1;
        }
        names
    };

    pub const fn type_name(self) -> &'static str {
        match self {
            Self::Shell => "shell",
            Self::Filesystem => "filesystem",
            Self::Think => "think",
            Self::Todo => "todo",
            Self::Mcp => "mcp",
            Self::Script => "script",
            Self::UserPrompt => "user_prompt",
            Self::Memory => "memory",
            Self::Fetch => "fetch",
            Self::Api => "api",
            Self::OpenApi => "openapi",
            Self::ModelPicker => "model_picker",
            Self::BackgroundAgents => "background_agents",
            Self::Calculator => "calculator",
            Self::Random => "random",
            Self::Datetime => "datetime",
            Self::Environment => "environment",
            Self::OpenUrl => "open_url",
            Self::Webhook => "webhook",
            Self::Git => "git",
            Self::Rag => "rag",
            Self::Lsp => "lsp",
            Self::A2a => "a2a",
            Self::File => "file",
            Self::Tasks => "tasks",
            Self::Plan => "plan",
            Self::SessionContext => "session_context",
            Self::BackgroundJobs => "background_jobs",
            Self::Scheduler => "scheduler",
            Self::McpCatalog => "mcp_catalog",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.type_name() == s)
    }

    /// The tools of the set, with docker-agent's names.
    pub const fn tool_names(self) -> &'static [&'static str] {
        match self {
            Self::Shell => &["shell"],
            Self::Filesystem => &[
                "read_file",
                "read_multiple_files",
                "write_file",
                "edit_file",
                "list_directory",
                "directory_tree",
                "search_files_content",
                "create_directory",
                "remove_directory",
            ],
            Self::Think => &["think"],
            Self::UserPrompt => &["user_prompt"],
            Self::Fetch => &["fetch"],
            Self::Memory => &[
                "add_memory",
                "get_memories",
                "delete_memory",
                "search_memories",
                "update_memory",
            ],
            Self::Todo => &["create_todo", "create_todos", "update_todos", "list_todos"],
            Self::ModelPicker => &["change_model", "revert_model"],
            Self::Lsp => &[
                "lsp_workspace",
                "lsp_hover",
                "lsp_definition",
                "lsp_references",
                "lsp_document_symbols",
                "lsp_workspace_symbols",
                "lsp_diagnostics",
                "lsp_rename",
                "lsp_code_actions",
                "lsp_format",
                "lsp_call_hierarchy",
                "lsp_type_hierarchy",
                "lsp_implementations",
                "lsp_signature_help",
                "lsp_inlay_hints",
            ],
            Self::BackgroundAgents => &[
                "run_background_agent",
                "list_background_agents",
                "view_background_agent",
                "wait_background_agents",
                "stop_background_agent",
            ],
            Self::File => &["read_file", "write_file", "edit_file"],
            Self::Tasks => &[
                "create_task",
                "get_task",
                "update_task",
                "delete_task",
                "list_tasks",
                "next_task",
                "add_dependency",
                "remove_dependency",
            ],
            Self::Plan => &["write_plan", "read_plan", "exit_plan_mode"],
            Self::SessionContext => &["list_sessions", "read_session"],
            Self::BackgroundJobs => &[
                "run_background_job",
                "list_background_jobs",
                "view_background_job",
                "stop_background_job",
            ],
            Self::Scheduler => &["create_schedule", "list_schedules", "cancel_schedule"],
            Self::McpCatalog => &[
                "search_remote_mcp_servers",
                "list_remote_mcp_servers",
                "enable_remote_mcp_server",
                "disable_remote_mcp_server",
                "reset_remote_mcp_server_auth",
            ],
            Self::Calculator => &["calculate"],
            Self::Random => &["random_int"],
            Self::Datetime => &["get_datetime"],
            Self::Environment => &["get_environment_info"],
            Self::Webhook => &["send_webhook"],
            Self::Git => &[
                "git_status",
                "git_log",
                "git_branches",
                "git_show",
                "git_blame",
            ],
            // Known only once the server answers or the document is read, or from the
            // toolset's `shell:`, `api_config.name` or the RAG source's tool name;
            // `open_url`'s from its `name`; a2a's from the remote agent's card.
            Self::Mcp
            | Self::Script
            | Self::Api
            | Self::OpenApi
            | Self::OpenUrl
            | Self::Rag
            | Self::A2a => &[],
        }
    }
}

/// docker-agent toolset types that Tether does not implement (a clear error, not "unknown").
pub const UNSUPPORTED_TOOLSETS: &[&str] = &[];
