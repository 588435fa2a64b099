//! Agent fields that shape what the model sees, end to end: `max_tool_result_tokens`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;

#[test]
fn max_tool_result_tokens_cuts_the_middle_of_long_results() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: 'SAW {{tool_result}}'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    max_tool_result_tokens: 25\n    toolsets: [{type: shell}]\n",
    )
    .unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .env("TETHER_HOME", d.join(".tether"))
        .env("XDG_CONFIG_HOME", d.join(".config"))
        .env("SHELL", "/bin/bash")
        .args(["run", "agent.yaml", "--yolo", "--exec", "Run: seq 1 1000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let saw = stdout.split("SAW ").nth(1).unwrap();
    assert!(saw.starts_with("1\n2\n3\n"), "{saw}");
    assert!(
        saw.contains("bytes truncated (max_tool_result_tokens)"),
        "{saw}"
    );
    assert!(
        saw.trim_end().ends_with("999\n1000") && !saw.contains("\n500\n"),
        "{saw}"
    );
}
