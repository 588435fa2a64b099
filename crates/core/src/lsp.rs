//! The runtime's side of LSP: an agent's `type: lsp` toolsets become one slot whose tools
//! route by file type; their servers start together before the agent's first model call
//! (like MCP servers), a crashed one starts again on its next call, and all stop with the
//! runtime.

use std::collections::BTreeSet;
use std::sync::Arc;

use tether_config::{Agent, Toolset, ToolsetKind};
use tether_lsp::{LSP_INSTRUCTION, LspServer, LspToolset};
use tether_protocol::RuntimeEvent;

use crate::RuntimeOptions;
use crate::agent::AgentRuntime;
use crate::runtime::Runtime;
use crate::toolbox::{self, Slot, Source};

/// The slot built for the agent's first `type: lsp` toolset, made the slot of all of them:
/// each server keeps its own toolset's `tools:` and `readonly`, so the slot filters nothing.
pub(crate) fn merged(
    mut slot: Slot,
    agent: &Agent,
    opts: &RuntimeOptions,
    system_prompt: &mut Vec<String>,
) -> Slot {
    let (working_dir, log_dir) = (&opts.working_dir, opts.mcp_log_dir.as_deref());
    let mut servers = Vec::new();
    let mut texts = BTreeSet::new();
    for toolset in agent.toolsets.iter().filter(|t| t.kind == ToolsetKind::Lsp) {
        let Some(cfg) = &toolset.lsp else { continue };
        let log = log_dir.map(|d| d.join(format!("lsp-{}.log", log_name(&cfg.command))));
        let server = LspServer::new(cfg.clone(), working_dir, log)
            .only(toolset.tools.clone(), toolset.readonly);
        servers.push(Arc::new(server));
        if let Some(text) =
            toolbox::instruction(toolset.instruction.as_deref(), Some(LSP_INSTRUCTION))
            && texts.insert(text.clone())
        {
            system_prompt.push(text);
        }
    }
    slot.source = Source::Lsp(Arc::new(LspToolset::new(servers)));
    slot.allow = None;
    slot.readonly = false;
    slot
}

/// The toolsets, each with whether it is the first `type: lsp` one; the later `type: lsp`
/// ones are left out (the first one's slot holds them all).
pub(crate) fn first_of_each(toolsets: &[Toolset]) -> impl Iterator<Item = (&Toolset, bool)> {
    let mut seen = false;
    toolsets.iter().filter_map(move |t| {
        if t.kind != ToolsetKind::Lsp {
            return Some((t, false));
        }
        (!std::mem::replace(&mut seen, true)).then_some((t, true))
    })
}

/// A file name's worth of a command: its last path component, odd bytes replaced.
fn log_name(command: &str) -> String {
    let base = command.rsplit('/').next().unwrap_or(command);
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Runtime {
    /// Starts the agent's language servers that are not running (all at once). A server that
    /// cannot start is a warning, told once; its calls say why it is down.
    pub(crate) async fn start_language_servers(&self, agent: &AgentRuntime, session_id: &str) {
        let sets: Vec<&Arc<LspToolset>> = agent.toolbox.lsps().collect();
        let failures = futures::future::join_all(sets.iter().map(|s| s.start())).await;
        for reason in failures.into_iter().flatten() {
            if self.mcp_notified.first(&format!("lsp\0{reason}")) {
                self.emit(
                    session_id,
                    RuntimeEvent::Warning {
                        message: format!("{reason}\nits lsp tools fail until it starts"),
                    },
                );
            }
        }
    }

    /// Stops every language server of every agent.
    pub(crate) async fn stop_language_servers(&self) {
        let sets: Vec<&Arc<LspToolset>> =
            self.agents.iter().flat_map(|a| a.toolbox.lsps()).collect();
        futures::future::join_all(sets.iter().map(|s| s.stop())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_name_keeps_only_the_program_name() {
        assert_eq!(
            log_name("/usr/bin/pyright-langserver"),
            "pyright-langserver"
        );
        assert_eq!(log_name("../x y/gopls"), "gopls");
        assert_eq!(log_name("a.b"), "a_b");
    }
}
