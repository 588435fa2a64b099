//! Wire and domain types only: no IO, no async runtime.
//!
//! Everything that crosses a boundary (a hook's stdin and stdout, a provider request, the
//! `--json` event stream) is defined here once so that every crate agrees on the shapes.
//! [`EVENTS`] is the single event table: one [`EventInfo`] row per event holds every
//! per-event fact, and a hook's Input is built from the typed payload of its event's family
//! ([`payload`]).

pub mod chat;
pub mod event;
pub mod input;
pub mod output;
pub mod payload;
pub mod runtime_event;

pub use chat::{ContentPart, FunctionCall, Message, Role, ToolCall, Usage};
pub use event::{ContextLifetime, EVENTS, EventInfo, HookEvent, Lane, SpecificOutput};
pub use input::{AgentModelRef, HookInput};
pub use output::{Decision, HookOutput, HookSpecificOutput, Transition};
pub use payload::{
    AgentSwitchPayload, AnswerPayload, ApprovalDecisionPayload, BarePayload, CommonInput,
    CompactedPayload, CompactionPayload, Family, ModelCallPayload, ModelResponsePayload,
    NotificationPayload, Payload, PromptFilePayload, PromptPayload, ReasonPayload, ResumePayload,
    SkillPayload, SourcePayload, SteeringPayload, StopPayload, SubagentPayload, ToolCallPayload,
    ToolResultPayload, WorktreePayload,
};
pub use runtime_event::RuntimeEvent;
