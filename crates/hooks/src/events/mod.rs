//! Typed outcomes of the events whose verdict decides something: what the approval ladder
//! and the runtime read, instead of the raw [`crate::HookResult`] fields.

mod approval;
mod flow;

pub use approval::{PermissionRequestOutcome, PreToolUseOutcome};
pub use flow::{
    BeforeCompactionOutcome, BeforeLlmCallOutcome, Flow, PostToolUseOutcome, StopOutcome,
    SubmitOutcome, TransformOutcome,
};
