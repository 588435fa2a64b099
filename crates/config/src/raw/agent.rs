//! An agent (`agents.NAME`) and the objects only an agent has.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{RawHooks, RawToolset, Scalar};
use crate::agent::Safety;
use crate::schema::FieldType as T;

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "agent")]
    pub(crate) struct RawAgent {
        /// `provider/model`, or the name of an entry under `models:`.
        pub(crate) model: Option<Spanned<String>>,
        /// What the agent does (shown to parent agents).
        pub(crate) description: Option<String>,
        /// The system prompt.
        pub(crate) instruction: Option<String>,
        /// A file holding the system prompt, relative to the agent file.
        pub(crate) instruction_file: Option<Spanned<String>>,
        /// The tools the agent can call.
        pub(crate) toolsets: Option<Vec<Spanned<RawToolset>>>,
        /// Agents `transfer_task` may delegate to: names in this file, or external agents (an OCI
        /// reference such as `agentcatalog/pirate`, an http(s) URL, a `.yaml` file).
        pub(crate) sub_agents: Option<Vec<Spanned<String>>>,
        /// Agents `handoff` may give the conversation to (names, or external agents as in
        /// `sub_agents`).
        pub(crate) handoffs: Option<Vec<Spanned<String>>>,
        /// The agent every natural stop hands off to.
        pub(crate) force_handoff: Option<Spanned<String>>,
        /// Model calls per run before asking to continue (0 = unlimited).
        pub(crate) max_iterations: Option<Spanned<i64>>,
        /// Identical consecutive tool batches before the loop detector stops the run (0 = 5).
        pub(crate) max_consecutive_tool_calls: Option<Spanned<i64>>,
        /// Send only this many recent messages (0 = all).
        pub(crate) num_history_items: Option<Spanned<i64>>,
        /// Shorthand: the `add_date` builtin on `turn_start`.
        pub(crate) add_date: Option<bool>,
        /// Shorthand: the `add_environment_info` builtin on `session_start`.
        pub(crate) add_environment_info: Option<bool>,
        /// Shorthand: the `add_prompt_files` builtin on `turn_start` with these files.
        pub(crate) add_prompt_files: Option<Vec<String>>,
        /// Shorthand: `redact_secrets` on pre_tool_use, before_llm_call and
        /// tool_response_transform.
        pub(crate) redact_secrets: Option<bool>,
        /// Named prompts run as `/NAME [ARGS]`: a map (or a list of one-entry maps) of strings or
        /// `{description, instruction, agent}`; `${env.X}`, `${args…}` and `${TOOL({…})}` are
        /// evaluated. `agent` switches the session to that agent first (then the instruction, or
        /// what is typed after the command, goes to it).
        pub(crate) commands: Option<Spanned<serde_json::Value>>,
        /// Shown when an interactive session starts.
        pub(crate) welcome_message: Option<String>,
        /// Every toolset keeps only the tools that declare themselves read-only.
        pub(crate) readonly: Option<bool>,
        /// Top-level `toolsets:` entries appended to this agent's own, in order.
        pub(crate) use_toolsets: Option<Vec<Spanned<String>>>,
        /// Top-level `commands:` groups merged into this agent's (its own win on a name clash).
        pub(crate) use_commands: Option<Vec<Spanned<String>>>,
        /// Cut each tool result to this many tokens (bytes / 4), keeping head and tail (0 or -1: no
        /// cap).
        pub(crate) max_tool_result_tokens: Option<Spanned<i64>>,
        /// Keep this many tokens (bytes / 4) of older tool calls' arguments and results, newest
        /// first; older ones reach the model as placeholders (the latest batch is always whole; 0
        /// or -1: keep all). The session keeps everything.
        pub(crate) max_old_tool_call_tokens: Option<Spanned<i64>>,
        /// Names of top-level `budgets` the agent spends against (every one applies; the first
        /// exhausted stops the run).
        pub(crate) budgets: Option<Vec<Spanned<String>>>,
        /// Also list, by path, the `add_prompt_files` names found up to this many directory levels
        /// below the working directory (1: direct subdirectories; default 0). Their contents are
        /// not loaded.
        pub(crate) add_prompt_files_depth: Option<Spanned<i64>>,
        /// Every tool takes an optional `description` argument: why the model calls it (hooks see
        /// it; the tool does not).
        pub(crate) add_description_parameter: Option<bool>,
        /// The toolsets' tools (but `todo`) reach the model as one tool,
        /// `run_tools_with_javascript`, whose JavaScript calls them, each call through the hooks
        /// and approvals (see Code mode below).
        pub(crate) code_mode_tools: Option<bool>,
        /// Compact the conversation near the context window and after an overflow (default true).
        pub(crate) session_compaction: Option<bool>,
        /// The model that writes compaction summaries (`models:` name or `provider/model`; default:
        /// the agent's).
        pub(crate) compaction_model: Option<Spanned<String>>,
        /// The share of the context window past which the conversation is compacted (0 < x ≤ 1,
        /// default 0.9).
        pub(crate) compaction_threshold: Option<Spanned<f64>>,
        /// How calls no rule or hook decided are approved (default `balanced`; `--yolo` is
        /// `autonomous`).
        #[schema(ty = T::Enum(&Safety::NAMES))]
        pub(crate) safety: Option<Spanned<String>>,
        /// The agents this agent's `before_agent_run` / `after_agent_complete` hook may send the
        /// run to.
        pub(crate) routing: Option<Spanned<RawAgentRouting>>,
        /// Models tried in order when the agent's model fails (`on_error` and `notification` hooks
        /// see each switch).
        pub(crate) fallback: Option<Spanned<RawFallback>>,
        /// A JSON Schema every answer of the agent must match (native on OpenAI and Gemini; a
        /// forced answer tool on Anthropic).
        pub(crate) structured_output: Option<Spanned<RawStructuredOutput>>,
        /// `true` (local `SKILL.md` skills), `false`, or a list of `local`, skill names to keep,
        /// and inline skills `{name, description, instructions}`.
        pub(crate) skills: Option<Spanned<serde_json::Value>>,
        /// Top-level `skills` groups merged into the agent's skills, in order; the agent's own
        /// inline skills win on a name.
        pub(crate) use_skills: Option<Vec<Spanned<String>>>,
        /// A response cache: a user question asked again is answered with the previous answer,
        /// without calling the model.
        pub(crate) cache: Option<Spanned<RawCache>>,
        /// Top-level `rag` sources whose search tools the agent gets.
        pub(crate) rag: Option<Vec<Spanned<String>>>,
        /// Whether the model must call a tool: `auto` (the model decides; default), `required`
        /// (every answer calls a tool) or `none` (no tool calls). Sent on every model call that
        /// offers tools.
        #[schema(ty = T::Enum(&["auto", "required", "none"]))]
        pub(crate) tool_choice: Option<Spanned<String>>,
        /// At the start of every turn, the memories of the agent's `type: memory` toolset most
        /// relevant to the latest user message (BM25) reach the model as a system message.
        pub(crate) inject_memories: Option<Spanned<bool>>,
        /// The most memories `inject_memories` adds per turn (0 or absent: 5).
        pub(crate) max_inject_memories: Option<Spanned<i64>>,
        /// How `inject_memories` picks memories: `local` (BM25 over the stored memories, the
        /// default).
        #[schema(ty = T::Enum(&["local"]))]
        pub(crate) inject_memories_strategy: Option<Spanned<String>>,
        /// Lifecycle hooks, per event.
        pub(crate) hooks: Option<RawHooks>,
    }
}

described! {
    /// An agent's `cache:`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "cache")]
    pub(crate) struct RawCache {
        /// Turn the cache on (default false).
        pub(crate) enabled: Option<bool>,
        /// Questions must match in case too (default false).
        pub(crate) case_sensitive: Option<bool>,
        /// Leading and trailing whitespace does not count (default false).
        pub(crate) trim_spaces: Option<bool>,
        /// A JSON file keeping the answers across runs, relative to the agent file; absent: in
        /// memory only.
        pub(crate) path: Option<String>,
    }
}

described! {
    /// `routing:` of an agent: where its before_agent_run / after_agent_complete hooks may send
    /// the run.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "agent_routing")]
    pub(crate) struct RawAgentRouting {
        /// Agents of this file a routing hook may pick (not this agent).
        #[schema(required)]
        pub(crate) allowed_agents: Option<Vec<Spanned<String>>>,
        /// Where an uncertain or failed routing decision goes (one of `allowed_agents`).
        pub(crate) default_agent: Option<Spanned<String>>,
    }
}

described! {
    /// `fallback:` of an agent.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "fallback")]
    pub(crate) struct RawFallback {
        /// Fallback models in order (`models:` names or `provider/model`).
        #[schema(required)]
        pub(crate) models: Option<Vec<Spanned<String>>>,
        /// Extra attempts per model on 5xx and timeouts: 0 = default (2), -1 = none.
        pub(crate) retries: Option<Spanned<i64>>,
        /// How long a fallback that answered after a rate limit or client error is kept (default
        /// `1m`).
        #[schema(ty = T::String)]
        pub(crate) cooldown: Option<Spanned<Scalar>>,
    }
}

described! {
    /// `structured_output:` of an agent.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "structured_output")]
    pub(crate) struct RawStructuredOutput {
        /// The schema's name.
        #[schema(required)]
        pub(crate) name: Option<Spanned<String>>,
        /// What the answer is.
        pub(crate) description: Option<String>,
        /// A JSON Schema with `type: object`.
        #[schema(required)]
        pub(crate) schema: Option<Spanned<serde_json::Value>>,
        /// OpenAI: enforce the schema exactly (every property required).
        pub(crate) strict: Option<bool>,
        /// `native` (the provider enforces it); `tool` is not supported yet.
        #[schema(ty = T::Enum(&["native"]))]
        pub(crate) mode: Option<Spanned<String>>,
    }
}
