//! A hostile model that delegates: a sub-agent's calls, in the foreground (`transfer_task`)
//! or the background (`run_background_agent`), meet the team's rules and the sub-agent's own
//! hooks (as in docker-agent, hooks belong to the agent whose call it is), under `--yolo` too. Each run is a real `tether run --exec --yolo` on the script model whose helper would
//! delete `victim`; without the rule it does, so each payload is real and the test can fail.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use tempfile::TempDir;
use tether_test_support::cli::{self, tether};

const ROOTS: &[&str] = &[
    "replies:\n  - tool_calls: [{name: transfer_task, arguments: {agent: helper, task: clean, expected_output: x}}]\n  - text: done\n",
    "replies:\n  - tool_calls: [{name: run_background_agent, arguments: {agent: helper, task: clean}}]\n  - tool_calls: [{name: wait_background_agents, arguments: {task_ids: [agent_task_1]}}]\n  - text: done\n",
];

/// Runs `root` (one of [`ROOTS`]) with `guard` (`deny`, `hook` or nothing); the helper runs
/// `rm -rf victim`.
fn run(d: &Path, root: &str, guard: &str) -> String {
    std::fs::create_dir_all(d.join("victim")).unwrap();
    std::fs::write(d.join("root.yaml"), root).unwrap();
    std::fs::write(
        d.join("helper.yaml"),
        "replies:\n  - tool_calls: [{name: shell, arguments: {cmd: 'cd . && rm -rf victim'}}]\n  - text: '{{tool_result}}'\n",
    )
    .unwrap();
    let (permissions, hooks) = match guard {
        "deny" => ("permissions:\n  deny: ['shell:cmd=rm *']\n", ""),
        "hook" => (
            "",
            "    hooks:\n      pre_tool_use:\n        - matcher: shell\n          preempt_yolo: true\n          hooks: [{type: command, command: 'echo no shell >&2; exit 2'}]\n",
        ),
        _ => ("", ""),
    };
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "{permissions}agents:\n  root:\n    model: script/root.yaml\n    sub_agents: [helper]\n    toolsets: [{{type: background_agents}}]\n  helper:\n    model: script/helper.yaml\n    toolsets: [{{type: shell}}]\n{hooks}"
        ),
    )
    .unwrap();
    let out = cli::succeeds(tether(d).args(["run", "agent.yaml", "--exec", "--yolo", "go"]));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn without_a_guard_the_helper_deletes() {
    for root in ROOTS {
        let dir = TempDir::new().unwrap();
        let stdout = run(dir.path(), root, "none");
        assert!(!dir.path().join("victim").exists(), "{stdout}");
    }
}

#[test]
fn the_teams_deny_rules_and_the_agents_hooks_hold_for_a_sub_agent() {
    for root in ROOTS {
        for guard in ["deny", "hook"] {
            let dir = TempDir::new().unwrap();
            let stdout = run(dir.path(), root, guard);
            assert!(dir.path().join("victim").is_dir(), "{guard}: {stdout}");
        }
    }
}
