use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_config::HookSource;

use super::*;
use crate::output_parser::{self, Parsed};
use crate::result::RunStatus;

/// A run whose process printed `stdout` and exited with `code`.
fn exited(code: i32, stdout: &str, stderr: &str) -> Outcome {
    let output = match (code, output_parser::parse(stdout)) {
        (0, Parsed::Output(o)) => Some(o),
        _ => None,
    };
    Outcome::Exited {
        code,
        stdout: stdout.into(),
        stderr: stderr.into(),
        output,
    }
}

fn run(outcome: Outcome) -> HookRun {
    HookRun {
        event: HookEvent::PreToolUse,
        lane: Lane::Default,
        name: "h".into(),
        kind: "command",
        source: HookSource::Yaml,
        status: outcome.status(),
        exit_code: None,
        duration: Duration::ZERO,
        error: None,
        verdict: verdict(&outcome),
        outcome,
        policies: Vec::new(),
        policy_errors: Vec::new(),
    }
}

fn agg(event: HookEvent, lane: Lane, outcomes: Vec<(OnError, Outcome)>) -> HookResult {
    aggregate(
        event,
        lane,
        outcomes.into_iter().map(|(on_error, o)| {
            (
                RunPolicy {
                    on_error,
                    name: "h",
                },
                run(o),
            )
        }),
    )
}

fn warn(o: Outcome) -> (OnError, Outcome) {
    (OnError::Warn, o)
}

#[test]
fn no_hooks_allow() {
    let r = agg(HookEvent::Stop, Lane::Default, vec![]);
    assert!(r.allowed);
    assert_eq!(r.exit_code, 0);
}

#[test]
fn strongest_decision_wins_and_ties_keep_the_first_reason() {
    let allow = r#"{"hook_specific_output":{"permission_decision":"allow","permission_decision_reason":"a"}}"#;
    let ask1 = r#"{"hook_specific_output":{"permission_decision":"ask","permission_decision_reason":"first ask"}}"#;
    let ask2 = r#"{"hook_specific_output":{"permission_decision":"ask","permission_decision_reason":"second ask"}}"#;
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![
            warn(exited(0, allow, "")),
            warn(exited(0, ask1, "")),
            warn(exited(0, ask2, "")),
        ],
    );
    assert_eq!(r.decision, Some(Decision::Ask));
    assert_eq!(r.decision_reason, "first ask");
    assert!(r.allowed);
    assert_eq!(r.additional_context, "a");

    let deny = r#"{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"no"}}"#;
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![
            warn(exited(0, ask1, "")),
            warn(exited(0, deny, "")),
            warn(exited(0, allow, "")),
        ],
    );
    assert_eq!(r.decision, Some(Decision::Deny));
    assert_eq!(r.decision_reason, "no");
    assert!(!r.allowed);
    assert_eq!(r.message, "no");
}

#[test]
fn unknown_permission_decisions_are_ignored() {
    let approve = r#"{"hook_specific_output":{"permission_decision":"approve"}}"#;
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![warn(exited(0, approve, ""))],
    );
    assert_eq!(r.decision, None);
    assert!(r.allowed);
}

#[test]
fn updated_input_merges_shallowly_with_later_hooks_winning() {
    let a = r#"{"hook_specific_output":{"updated_input":{"cmd":"ls -h","cwd":"/a"}}}"#;
    let b = r#"{"hook_specific_output":{"updated_input":{"cwd":"/b"}}}"#;
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![warn(exited(0, a, "")), warn(exited(0, b, ""))],
    );
    assert_eq!(
        r.updated_input,
        json!({"cmd": "ls -h", "cwd": "/b"}).as_object().cloned()
    );
    let original = json!({"cmd": "ls", "timeout": 30});
    assert_eq!(
        r.apply_updated_input(original.as_object()),
        json!({"cmd": "ls -h", "cwd": "/b", "timeout": 30})
            .as_object()
            .cloned()
    );
}

#[test]
fn updated_input_is_ignored_on_the_preempt_lane() {
    let a = r#"{"hook_specific_output":{"updated_input":{"cmd":"x"}}}"#;
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Preempt,
        vec![warn(exited(0, a, ""))],
    );
    assert_eq!(r.updated_input, None);
}

#[test]
fn plain_text_is_context_only_on_context_events() {
    let r = agg(
        HookEvent::TurnStart,
        Lane::Default,
        vec![
            warn(exited(0, " hello \n", "")),
            warn(exited(0, "world", "")),
        ],
    );
    assert_eq!(r.additional_context, "hello\nworld");
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![warn(exited(0, "hello", ""))],
    );
    assert_eq!(r.additional_context, "");
    let r = agg(
        HookEvent::TurnStart,
        Lane::Default,
        vec![warn(exited(0, "   \n", ""))],
    );
    assert_eq!(r.additional_context, "");
}

#[test]
fn invalid_json_is_plain_text_context() {
    let r = agg(
        HookEvent::SessionStart,
        Lane::Default,
        vec![warn(exited(0, "{not json", ""))],
    );
    assert_eq!(r.additional_context, "{not json");
    assert!(r.allowed);
}

#[test]
fn exit_2_message_rules() {
    let cases = [
        ("", "  stderr reason \n", "stderr reason"),
        (
            r#"{"decision":"block","reason":"Dangerous command blocked by policy"}"#,
            "",
            "Dangerous command blocked by policy",
        ),
        (r#"{"stop_reason":"stopped"}"#, "", "stopped"),
        (
            r#"{"hook_specific_output":{"permission_decision_reason":"pdr"}}"#,
            "",
            "pdr",
        ),
        (r#"{"reason":"  ","stop_reason":"second"}"#, "", "second"),
        ("{}", "", "blocked by hook h"),
        ("plain words", "", "plain words"),
        ("", "", "blocked by hook h"),
    ];
    for (stdout, stderr, want) in cases {
        let r = agg(
            HookEvent::PreToolUse,
            Lane::Default,
            vec![warn(exited(2, stdout, stderr))],
        );
        assert!(!r.allowed);
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.message, want, "stdout={stdout:?} stderr={stderr:?}");
        assert_eq!(r.runs[0].status, RunStatus::Blocked);
    }
}

#[test]
fn other_exit_codes_warn_but_do_not_block() {
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![warn(exited(1, "", "jq: not found\n"))],
    );
    assert!(r.allowed);
    assert_eq!(r.exit_code, 0);
    assert_eq!(
        r.warnings,
        ["pre_tool_use hook `h` exited with status 1: jq: not found"]
    );
    let r = agg(
        HookEvent::Stop,
        Lane::Default,
        vec![(OnError::Ignore, exited(3, "", "x"))],
    );
    assert!(r.warnings.is_empty());
}

#[test]
fn failures_deny_on_pre_tool_use_whatever_on_error_says() {
    for on_error in [OnError::Warn, OnError::Ignore, OnError::Block] {
        let r = agg(
            HookEvent::PreToolUse,
            Lane::Default,
            vec![(on_error, Outcome::failed("boom"))],
        );
        assert!(!r.allowed, "{on_error:?}");
        assert_eq!(r.exit_code, -1);
        assert_eq!(r.message, "pre_tool_use hook failed to execute: boom");
    }
}

#[test]
fn on_error_decides_failures_elsewhere() {
    let r = agg(
        HookEvent::UserPromptSubmit,
        Lane::Default,
        vec![(OnError::Warn, Outcome::failed("boom"))],
    );
    assert!(r.allowed);
    assert_eq!(r.warnings, ["user_prompt_submit hook `h` failed: boom"]);
    let r = agg(
        HookEvent::UserPromptSubmit,
        Lane::Default,
        vec![(OnError::Ignore, Outcome::failed("boom"))],
    );
    assert!(r.allowed);
    assert!(r.warnings.is_empty());
    let r = agg(
        HookEvent::UserPromptSubmit,
        Lane::Default,
        vec![(OnError::Block, Outcome::failed("boom"))],
    );
    assert!(!r.allowed);
    assert_eq!(r.exit_code, -1);
    assert_eq!(r.message, "user_prompt_submit hook failed to execute: boom");
}

#[test]
fn exit_code_is_the_last_blocking_writer() {
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![
            warn(exited(2, "", "first")),
            warn(Outcome::failed("second")),
            warn(exited(0, "{}", "")),
        ],
    );
    assert_eq!(r.exit_code, -1);
    assert_eq!(
        r.message,
        "first\npre_tool_use hook failed to execute: second"
    );
}

#[test]
fn continue_false_and_decision_block_block() {
    let r = agg(
        HookEvent::UserPromptSubmit,
        Lane::Default,
        vec![warn(exited(
            0,
            r#"{"continue":false,"stop_reason":"stop it"}"#,
            "",
        ))],
    );
    assert!(!r.allowed);
    assert_eq!(r.message, "stop it");
    assert_eq!(r.exit_code, 0);
    let r = agg(
        HookEvent::BeforeLlmCall,
        Lane::Default,
        vec![warn(exited(0, r#"{"decision":"block"}"#, ""))],
    );
    assert!(!r.allowed);
    assert_eq!(r.message, "blocked by hook h");
}

#[test]
fn preempt_lane_failures_and_blocks_are_denies() {
    for o in [
        Outcome::failed("crash"),
        exited(2, "", "no"),
        exited(0, r#"{"decision":"block","reason":"no"}"#, ""),
        exited(0, r#"{"continue":false}"#, ""),
    ] {
        let r = agg(HookEvent::PreToolUse, Lane::Preempt, vec![warn(o.clone())]);
        assert_eq!(r.decision, Some(Decision::Deny), "{o:?}");
        assert!(!r.decision_reason.is_empty());
    }
}

#[test]
fn permission_request_allow_and_metadata() {
    let a = r#"{"hook_specific_output":{"permission_decision":"allow","metadata":{"risk":"low","a":"1"}}}"#;
    let b = r#"{"hook_specific_output":{"metadata":{"risk":"high"}}}"#;
    let r = agg(
        HookEvent::PermissionRequest,
        Lane::Default,
        vec![warn(exited(0, a, "")), warn(exited(0, b, ""))],
    );
    assert!(r.permission_allowed);
    assert!(r.allowed);
    assert_eq!(r.decision, None);
    assert_eq!(
        r.metadata,
        [
            ("a".to_owned(), "1".to_owned()),
            ("risk".to_owned(), "high".to_owned())
        ]
        .into()
    );
}

#[test]
fn first_summary_wins() {
    let r = agg(
        HookEvent::BeforeCompaction,
        Lane::Default,
        vec![
            warn(exited(0, r#"{"continue":true}"#, "")),
            warn(exited(
                0,
                r#"{"hook_specific_output":{"summary":"one"}}"#,
                "",
            )),
            warn(exited(
                0,
                r#"{"hook_specific_output":{"summary":"two"}}"#,
                "",
            )),
        ],
    );
    assert_eq!(r.summary, "one");
    assert!(r.allowed);
}

#[test]
fn permission_decision_has_no_effect_on_before_compaction() {
    let r = agg(
        HookEvent::BeforeCompaction,
        Lane::Default,
        vec![warn(exited(
            0,
            r#"{"hook_specific_output":{"permission_decision":"deny"}}"#,
            "",
        ))],
    );
    assert!(r.allowed);
}

#[test]
fn system_messages_join_in_order() {
    let r = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![
            warn(exited(0, r#"{"system_message":"a"}"#, "")),
            warn(exited(0, r#"{"system_message":"b"}"#, "")),
        ],
    );
    assert_eq!(r.system_message, "a\nb");
}

#[test]
fn combine_runs_both_lanes() {
    let pre = agg(
        HookEvent::PreToolUse,
        Lane::Preempt,
        vec![warn(exited(
            0,
            r#"{"hook_specific_output":{"permission_decision":"allow","metadata":{"k":"v"}}}"#,
            "",
        ))],
    );
    let def = agg(
        HookEvent::PreToolUse,
        Lane::Default,
        vec![warn(exited(
            0,
            r#"{"hook_specific_output":{"permission_decision":"ask","updated_input":{"a":1}}}"#,
            "",
        ))],
    );
    let r = HookResult::combine(pre, def);
    assert_eq!(r.decision, Some(Decision::Ask));
    assert_eq!(r.updated_input, json!({"a": 1}).as_object().cloned());
    assert_eq!(r.metadata.get("k").map(String::as_str), Some("v"));
    assert_eq!(r.runs.len(), 2);
}
