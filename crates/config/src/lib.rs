//! Agent files: YAML → strict `raw` structs (unknown keys are errors) → validated types
//! (compiled matchers, durations, resolved paths), with every problem reported as a
//! [`Diagnostic`] at `file:line:col` with its key path. CLI flags and agent shorthands merge
//! through one function, [`effective_hooks`].

mod access;
mod agent;
pub mod commands;
mod diagnostic;
mod effective;
mod evaluator;
mod hooks;
mod load;
mod lsp;
mod mcp;
mod model;
mod permission_glob;
mod permission_paths;
mod permissions;
mod policy;
mod policy_shell;
mod rag;
mod raw;
mod sandbox;
pub mod schema;
mod suggest;
mod toolset;
mod upstream;
mod user;
pub mod vars;
mod webhook;

use std::path::PathBuf;

pub use access::{DomainPattern, expand_path_entry};
pub use agent::{
    Agent, AgentFile, AgentRouting, Budget, External, ExternalSource, Fallback, InjectMemories,
    InlineSkill, OciReference, ResponseCache, Safety, Skills, StructuredOutput, ToolChoice,
};
pub use commands::{Command, Part as CommandPart};
pub use diagnostic::{Diagnostic, Diagnostics, Origin, TextOrigin};
pub use effective::{CliHooks, InjectOptions, effective_hooks};
pub use evaluator::{
    DEFAULT_EVALUATOR_TIMEOUT, Evaluator, EvaluatorPolicy, MAX_CHOICES, Probability,
    is_guarding_event, is_routing_event,
};
pub use hooks::{
    ArgsTemplate, DEFAULT_HOOK_TIMEOUT, Dialect, HookKind, HookSource, HookSpec, HooksConfig,
    MODEL_HOOK_SCHEMAS, Matcher, MatcherEntry, OnError, env_references, expand_env,
};
pub use load::{load_file, load_str};
pub use lsp::LspServer;
pub use mcp::{
    Backoff, DEFAULT_STARTUP_TIMEOUT, Lifecycle, LifecycleProfile, McpServer, McpTransport,
    RemoteTransport, Restart, parse_go_duration,
};
pub use model::{
    AUTO_LOCAL_MODEL, AUTO_MODELS, Capabilities, KNOWN_PROVIDERS, ModelCatalog, ModelChoice,
    ModelConfig, ProviderDef, RoutingRule, ThinkingBudget,
};
pub use permissions::{PermissionPattern, Permissions, approvals_allow, shell_alias};
pub use policy::{POLICY_EVENTS, PolicyHook, TextAt};
pub use policy_shell::ShellOnlyForbid;
pub use rag::{
    Chunking, Fusion, Prefetch, RagResults, RagSource, RagStrategy, RagStrategyKind, Reranking,
    TopologyPrior,
};
pub use sandbox::{
    HookSandbox, PROFILE_KEYS as SANDBOX_PROFILE_KEYS, SandboxDefault, SandboxNetwork,
    SandboxProfile,
};
pub use toolset::{ApiConfig, Defer, PostEdit, Script, Toolset, ToolsetKind, UNSUPPORTED_TOOLSETS};
pub use upstream::upstream_fields;
pub use user::{UserConfig, data_dir};
pub use webhook::WebhookConfig;

/// Why a config could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read. Not retryable without user action.
    #[error("cannot read `{}`: {message}", path.display())]
    Io { path: PathBuf, message: String },
    /// The file was read but is invalid; every problem found is listed.
    #[error("{0}")]
    Invalid(Diagnostics),
}
