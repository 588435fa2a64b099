//! Runtime end-to-end: several agents (docs/design.md, Several agents) — transfer_task, handoff,
//! force_handoff — with on_agent_switch, subagent_stop and the sub-agent's own hooks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Harness, Setup, hook_yaml, inputs};
use tether_core::StopReason;
use tether_protocol::HookEvent;
use tether_test_support::fake_llm::Turn;

fn indent(text: &str, n: usize) -> String {
    text.lines()
        .map(|l| format!("{}{l}\n", " ".repeat(n)))
        .collect()
}

#[tokio::test]
async fn transfer_task_runs_a_child_session_on_the_sub_agent_and_returns_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (switch, stop, child_pre, child_start) = (
        dir.path().join("switch"),
        dir.path().join("stop"),
        dir.path().join("pre"),
        dir.path().join("start"),
    );
    let root = format!(
        "sub_agents: [helper]\nhooks:\n{}{}",
        hook_yaml(HookEvent::OnAgentSwitch, &switch, ""),
        hook_yaml(HookEvent::SubagentStop, &stop, "")
    );
    let helper = format!(
        "  helper:\n    model: fake\n    instruction: You are the helper.\n    toolsets: [{{type: think}}]\n    hooks:\n{}",
        indent(
            &format!(
                "{}{}",
                hook_yaml(HookEvent::PreToolUse, &child_pre, ""),
                hook_yaml(HookEvent::SessionStart, &child_start, "")
            ),
            4
        )
    );
    let mut setup = Setup::new(&root);
    setup.extra_agents = helper;
    let mut h = Harness::start(setup).await;
    h.push(
        Turn::tool_call(
            "transfer_task",
            json!({"agent": "helper", "task": "add 40 and 2", "expected_output": "a number"}),
        )
        .with_id("t1"),
    );
    h.push(Turn::tool_call("think", json!({"thought": "40+2"})));
    h.push(Turn::text("42"));
    h.push(Turn::text("the helper says 42"));
    let out = h.run_once("what is 40+2? ask the helper").await;
    assert_eq!(out.reason, StopReason::Normal);

    let child_first = h.sent(1);
    assert_eq!(
        child_first[0],
        ("system".into(), "You are the helper.".into())
    );
    assert!(
        child_first[1].1.contains("<task>\nadd 40 and 2\n</task>")
            && child_first[1].1.contains("a number"),
        "{child_first:?}"
    );
    assert_eq!(
        child_first.last().unwrap(),
        &("user".into(), "Please proceed.".into())
    );
    let tools: Vec<_> = h.requests()[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == json!("tool"))
        .map(|m| m["content"].clone())
        .collect();
    assert_eq!(tools, [json!("42")]);

    let switches: Vec<_> = inputs(&switch)
        .iter()
        .map(|i| {
            (
                i["agent_switch_kind"].clone(),
                i["from_agent"].clone(),
                i["to_agent"].clone(),
            )
        })
        .collect();
    assert_eq!(
        switches,
        [
            (json!("transfer_task"), json!("root"), json!("helper")),
            (
                json!("transfer_task_return"),
                json!("helper"),
                json!("root")
            ),
        ]
    );
    assert_eq!(
        inputs(&switch)[0]["from_agent_models"],
        json!([{"provider": "openai", "model": "gpt-4o", "base_url": format!("{}/v1", h.fake.base_url())}])
    );
    let stop = &inputs(&stop)[0];
    let child_id = stop["session_id"].as_str().unwrap().to_owned();
    assert_ne!(child_id, "sess-1");
    assert_eq!(stop["parent_session_id"], json!("sess-1"));
    assert_eq!(stop["agent_name"], json!("helper"));
    assert_eq!(stop["stop_response"], json!("42"));
    // The child's own hooks saw its tool call and its session.
    let pre = &inputs(&child_pre)[0];
    assert_eq!(pre["agent_name"], json!("helper"));
    assert_eq!(pre["session_id"], json!(child_id));
    assert_eq!(inputs(&child_start)[0]["session_id"], json!(child_id));
}

/// A server sends a sub-agent's events and questions to the client of the conversation that
/// started it: both name the top-level session.
#[tokio::test]
async fn a_sub_agents_questions_and_events_name_the_conversation_that_started_it() {
    let mut setup = Setup::new("sub_agents: [helper]");
    setup.extra_agents =
        "  helper:\n    model: fake\n    instruction: Help.\n    toolsets: [{type: shell}]\n"
            .to_owned();
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call(
        "transfer_task",
        json!({"agent": "helper", "task": "list", "expected_output": "files"}),
    ));
    h.push(Turn::tool_call("shell", json!({"cmd": "ls"})));
    h.push(Turn::text("could not"));
    h.push(Turn::text("the helper could not"));
    let out = h.run_once("ask the helper").await;
    assert_eq!(out.reason, StopReason::Normal);
    let asked = h.user.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session_id, "sess-1");
    assert_eq!(asked[0].agent, "helper");
    let routed = h.events.1.lock().unwrap().clone();
    assert!(
        routed
            .iter()
            .any(|(c, s, k)| c == "sess-1" && s != "sess-1" && k == "tool_confirmation"),
        "{routed:?}"
    );
    assert!(
        routed
            .iter()
            .all(|(c, s, _)| c == "sess-1" && s != "sess-1")
    );
}

#[tokio::test]
async fn transfer_to_an_agent_not_in_sub_agents_is_a_tool_error() {
    let mut setup = Setup::new("sub_agents: [helper]\n");
    setup.extra_agents = "  helper:\n    model: fake\n  other:\n    model: fake\n".into();
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call(
        "transfer_task",
        json!({"agent": "other", "task": "x", "expected_output": ""}),
    ));
    h.push(Turn::text("ok"));
    h.run_once("go").await;
    let tool = h
        .session
        .messages
        .iter()
        .find(|m| m.role == tether_protocol::Role::Tool)
        .unwrap();
    assert!(tool.is_error);
    assert_eq!(
        tool.content,
        "Agent root cannot transfer task to other: target agent not in sub-agents list. Available agent IDs are: helper"
    );
}

#[tokio::test]
async fn handoff_gives_the_conversation_to_another_agent() {
    let dir = tempfile::tempdir().unwrap();
    let switch = dir.path().join("switch");
    let mut setup = Setup::new(&format!(
        "handoffs: [reviewer]\nhooks:\n{}",
        hook_yaml(HookEvent::OnAgentSwitch, &switch, "")
    ));
    setup.extra_agents = "  reviewer:\n    model: fake\n    instruction: You review.\n".into();
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call("handoff", json!({"agent": "reviewer"})));
    h.push(Turn::text("reviewed"));
    assert_eq!(h.run_once("please review").await.reason, StopReason::Normal);
    assert_eq!(h.sent(1)[0], ("system".into(), "You review.".into()));
    assert_eq!(h.session.agent, "reviewer");
    assert_eq!(inputs(&switch)[0]["agent_switch_kind"], json!("handoff"));
}

#[tokio::test]
async fn force_handoff_switches_on_a_natural_stop() {
    let dir = tempfile::tempdir().unwrap();
    let (switch, turns) = (dir.path().join("switch"), dir.path().join("turns"));
    let mut setup = Setup::new(&format!(
        "force_handoff: reviewer\nhooks:\n{}{}",
        hook_yaml(HookEvent::OnAgentSwitch, &switch, ""),
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    ));
    setup.extra_agents = "  reviewer:\n    model: fake\n    instruction: You review.\n".into();
    let mut h = Harness::start(setup).await;
    h.push(Turn::text("draft"));
    h.push(Turn::text("approved"));
    assert_eq!(h.run_once("write").await.reason, StopReason::Normal);
    assert_eq!(
        h.sent(1).last().unwrap(),
        &("user".into(), "Please continue from here.".into())
    );
    assert_eq!(
        inputs(&switch)[0]["agent_switch_kind"],
        json!("force_handoff")
    );
    assert_eq!(inputs(&turns)[0]["reason"], json!("force_handoff"));
}
