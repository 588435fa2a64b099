//! What the span builder is fed: compact copies of runtime events and hook runs, made on the
//! runtime's task and sent to the export task (streamed text and tool output stay behind).

use std::time::Duration;

use tether_hooks::{HookRun, RunStatus};
use tether_protocol::{HookEvent, Lane, RuntimeEvent, Usage};

/// What the spans need from a runtime event: streamed text and tool output are left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Observed {
    SessionStarted {
        agent: String,
        resumed: bool,
        model: String,
    },
    SessionEnded {
        reason: String,
    },
    TurnStarted {
        iteration: u32,
    },
    TurnEnded {
        reason: String,
    },
    ModelCallStarted {
        model: String,
    },
    ModelResponse {
        usage: Option<Usage>,
        cost: Option<f64>,
        finish_reason: Option<String>,
    },
    Error {
        code: String,
        message: String,
    },
    Tool {
        id: String,
        name: String,
        step: ToolStep,
    },
}

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolStep {
    /// It waits for the user's approval.
    Confirmation,
    /// It runs.
    Call,
    /// Its result (real or synthesised) is recorded.
    Response { is_error: bool },
}

impl Observed {
    /// `None` for the events no span is made of.
    pub(crate) fn of(event: &RuntimeEvent) -> Option<Self> {
        let tool = |id: &String, name: &String, step| Self::Tool {
            id: id.clone(),
            name: name.clone(),
            step,
        };
        match event {
            RuntimeEvent::SessionStarted {
                agent,
                resumed,
                model,
            } => Some(Self::SessionStarted {
                agent: agent.clone(),
                resumed: *resumed,
                model: model.clone(),
            }),
            RuntimeEvent::SessionEnded { reason } => Some(Self::SessionEnded {
                reason: reason.clone(),
            }),
            RuntimeEvent::TurnStarted { iteration } => Some(Self::TurnStarted {
                iteration: *iteration,
            }),
            RuntimeEvent::TurnEnded { reason } => Some(Self::TurnEnded {
                reason: reason.clone(),
            }),
            RuntimeEvent::ModelCallStarted { model, .. } => Some(Self::ModelCallStarted {
                model: model.clone(),
            }),
            RuntimeEvent::AgentMessage {
                usage,
                cost,
                finish_reason,
                ..
            } => Some(Self::ModelResponse {
                usage: *usage,
                cost: *cost,
                finish_reason: finish_reason.clone(),
            }),
            RuntimeEvent::Error { code, message } => Some(Self::Error {
                code: code.clone(),
                message: message.clone(),
            }),
            RuntimeEvent::ToolConfirmation { id, name, .. } => {
                Some(tool(id, name, ToolStep::Confirmation))
            }
            RuntimeEvent::ToolCall { id, name, .. } => Some(tool(id, name, ToolStep::Call)),
            RuntimeEvent::ToolResponse {
                id, name, is_error, ..
            } => Some(tool(
                id,
                name,
                ToolStep::Response {
                    is_error: *is_error,
                },
            )),
            // Hook runs come from the observer, with more detail than these events carry.
            RuntimeEvent::UserMessage { .. }
            | RuntimeEvent::AgentChanged { .. }
            | RuntimeEvent::AgentTextDelta { .. }
            | RuntimeEvent::ReasoningDelta { .. }
            | RuntimeEvent::HookStarted { .. }
            | RuntimeEvent::HookFinished { .. }
            | RuntimeEvent::HookBlocked { .. }
            | RuntimeEvent::ToolProgress { .. }
            | RuntimeEvent::Warning { .. } => None,
        }
    }
}

/// Which hook run: `finished` is matched to `started` by it (oldest first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct HookKey {
    pub(crate) event: HookEvent,
    pub(crate) lane: Lane,
    pub(crate) name: String,
}

/// A finished hook run, as the span shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HookDone {
    pub(crate) key: HookKey,
    pub(crate) kind: &'static str,
    pub(crate) source: &'static str,
    pub(crate) status: RunStatus,
    pub(crate) exit_code: Option<i32>,
    pub(crate) duration: Duration,
    pub(crate) verdict: &'static str,
    pub(crate) error: Option<String>,
}

impl HookDone {
    pub(crate) fn of(run: &HookRun) -> Self {
        Self {
            key: HookKey {
                event: run.event,
                lane: run.lane,
                name: run.name.clone(),
            },
            kind: run.kind,
            source: run.source.as_str(),
            status: run.status,
            exit_code: run.exit_code,
            duration: run.duration,
            verdict: run.verdict,
            error: run.error.clone(),
        }
    }
}
