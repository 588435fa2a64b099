//! A background job runs a shell line, so every guard of the shell holds for it (its rules,
//! `safer_shell`, and a hook whose matcher names `shell`): a hostile model that is denied
//! `touch` through `shell` must not get there through `run_background_job`. Each case is a real `tether run --exec --yolo` on the script model
//! whose job would create `marker`; the same run without the guard starts the job and the
//! marker appears, so each payload is real and the test can fail.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::json;
use tempfile::TempDir;
use tether_test_support::cli::{self, tether};
use tether_test_support::script_run::tool_responses;

/// Chained, so that only a rule that reads the line's every command stops it.
const PAYLOAD: &str = "true && touch marker";

/// Waits up to three seconds for `marker` (the job runs beside the model's turns).
const WAIT: &str = "for i in $(seq 30); do [ -e marker ] && break; sleep 0.1; done; true";

/// `(tool response, is_error)` of each call, in order.
fn run(d: &Path, guard: &str) -> Vec<(String, bool)> {
    let (safer, permissions) = match guard {
        "deny" => ("false", "permissions:\n  deny: ['shell:cmd=touch *']\n"),
        "ask" => ("false", "permissions:\n  ask: ['shell:cmd=touch *']\n"),
        "safer" => ("true", ""),
        _ => ("false", ""),
    };
    // A user's own guard for the shell: its matcher names `shell` only.
    let hooks = if guard == "hook" {
        "    hooks:\n      pre_tool_use:\n        - matcher: shell\n          preempt_yolo: true\n          hooks: [{type: command, command: 'jq -r .tool_input.cmd | grep -q touch && { echo no touching >&2; exit 2; }; exit 0'}]\n"
    } else {
        ""
    };
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - type: shell\n        safer: {safer}\n      - type: background_jobs\n{hooks}{permissions}"
        ),
    )
    .unwrap();
    let call = |name: &str, cmd: &str| {
        format!(
            "  - tool_calls:\n      - {{name: {name}, arguments: {}}}\n",
            json!({ "cmd": cmd })
        )
    };
    let script = format!(
        "replies:\n{}{}  - text: done\n",
        call("run_background_job", PAYLOAD),
        call("shell", WAIT)
    );
    std::fs::write(d.join("s.yaml"), script).unwrap();
    let out =
        cli::succeeds(tether(d).args(["run", "agent.yaml", "--json", "--exec", "--yolo", "go"]));
    tool_responses(&out.stdout)
}

#[test]
fn without_a_guard_the_job_runs_its_whole_line() {
    let dir = TempDir::new().unwrap();
    let responses = run(dir.path(), "none");
    assert!(responses[0].0.contains("started with ID"), "{responses:?}");
    assert!(dir.path().join("marker").exists(), "{responses:?}");
}

#[test]
fn the_shells_deny_ask_and_safer_guards_hold_for_a_background_job() {
    for guard in ["deny", "ask", "safer", "hook"] {
        let dir = TempDir::new().unwrap();
        let responses = run(dir.path(), guard);
        let (job, is_error) = &responses[0];
        assert!(*is_error, "{guard}: {responses:?}");
        assert!(!job.contains("started with ID"), "{guard}: {job}");
        assert!(
            !dir.path().join("marker").exists(),
            "{guard}: {responses:?}"
        );
    }
}
