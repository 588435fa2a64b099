//! What the phases of a run tell each other: why a run stopped, what a turn decided, where a
//! routing hook sends the run. Plain data, below every phase, so no phase imports another.

use crate::loop_detector::LoopDetector;

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The model answered without calling tools.
    Normal,
    /// A hook stopped the run (user_prompt_submit, before_llm_call, post_tool_use, …).
    HookBlocked { message: String },
    /// The model call failed, or the configuration cannot run.
    Error { code: String, message: String },
    /// Ctrl-C or SIGTERM.
    Cancelled,
    /// The loop detector tripped.
    LoopDetected { message: String },
    /// The agent's `max_iterations` was reached and not extended.
    MaxIterations { limit: u32 },
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    pub reason: StopReason,
}

/// What one turn decided for the loop.
#[derive(Debug)]
pub(crate) enum Next {
    Continue,
    Stop(StopReason),
}

/// State of one run (not of the session).
#[derive(Debug)]
pub(crate) struct RunState {
    /// `user_prompt_submit` context (U): sent on every call of this run.
    pub(crate) prompt_ctx: String,
    /// Model calls made in this run (the `iteration` of before_llm_call).
    pub(crate) iterations: u32,
    /// The agent's `max_iterations`, raised by 10 on each approved extension.
    pub(crate) max_iterations: u32,
    pub(crate) detector: LoopDetector,
    /// An overflow compaction was tried since the last successful model call.
    pub(crate) overflow_retried: bool,
    /// Times a `dialect: claude` stop hook kept the agent going in this run.
    pub(crate) stop_continuations: u32,
    /// The toolset model (`toolsets[].model`) that takes the next model call.
    pub(crate) routed_model: Option<usize>,
}

/// How often `dialect: claude` stop hooks may keep one run going: a script that ignores
/// `stop_hook_active` must not loop forever.
pub(crate) const MAX_STOP_CONTINUATIONS: u32 = 10;

/// Routes a run may take in a row before it is stopped (a cycle of routing hooks).
pub(crate) const MAX_ROUTES: u32 = 8;

/// What a routing hook decided.
pub(crate) enum Route {
    Stay,
    To(String),
    Stop(StopReason),
}
