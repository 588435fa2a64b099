//! One agent, ready to run: its model client, tools, system prompt and hooks executor.

use std::sync::Arc;

use tether_hooks::Executor;
use tether_protocol::AgentModelRef;
use tether_providers::{ModelSpec, Provider, ToolDefinition};
use tether_tools::Tool;

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
    pub tools: Vec<Arc<dyn Tool>>,
    /// The tool definitions sent to the model, built once.
    pub tool_definitions: Vec<ToolDefinition>,
    pub executor: Arc<Executor>,
    /// 0 = unlimited.
    pub max_iterations: u32,
    /// Loop-detector threshold (never 0: the default is 5).
    pub max_consecutive_tool_calls: u32,
    /// 0 = send the whole history.
    pub num_history_items: u32,
    /// Agents `transfer_task` may target.
    pub sub_agents: Vec<String>,
    /// Agents `handoff` may target.
    pub handoffs: Vec<String>,
    /// The agent every natural stop hands off to.
    pub force_handoff: Option<String>,
    /// `transfer_task` / `handoff`, run by the runtime itself.
    pub runtime_tools: Vec<tether_tools::ToolDefinition>,
}

impl AgentRuntime {
    pub fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.definition().name == name)
    }

    pub fn runtime_tool(&self, name: &str) -> Option<&tether_tools::ToolDefinition> {
        self.runtime_tools.iter().find(|d| d.name == name)
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
