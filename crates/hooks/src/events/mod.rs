//! Typed outcomes of the events whose verdict decides something: what the approval ladder
//! and the runtime read, instead of the raw [`crate::HookResult`] fields.

mod approval;

pub use approval::{PermissionRequestOutcome, PreToolUseOutcome, ToolVerdict};
