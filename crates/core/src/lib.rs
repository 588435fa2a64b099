//! The runtime: sessions, the turn loop and the tool-approval chain.
//!
//! It calls the hooks engine at every lifecycle point (docs/design.md, Events; D1–D4)
//! and honours every verdict; it emits [`RuntimeEvent`]s for renderers and asks the user through
//! an [`Interaction`]. It never prints. The loop is split by phase: `run` (one submission),
//! `turn` (one model call), `tool_call` (executing a batch), `approval` (the approval chain).

mod agent;
mod approval;
mod background;
mod budget;
mod build;
mod calls;
mod code_mode;
mod compaction;
mod context;
mod delegation;
mod error;
mod generated_media;
mod guards;
mod hook_bridge;
mod household;
mod interaction;
mod ladder;
mod loop_detector;
mod lsp;
mod mcp;
mod mcp_host;
mod model_picker;
mod model_runner;
mod models;
mod outcome;
mod persistence;
mod queues;
mod rag;
mod response_cache;
mod routing;
mod run;
mod runtime;
mod runtime_tools;
mod session;
mod session_context;
mod store;
mod store_adapter;
mod tasks;
mod tool_call;
mod toolbox;
mod turn;
mod user_prompt;
mod worktree;

pub use agent::AgentRuntime;
pub use build::{ASYNC_HOOK_GRACE, RuntimeOptions, build_runtime};
pub use compaction::Compaction;
pub use error::SetupError;
pub use household::Inbox;
pub use interaction::{
    Confirmation, ConfirmationRequest, DenyAll, EventSink, Interaction, NullSink,
};
pub use ladder::{Blocked, Verdict};
pub use mcp::{ServerReport, ToolReport};
pub use model_runner::ProviderModelRunner;
pub use outcome::{RunOutcome, StopReason};
pub use queues::{FOLLOWUP_CAPACITY, QueueError, STEERING_CAPACITY};
pub use run::Exiting;
pub use runtime::{Runtime, new_session_id};
pub use session::Session;
pub use store::{SessionStore, StoredInfo};
pub use store_adapter::{INTERRUPTED, repair_transcript, restore};
pub use worktree::WorktreeInfo;
