//! The top level of an agent file, and its `runtime`, `budget` and `permissions`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{
    OrderedMap, RawAgent, RawEvaluator, RawMcpDef, RawModel, RawProvider, RawToolset, Scalar,
};
use crate::agent::Safety;
use crate::schema::FieldType as T;

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawAgentFile {
        /// Schema version (docker-agent's); accepted, not interpreted.
        pub(crate) version: Option<Scalar>,
        /// The agents, in order: `root` (else the first) starts.
        #[schema(required)]
        pub(crate) agents: Option<Spanned<OrderedMap<Spanned<RawAgent>>>>,
        /// Named models that agents refer to by name.
        pub(crate) models: Option<OrderedMap<Spanned<RawModel>>>,
        /// Tool permission rules for every agent.
        pub(crate) permissions: Option<RawPermissions>,
        /// Free-form metadata (author, license, …).
        pub(crate) metadata: Option<BTreeMap<String, serde_json::Value>>,
        /// MCP servers defined once, used by `type: mcp` toolsets with `ref: NAME`.
        pub(crate) mcps: Option<OrderedMap<Spanned<RawMcpDef>>>,
        /// Endpoints and defaults that models name as their `provider` (custom gateways).
        pub(crate) providers: Option<OrderedMap<Spanned<RawProvider>>>,
        /// Toolsets defined once, added to agents with `use_toolsets`.
        pub(crate) toolsets: Option<OrderedMap<Spanned<RawToolset>>>,
        /// Command groups defined once (each like an agent's `commands`), added to agents with
        /// `use_commands`.
        pub(crate) commands: Option<OrderedMap<Spanned<serde_json::Value>>>,
        /// RAG sources: documents indexed by retrieval strategies, searched by a tool that
        /// agents add with `rag: [NAME]` or a `type: rag` toolset with `ref: NAME`.
        pub(crate) rag: Option<OrderedMap<Spanned<serde_json::Value>>>,
        /// Named classifiers that `type: evaluator` hooks call.
        pub(crate) evaluators: Option<OrderedMap<Spanned<RawEvaluator>>>,
        /// Ceilings on what the run consumes, whichever agent spends (sub-agents and background
        /// tasks included).
        pub(crate) budget: Option<Spanned<RawBudget>>,
        /// Named ceilings; agents opt in with their `budgets`, and agents naming the same budget
        /// share one pot.
        pub(crate) budgets: Option<OrderedMap<Spanned<RawBudget>>>,
        /// Named skill groups (each like an agent's `skills`) that agents add with `use_skills`.
        pub(crate) skills: Option<OrderedMap<Spanned<serde_json::Value>>>,
        /// Defaults for running the file.
        pub(crate) runtime: Option<Spanned<RawRuntime>>,
    }
}

described! {
    /// `runtime:`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "runtime")]
    pub(crate) struct RawRuntime {
        /// The safety mode when neither the agent (`safety`) nor the user (`settings.safety`) chose
        /// one.
        #[schema(ty = T::Enum(&Safety::NAMES))]
        pub(crate) safety: Option<Spanned<String>>,
        /// `false` only: a Docker sandbox is not supported yet (`true` is a load error).
        pub(crate) sandbox: Option<Spanned<bool>>,
        /// Empty only: it configures the sandbox, which is not supported yet.
        pub(crate) network_allowlist: Option<Spanned<Vec<String>>>,
    }
}

described! {
    /// `budget` / `budgets.NAME`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "budget")]
    pub(crate) struct RawBudget {
        /// USD (0: unlimited). Only priced model calls count; an unpriced model's calls are a
        /// warning.
        pub(crate) max_cost: Option<f64>,
        /// Input plus output tokens over the run's lifetime (0: unlimited); compaction does not
        /// reset it.
        pub(crate) max_tokens: Option<i64>,
        /// The sum of turn durations, as a duration (`30s`, `10m`, `1h30m`); time waiting for the
        /// user does not count.
        pub(crate) max_time: Option<String>,
    }
}

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "permissions")]
    pub(crate) struct RawPermissions {
        /// Patterns that run without asking (matched strictly: exact keys and case; a shell line
        /// only when each of its commands is allowed).
        pub(crate) allow: Option<Vec<Spanned<String>>>,
        /// Patterns that always ask (matched generously, like `deny`).
        pub(crate) ask: Option<Vec<Spanned<String>>>,
        /// Patterns that never run (checked first; matched generously: any case, wildcards cross
        /// `/`, every command of a shell line).
        pub(crate) deny: Option<Vec<Spanned<String>>>,
    }
}
