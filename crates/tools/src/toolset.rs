//! Building the tools of one `toolsets:` entry of an agent.

use std::sync::{Arc, Mutex};

use tether_config::ToolsetKind;
use tether_exec::Shell;

use crate::{
    ApiTool, FETCH_INSTRUCTION, FetchTool, FilesystemTool, MEMORY_INSTRUCTION, MemoryTool,
    PLAN_INSTRUCTION, PlanTool, SHELL_INSTRUCTION, ScriptTool, ShellTool, TASKS_INSTRUCTION,
    TODO_INSTRUCTION, TasksTool, ThinkTool, TodoList, TodoTool, Tool, Toolset, file_instruction,
    filesystem_instruction, script_instruction,
};

/// State that toolsets of several agents of one run share.
#[derive(Debug, Default, Clone)]
pub struct SharedState {
    /// The list of every `type: todo` toolset with `shared: true`.
    pub todo: Arc<Mutex<TodoList>>,
    /// The jobs of every `type: background_jobs` toolset, stopped together when the run ends.
    pub jobs: Arc<crate::JobTable>,
}

/// [`build_toolset_with`] with state of its own (nothing shared).
pub fn build_toolset(cfg: &tether_config::Toolset, shell: &Shell) -> Toolset {
    build_toolset_with(cfg, shell, &SharedState::default())
}

/// The tools of `cfg`: only those its `tools:` filter lists (in definition order, whatever
/// the filter's order), with the toolset's system-prompt text. The shell tool runs commands
/// with `shell` and the entry's `env`. A filter that keeps no tool yields no instruction.
pub fn build_toolset_with(
    cfg: &tether_config::Toolset,
    shell: &Shell,
    shared: &SharedState,
) -> Toolset {
    let (all, instruction): (Vec<Arc<dyn Tool>>, Option<String>) = match cfg.kind {
        ToolsetKind::Filesystem => (
            FilesystemTool::with_options(cfg, shell),
            Some(filesystem_instruction(cfg)),
        ),
        ToolsetKind::Shell => (
            vec![Arc::new(ShellTool::new(shell.clone(), &cfg.env))],
            Some(SHELL_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Think => (vec![Arc::new(ThinkTool::default())], None),
        ToolsetKind::Fetch => (
            vec![Arc::new(FetchTool::new(cfg))],
            Some(FETCH_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Memory => (
            MemoryTool::all(cfg.path.as_deref()),
            Some(MEMORY_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Todo if cfg.shared => (
            TodoTool::over(&shared.todo),
            Some(TODO_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Todo => (TodoTool::all(), Some(TODO_INSTRUCTION.to_owned())),
        ToolsetKind::File => (
            FilesystemTool::with_options(cfg, shell)
                .into_iter()
                .filter(|t| {
                    ToolsetKind::File
                        .tool_names()
                        .contains(&t.definition().name.as_str())
                })
                .collect(),
            Some(file_instruction(cfg)),
        ),
        ToolsetKind::Tasks => (
            TasksTool::all(cfg.path.as_deref()),
            Some(TASKS_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Plan => (PlanTool::all(), Some(PLAN_INSTRUCTION.to_owned())),
        ToolsetKind::BackgroundJobs => (
            crate::JobTool::all(&shared.jobs, shell, &cfg.env),
            Some(crate::JOBS_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Scheduler => (
            crate::SchedulerTool::all(),
            Some(crate::SCHEDULER_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Api => match &cfg.api {
            Some(api) => (
                vec![Arc::new(ApiTool::new(
                    api,
                    cfg.timeout,
                    cfg.allow_private_ips,
                ))],
                Some(api.instruction.clone()).filter(|i| !i.trim().is_empty()),
            ),
            None => (Vec::new(), None),
        },
        // Its tools come from the server, once it runs (tether-mcp), or from the OpenAPI
        // document or the A2A agent card, once read; `user_prompt` asks the user, `model_picker`
        // switches the agent's model and `background_agents` runs sub-agents, so the runtime
        // provides them; `rag` searches with the runtime's embedding models (tether-rag);
        // `lsp` tools come from tether-lsp, over every language server of the agent;
        // `session_context` reads the runtime's session store; `mcp_catalog` starts MCP
        // servers (tether-mcp).
        ToolsetKind::Mcp
        | ToolsetKind::McpCatalog
        | ToolsetKind::Rag
        | ToolsetKind::Lsp
        | ToolsetKind::UserPrompt
        | ToolsetKind::OpenApi
        | ToolsetKind::ModelPicker
        | ToolsetKind::BackgroundAgents
        | ToolsetKind::A2a
        | ToolsetKind::SessionContext => (Vec::new(), None),
        ToolsetKind::Calculator
        | ToolsetKind::Random
        | ToolsetKind::Datetime
        | ToolsetKind::Environment
        | ToolsetKind::OpenUrl
        | ToolsetKind::Webhook
        | ToolsetKind::Git => crate::small::build(cfg, shell),
        ToolsetKind::Script => {
            let tools = cfg
                .scripts
                .iter()
                .map(|s| Arc::new(ScriptTool::new(s, shell.clone(), &cfg.env)) as Arc<dyn Tool>)
                .collect();
            (tools, Some(script_instruction(&cfg.scripts)))
        }
    };
    let tools: Vec<Arc<dyn Tool>> = match &cfg.tools {
        Some(names) => all
            .into_iter()
            .filter(|t| names.iter().any(|n| *n == t.definition().name))
            .collect(),
        None => all,
    };
    let instruction = (!tools.is_empty()).then_some(instruction).flatten();
    Toolset { tools, instruction }
}
