//! The hook Output: what a hook may answer (docs/hooks.md, Exit codes and output).
//!
//! Command hooks print it as JSON on stdout (parsed tolerantly by `tether-hooks`); builtin and
//! model hooks build it directly. Every field is optional: `{}` means "no opinion".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::chat::Message;

/// A hook's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookOutput {
    /// `false` stops the operation (like `decision: block`); absent means `true`.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Shown when `continue` is false.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stop_reason: String,
    /// Accepted for compatibility; the runtime never hides output because of it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub suppress_output: bool,
    /// A warning shown to the user (never to the model).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub system_message: String,
    /// Only `block` has a meaning.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub decision: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Boxed: most answers do not carry it and it is large.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Box<HookSpecificOutput>>,
}

/// The event-specific part of an answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookSpecificOutput {
    /// Informational; never checked.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hook_event_name: String,
    /// `allow`, `ask` or `deny` (pre_tool_use, permission_request); other values are ignored.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub permission_decision: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub permission_decision_reason: String,
    /// Arguments to merge onto the tool call's own (pre_tool_use default lane).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub additional_context: String,
    /// Replaces the model-written compaction summary (before_compaction).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// Replaces the outgoing messages of one model call (before_llm_call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_messages: Option<Vec<Message>>,
    /// Replaces the tool's output (tool_response_transform); an explicit `""` is honoured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_tool_response: Option<String>,
    /// Annotations for the confirmation prompt (permission_request, preempt lane).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    /// before_agent_run, after_agent_complete: `{action: route, agent}` moves the run to
    /// another agent; `{action: default}` to the agent's `routing.default_agent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition: Option<Transition>,
}

/// A hook's routing answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Transition {
    /// `route` or `default`.
    pub action: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub agent: String,
}

impl HookOutput {
    /// An answer that only contributes `additional_context`.
    pub fn context(event_name: &str, text: impl Into<String>) -> Self {
        Self {
            hook_specific_output: Some(Box::new(HookSpecificOutput {
                hook_event_name: event_name.to_owned(),
                additional_context: text.into(),
                ..HookSpecificOutput::default()
            })),
            ..Self::default()
        }
    }

    /// An answer that blocks with `decision: block`.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            decision: "block".to_owned(),
            reason: reason.into(),
            ..Self::default()
        }
    }
}

/// A tool-call verdict. Ordered by strength: `Deny` > `Ask` > `Allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl Decision {
    /// Parses the exact values `allow`, `ask`, `deny`; anything else has no effect.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_ordered_by_strength() {
        assert!(Decision::Deny > Decision::Ask);
        assert!(Decision::Ask > Decision::Allow);
        assert_eq!(Decision::parse("approve"), None);
        assert_eq!(Decision::parse("deny"), Some(Decision::Deny));
    }

    #[test]
    fn context_answer_serializes_compactly() {
        let out = HookOutput::context("turn_start", "hi");
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"hook_specific_output":{"hook_event_name":"turn_start","additional_context":"hi"}}"#
        );
    }
}
