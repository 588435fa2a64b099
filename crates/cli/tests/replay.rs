//! `tether hooks replay`: a stored session re-decided under a tightened policy lists exactly
//! the calls the new policy changes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli::tether;

const AGENT: &str = "agents:\n  root:\n    model: script/model.yaml\n    toolsets: [{type: shell}, {type: think}]\n";

#[test]
fn a_tightened_policy_lists_exactly_the_calls_it_changes() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("model.yaml"),
        "replies:
  - tool_calls:
      - {name: shell, arguments: {cmd: echo one}}
      - {name: shell, arguments: {cmd: rm -f nothing.txt}}
      - {name: think, arguments: {thought: hmm}}
      - {name: shell, arguments: {cmd: sudo id}}
  - text: done
",
    )
    .unwrap();
    // The session: echo and rm run (allowed), think runs (read-only), sudo is asked and
    // refused (end of input).
    std::fs::write(
        d.join("agent.yaml"),
        format!("permissions:\n  allow: ['shell:cmd=echo*', 'shell:cmd=rm*']\n{AGENT}"),
    )
    .unwrap();
    let run = tether(d)
        .args(["run", "agent.yaml", "--exec", "go"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let list = tether(d)
        .args(["sessions", "list", "--json"])
        .output()
        .unwrap();
    let first: Value = serde_json::from_str(
        String::from_utf8_lossy(&list.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let id = first["id"].as_str().unwrap().to_owned();

    // Under its own file nothing changes.
    let same = tether(d)
        .args(["hooks", "replay", "--session", &id])
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert_eq!(
        String::from_utf8_lossy(&same.stdout)
            .lines()
            .next()
            .unwrap(),
        format!(
            "4 tool call(s) re-decided under {}: 0 change(s)",
            d.join("agent.yaml").canonicalize().unwrap().display()
        )
    );

    // Tightened: rm is denied, and a hook now blocks every `think`.
    std::fs::write(
        d.join("tight.yaml"),
        format!(
            "permissions:\n  allow: ['shell:cmd=echo*', 'shell:cmd=rm*']\n  deny: ['shell:cmd=rm*']\n{AGENT}    hooks:\n      pre_tool_use:\n        - matcher: think\n          hooks:\n            - {{type: command, command: 'echo no thinking >&2; exit 2'}}\n"
        ),
    )
    .unwrap();
    let out = tether(d)
        .args([
            "hooks",
            "replay",
            "--session",
            &id,
            "--config",
            "tight.yaml",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let seen: Vec<(&str, &str, &str, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap(),
                r["was"].as_str().unwrap(),
                r["now"].as_str().unwrap(),
                r["changed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("shell", "allow", "allow", false),
            ("shell", "allow", "deny", true),
            ("think", "allow", "deny", true),
            ("shell", "ask", "ask", false),
        ]
    );
    assert_eq!(rows[1]["source"], "team_permissions_deny");
    assert_eq!(rows[2]["source"], "pre_tool_use_hook_deny");
    assert_eq!(rows[2]["reason"], "no thinking");

    let table = tether(d)
        .args([
            "hooks",
            "replay",
            "--session",
            &id,
            "--config",
            "tight.yaml",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains(": 2 change(s)"), "{text}");
    assert!(
        text.contains(
            "| shell | cmd: \"rm -f nothing.txt\" | allow | deny | team_permissions_deny |"
        ),
        "{text}"
    );
    assert!(!text.contains("echo one"), "{text}");
}
