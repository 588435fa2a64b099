//! `persistent: true` hooks end to end through `tether run --exec` on the script model: one
//! process answers the `pre_tool_use` and `post_tool_use` of ten shell calls and is gone when
//! the run ends; its deny stops a call and its `updated_input` is what the tool runs.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use tempfile::TempDir;
use tether_test_support::cli;

/// Allows every call but `rm`, rewrites `touch original`; logs `PID EVENT` to `calls.log`.
const HOOK: &str = r#"#!/usr/bin/env python3
import json, os, sys
for line in sys.stdin:
    event = json.loads(line)
    with open("calls.log", "a") as f:
        f.write(f"{os.getpid()} {event['hook_event_name']}\n")
    cmd = (event.get("tool_input") or {}).get("cmd", "")
    answer = {}
    if event["hook_event_name"] == "pre_tool_use":
        decision = "deny" if cmd.startswith("rm ") else "allow"
        answer = {"hook_specific_output": {"permission_decision": decision,
                  "permission_decision_reason": "the guard said so"}}
        if cmd == "touch original":
            answer["hook_specific_output"]["updated_input"] = {"cmd": "touch rewritten"}
    print(json.dumps(answer), flush=True)
"#;

/// Runs `calls` shell commands, one model turn each, past the persistent guard.
fn run(dir: &Path, calls: &[&str]) -> String {
    let replies: String = calls
        .iter()
        .map(|c| {
            format!("  - tool_calls:\n      - name: shell\n        arguments: {{cmd: {c:?}}}\n")
        })
        .collect();
    std::fs::write(
        dir.join("model.yaml"),
        format!("replies:\n{replies}  - text: done\n"),
    )
    .unwrap();
    std::fs::write(dir.join("guard.py"), HOOK).unwrap();
    std::fs::set_permissions(dir.join("guard.py"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        dir.join("agent.yaml"),
        "agents:\n  root:\n    model: script/model.yaml\n    toolsets: [{type: shell}]\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks: [{type: command, command: ./guard.py, persistent: true}]\n      post_tool_use:\n        - matcher: shell\n          hooks: [{type: command, command: ./guard.py, persistent: true}]\n",
    )
    .unwrap();
    let mut cmd = cli::tether(dir);
    cmd.env("HOME", dir.join("home"));
    // Nobody is asked: the guard allows or denies every call.
    let out = cmd
        .args(["run", "agent.yaml", "--exec", "go"])
        .write_stdin("")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

/// `(pid, event)` for each line the guard read.
fn calls(dir: &Path) -> Vec<(u32, String)> {
    std::fs::read_to_string(dir.join("calls.log"))
        .unwrap()
        .lines()
        .map(|l| {
            let (pid, event) = l.split_once(' ').unwrap();
            (pid.parse().unwrap(), event.to_owned())
        })
        .collect()
}

fn gone_within(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        let zombie_or_gone = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| rest.starts_with('Z')))
            .unwrap_or(true);
        if zombie_or_gone {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn one_process_answers_ten_calls_and_is_gone_when_the_run_ends() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let commands: Vec<String> = (0..10).map(|i| format!("echo {i} >> ran.txt")).collect();
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let text = run(d, &commands);
    assert_eq!(
        std::fs::read_to_string(d.join("ran.txt")).unwrap(),
        "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n",
        "{text}"
    );
    let calls = calls(d);
    assert_eq!(calls.len(), 20, "{calls:?}");
    let pid = calls[0].0;
    assert!(calls.iter().all(|(p, _)| *p == pid), "{calls:?}");
    assert_eq!(
        calls[..2]
            .iter()
            .map(|(_, e)| e.as_str())
            .collect::<Vec<_>>(),
        ["pre_tool_use", "post_tool_use"]
    );
    assert!(
        gone_within(pid, Duration::from_secs(5)),
        "{pid} outlived the run"
    );
}

#[test]
fn the_process_denies_a_call_and_rewrites_another() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("data")).unwrap();
    let text = run(d, &["rm -rf data", "touch original"]);
    assert!(d.join("data").is_dir(), "the denied call ran: {text}");
    assert!(text.contains("the guard said so"), "{text}");
    assert!(d.join("rewritten").exists(), "{text}");
    assert!(!d.join("original").exists(), "{text}");
}

#[test]
fn hooks_check_marks_a_persistent_hook_and_each_hooks_sandbox() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      pre_tool_use:\n        - hooks:\n            - {type: command, command: 'cat >/dev/null', persistent: true, sandbox: true}\n            - {type: command, command: 'true', sandbox: {best_effort: true, write: [./logs], network: ['*:443']}}\n            - {type: command, command: 'true'}\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hooks = &json["events"][0]["hooks"];
    assert_eq!(
        (&hooks[0]["persistent"], &hooks[1]["persistent"]),
        (&serde_json::json!(true), &serde_json::Value::Null),
        "{json}"
    );
    assert_eq!(
        (
            &hooks[0]["sandbox"],
            &hooks[1]["sandbox"],
            &hooks[2]["sandbox"]
        ),
        (
            &serde_json::json!("default profile"),
            &serde_json::json!("best_effort; write ./logs; network *:443"),
            &serde_json::Value::Null
        ),
        "{json}"
    );
    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("matcher=*  persistent  sandbox: default profile  agent.yaml:7:15"),
        "{text}"
    );
    assert!(
        text.contains(
            "matcher=*  sandbox: best_effort; write ./logs; network *:443  agent.yaml:8:15"
        ),
        "{text}"
    );
    assert!(text.contains("matcher=*  agent.yaml:9:15"), "{text}");
}

/// Answers `{}`; at end of input it takes a moment to clean up, then says so in `bye.txt`.
const SLOW_TO_LEAVE: &str = r#"#!/usr/bin/env python3
import os, sys, time
for line in sys.stdin:
    print("{}", flush=True)
with open("pid.txt", "w") as f:
    f.write(str(os.getpid()))
time.sleep(0.3)
with open("bye.txt", "w") as f:
    f.write("bye")
"#;

#[test]
fn the_run_waits_for_a_process_that_cleans_up_after_end_of_input() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("model.yaml"),
        "replies:\n  - tool_calls:\n      - {name: think, arguments: {thought: a}}\n  - text: done\n",
    )
    .unwrap();
    std::fs::write(d.join("hook.py"), SLOW_TO_LEAVE).unwrap();
    std::fs::set_permissions(d.join("hook.py"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/model.yaml\n    toolsets: [{type: think}]\n    hooks:\n      pre_tool_use:\n        - hooks: [{type: command, command: ./hook.py, persistent: true}]\n",
    )
    .unwrap();
    cli::succeeds(cli::tether(d).env("HOME", d.join("home")).args([
        "run",
        "agent.yaml",
        "--exec",
        "go",
    ]));
    // Neither killed at the end of the session nor left running: waited for.
    assert_eq!(
        std::fs::read_to_string(d.join("bye.txt")).ok().as_deref(),
        Some("bye")
    );
    let pid: u32 = std::fs::read_to_string(d.join("pid.txt"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        gone_within(pid, Duration::from_millis(1)),
        "{pid} outlived the run"
    );
}
