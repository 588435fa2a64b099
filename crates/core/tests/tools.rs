//! Runtime end-to-end: tool calls through the approval chain (docs/design.md, the approval ladder;
//! 22 and §6.1), asserting what the model was told and what each hook received.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{Harness, Setup, hook_yaml, inputs, shell_call, yq};
use tether_core::{Confirmation, StopReason};
use tether_protocol::{HookEvent, RuntimeEvent};
use tether_test_support::fake_llm::Turn;

const SHELL: &str = "toolsets:\n  - type: shell\n";

fn decisions(log: &std::path::Path) -> Vec<(Value, Value)> {
    inputs(log)
        .into_iter()
        .map(|i| (i["approval_decision"].clone(), i["approval_source"].clone()))
        .collect()
}

#[tokio::test]
async fn yolo_runs_the_tool_and_the_model_sees_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let agent = format!(
        "{SHELL}hooks:\n{}",
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, "")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(shell_call("echo hello", "call_a"));
    h.push(Turn::text("done"));
    assert_eq!(h.run_once("say hello").await.reason, StopReason::Normal);
    assert_eq!(h.tool_results(1), [("call_a".into(), "hello\n".into())]);
    assert_eq!(decisions(&d), [(json!("allow"), json!("yolo"))]);
    let input = &inputs(&d)[0];
    assert_eq!(input["tool_name"], json!("shell"));
    assert_eq!(input["tool_use_id"], json!("call_a"));
    assert_eq!(input["tool_input"], json!({"cmd": "echo hello"}));
}

#[tokio::test]
async fn a_pre_tool_use_deny_reaches_the_model_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let deny = r#"{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"no rm"}}"#;
    let agent = format!(
        "{SHELL}hooks:\n  pre_tool_use:\n    - matcher: shell\n      hooks:\n        - {{type: command, name: guard, command: {}}}\n{}",
        yq(&format!("echo '{deny}'")),
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(shell_call("rm -rf /tmp/x", "call_1"));
    h.push(Turn::text("ok, I will not"));
    h.run_once("clean up").await;
    assert_eq!(
        h.tool_results(1),
        [("call_1".into(), "Tool call blocked by hook: no rm".into())]
    );
    assert_eq!(
        decisions(&d),
        [(json!("deny"), json!("pre_tool_use_hook_deny"))]
    );
    assert!(h.events().contains(&RuntimeEvent::HookBlocked {
        event: "pre_tool_use".into(),
        hook: "guard".into(),
        message: "no rm".into()
    }));
    let recorded = &h.session.messages[2];
    assert!(recorded.is_error);
}

#[tokio::test]
async fn updated_input_is_merged_onto_the_arguments_the_tool_runs_with() {
    let dir = tempfile::tempdir().unwrap();
    let post = dir.path().join("post");
    let rewrite = r#"{"hook_specific_output":{"permission_decision":"allow","updated_input":{"cmd":"echo rewritten"}}}"#;
    let agent = format!(
        "{SHELL}hooks:\n  pre_tool_use:\n    - matcher: shell\n      hooks:\n        - {{type: command, command: {}}}\n{}",
        yq(&format!("echo '{rewrite}'")),
        hook_yaml(HookEvent::PostToolUse, &post, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::tool_call("shell", json!({"cmd": "echo original", "timeout": 30})).with_id("c1"));
    h.push(Turn::text("done"));
    h.run_once("go").await;
    assert_eq!(h.tool_results(1), [("c1".into(), "rewritten\n".into())]);
    assert_eq!(
        inputs(&post)[0]["tool_input"],
        json!({"cmd": "echo rewritten", "timeout": 30})
    );
    assert!(h.events().contains(&RuntimeEvent::ToolCall {
        agent: "root".into(),
        id: "c1".into(),
        name: "shell".into(),
        arguments: json!({"cmd": "echo rewritten", "timeout": 30})
    }));
}

#[tokio::test]
async fn the_user_is_asked_and_each_answer_has_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let (d, w) = (dir.path().join("d"), dir.path().join("w"));
    let agent = format!(
        "{SHELL}hooks:\n{}{}",
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, ""),
        hook_yaml(HookEvent::OnUserInput, &w, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.user.answers.lock().unwrap().extend([
        Confirmation::Yes,
        Confirmation::No {
            reason: Some("not now".into()),
        },
        Confirmation::All,
    ]);
    h.push(shell_call("echo one", "c1").and_tool_call("shell", json!({"cmd": "echo two"})));
    h.push(shell_call("echo three", "c3"));
    h.push(shell_call("echo four", "c4"));
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    assert_eq!(results[0].1, "one\n");
    assert_eq!(
        results[1].1,
        "The user rejected the tool call. Reason: not now"
    );
    assert_eq!(
        decisions(&d),
        [
            (json!("allow"), json!("user_approved")),
            (json!("deny"), json!("user_rejected")),
            (json!("allow"), json!("user_approved_session")),
            (json!("allow"), json!("yolo")),
        ]
    );
    assert_eq!(h.user.asked.lock().unwrap().len(), 3);
    assert_eq!(
        inputs(&w).len(),
        3,
        "on_user_input fires for each confirmation"
    );
}

#[tokio::test]
async fn read_only_tools_run_without_asking_but_still_reach_pre_tool_use() {
    let dir = tempfile::tempdir().unwrap();
    let (d, pre) = (dir.path().join("d"), dir.path().join("pre"));
    let agent = format!(
        "toolsets:\n  - type: filesystem\nhooks:\n{}{}",
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, ""),
        hook_yaml(HookEvent::PreToolUse, &pre, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    std::fs::write(h.path("note.txt"), "hi").unwrap();
    let path = h.path("note.txt").display().to_string();
    h.push(Turn::tool_call("read_file", json!({ "path": path })).with_id("r1"));
    h.push(Turn::text("done"));
    h.run_once("read it").await;
    assert_eq!(h.tool_results(1), [("r1".into(), "hi".into())]);
    assert_eq!(decisions(&d), [(json!("allow"), json!("readonly_hint"))]);
    assert_eq!(inputs(&pre)[0]["tool_category"], json!("filesystem"));
    assert!(h.user.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn permission_rules_allow_deny_and_force_ask() {
    let dir = tempfile::tempdir().unwrap();
    let (d, pre) = (dir.path().join("d"), dir.path().join("pre"));
    let agent = format!(
        "{SHELL}hooks:\n{}{}",
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, ""),
        hook_yaml(
            HookEvent::PreToolUse,
            &pre,
            r#"{"hook_specific_output":{"permission_decision":"allow"}}"#
        )
    );
    let mut setup = Setup::new(&agent);
    setup.top = "permissions:\n  allow: [\"shell:cmd=echo *\"]\n  ask: [\"shell:cmd=ls*\"]\n  deny: [\"shell:cmd=*sudo*\"]\n".into();
    let mut h = Harness::start(setup).await;
    h.push(
        shell_call("echo hi", "c1")
            .and_tool_call("shell", json!({"cmd": "sudo reboot"}))
            .and_tool_call("shell", json!({"cmd": "ls"})),
    );
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    assert_eq!(results[0].1, "hi\n");
    assert_eq!(
        results[1].1,
        "Tool 'shell' is denied by permissions configuration."
    );
    assert_eq!(results[2].1, "The user rejected the tool call.");
    assert_eq!(
        decisions(&d),
        [
            (json!("allow"), json!("team_permissions_allow")),
            (json!("deny"), json!("team_permissions_deny")),
            (json!("deny"), json!("user_rejected")),
        ]
    );
    assert!(
        inputs(&pre).is_empty(),
        "permission rules decide before the default-lane hooks"
    );
}

#[tokio::test]
async fn permission_request_allows_denies_and_annotates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let script = r#"CMD=$(jq -r '.tool_input.cmd'); case "$CMD" in
  ls*) echo '{"hook_specific_output":{"permission_decision":"allow"}}' ;;
  rm*) echo '{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"no deletes"}}' ;;
  *) echo '{"hook_specific_output":{"metadata":{"risk":"high"}}}' ;;
esac"#;
    let agent = format!(
        "{SHELL}hooks:\n  permission_request:\n    - matcher: shell\n      hooks:\n        - {{type: command, command: {}}}\n{}",
        yq(script),
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(
        shell_call("ls", "c1")
            .and_tool_call("shell", json!({"cmd": "rm x"}))
            .and_tool_call("shell", json!({"cmd": "make"})),
    );
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    assert_eq!(
        results[1].1,
        "The tool call was rejected by a permission_request hook. Reason: no deletes"
    );
    assert_eq!(
        decisions(&d),
        [
            (json!("allow"), json!("permission_request_hook_allow")),
            (json!("deny"), json!("permission_request_hook_deny")),
            (json!("deny"), json!("user_rejected")),
        ]
    );
    let asked = h.user.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].metadata,
        Some([("risk".to_owned(), "high".to_owned())].into())
    );
}

#[tokio::test]
async fn the_preempt_lane_overrides_yolo() {
    let dir = tempfile::tempdir().unwrap();
    let (d, pr) = (dir.path().join("d"), dir.path().join("pr"));
    let script = r#"CMD=$(jq -r '.tool_input.cmd'); case "$CMD" in
  rm*) echo '{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"never"}}' ;;
  make*) echo '{"hook_specific_output":{"permission_decision":"ask","metadata":{"blast_radius":"high"}}}' ;;
esac"#;
    let agent = format!(
        "{SHELL}hooks:\n  pre_tool_use:\n    - matcher: shell\n      preempt_yolo: true\n      hooks:\n        - {{type: command, command: {}}}\n{}{}",
        yq(script),
        hook_yaml(HookEvent::OnToolApprovalDecision, &d, ""),
        hook_yaml(HookEvent::PermissionRequest, &pr, "")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.user.answers.lock().unwrap().push_back(Confirmation::Yes);
    h.push(
        shell_call("rm -rf /", "c1")
            .and_tool_call("shell", json!({"cmd": "make all"}))
            .and_tool_call("shell", json!({"cmd": "echo ok"})),
    );
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    assert_eq!(
        results[0].1,
        "The tool call was rejected by a pre_tool_use hook. Reason: never"
    );
    assert_eq!(
        decisions(&d),
        [
            (json!("deny"), json!("pre_tool_use_hook_deny")),
            (json!("allow"), json!("user_approved")),
            (json!("allow"), json!("yolo")),
        ]
    );
    let asked = h.user.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].metadata,
        Some([("blast_radius".to_owned(), "high".to_owned())].into())
    );
    assert!(
        inputs(&pr).is_empty(),
        "a preempt ask skips permission_request"
    );
}

#[tokio::test]
async fn tool_response_transform_rewrites_what_is_recorded_seen_by_post_tool_use_and_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (tr, post) = (dir.path().join("tr"), dir.path().join("post"));
    let upper = r#"jq -c '{hook_specific_output: {updated_tool_response: (.tool_response | ascii_upcase)}}'"#;
    let agent = format!(
        "{SHELL}hooks:\n  tool_response_transform:\n    - matcher: '*'\n      hooks:\n        - {{type: command, command: {}}}\n        - {{type: command, command: {}}}\n{}",
        yq(upper),
        yq(&support::logging_hook(&tr, "")),
        hook_yaml(HookEvent::PostToolUse, &post, "")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(shell_call("echo quiet", "c1").and_tool_call("nope", json!({})));
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    assert_eq!(results[0].1, "QUIET\n");
    assert_eq!(
        results[1].1,
        "TOOL 'NOPE' IS NOT AVAILABLE. YOU CAN ONLY USE THE TOOLS PROVIDED TO YOU."
    );
    assert_eq!(h.session.messages[2].content, "QUIET\n");
    let seen = inputs(&tr);
    assert_eq!(
        seen[0]["tool_response"],
        json!("QUIET\n"),
        "the chain feeds the rewrite on"
    );
    assert_eq!(seen[0]["tool_category"], json!("shell"));
    assert_eq!(seen[0].get("tool_error"), None);
    assert_eq!(seen[1]["tool_error"], json!(true));
    let post = inputs(&post);
    assert_eq!(post.len(), 1, "post_tool_use fires for real results only");
    assert_eq!(post[0]["tool_response"], json!("QUIET\n"));
}

#[tokio::test]
async fn post_tool_use_block_stops_the_run_and_skips_the_rest_of_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let agent = format!(
        "{SHELL}hooks:\n  post_tool_use:\n    - matcher: shell\n      hooks:\n        - {{type: command, name: auditor, command: 'echo enough >&2; exit 2'}}\n{}",
        hook_yaml(HookEvent::TurnEnd, &t, "")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(shell_call("echo a", "c1").and_tool_call("shell", json!({"cmd": "echo b"})));
    let out = h.run_once("go").await;
    assert_eq!(
        out.reason,
        StopReason::HookBlocked {
            message: "enough".into()
        }
    );
    assert_eq!(h.requests().len(), 1);
    let results: Vec<_> = h
        .session
        .messages
        .iter()
        .filter(|m| m.role == tether_protocol::Role::Tool)
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(
        results,
        [
            "a\n",
            "The tool call was skipped because a post_tool_use hook signalled run termination."
        ]
    );
    assert_eq!(inputs(&t)[0]["reason"], json!("hook_blocked"));
}

#[tokio::test]
async fn post_tool_use_context_reaches_the_next_call() {
    let dir = tempfile::tempdir().unwrap();
    let post = dir.path().join("post");
    let agent = format!(
        "{SHELL}hooks:\n{}",
        hook_yaml(HookEvent::PostToolUse, &post, "checked by audit")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(shell_call("false", "c1"));
    h.push(Turn::text("done"));
    h.run_once("go").await;
    assert!(
        h.sent(1)
            .contains(&("system".into(), "checked by audit".into()))
    );
    assert!(!h.sent(0).iter().any(|(_, c)| c == "checked by audit"));
    let input = &inputs(&post)[0];
    assert_eq!(input["tool_error"], json!(true));
    assert_eq!(input["tool_name"], json!("shell"));
}

#[tokio::test]
async fn the_loop_detector_ends_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = (dir.path().join("e"), dir.path().join("t"));
    let agent = format!(
        "max_consecutive_tool_calls: 2\ntoolsets:\n  - type: think\nhooks:\n{}{}",
        hook_yaml(HookEvent::OnError, &e, ""),
        hook_yaml(HookEvent::TurnEnd, &t, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::tool_call("think", json!({"thought": "same"})));
    h.push(Turn::tool_call("think", json!({"thought": "same"})));
    h.push(Turn::text("never"));
    let out = h.run_once("go").await;
    let message = "Agent terminated: detected 2 consecutive identical calls to think. This indicates a degenerate loop where the model is not making progress.";
    assert_eq!(
        out.reason,
        StopReason::LoopDetected {
            message: message.into()
        }
    );
    assert_eq!(inputs(&e)[0]["notification_message"], json!(message));
    let reasons: Vec<_> = inputs(&t).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(reasons, [json!("continue"), json!("loop_detected")]);
}
