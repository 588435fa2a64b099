use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn common() -> CommonInput {
    CommonInput {
        session_id: "s".into(),
        cwd: "/w".into(),
        agent_name: "root".into(),
    }
}

/// Converts a payload that must belong to `family`.
fn filled<P: Payload>(family: Family, payload: P) -> HookInput {
    assert_eq!(P::FAMILY, family, "payload type of {family:?}");
    payload.into_input(common())
}

fn call() -> ToolCallPayload {
    ToolCallPayload {
        tool_category: "shell".into(),
        tool_name: "shell".into(),
        tool_qualified_name: "mcp:srv:shell".into(),
        tool_use_id: "call_1".into(),
        tool_input: json!({"cmd": "ls"}).as_object().unwrap().clone(),
    }
}

fn compaction() -> CompactionPayload {
    CompactionPayload {
        input_tokens: 1,
        output_tokens: 2,
        context_limit: 3,
        compaction_reason: "threshold".into(),
    }
}

/// The Input of a payload of `family` whose every field is set (not its default): struct
/// literals without `..`, so a field added to a payload must be set here too.
pub(crate) fn sample(family: Family) -> HookInput {
    let text = || "x".to_owned();
    match family {
        Family::Bare => filled(family, BarePayload),
        Family::ToolCall => filled(family, call()),
        Family::ToolResult => filled(
            family,
            ToolResultPayload {
                call: call(),
                tool_response: text(),
                tool_error: true,
                tool_response_file: Some("/tmp/out".into()),
            },
        ),
        Family::ApprovalDecision => filled(
            family,
            ApprovalDecisionPayload {
                call: call(),
                approval_decision: "allow".into(),
                approval_source: "yolo".into(),
            },
        ),
        Family::Source => filled(family, SourcePayload { source: text() }),
        Family::Prompt => filled(family, PromptPayload { prompt: text() }),
        Family::Steering => filled(
            family,
            SteeringPayload {
                steering_messages: vec![text()],
            },
        ),
        Family::Reason => filled(family, ReasonPayload { reason: text() }),
        Family::ModelCall => filled(
            family,
            ModelCallPayload {
                model_id: text(),
                iteration: 1,
                messages: vec![Message::user("hi")],
            },
        ),
        Family::ModelResponse => filled(
            family,
            ModelResponsePayload {
                model_id: text(),
                stop_response: text(),
                last_user_message: text(),
                usage: Some(Usage::default()),
                cost: Some(0.0),
            },
        ),
        Family::Stop => filled(
            family,
            StopPayload {
                stop_response: text(),
                last_user_message: text(),
                stop_hook_active: true,
            },
        ),
        Family::Answer => filled(
            family,
            AnswerPayload {
                stop_response: text(),
                last_user_message: text(),
            },
        ),
        Family::Subagent => filled(
            family,
            SubagentPayload {
                parent_session_id: text(),
                stop_response: text(),
            },
        ),
        Family::Notification => filled(
            family,
            NotificationPayload {
                notification_level: "error".into(),
                notification_message: text(),
            },
        ),
        Family::AgentSwitch => filled(
            family,
            AgentSwitchPayload {
                from_agent: text(),
                to_agent: text(),
                agent_switch_kind: text(),
                from_agent_models: vec![AgentModelRef::default()],
            },
        ),
        Family::Resume => filled(
            family,
            ResumePayload {
                previous_max_iterations: 1,
                new_max_iterations: 2,
            },
        ),
        Family::Compaction => filled(family, compaction()),
        Family::Compacted => filled(
            family,
            CompactedPayload {
                compaction: compaction(),
                summary: text(),
            },
        ),
        Family::Worktree => filled(
            family,
            WorktreePayload {
                worktree_path: text(),
                worktree_branch: text(),
                worktree_source_dir: text(),
            },
        ),
        Family::PromptFile => filled(
            family,
            PromptFilePayload {
                prompt_file: text(),
                prompt_file_content: text(),
            },
        ),
        Family::Skill => filled(
            family,
            SkillPayload {
                skill_name: text(),
                skill_content: text(),
            },
        ),
    }
}

/// The fields an Input sends besides the four every Input has.
pub(crate) fn sent_fields(input: &HookInput) -> BTreeSet<String> {
    let v = serde_json::to_value(input).unwrap();
    v.as_object()
        .unwrap()
        .keys()
        .filter(|k| !["session_id", "cwd", "hook_event_name", "agent_name"].contains(&k.as_str()))
        .cloned()
        .collect()
}

#[test]
fn a_payload_keeps_the_common_fields() {
    let input = sample(Family::Bare);
    assert_eq!(
        serde_json::to_string(&input).unwrap(),
        r#"{"session_id":"s","cwd":"/w","hook_event_name":"","agent_name":"root"}"#
    );
}

#[test]
fn a_tool_result_fills_the_same_input_as_before_payloads() {
    let mut expected = HookInput {
        session_id: "s".into(),
        cwd: "/w".into(),
        agent_name: "root".into(),
        tool_category: "shell".into(),
        tool_name: "shell".into(),
        tool_qualified_name: "mcp:srv:shell".into(),
        tool_use_id: "call_1".into(),
        tool_response: Some("x".into()),
        tool_error: true,
        tool_response_file: Some("/tmp/out".into()),
        ..HookInput::default()
    };
    expected.set_tool_arguments(r#"{"cmd":"ls"}"#);
    assert_eq!(sample(Family::ToolResult), expected);
}

#[test]
fn empty_arguments_and_an_empty_response_are_sent_as_before() {
    let input = ToolResultPayload {
        call: ToolCallPayload::default(),
        ..ToolResultPayload::default()
    }
    .into_input(common());
    let v = serde_json::to_value(&input).unwrap();
    assert!(v.get("tool_input").is_none());
    assert_eq!(v["tool_response"], json!(""));
}

#[test]
fn an_approval_decision_does_not_send_the_category() {
    let input = sample(Family::ApprovalDecision);
    assert_eq!(input.tool_category, "");
    assert_eq!(input.tool_qualified_name, "mcp:srv:shell");
}
