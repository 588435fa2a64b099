//! Tether's runtime events as docker-agent's API streams them (`pkg/runtime/event.go`): the
//! same `type` names and field names, one JSON object per SSE `data:` line.

use std::collections::HashMap;

use serde_json::{Value, json};
use tether_core::{RunOutcome, StopReason};
use tether_protocol::RuntimeEvent;

/// Turns one session's events into docker-agent's, remembering what later events refer to.
#[derive(Debug)]
pub(crate) struct Mapper {
    session_id: String,
    agent: String,
    /// Tool call id → (name, arguments as a JSON string), for the responses.
    calls: HashMap<String, (String, String)>,
    /// The agent's description, for `agent_info`.
    description: String,
    /// An `error` went out (the outcome need not repeat it).
    pub(crate) errored: bool,
}

impl Mapper {
    pub(crate) fn new(session_id: &str, agent: &str, description: &str) -> Self {
        Self {
            session_id: session_id.to_owned(),
            agent: agent.to_owned(),
            description: description.to_owned(),
            calls: HashMap::new(),
            errored: false,
        }
    }

    pub(crate) fn stream_started(&self) -> Value {
        stamp(
            json!({"type": "stream_started", "session_id": self.session_id, "agent_name": self.agent}),
        )
    }

    pub(crate) fn stream_stopped(&self) -> Value {
        stamp(
            json!({"type": "stream_stopped", "session_id": self.session_id, "agent_name": self.agent}),
        )
    }

    /// The docker-agent event for `event`, if it has one.
    pub(crate) fn map(&mut self, event: RuntimeEvent) -> Option<Value> {
        self.convert(event).map(stamp)
    }

    fn convert(&mut self, event: RuntimeEvent) -> Option<Value> {
        let sid = &self.session_id;
        Some(match event {
            RuntimeEvent::SessionStarted { agent, model, .. } => {
                json!({
                    "type": "agent_info", "agent_name": agent, "model": model,
                    "description": self.description,
                })
            }
            RuntimeEvent::UserMessage { text } => json!({
                "type": "user_message", "message": text, "session_id": sid, "session_position": -1,
            }),
            RuntimeEvent::AgentChanged { agent } => {
                self.agent.clone_from(&agent);
                return None;
            }
            RuntimeEvent::AgentTextDelta { agent, text } => json!({
                "type": "agent_choice", "content": text, "session_id": sid, "agent_name": agent,
            }),
            RuntimeEvent::ReasoningDelta { agent, text } => json!({
                "type": "agent_choice_reasoning", "content": text, "session_id": sid,
                "agent_name": agent,
            }),
            RuntimeEvent::AgentMessage {
                agent,
                usage: Some(usage),
                cost,
                ..
            } => json!({
                "type": "token_usage", "session_id": sid, "agent_name": agent,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "context_length": usage.input_tokens + usage.output_tokens,
                    "context_limit": 0,
                    "cost": cost.unwrap_or(0.0),
                },
            }),
            RuntimeEvent::ToolCall {
                agent,
                id,
                name,
                arguments,
            } => {
                let args = arguments.to_string();
                self.calls.insert(id.clone(), (name.clone(), args.clone()));
                json!({
                    "type": "tool_call", "tool_call": tool_call(&id, &name, &args),
                    "tool_definition": {"name": name}, "agent_name": agent,
                })
            }
            RuntimeEvent::ToolConfirmation {
                id,
                name,
                arguments,
                ..
            } => {
                let args = arguments.to_string();
                self.calls.insert(id.clone(), (name.clone(), args.clone()));
                json!({
                    "type": "tool_call_confirmation", "tool_call": tool_call(&id, &name, &args),
                    "tool_definition": {"name": name}, "agent_name": self.agent,
                })
            }
            RuntimeEvent::ToolResponse {
                id,
                name,
                response,
                is_error,
                ..
            } => {
                let args = self.calls.remove(&id).map(|(_, a)| a).unwrap_or_default();
                json!({
                    "type": "tool_call_response", "tool_call": tool_call(&id, &name, &args),
                    "tool_definition": {"name": name}, "response": response,
                    "result": {"output": response, "isError": is_error},
                    "agent_name": self.agent,
                })
            }
            RuntimeEvent::HookBlocked {
                event,
                hook,
                message,
            } => json!({
                "type": "hook_blocked", "message": message, "event": event, "hook": hook,
                "agent_name": self.agent,
            }),
            RuntimeEvent::Warning { message } => {
                json!({"type": "warning", "message": message, "agent_name": self.agent})
            }
            RuntimeEvent::Error { message, .. } => {
                self.errored = true;
                json!({"type": "error", "error": message, "agent_name": self.agent})
            }
            // Nothing in docker-agent's stream stands for these.
            RuntimeEvent::AgentMessage { usage: None, .. }
            | RuntimeEvent::TurnStarted { .. }
            | RuntimeEvent::TurnEnded { .. }
            | RuntimeEvent::ModelCallStarted { .. }
            | RuntimeEvent::ToolProgress { .. }
            | RuntimeEvent::HookStarted { .. }
            | RuntimeEvent::HookFinished { .. }
            | RuntimeEvent::SessionEnded { .. } => return None,
        })
    }

    /// What the way the turn ended adds to the stream before `stream_stopped`.
    pub(crate) fn outcome(&mut self, outcome: &RunOutcome) -> Option<Value> {
        let error = |m: &str| json!({"type": "error", "error": m});
        let v = match &outcome.reason {
            StopReason::MaxIterations { limit } => {
                Some(json!({"type": "max_iterations_reached", "max_iterations": limit}))
            }
            StopReason::Error { message, .. } if !self.errored => Some(error(message)),
            StopReason::LoopDetected { message } => Some(error(message)),
            StopReason::Cancelled => Some(error("the turn was cancelled")),
            _ => None,
        };
        v.map(stamp)
    }
}

/// docker-agent's `AgentContext.timestamp`.
fn stamp(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "timestamp".to_owned(),
            json!(jiff::Timestamp::now().to_string()),
        );
    }
    v
}

/// docker-agent's `tools.ToolCall`.
fn tool_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_response_names_the_call_it_answers() {
        let mut m = Mapper::new("s1", "root", "");
        let call = m.map(RuntimeEvent::ToolCall {
            agent: "root".into(),
            id: "c1".into(),
            name: "shell".into(),
            arguments: json!({"cmd": "ls"}),
        });
        assert_eq!(
            call.unwrap()["tool_call"],
            json!({"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"ls\"}"}})
        );
        let resp = m
            .map(RuntimeEvent::ToolResponse {
                id: "c1".into(),
                name: "shell".into(),
                response: "ok".into(),
                is_error: false,
                structured: None,
            })
            .unwrap();
        assert_eq!(resp["type"], "tool_call_response");
        assert_eq!(
            resp["tool_call"]["function"]["arguments"],
            "{\"cmd\":\"ls\"}"
        );
        assert_eq!(resp["result"], json!({"output": "ok", "isError": false}));
    }

    #[test]
    fn errors_are_not_repeated_by_the_outcome() {
        let mut m = Mapper::new("s1", "root", "");
        let e = m.map(RuntimeEvent::Error {
            code: "model".into(),
            message: "boom".into(),
        });
        let mut e = e.unwrap();
        assert!(
            e["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{e}"
        );
        e.as_object_mut().unwrap().remove("timestamp");
        assert_eq!(
            e,
            json!({"type": "error", "error": "boom", "agent_name": "root"})
        );
        let outcome = RunOutcome {
            reason: StopReason::Error {
                code: "model".into(),
                message: "boom".into(),
            },
        };
        assert_eq!(m.outcome(&outcome), None);
        assert_eq!(m.map(RuntimeEvent::TurnStarted { iteration: 1 }), None);
    }
}
