//! Wire and domain types only: no IO, no async runtime.
//!
//! Everything that crosses a boundary (a hook's stdin and stdout, a provider request, the
//! `--json` event stream) is defined here once so that every crate agrees on the shapes.
//! [`HookEvent`] is the single event table: every per-event fact lives in its `impl`.

pub mod chat;
pub mod event;
pub mod input;
pub mod output;
pub mod runtime_event;

pub use chat::{ContentPart, FunctionCall, Message, Role, ToolCall, Usage};
pub use event::{ContextLifetime, HookEvent, Lane, SpecificOutput};
pub use input::{AgentModelRef, HookInput};
pub use output::{Decision, HookOutput, HookSpecificOutput, Transition};
pub use runtime_event::RuntimeEvent;
