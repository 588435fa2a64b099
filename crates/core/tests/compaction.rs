//! Runtime end-to-end: compaction (docs/design.md, Compaction; D1, D5) and its hooks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Harness, Setup, hook_yaml, inputs};
use tether_core::{Compaction, StopReason};
use tether_protocol::{HookEvent, Usage};
use tether_test_support::fake_llm::Turn;
use tokio_util::sync::CancellationToken;

fn usage(input: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: 10,
        ..Usage::default()
    }
}

#[tokio::test]
async fn manual_compaction_summarizes_with_the_hooks_steering_and_restarts_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let (pre, before, after, start) = (
        dir.path().join("pre"),
        dir.path().join("before"),
        dir.path().join("after"),
        dir.path().join("start"),
    );
    let agent = format!(
        "hooks:\n{}{}{}{}",
        hook_yaml(HookEvent::PreCompact, &pre, "preserve TODOs verbatim"),
        hook_yaml(HookEvent::BeforeCompaction, &before, ""),
        hook_yaml(HookEvent::AfterCompaction, &after, ""),
        hook_yaml(HookEvent::SessionStart, &start, "session ctx")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("first answer"));
    h.push(Turn::text("second answer"));
    h.push(Turn::text("SUMMARY: two questions answered"));
    h.push(Turn::text("third answer"));
    h.run_once("question one").await;
    let cancel = CancellationToken::new();
    h.runtime
        .run(&mut h.session, Some("question two".into()), &cancel)
        .await;
    assert!(
        h.runtime
            .compact(
                &mut h.session,
                Compaction::Manual(Some("keep the numbers".into())),
                &cancel
            )
            .await
    );

    let summary_request = h.sent(2);
    let prompt = &summary_request.last().unwrap().1;
    assert!(
        prompt.starts_with("Summarize the conversation so far."),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("\n\nkeep the numbers\n\npreserve TODOs verbatim"),
        "{prompt}"
    );
    assert!(
        h.requests()[2]
            .body
            .get("tools")
            .is_none_or(|t| t.as_array().is_none_or(Vec::is_empty))
    );
    assert_eq!(inputs(&pre)[0]["source"], json!("manual"));
    assert_eq!(inputs(&before)[0]["compaction_reason"], json!("manual"));
    assert_eq!(
        inputs(&after)[0]["summary"],
        json!("SUMMARY: two questions answered")
    );
    let sources: Vec<_> = inputs(&start).iter().map(|i| i["source"].clone()).collect();
    assert_eq!(sources, [json!("startup"), json!("compact")]);

    h.runtime
        .run(&mut h.session, Some("question three".into()), &cancel)
        .await;
    let next = h.sent(3);
    assert!(
        next.contains(&(
            "system".into(),
            "Summary of the conversation so far:\n\nSUMMARY: two questions answered".into()
        )),
        "{next:?}"
    );
    let users: Vec<_> = next
        .iter()
        .filter(|(r, _)| r == "user")
        .map(|(_, c)| c.clone())
        .collect();
    assert_eq!(
        users,
        ["question two", "question three"],
        "the first exchange was summarized"
    );
}

#[tokio::test]
async fn a_hook_summary_replaces_the_model_call_and_pre_compact_can_veto() {
    let agent = "hooks:\n  before_compaction:\n    - {type: command, command: 'echo \"{\\\"hookSpecificOutput\\\":{\\\"summary\\\":\\\"deterministic summary\\\"}}\"'}\n";
    let mut h = Harness::start(Setup::new(agent)).await;
    h.push(Turn::text("a"));
    h.run_once("q").await;
    let cancel = CancellationToken::new();
    assert!(
        h.runtime
            .compact(&mut h.session, Compaction::Manual(None), &cancel)
            .await
    );
    assert_eq!(h.requests().len(), 1, "no summary call");
    assert_eq!(h.session.summary.as_deref(), Some("deterministic summary"));
    assert!(h.session.messages.is_empty());

    let vetoing =
        "hooks:\n  pre_compact:\n    - {type: command, command: 'echo not now >&2; exit 2'}\n";
    let mut h = Harness::start(Setup::new(vetoing)).await;
    h.push(Turn::text("a"));
    h.run_once("q").await;
    assert!(
        !h.runtime
            .compact(&mut h.session, Compaction::Manual(None), &cancel)
            .await
    );
    assert_eq!(h.session.messages.len(), 2);
    assert!(
        h.events()
            .contains(&tether_protocol::RuntimeEvent::Warning {
                message: "compaction skipped: not now".into()
            })
    );
}

#[tokio::test]
async fn tool_results_past_the_threshold_compact_with_source_tool_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let (pre, before) = (dir.path().join("pre"), dir.path().join("before"));
    let agent = format!(
        "toolsets: [{{type: think}}]\nhooks:\n{}{}",
        hook_yaml(HookEvent::PreCompact, &pre, ""),
        hook_yaml(
            HookEvent::BeforeCompaction,
            &before,
            r#"{"hook_specific_output":{"summary":"S"}}"#
        )
    );
    let mut setup = Setup::new(&agent);
    setup.provider_opts = "context_size: 1000".into();
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call("think", json!({"thought": "x".repeat(400)})).with_usage(usage(895)));
    h.push(Turn::text("done").with_usage(usage(100)));
    assert_eq!(h.run_once("go").await.reason, StopReason::Normal);
    assert_eq!(inputs(&pre)[0]["source"], json!("tool_overflow"));
    let b = &inputs(&before)[0];
    assert_eq!(b["compaction_reason"], json!("threshold"));
    assert_eq!(b["context_limit"], json!(1000));
    assert!(b["input_tokens"].as_i64().unwrap() > 895);
}

#[tokio::test]
async fn a_context_overflow_compacts_once_and_retries() {
    let dir = tempfile::tempdir().unwrap();
    let (pre, turns) = (dir.path().join("pre"), dir.path().join("turns"));
    let agent = format!(
        "hooks:\n{}{}",
        hook_yaml(HookEvent::PreCompact, &pre, ""),
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("earlier answer"));
    h.run_once("earlier question").await;
    h.push(Turn::error(
        400,
        r#"{"error":{"code":"context_length_exceeded","message":"too long"}}"#,
    ));
    h.push(Turn::text("SUMMARY"));
    h.push(Turn::text("answer after compaction"));
    let cancel = CancellationToken::new();
    let out = h
        .runtime
        .run(&mut h.session, Some("new question".into()), &cancel)
        .await;
    assert_eq!(out.reason, StopReason::Normal);
    assert_eq!(inputs(&pre)[0]["source"], json!("overflow"));
    let reasons: Vec<_> = inputs(&turns).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(reasons, [json!("normal"), json!("error"), json!("normal")]);
    assert_eq!(
        h.session.last_assistant_message(),
        "answer after compaction"
    );
}

#[tokio::test]
async fn an_agents_compaction_threshold_and_session_compaction_are_honoured() {
    // 600 of 1000 tokens: under the default 0.9, over an agent's 0.5.
    let run = |agent_fields: &'static str| async move {
        let dir = tempfile::tempdir().unwrap();
        let pre = dir.path().join("pre");
        let agent = format!(
            "{agent_fields}toolsets: [{{type: think}}]\nhooks:\n{}",
            hook_yaml(HookEvent::PreCompact, &pre, "")
        );
        let mut setup = Setup::new(&agent);
        setup.provider_opts = "context_size: 1000".into();
        let mut h = Harness::start(setup).await;
        h.push(Turn::tool_call("think", json!({"thought": "x"})).with_usage(usage(600)));
        h.push(Turn::text("SUMMARY"));
        h.push(Turn::text("done").with_usage(usage(100)));
        assert_eq!(h.run_once("go").await.reason, StopReason::Normal);
        pre.exists()
    };
    assert!(!run("").await, "the default threshold is 0.9");
    assert!(run("compaction_threshold: 0.5\n").await);
    assert!(!run("compaction_threshold: 0.5\nsession_compaction: false\n").await);
}
