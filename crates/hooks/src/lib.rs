//! The hooks engine: a registry of handlers, an executor per agent (select, run, aggregate),
//! the command runner, the stdout parser and the builtins.
//!
//! It knows nothing of the agent loop or of model providers: the runtime calls
//! [`Executor::dispatch`] at each lifecycle point and decides what the [`HookResult`] means
//! for the run; model hooks reach a provider through the injected [`ModelRunner`].

mod aggregate;
mod async_hooks;
pub mod builtins;
pub mod claude;
mod command_runner;
mod compile;
mod evaluator_hook;
pub mod events;
mod executor;
mod http_hook;
mod mcp_hook;
mod model_hook;
mod observer;
pub mod output_parser;
mod persistent;
mod policy_condition;
mod policy_hook;
mod policy_scope;
mod registry;
mod result;
mod sandbox;
mod strict_output;
mod template;
mod template_check;

pub use async_hooks::MAX_CONCURRENT_ASYNC_HOOKS;
pub use command_runner::{DRAIN_TIMEOUT, OUTPUT_CAP};
pub use evaluator_hook::{ASSESSMENT_SCHEMA, routing_output};
pub use executor::{Executor, ExecutorOptions};
pub use mcp_hook::McpCaller;
pub use model_hook::{
    PRE_TOOL_USE_DECISION, SYSTEM_PROMPT, pre_tool_use_decision_schema, render_prompt,
};
pub use observer::{HookLog, HookObserver, duration_ms};
pub use registry::{
    Builtin, BuiltinCall, HookEnv, ModelRequest, ModelRunner, Notes, Registry, StructuredOutput,
};

/// A registry with every stateless builtin, running command hooks with `shell`.
pub fn default_registry(shell: tether_exec::Shell) -> Registry {
    let mut r = Registry::new(shell);
    builtins::register_defaults(&mut r);
    r
}
pub use result::{HookResult, HookRun, Outcome, PolicyError, RunStatus};
