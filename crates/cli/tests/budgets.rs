//! Budgets end to end (`tether run --exec` on script models with fixed usage): a named budget
//! shared by the root and the sub-agent it transfers to stops the run before the turn that
//! would go past it, with an assistant message, exit status 3 and the `on_error` hook.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;
use tether_test_support::cli;

#[test]
fn a_shared_budget_spent_by_a_sub_agent_stops_its_caller() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("root.yaml"),
        "replies:\n  - tool_calls: [{name: transfer_task, arguments: {agent: helper, task: work, expected_output: x}}]\n    usage: {input_tokens: 300, output_tokens: 100}\n  - text: never sent\n",
    )
    .unwrap();
    std::fs::write(
        d.join("helper.yaml"),
        "default: {text: done, usage: {input_tokens: 500, output_tokens: 200}}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "budgets:\n  team: {max_tokens: 1000}\nagents:\n  root:\n    model: script/root.yaml\n    sub_agents: [helper]\n    budgets: [team]\n    hooks:\n      on_error:\n        - {type: command, command: \"jq -r .notification_message >> errors.log\"}\n  helper:\n    model: script/helper.yaml\n    budgets: [team]\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["run", "agent.yaml", "--yolo", "--exec", "go"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    // 400 (root) + 700 (helper) = 1100 ≥ 1000: the root's second turn never runs.
    let why = "Stopped: budget `team` is exhausted: used 1100 tokens of 1000 (max_tokens).";
    assert!(
        stdout.contains("transfer_task response → \"done\""),
        "{stdout}"
    );
    assert!(
        stdout.contains(why) && !stdout.contains("never sent"),
        "{stdout}"
    );
    assert!(
        std::fs::read_to_string(d.join("errors.log"))
            .unwrap()
            .contains(why)
    );
}

#[test]
fn budget_fields_are_checked_at_load() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "budget: {max_cost: -1, max_time: 10 minutes}\nagents:\n  root:\n    model: openai/gpt-4o\n    budgets: [nope]\n",
    )
    .unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for line in [
        "agent.yaml:1:9: budget.max_cost: max_cost is USD and cannot be negative, got -1",
        "agent.yaml:1:9: budget.max_time: invalid duration `10 minutes`",
        "agent.yaml:5:15: agents.root.budgets[0]: unknown budget `nope`",
    ] {
        assert!(stderr.contains(line), "{line}\n{stderr}");
    }
}
