//! Ctrl-C and SIGTERM during a long tool call: the tool's process group dies, `session_end`
//! hooks still run, the exit status is 130, nothing is left behind.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};
use tempfile::TempDir;

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

fn wait_for(path: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never appeared", path.display());
}

fn interrupt_during_a_tool(signal: Signal) {
    let dir = TempDir::new().unwrap();
    let pidfile = dir.path().join("tool.pid");
    let ended = dir.path().join("ended");
    std::fs::write(
        dir.path().join("long.script.yaml"),
        format!(
            "replies:\n  - tool_calls:\n      - name: shell\n        arguments: {{cmd: 'echo $$$$ > {}; sleep 30 & sleep 30'}}\n  - text: unreachable\n",
            pidfile.display()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/long.script.yaml\n    toolsets: [{{type: shell}}]\n    hooks:\n      session_end:\n        - {{type: command, command: 'cat > {}'}}\n",
            ended.display()
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("tether");
    #[expect(
        clippy::disallowed_methods,
        reason = "the test needs the child's pid to signal it"
    )]
    let child = std::process::Command::new(bin)
        .current_dir(dir.path())
        .env("TETHER_HOME", dir.path().join(".tether"))
        .env("SHELL", "/bin/bash")
        .args(["run", "agent.yaml", "--yolo", "--exec", "go"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tool_shell: i32 = wait_for(&pidfile).trim().parse().unwrap();
    assert!(alive(tool_shell));
    kill_process(
        Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap(),
        signal,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let end: serde_json::Value = serde_json::from_str(&wait_for(&ended)).unwrap();
    assert_eq!(end["hook_event_name"], "session_end");
    assert_eq!(end["reason"], "other");
    for _ in 0..100 {
        if !alive(tool_shell) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the tool's shell {tool_shell} survived");
}

#[test]
fn ctrl_c_during_a_tool_kills_its_group_runs_session_end_and_exits_130() {
    interrupt_during_a_tool(Signal::INT);
}

#[test]
fn sigterm_during_a_tool_does_the_same() {
    interrupt_during_a_tool(Signal::TERM);
}
