//! Issue 22, finding 8: `safer_shell` let through, as read-only, commands that run a program or
//! write a file. Each attack is a shell call a hostile model sends: `tether hooks decide` must
//! ask (even under `--yolo`: `safer` is on the preempt lane), and a real `tether run --exec
//! --yolo` on the script model, where no one answers, must not run it, so the `marker` file its
//! payload creates never appears. The same run without `safer` creates the marker, so each
//! payload is real and the test can fail.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::{self, tether};

/// Commands that must ask, each creating `marker` when run.
const ATTACKS: &[&str] = &[
    // `./ls` comes first in the lookup.
    "PATH=.:$PATH ls",
    // The hash table now maps `ls` to `./evil`.
    "hash -p ./evil ls; ls x",
    // Arithmetic evaluates `x`, whose subscript runs the substitution.
    "x='a[$(touch marker)]'; echo $((x))",
    "test -v 'a[$(touch marker)]'",
    "[[ -v 'a[$(touch marker)]' ]]",
    "declare -n r='a[$(touch marker)]'; echo $r",
    "printf -v 'a[$(touch marker)]' %s 1",
    "read 'a[$(touch marker)]' <<< 1",
    "git grep --open-files-in-pager=./evil foo",
    "sort -o marker data.txt",
    "diff3 --diff-program=./evil a b c",
];

/// Read-only commands that must still pass silently under `--yolo`.
const READ_ONLY: &[&str] = &["ls -la", "git grep foo", "sort data.txt", "echo $((1 + 2))"];

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A working directory holding the payloads, and an agent whose model sends `cmd`.
fn workspace(cmd: &str, safer: bool) -> TempDir {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let payload = "#!/bin/sh\ntouch marker\n";
    executable(&d.join("evil"), payload);
    executable(&d.join("ls"), payload);
    for (name, text) in [
        ("data.txt", "b\na\n"),
        ("a", "1\n"),
        ("b", "2\n"),
        ("c", "3\n"),
    ] {
        std::fs::write(d.join(name), text).unwrap();
    }
    std::fs::write(d.join("notes.txt"), "foo\n").unwrap();
    for args in [&["init", "-q"][..], &["add", "notes.txt"]] {
        let out = Command::new("git")
            .current_dir(d)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/model.yaml\n    toolsets:\n      - type: shell\n        safer: {safer}\n"
        ),
    )
    .unwrap();
    let args = json!({ "cmd": cmd }).to_string();
    std::fs::write(
        d.join("model.yaml"),
        format!("replies:\n  - tool_calls:\n      - name: shell\n        arguments: {args}\n  - text: done\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("call.json"),
        json!({"tool_input": {"cmd": cmd}}).to_string(),
    )
    .unwrap();
    dir
}

fn decide(dir: &Path) -> Value {
    let out = tether(dir)
        .args([
            "hooks",
            "decide",
            "agent.yaml",
            "--tool",
            "shell",
            "--input",
            "call.json",
            "--yolo",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `tether run --exec --yolo`; end of input answers any question with no. Returns stdout.
fn run(dir: &Path) -> String {
    let out = cli::succeeds(tether(dir).args(["run", "agent.yaml", "--exec", "go", "--yolo"]));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn read_only_lookalikes_ask_and_never_run_unanswered() {
    for cmd in ATTACKS {
        let dir = workspace(cmd, true);
        let d = dir.path();
        let decided = decide(d);
        assert_eq!(
            (decided["decision"].as_str(), decided["source"].as_str()),
            (Some("ask"), Some("preempt_hook_ask")),
            "{cmd}: {decided:#}"
        );
        let stdout = run(d);
        assert!(
            stdout.contains("Can I run this tool?"),
            "{cmd}: the run did not ask: {stdout}"
        );
        assert!(
            !d.join("marker").exists(),
            "{cmd}: the payload ran: {stdout}"
        );
    }
}

#[test]
fn without_safer_every_payload_runs() {
    for cmd in ATTACKS {
        let dir = workspace(cmd, false);
        let stdout = run(dir.path());
        assert!(
            dir.path().join("marker").exists(),
            "{cmd}: the payload did not run, so the attack proves nothing: {stdout}"
        );
    }
}

#[test]
fn read_only_commands_still_pass_under_yolo() {
    for cmd in READ_ONLY {
        let dir = workspace(cmd, true);
        let decided = decide(dir.path());
        assert_eq!(
            (decided["decision"].as_str(), decided["source"].as_str()),
            (Some("allow"), Some("yolo")),
            "{cmd}: {decided:#}"
        );
    }
}
