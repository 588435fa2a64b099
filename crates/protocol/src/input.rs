//! The hook Input: the JSON object a hook reads on stdin (docs/hooks.md).
//!
//! Field order follows docker-agent's Go struct so the bytes look familiar. `session_id`,
//! `cwd` and `hook_event_name` are always present; every other field is omitted when it is
//! zero, false, empty or null, exactly like Go's `omitempty`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::chat::{Message, Usage};

fn is_zero(n: &i64) -> bool {
    *n == 0
}

fn is_empty_map(m: &Option<Map<String, Value>>) -> bool {
    m.as_ref().is_none_or(Map::is_empty)
}

/// The payload every hook receives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookInput {
    pub session_id: String,
    pub cwd: String,
    pub hook_event_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub agent_name: String,
    /// `provider/model` about to be called (before_llm_call) or just called (after_llm_call).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub model_id: String,
    /// 1-based model-call counter of the current run (before_llm_call).
    #[serde(skip_serializing_if = "is_zero")]
    pub iteration: i64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub last_user_message: String,
    /// `shell`, `filesystem`, `think`, … (tool events).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_category: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// `mcp:SERVER:TOOL` for an MCP tool: matchers match it as well as `tool_name`. Not sent.
    #[serde(skip)]
    pub tool_qualified_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_use_id: String,
    /// The call's arguments as a JSON object; absent for `{}` and for arguments that are not
    /// an object.
    #[serde(skip_serializing_if = "is_empty_map")]
    pub tool_input: Option<Map<String, Value>>,
    /// The tool's output; present (possibly `""`) whenever it is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tool_error: bool,
    /// The outgoing conversation (before_llm_call only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// session_start: `startup` | `resume` | `clear` | `compact`;
    /// pre_compact: `manual` | `auto` | `overflow` | `tool_overflow`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// session_end and turn_end reasons.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stop_response: String,
    /// `stop`: the agent went on because a `dialect: claude` stop hook blocked (Claude Code's
    /// field, so its scripts can avoid keeping the agent going forever).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stop_hook_active: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steering_messages: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_session_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notification_level: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notification_message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub from_agent: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub to_agent: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub agent_switch_kind: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub from_agent_models: Vec<AgentModelRef>,
    #[serde(skip_serializing_if = "is_zero")]
    pub previous_max_iterations: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub new_max_iterations: i64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub approval_decision: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub approval_source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// USD price of the call: absent when unpriced, `0` when priced and free.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub input_tokens: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub output_tokens: i64,
    /// `0` means unknown.
    #[serde(skip_serializing_if = "is_zero")]
    pub context_limit: i64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub compaction_reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub worktree_path: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub worktree_branch: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub worktree_source_dir: String,
    /// `prompt_file_guard`: the file's path and text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub prompt_file: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub prompt_file_content: String,
    /// `skill_content_guard`: the skill and its text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub skill_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub skill_content: String,
    /// In-process only (never sent to command hooks): a file holding the tool's full output
    /// when `tool_response` is only its tail (huge outputs are spooled to disk).
    #[serde(skip)]
    pub tool_response_file: Option<std::path::PathBuf>,
}

/// A model endpoint of the departing agent (on_agent_switch), for builtins such as `unload`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentModelRef {
    pub provider: String,
    pub model: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub base_url: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub unload_api: String,
}

impl HookInput {
    /// Sets `tool_input` from a call's raw argument text: only a JSON object is kept.
    pub fn set_tool_arguments(&mut self, arguments: &str) {
        self.tool_input = match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn only_the_three_common_fields_are_always_present() {
        let input = HookInput::default();
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"session_id":"","cwd":"","hook_event_name":""}"#
        );
    }

    #[test]
    fn fields_keep_go_struct_order() {
        let mut input = HookInput {
            session_id: "s".into(),
            cwd: "/w".into(),
            hook_event_name: "post_tool_use".into(),
            agent_name: "root".into(),
            tool_name: "shell".into(),
            tool_use_id: "call_1".into(),
            tool_response: Some(String::new()),
            tool_error: true,
            ..HookInput::default()
        };
        input.set_tool_arguments(r#"{"cmd":"ls","b":1}"#);
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"session_id":"s","cwd":"/w","hook_event_name":"post_tool_use","agent_name":"root","tool_name":"shell","tool_use_id":"call_1","tool_input":{"b":1,"cmd":"ls"},"tool_response":"","tool_error":true}"#
        );
    }

    #[test]
    fn non_object_and_empty_arguments_leave_tool_input_absent() {
        for args in ["{}", "[1]", "not json", ""] {
            let mut input = HookInput::default();
            input.set_tool_arguments(args);
            let v = serde_json::to_value(&input).unwrap();
            assert!(v.get("tool_input").is_none(), "{args}");
        }
    }

    #[test]
    fn cost_zero_is_present_and_none_is_absent() {
        let mut input = HookInput {
            cost: Some(0.0),
            ..HookInput::default()
        };
        assert_eq!(serde_json::to_value(&input).unwrap()["cost"], json!(0.0));
        input.cost = None;
        assert!(serde_json::to_value(&input).unwrap().get("cost").is_none());
    }

    #[test]
    fn parses_a_partial_object() {
        let input: HookInput =
            serde_json::from_str(r#"{"tool_name":"shell","tool_input":{"cmd":"ls"}}"#).unwrap();
        assert_eq!(input.tool_name, "shell");
        assert_eq!(input.tool_input.unwrap()["cmd"], json!("ls"));
    }
}
