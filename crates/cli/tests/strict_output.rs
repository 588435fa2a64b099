//! `strict_output: true` end to end through `tether run --exec`: a `pre_tool_use` guard that
//! answers in plain text is ignored without it (the user is asked, and says yes) and fails
//! closed (a deny, nobody asked) with it; a JSON
//! answer with a field the event does not read is a failure too, and a well-formed one passes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;
use tether_test_support::cli;

const MODEL: &str = "replies:\n  - tool_calls:\n      - name: shell\n        arguments: {cmd: 'touch ran'}\n  - text: done\n";

/// Runs one shell call past a `pre_tool_use` hook printing `stdout`; returns whether the tool
/// ran, and the run's stdout and stderr.
fn run(stdout: &str, strict: bool) -> (bool, String) {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("model.yaml"), MODEL).unwrap();
    std::fs::write(d.join("answer.txt"), stdout).unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/model.yaml\n    toolsets: [{{type: shell}}]\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - type: command\n              command: cat answer.txt\n              strict_output: {strict}\n"
        ),
    )
    .unwrap();
    let out = tether(d)
        .args(["run", "agent.yaml", "--exec", "go"])
        // Yes to a confirmation: a call the hook lets through is asked about and runs.
        .write_stdin("y\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (d.join("ran").exists(), text)
}

fn tether(dir: &Path) -> Command {
    let mut cmd = cli::tether(dir);
    cmd.env("HOME", dir.join("home"));
    cmd
}

#[test]
fn a_plain_text_answer_is_ignored_unless_the_hook_is_strict() {
    let (ran, text) = run("looks fine to me\n", false);
    assert!(ran, "{text}");
    let (ran, text) = run("looks fine to me\n", true);
    assert!(!ran, "{text}");
    assert!(
        text.contains("broke strict_output: stdout is not a single JSON object"),
        "{text}"
    );
}

#[test]
fn a_field_the_event_does_not_read_fails_a_strict_hook_and_a_good_answer_passes() {
    let (ran, text) = run(
        r#"{"hook_specific_output": {"updated_messages": []}}"#,
        true,
    );
    assert!(!ran, "{text}");
    assert!(
        text.contains("`hook_specific_output.updated_messages` is not supported on `pre_tool_use`"),
        "{text}"
    );
    let (ran, text) = run(
        r#"{"hook_specific_output": {"permission_decision": "allow"}}"#,
        true,
    );
    assert!(ran, "{text}");
}
