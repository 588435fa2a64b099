//! Outcomes of the events that can stop the run or rewrite what flows through it:
//! submissions, `before_llm_call`, `post_tool_use`, `stop`, `tool_response_transform` and
//! `before_compaction`.

use tether_protocol::Message;

use crate::result::HookResult;

/// Whether the run goes on after an event that can stop it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// A hook stopped it: why (empty when no hook said), and which hook.
    Stop {
        reason: String,
        hook: String,
    },
}

impl Flow {
    pub fn of(r: &HookResult) -> Self {
        if r.allowed {
            Self::Continue
        } else {
            Self::Stop {
                reason: r.message.clone(),
                hook: r.blocking_hook(),
            }
        }
    }
}

/// `user_prompt_submit`, `user_steering_messages_submit`, `user_followup_submit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmitOutcome {
    pub flow: Flow,
    /// Context for every model call of this run.
    pub context: String,
}

impl From<HookResult> for SubmitOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            flow: Flow::of(&r),
            context: r.additional_context,
        }
    }
}

/// `before_llm_call`.
#[derive(Debug, Clone, PartialEq)]
pub struct BeforeLlmCallOutcome {
    pub flow: Flow,
    /// The outgoing messages of this call, rewritten.
    pub messages: Option<Vec<Message>>,
}

impl From<HookResult> for BeforeLlmCallOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            flow: Flow::of(&r),
            messages: r.updated_messages,
        }
    }
}

/// `post_tool_use`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostToolUseOutcome {
    /// A stop skips the rest of the batch and ends the run.
    pub flow: Flow,
    /// Context for the next model call.
    pub context: String,
}

impl From<HookResult> for PostToolUseOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            flow: Flow::of(&r),
            context: r.additional_context,
        }
    }
}

/// `stop`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopOutcome {
    /// Context for the next model call of the session.
    pub context: String,
    /// Reasons `dialect: claude` hooks gave to keep the agent going.
    pub keep_going: Vec<String>,
}

impl From<HookResult> for StopOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            context: r.additional_context,
            keep_going: r.keep_going,
        }
    }
}

/// `tool_response_transform`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformOutcome {
    /// The tool's output, rewritten.
    pub response: Option<String>,
}

impl From<HookResult> for TransformOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            response: r.updated_tool_response,
        }
    }
}

/// `before_compaction`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BeforeCompactionOutcome {
    /// A stop vetoes the compaction.
    pub flow: Flow,
    /// A summary that replaces the model's.
    pub summary: Option<String>,
}

impl From<HookResult> for BeforeCompactionOutcome {
    fn from(r: HookResult) -> Self {
        Self {
            flow: Flow::of(&r),
            summary: (!r.summary.is_empty()).then_some(r.summary),
        }
    }
}

#[cfg(test)]
mod tests {
    use tether_protocol::{HookEvent, Lane};

    use super::*;

    #[test]
    fn outcomes_carry_their_events_fields() {
        let mut r = HookResult::empty(HookEvent::BeforeCompaction, Lane::Default);
        r.summary = "short".into();
        let o = BeforeCompactionOutcome::from(r.clone());
        assert_eq!(
            (o.flow, o.summary.as_deref()),
            (Flow::Continue, Some("short"))
        );
        r.allowed = false;
        r.message = "not now".into();
        r.summary.clear();
        let o = BeforeCompactionOutcome::from(r);
        assert_eq!(
            o.flow,
            Flow::Stop {
                reason: "not now".into(),
                hook: String::new()
            }
        );
        assert_eq!(o.summary, None);

        let mut r = HookResult::empty(HookEvent::Stop, Lane::Default);
        r.additional_context = "ctx".into();
        r.keep_going = vec!["more".into()];
        let o = StopOutcome::from(r);
        assert_eq!((o.context.as_str(), o.keep_going.len()), ("ctx", 1));
    }
}
