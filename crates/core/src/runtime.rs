//! The runtime every phase works on: the agents (each with its model, tools and hooks
//! executor), the team's permissions, where events go and how to ask the user. Built once by
//! `build`, shared read-only by every session; the phases (`run`, `turn`, `tool_call`,
//! `approval`, …) add their methods in their own files.

use std::path::PathBuf;
use std::sync::Arc;

use tether_config::Permissions;
use tether_hooks::HookResult;
use tether_protocol::{CommonInput, HookEvent, HookInput, Lane, RuntimeEvent};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::budget::Budgets;
use crate::interaction::{Interaction, Lineage, Sink};
use crate::mcp_host::Notified;
use crate::store::SessionStore;
use crate::tasks::TaskRouter;

/// A new, time-ordered session id.
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A configured runtime: agents, team permissions, where events go and how to ask the user.
/// Cloning is cheap and shares everything: background sub-agent tasks hold a clone.
#[derive(Debug, Clone)]
pub struct Runtime(Arc<Shared>);

impl Runtime {
    pub(crate) fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for Runtime {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every clone of a [`Runtime`] shares.
#[derive(Debug)]
pub struct Shared {
    pub(crate) agents: Vec<Arc<AgentRuntime>>,
    pub(crate) permissions: Permissions,
    pub(crate) sink: Sink,
    pub(crate) interaction: Arc<dyn Interaction>,
    pub(crate) working_dir: PathBuf,
    pub(crate) yolo: bool,
    pub(crate) non_interactive: bool,
    pub(crate) store: Option<Arc<dyn SessionStore>>,
    pub(crate) async_hook_grace: std::time::Duration,
    /// A code-mode script's limits.
    pub(crate) script_limits: tether_codemode::Limits,
    /// MCP failures already reported.
    pub(crate) mcp_notified: Notified,
    /// What setup skipped (malformed skills), for the user to see.
    pub(crate) warnings: Vec<String>,
    /// Which sessions run for a background task (their events feed its output).
    pub(crate) background: TaskRouter,
    /// The pots' limits; what each session spent is its own.
    pub(crate) budgets: Budgets,
    /// Which conversation each running sub-session belongs to.
    pub(crate) lineage: Arc<Lineage>,
    /// The `background_jobs` jobs of every agent, stopped with the MCP servers.
    pub(crate) jobs: Arc<tether_tools::JobTable>,
}

impl Runtime {
    /// Problems setup worked around (a malformed `SKILL.md`, …).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn agent(&self, name: &str) -> Option<&Arc<AgentRuntime>> {
        self.agents.iter().find(|a| a.name == name)
    }

    pub fn working_dir(&self) -> &std::path::Path {
        &self.working_dir
    }

    /// A new, time-ordered session id.
    pub fn new_session_id(&self) -> String {
        new_session_id()
    }

    pub(crate) fn emit(&self, session_id: &str, event: RuntimeEvent) {
        if self.background.forward(session_id, &event) {
            self.sink.emit(session_id, event);
        }
    }

    /// The common Input fields; an event's payload completes the Input.
    pub(crate) fn input(&self, agent: &AgentRuntime, session_id: &str) -> CommonInput {
        CommonInput {
            session_id: session_id.to_owned(),
            cwd: self.working_dir.display().to_string(),
            agent_name: agent.name.clone(),
        }
    }

    /// Dispatches an event on the default lane and surfaces warnings and system messages.
    pub(crate) async fn fire(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        event: HookEvent,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult {
        let r = agent
            .executor
            .dispatch(event, Lane::Default, input, cancel)
            .await;
        self.surface(session_id, &r);
        r
    }

    /// Shows a result's warnings and `system_message` to the user.
    pub(crate) fn surface(&self, session_id: &str, r: &HookResult) {
        for w in &r.warnings {
            self.emit(session_id, RuntimeEvent::Warning { message: w.clone() });
        }
        if !r.system_message.is_empty() {
            self.emit(
                session_id,
                RuntimeEvent::Warning {
                    message: r.system_message.clone(),
                },
            );
        }
    }
}
