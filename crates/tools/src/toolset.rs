//! Building the tools of one `toolsets:` entry of an agent.

use std::sync::Arc;

use tether_config::ToolsetKind;
use tether_exec::Shell;

use crate::{
    FETCH_INSTRUCTION, FILESYSTEM_INSTRUCTION, FetchTool, FilesystemTool, MEMORY_INSTRUCTION,
    MemoryTool, SHELL_INSTRUCTION, ScriptTool, ShellTool, TODO_INSTRUCTION, ThinkTool, TodoTool,
    Tool, Toolset, script_instruction,
};

/// The tools of `cfg`: only those its `tools:` filter lists (in definition order, whatever
/// the filter's order), with the toolset's system-prompt text. The shell tool runs commands
/// with `shell` and the entry's `env`. A filter that keeps no tool yields no instruction.
pub fn build_toolset(cfg: &tether_config::Toolset, shell: &Shell) -> Toolset {
    let (all, instruction): (Vec<Arc<dyn Tool>>, Option<String>) = match cfg.kind {
        ToolsetKind::Filesystem => (
            FilesystemTool::all(),
            Some(FILESYSTEM_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Shell => (
            vec![Arc::new(ShellTool::new(shell.clone(), &cfg.env))],
            Some(SHELL_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Think => (vec![Arc::new(ThinkTool::default())], None),
        ToolsetKind::Fetch => (
            vec![Arc::new(FetchTool::new(cfg.timeout, cfg.allow_private_ips))],
            Some(FETCH_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Memory => (
            MemoryTool::all(cfg.path.as_deref()),
            Some(MEMORY_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Todo => (TodoTool::all(), Some(TODO_INSTRUCTION.to_owned())),
        // Its tools come from the server, once it runs (tether-mcp); `user_prompt` asks the
        // user, so the runtime provides it.
        ToolsetKind::Mcp | ToolsetKind::UserPrompt => (Vec::new(), None),
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
