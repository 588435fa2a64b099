//! Events the runtime emits while it works. Renderers (human text, `--json` lines, telemetry)
//! subscribe to them; the runtime itself never prints.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::chat::Usage;

/// One thing that happened. Serialized with a `type` tag (docs/cli.md, `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RuntimeEvent {
    SessionStarted {
        agent: String,
        resumed: bool,
        /// The agent's `provider/model`.
        #[serde(skip_serializing_if = "String::is_empty")]
        model: String,
    },
    /// A user message was added to the session.
    UserMessage {
        text: String,
    },
    /// The active agent changed (and at the start of a run).
    AgentChanged {
        agent: String,
    },
    /// A chunk of assistant text as it streams.
    AgentTextDelta {
        agent: String,
        text: String,
    },
    /// A chunk of model reasoning as it streams.
    ReasoningDelta {
        agent: String,
        text: String,
    },
    /// A model response is complete.
    AgentMessage {
        agent: String,
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<f64>,
        /// Why the model stopped (`stop`, `tool_calls`, `length`, `content_filter`, or the
        /// provider's word); absent for messages the runtime writes itself.
        #[serde(skip_serializing_if = "Option::is_none")]
        finish_reason: Option<String>,
    },
    /// A turn begins: one model call and the tools it asks for. `iteration` counts the run's
    /// model calls from 1 (the `iteration` of `before_llm_call`).
    TurnStarted {
        iteration: u32,
    },
    /// The turn is over, its `turn_end` hooks included; `reason` is the one they got
    /// (`normal`, `continue`, `hook_blocked`, `canceled`, …).
    TurnEnded {
        reason: String,
    },
    /// The model is being called (for spinners).
    ModelCallStarted {
        agent: String,
        model: String,
    },
    /// A tool is about to run, with the arguments it runs with.
    ToolCall {
        agent: String,
        id: String,
        name: String,
        arguments: Value,
    },
    /// A tool call waits for the user's approval.
    ToolConfirmation {
        id: String,
        name: String,
        arguments: Value,
        metadata: Option<BTreeMap<String, String>>,
    },
    /// A tool call's result (real or synthesised), as recorded.
    ToolResponse {
        id: String,
        name: String,
        response: String,
        is_error: bool,
        /// An MCP tool's `structuredContent`, beside the text the model reads.
        #[serde(skip_serializing_if = "Option::is_none")]
        structured: Option<Value>,
    },
    /// A running tool reported progress (MCP progress notifications).
    ToolProgress {
        id: String,
        name: String,
        progress: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    HookStarted {
        event: String,
        hook: String,
    },
    HookFinished {
        event: String,
        hook: String,
        status: String,
        exit_code: Option<i32>,
        duration_ms: f64,
        allowed: bool,
    },
    /// A hook stopped something (a tool call, the run): which hook, which event, why.
    HookBlocked {
        event: String,
        hook: String,
        message: String,
    },
    Warning {
        message: String,
    },
    Error {
        code: String,
        message: String,
    },
    SessionEnded {
        reason: String,
    },
}

impl RuntimeEvent {
    /// The `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SessionStarted { .. } => "session_started",
            Self::UserMessage { .. } => "user_message",
            Self::AgentChanged { .. } => "agent_changed",
            Self::AgentTextDelta { .. } => "agent_text_delta",
            Self::ReasoningDelta { .. } => "reasoning_delta",
            Self::AgentMessage { .. } => "agent_message",
            Self::TurnStarted { .. } => "turn_started",
            Self::TurnEnded { .. } => "turn_ended",
            Self::ModelCallStarted { .. } => "model_call_started",
            Self::ToolCall { .. } => "tool_call",
            Self::ToolConfirmation { .. } => "tool_confirmation",
            Self::ToolResponse { .. } => "tool_response",
            Self::ToolProgress { .. } => "tool_progress",
            Self::HookStarted { .. } => "hook_started",
            Self::HookFinished { .. } => "hook_finished",
            Self::HookBlocked { .. } => "hook_blocked",
            Self::Warning { .. } => "warning",
            Self::Error { .. } => "error",
            Self::SessionEnded { .. } => "session_ended",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_with_a_type_tag() {
        let e = RuntimeEvent::ToolResponse {
            id: "call_1".into(),
            name: "shell".into(),
            response: "ok".into(),
            is_error: false,
            structured: None,
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"type": "tool_response", "id": "call_1", "name": "shell", "response": "ok", "is_error": false})
        );
        assert_eq!(e.kind(), "tool_response");
    }

    #[test]
    fn session_started_names_the_model() {
        let e = RuntimeEvent::SessionStarted {
            agent: "root".into(),
            resumed: false,
            model: "openai/gpt-4o".into(),
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"type": "session_started", "agent": "root", "resumed": false, "model": "openai/gpt-4o"})
        );
    }

    #[test]
    fn agent_message_carries_its_finish_reason_only_when_known() {
        let from_model = RuntimeEvent::AgentMessage {
            agent: "root".into(),
            text: "done".into(),
            usage: None,
            cost: None,
            finish_reason: Some("stop".into()),
        };
        let written = RuntimeEvent::AgentMessage {
            agent: "root".into(),
            text: "limit".into(),
            usage: None,
            cost: None,
            finish_reason: None,
        };
        assert_eq!(
            (
                serde_json::to_value(&from_model).unwrap(),
                serde_json::to_value(&written).unwrap(),
            ),
            (
                serde_json::json!({"type": "agent_message", "agent": "root", "text": "done", "finish_reason": "stop"}),
                serde_json::json!({"type": "agent_message", "agent": "root", "text": "limit"}),
            )
        );
    }

    #[test]
    fn turn_events_serialize_with_a_type_tag() {
        let started = RuntimeEvent::TurnStarted { iteration: 2 };
        let ended = RuntimeEvent::TurnEnded {
            reason: "continue".into(),
        };
        assert_eq!(
            (
                serde_json::to_value(&started).unwrap(),
                serde_json::to_value(&ended).unwrap(),
            ),
            (
                serde_json::json!({"type": "turn_started", "iteration": 2}),
                serde_json::json!({"type": "turn_ended", "reason": "continue"}),
            )
        );
        assert_eq!(
            (started.kind(), ended.kind()),
            ("turn_started", "turn_ended")
        );
    }
}
