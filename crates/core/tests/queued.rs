//! Runtime end-to-end: steering messages and follow-ups (docs/design.md, Queued messages).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Harness, Setup, hook_yaml, inputs};
use tether_core::StopReason;
use tether_protocol::HookEvent;
use tether_test_support::fake_llm::Turn;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn steering_typed_while_a_tool_runs_is_drained_after_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (steer, turns) = (dir.path().join("steer"), dir.path().join("turns"));
    let agent = format!(
        "toolsets: [{{type: shell}}]\nhooks:\n{}{}",
        hook_yaml(
            HookEvent::UserSteeringMessagesSubmit,
            &steer,
            r#"{"hook_specific_output":{"additional_context":"re-read the latest user message"}}"#
        ),
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call(
        "shell",
        json!({"cmd": "sleep 0.5; echo slow"}),
    ));
    h.push(Turn::text("adjusted"));
    let cancel = CancellationToken::new();
    let inbox = h.session.inbox();
    let (runtime, session) = (&h.runtime, &mut h.session);
    let (out, ()) = tokio::join!(runtime.run(session, Some("start".into()), &cancel), async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        inbox.steer("use python instead").unwrap();
    });
    assert_eq!(out.reason, StopReason::Normal);
    let second = h.sent(1);
    assert_eq!(
        second.last().unwrap(),
        &("user".into(), "use python instead".into())
    );
    assert!(second.contains(&("system".into(), "re-read the latest user message".into())));
    assert_eq!(
        inputs(&steer)[0]["steering_messages"],
        json!(["use python instead"])
    );
    let reasons: Vec<_> = inputs(&turns).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(reasons, [json!("steered"), json!("normal")]);
}

#[tokio::test]
async fn steering_queued_while_idle_is_drained_before_the_first_call() {
    let dir = tempfile::tempdir().unwrap();
    let steer = dir.path().join("steer");
    let mut h = Harness::start(Setup::new(&format!(
        "hooks:\n{}",
        hook_yaml(HookEvent::UserSteeringMessagesSubmit, &steer, "")
    )))
    .await;
    h.session.inbox().steer("also be brief").unwrap();
    h.push(Turn::text("ok"));
    h.run_once("hello").await;
    let users: Vec<_> = h
        .sent(0)
        .into_iter()
        .filter(|(r, _)| r == "user")
        .map(|(_, c)| c)
        .collect();
    assert_eq!(users, ["hello", "also be brief"]);
    assert_eq!(inputs(&steer).len(), 1);
}

#[tokio::test]
async fn a_blocked_steering_drain_stops_the_run() {
    let agent = "hooks:\n  user_steering_messages_submit:\n    - {type: command, command: 'echo nope >&2; exit 2'}\n";
    let mut h = Harness::start(Setup::new(agent)).await;
    h.session.inbox().steer("do something bad").unwrap();
    let out = h.run_once("hello").await;
    assert_eq!(
        out.reason,
        StopReason::HookBlocked {
            message: "nope".into()
        }
    );
    assert!(h.requests().is_empty());
}

#[tokio::test]
async fn a_follow_up_starts_a_fresh_turn_at_the_end_of_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (follow, turns) = (dir.path().join("follow"), dir.path().join("turns"));
    let agent = format!(
        "hooks:\n{}{}",
        hook_yaml(HookEvent::UserFollowupSubmit, &follow, "follow-up context"),
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.session.inbox().follow_up("and now in French").unwrap();
    h.push(Turn::text("hello"));
    h.push(Turn::text("bonjour"));
    assert_eq!(h.run_once("greet me").await.reason, StopReason::Normal);
    let second = h.sent(1);
    assert_eq!(
        second.last().unwrap(),
        &("user".into(), "and now in French".into())
    );
    assert!(second.contains(&("system".into(), "follow-up context".into())));
    assert_eq!(inputs(&follow)[0]["prompt"], json!("and now in French"));
    let reasons: Vec<_> = inputs(&turns).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(reasons, [json!("continue"), json!("normal")]);
}

#[tokio::test]
async fn queues_are_bounded() {
    let h = Harness::start(Setup::new("")).await;
    for i in 0..tether_core::STEERING_CAPACITY {
        h.session.inbox().steer(format!("s{i}")).unwrap();
    }
    assert_eq!(
        h.session.inbox().steer("one more").unwrap_err().to_string(),
        "steer queue full"
    );
}
