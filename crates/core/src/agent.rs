//! One agent, ready to run: its model client, tools, system prompt and hooks executor.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tether_hooks::Executor;
use tether_protocol::AgentModelRef;
use tether_providers::{ModelSpec, Provider};

use crate::toolbox::{Entry, Toolbox};

/// An agent with everything resolved.
#[derive(Debug)]
pub struct AgentRuntime {
    pub name: String,
    /// `provider/model`, as hooks see it in `model_id`.
    pub model_id: String,
    pub model: ModelSpec,
    pub provider: Arc<dyn Provider>,
    /// The agent's instruction then each toolset's instruction: the invariant system messages.
    pub system_prompt: Vec<String>,
    /// Built-in, MCP and runtime tools, with the toolsets' options applied.
    pub(crate) toolbox: Toolbox,
    /// The models of toolsets' `model:` (the turn after one of their tools ran).
    pub(crate) tool_models: Vec<ToolModel>,
    /// The model `change_model` switched to (`type: model_picker`).
    pub(crate) picked_model: crate::model_picker::Picked,
    pub executor: Arc<Executor>,
    /// 0 = unlimited.
    pub max_iterations: u32,
    /// Loop-detector threshold (never 0: the default is 5).
    pub max_consecutive_tool_calls: u32,
    /// 0 = send the whole history.
    pub num_history_items: u32,
    /// `commands:` (`/NAME`).
    pub commands: Vec<tether_config::Command>,
    /// Shown when an interactive session starts.
    pub welcome_message: Option<String>,
    /// Agents `transfer_task` may target.
    pub sub_agents: Vec<String>,
    /// Agents `handoff` may target.
    pub handoffs: Vec<String>,
    /// The agent every natural stop hands off to.
    pub force_handoff: Option<String>,
    /// Tool results are cut to this many tokens (len/4), head and tail kept.
    pub(crate) max_tool_result_tokens: Option<u64>,
    /// `cache`: answers to questions asked before.
    pub(crate) cache: Option<crate::response_cache::ResponseCache>,
    /// The budget pots its model calls and turns spend from.
    pub(crate) budget_pots: Vec<usize>,
    /// Older tool calls past this many tokens are sent as placeholders.
    pub(crate) max_old_tool_call_tokens: Option<u64>,
    /// `session_compaction` and the runtime's own switch both on.
    pub(crate) compaction: bool,
    /// `compaction_model`: writes the summary instead of the agent's model.
    pub(crate) compaction_provider: Option<Arc<dyn Provider>>,
    /// Share of the context window that triggers a compaction.
    pub(crate) compaction_threshold: f64,
    /// How calls no rule or hook decided are approved.
    pub safety: tether_config::Safety,
    /// `routing:` (before_agent_run / after_agent_complete targets).
    pub routing: Option<tether_config::AgentRouting>,
    /// `fallback:` models.
    pub(crate) fallback: Option<FallbackChain>,
    /// `skills:`, for `/NAME`.
    pub(crate) skills: Vec<tether_tools::Skill>,
    /// `structured_output:`, sent with every model call of the agent.
    pub(crate) response_schema: Option<tether_providers::ResponseSchema>,
    /// `tool_choice:`, sent with every model call of the agent that offers tools.
    pub(crate) tool_choice: Option<tether_providers::ToolChoice>,
    /// `inject_memories`: relevant memories added at every turn start.
    pub(crate) inject_memories: Option<tether_config::InjectMemories>,
}

/// The models tried after the agent's own, and which one answers for now.
#[derive(Debug)]
pub(crate) struct FallbackChain {
    pub(crate) models: Vec<ToolModel>,
    pub(crate) retries: u32,
    pub(crate) cooldown: Duration,
    /// A fallback kept until the instant, after a non-retryable error of the one before it.
    sticky: Mutex<Option<(Instant, usize)>>,
}

impl FallbackChain {
    pub(crate) fn new(models: Vec<ToolModel>, retries: u32, cooldown: Duration) -> Self {
        Self {
            models,
            retries,
            cooldown,
            sticky: Mutex::new(None),
        }
    }

    /// Where calls start: 0 (the agent's model), or a fallback within its cooldown.
    pub(crate) fn start(&self) -> usize {
        let mut sticky = self.sticky.lock().unwrap_or_else(PoisonError::into_inner);
        match *sticky {
            Some((until, i)) if Instant::now() < until => i,
            _ => {
                *sticky = None;
                0
            }
        }
    }

    pub(crate) fn stick(&self, index: usize) {
        *self.sticky.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now() + self.cooldown, index));
    }
}

/// A model a toolset routes its results to.
#[derive(Debug)]
pub(crate) struct ToolModel {
    pub(crate) id: String,
    pub(crate) provider: Arc<dyn Provider>,
}

impl AgentRuntime {
    /// The model `change_model` chose, as an index into `tool_models`.
    pub(crate) fn picked_model(&self) -> Option<usize> {
        *self
            .picked_model
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A callable tool by its model-visible name, as of the latest model call.
    pub(crate) fn tool(&self, name: &str) -> Option<Entry> {
        self.toolbox
            .view()
            .tools
            .iter()
            .find(|e| e.tool.definition().name == name)
            .cloned()
    }

    pub fn runtime_tool(&self, name: &str) -> Option<&tether_tools::ToolDefinition> {
        self.toolbox.runtime_tools.iter().find(|d| d.name == name)
    }

    /// The names of the tools the model can call now (built-in, MCP, runtime).
    pub fn tool_names(&self) -> Vec<String> {
        self.toolbox
            .view()
            .definitions
            .iter()
            .map(|d| d.name.clone())
            .collect()
    }

    /// Whether every tool the model can call now is read-only. An MCP toolset counts as not
    /// read-only: its tools are unknown until its server starts.
    pub fn tools_read_only(&self) -> bool {
        let view = self.toolbox.view();
        self.toolbox.servers().next().is_none()
            && view.tools.iter().all(|e| e.tool.definition().read_only)
            && self.toolbox.runtime_tools.iter().all(|d| d.read_only)
    }

    /// The model endpoints of this agent (on_agent_switch `from_agent_models`).
    pub fn model_refs(&self) -> Vec<AgentModelRef> {
        let unload_api = self
            .model
            .provider_opts
            .get("unload_api")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned();
        vec![AgentModelRef {
            provider: self.model.provider.clone(),
            model: self.model.model.clone(),
            base_url: self.model.base_url.clone().unwrap_or_default(),
            unload_api,
        }]
    }
}
