//! Runtime end-to-end: the session and turn events (docs/design.md, Events),
//! asserting what reached the model and what each hook received on stdin.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Harness, Setup, hook_yaml, inputs};
use tether_core::StopReason;
use tether_protocol::{HookEvent, RuntimeEvent, Usage};
use tether_test_support::fake_llm::Turn;

fn hooks(entries: &[String]) -> String {
    format!("hooks:\n{}", entries.concat())
}

#[tokio::test]
async fn contexts_land_in_order_session_prompt_turn_and_are_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (s, u, t) = (
        dir.path().join("s"),
        dir.path().join("u"),
        dir.path().join("t"),
    );
    let agent = hooks(&[
        hook_yaml(HookEvent::SessionStart, &s, "session ctx"),
        hook_yaml(
            HookEvent::UserPromptSubmit,
            &u,
            r#"{"hook_specific_output":{"additional_context":"prompt ctx"}}"#,
        ),
        hook_yaml(HookEvent::TurnStart, &t, "turn ctx"),
    ]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("four"));
    let out = h.run_once("what is 2+2?").await;
    assert_eq!(out.reason, StopReason::Normal);
    assert_eq!(
        h.sent(0),
        [
            ("system".into(), "You are a test agent.".into()),
            ("system".into(), "session ctx".into()),
            ("system".into(), "prompt ctx".into()),
            ("system".into(), "turn ctx".into()),
            ("user".into(), "what is 2+2?".into()),
        ]
    );
    // Hook contexts are never part of the session.
    assert!(
        h.session
            .messages
            .iter()
            .all(|m| !m.content.contains("ctx"))
    );
    assert_eq!(h.session.session_context, "session ctx");
    let start = &inputs(&s)[0];
    assert_eq!(start["source"], json!("startup"));
    assert_eq!(start["session_id"], json!("sess-1"));
    assert_eq!(start["agent_name"], json!("root"));
    assert_eq!(start["cwd"], json!(h.dir.path().display().to_string()));
    assert_eq!(inputs(&u)[0]["prompt"], json!("what is 2+2?"));
    assert_eq!(inputs(&t)[0]["hook_event_name"], json!("turn_start"));
}

#[tokio::test]
async fn user_prompt_submit_block_stops_before_any_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("on_error");
    let agent = format!(
        "hooks:\n  user_prompt_submit:\n    - {{type: command, name: policy, command: 'echo forbidden topic >&2; exit 2'}}\n{}",
        hook_yaml(HookEvent::OnError, &log, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    let out = h.run_once("tell me secrets").await;
    assert_eq!(
        out.reason,
        StopReason::HookBlocked {
            message: "forbidden topic".into()
        }
    );
    assert!(h.requests().is_empty());
    assert_eq!(
        h.session.messages.len(),
        1,
        "the user message stays recorded"
    );
    assert_eq!(
        inputs(&log)[0]["notification_message"],
        json!("forbidden topic")
    );
    assert!(h.events().contains(&RuntimeEvent::HookBlocked {
        event: "user_prompt_submit".into(),
        hook: "policy".into(),
        message: "forbidden topic".into()
    }));
}

#[tokio::test]
async fn before_llm_call_sees_the_messages_and_can_rewrite_one_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("before");
    let rewrite =
        r#"{"hook_specific_output":{"updated_messages":[{"role":"user","content":"rewritten"}]}}"#;
    let agent = hooks(&[hook_yaml(HookEvent::BeforeLlmCall, &log, rewrite)]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("ok"));
    h.run_once("original").await;
    assert_eq!(h.sent(0), [("user".into(), "rewritten".into())]);
    assert_eq!(
        h.session.messages[0].content, "original",
        "history keeps the original"
    );
    let input = &inputs(&log)[0];
    assert_eq!(input["model_id"], json!("openai/gpt-4o"));
    assert_eq!(input["iteration"], json!(1));
    assert_eq!(
        input["messages"],
        json!([{"role": "system", "content": "You are a test agent."}, {"role": "user", "content": "original"}])
    );
}

#[tokio::test]
async fn before_llm_call_block_ends_the_turn_as_hook_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let agent = format!(
        "hooks:\n  before_llm_call:\n    - {{type: builtin, command: max_iterations, args: ['1']}}\n{}",
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    );
    let mut h = Harness::start(Setup::new(&format!("toolsets:\n  - type: think\n{agent}"))).await;
    h.push(Turn::tool_call("think", json!({"thought": "hmm"})));
    h.push(Turn::text("never sent"));
    let out = h.run_once("go").await;
    assert_eq!(
        out.reason,
        StopReason::HookBlocked {
            message:
                "Agent terminated: max_iterations builtin reached its limit of 1 model call(s)."
                    .into()
        }
    );
    assert_eq!(h.requests().len(), 1);
    let reasons: Vec<_> = inputs(&turns).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(reasons, [json!("continue"), json!("hook_blocked")]);
}

#[tokio::test]
async fn after_llm_call_gets_the_response_usage_and_cost() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("after");
    let agent = hooks(&[hook_yaml(HookEvent::AfterLlmCall, &log, "")]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("four").with_usage(Usage {
        input_tokens: 1000,
        output_tokens: 100,
        ..Usage::default()
    }));
    h.run_once("2+2?").await;
    let input = &inputs(&log)[0];
    assert_eq!(input["stop_response"], json!("four"));
    assert_eq!(input["last_user_message"], json!("2+2?"));
    assert_eq!(input["model_id"], json!("openai/gpt-4o"));
    assert_eq!(input["usage"]["input_tokens"], json!(1000));
    assert_eq!(input["usage"]["output_tokens"], json!(100));
    // gpt-4o: $2.50 / $10 per million tokens.
    let cost = input["cost"].as_f64().unwrap();
    assert!((cost - 0.0035).abs() < 1e-9, "{cost}");
}

#[tokio::test]
async fn stop_context_reaches_the_next_model_call_of_the_session_only() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stop");
    let agent = hooks(&[hook_yaml(HookEvent::Stop, &log, "remember: be brief")]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("first answer"));
    h.push(Turn::text("second answer"));
    h.push(Turn::text("third answer"));
    h.run_once("one").await;
    let cancel = tokio_util::sync::CancellationToken::new();
    h.runtime
        .run(&mut h.session, Some("two".into()), &cancel)
        .await;
    let second = h.sent(1);
    assert!(
        second.contains(&("system".into(), "remember: be brief".into())),
        "{second:?}"
    );
    let input = &inputs(&log)[0];
    assert_eq!(input["stop_response"], json!("first answer"));
    assert_eq!(input["last_user_message"], json!("one"));
    assert_eq!(input["agent_name"], json!("root"));
}

#[tokio::test]
async fn session_end_fires_once_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("end");
    let agent = hooks(&[hook_yaml(HookEvent::SessionEnd, &log, "")]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("a"));
    h.run_once("x").await;
    let ends = inputs(&log);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["reason"], json!("other"));
    assert!(h.events().contains(&RuntimeEvent::SessionEnded {
        reason: "other".into()
    }));
}

#[tokio::test]
async fn a_model_error_notifies_and_fires_on_error_and_turn_end_error() {
    let dir = tempfile::tempdir().unwrap();
    let (n, e, t) = (
        dir.path().join("n"),
        dir.path().join("e"),
        dir.path().join("t"),
    );
    let agent = hooks(&[
        hook_yaml(HookEvent::Notification, &n, ""),
        hook_yaml(HookEvent::OnError, &e, ""),
        hook_yaml(HookEvent::TurnEnd, &t, ""),
    ]);
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::error(401, r#"{"error":{"message":"bad key"}}"#));
    let out = h.run_once("hi").await;
    assert!(matches!(out.reason, StopReason::Error { .. }), "{out:?}");
    let note = &inputs(&n)[0];
    assert_eq!(note["notification_level"], json!("error"));
    assert!(
        note["notification_message"]
            .as_str()
            .unwrap()
            .starts_with("model openai/gpt-4o: ")
    );
    assert_eq!(
        inputs(&e)[0]["notification_message"],
        note["notification_message"]
    );
    assert_eq!(inputs(&t)[0]["reason"], json!("error"));
}

#[tokio::test]
async fn max_iterations_non_interactive_stops_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let (n, m) = (dir.path().join("n"), dir.path().join("m"));
    let agent = format!(
        "max_iterations: 1\ntoolsets:\n  - type: think\n{}",
        hooks(&[
            hook_yaml(HookEvent::Notification, &n, ""),
            hook_yaml(HookEvent::OnMaxIterations, &m, "")
        ])
    );
    let mut setup = Setup::new(&agent);
    setup.non_interactive = true;
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call("think", json!({"thought": "a"})));
    let out = h.run_once("go").await;
    assert_eq!(out.reason, StopReason::MaxIterations { limit: 1 });
    assert_eq!(h.requests().len(), 1);
    assert_eq!(
        h.session.last_assistant_message(),
        "Execution stopped after reaching the configured max_iterations limit (1)."
    );
    assert_eq!(inputs(&n)[0]["notification_level"], json!("warning"));
    assert_eq!(
        inputs(&m)[0]["notification_message"],
        json!("Maximum iterations reached (1)")
    );
}

#[tokio::test]
async fn max_iterations_resume_fires_on_session_resume() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r");
    let agent = format!(
        "max_iterations: 1\ntoolsets:\n  - type: think\n{}",
        hooks(&[hook_yaml(HookEvent::OnSessionResume, &r, "")])
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.user.resume.lock().unwrap().push_back(true);
    h.push(Turn::tool_call("think", json!({"thought": "a"})));
    h.push(Turn::text("done"));
    let out = h.run_once("go").await;
    assert_eq!(out.reason, StopReason::Normal);
    assert_eq!(h.requests().len(), 2);
    assert_eq!(inputs(&r)[0]["previous_max_iterations"], json!(1));
    assert_eq!(inputs(&r)[0]["new_max_iterations"], json!(11));
}

/// A Claude Code Stop hook of the "keep going until the tests pass" kind: it blocks once, then
/// lets go when Claude's `stop_hook_active` says the agent already went on for it.
fn claude_stop_hook(dir: &std::path::Path, dialect: &str) -> String {
    let script = dir.join("check-tests.sh");
    std::fs::write(
        &script,
        "INPUT=$(cat)\nif [ \"$(echo \"$INPUT\" | jq -r '.stop_hook_active')\" = true ]; then exit 0; fi\necho 'tests are failing: fix them' >&2\nexit 2\n",
    )
    .unwrap();
    format!(
        "hooks:\n  stop:\n    - {{type: command, command: 'bash {}'{dialect}}}\n",
        script.display()
    )
}

#[tokio::test]
async fn a_claude_stop_hook_block_keeps_the_agent_going_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let agent = claude_stop_hook(dir.path(), ", dialect: claude");
    let mut h = Harness::start(Setup::new(&agent)).await;
    h.push(Turn::text("done"));
    h.push(Turn::text("fixed the tests"));
    let out = h.run_once("make the tests pass").await;
    assert_eq!(out.reason, StopReason::Normal);
    assert_eq!(h.requests().len(), 2);
    assert!(
        h.sent(1).contains(&(
            "system".into(),
            "Stop hook feedback:\ntests are failing: fix them".into()
        )),
        "{:?}",
        h.sent(1)
    );
    assert!(h.events().iter().any(|e| matches!(
        e,
        RuntimeEvent::Warning { message } if message == "a stop hook keeps the agent going: tests are failing: fix them"
    )));

    // docker-agent's reading: a stop verdict is ignored and the run ends.
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::start(Setup::new(&claude_stop_hook(dir.path(), ""))).await;
    h.push(Turn::text("done"));
    assert_eq!(
        h.run_once("make the tests pass").await.reason,
        StopReason::Normal
    );
    assert_eq!(h.requests().len(), 1);
}

#[tokio::test]
async fn a_claude_stop_hook_that_never_lets_go_is_cut_off() {
    let agent = "hooks:\n  stop:\n    - {type: command, command: 'echo never >&2; exit 2', dialect: claude}\n";
    let mut h = Harness::start(Setup::new(agent)).await;
    for i in 0..12 {
        h.push(Turn::text(format!("answer {i}")));
    }
    assert_eq!(h.run_once("go").await.reason, StopReason::Normal);
    assert_eq!(
        h.requests().len(),
        11,
        "ten continuations, then the run ends"
    );
}
