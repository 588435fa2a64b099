//! A hostile model against the argument check and the permission rules (issue 22, findings
//! 1–4 and 7): each test plays the attack through `tether run --exec` on the script model, or
//! `tether hooks decide`, and asserts that nothing forbidden happened.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::{self, tether};

/// A script model making `calls` one per turn, then saying `done`.
fn model(dir: &Path, calls: &[(&str, Value)]) {
    let mut text = String::from("replies:\n");
    for (name, args) in calls {
        text.push_str(&format!(
            "  - tool_calls:\n      - name: {name}\n        arguments: {args}\n"
        ));
    }
    text.push_str("  - text: done\n");
    std::fs::write(dir.join("model.yaml"), text).unwrap();
}

/// Runs `agent.yaml` under `--exec`; an empty stdin answers any question with no.
fn run(dir: &Path, extra: &[&str]) -> String {
    let out = cli::succeeds(
        tether(dir)
            .args([
                "run",
                "agent.yaml",
                "--model",
                "script/model.yaml",
                "--exec",
                "go",
            ])
            .args(extra),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn script_arguments_the_tool_does_not_declare_never_reach_its_environment() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        r#"permissions:
  allow: [greet]
agents:
  root:
    model: openai/gpt-4o
    toolsets:
      - type: script
        shell:
          greet:
            cmd: 'echo "hello ${name}"'
            args:
              name: {description: Who to greet}
"#,
    )
    .unwrap();
    model(
        d,
        &[
            (
                "greet",
                json!({"name": "a", "BASH_ENV": "$(touch pwned-bash-env)"}),
            ),
            (
                "greet",
                json!({"name": "b", "BASH_FUNC_echo%%": "() { touch pwned-function; }"}),
            ),
            ("greet", json!({"name": "world"})),
        ],
    );
    let stdout = run(d, &[]);
    assert!(!d.join("pwned-bash-env").exists(), "{stdout}");
    assert!(!d.join("pwned-function").exists(), "{stdout}");
    assert!(
        stdout.contains("unknown argument `BASH_ENV` (the tool takes `name`)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unknown argument `BASH_FUNC_echo%%` (the tool takes `name`)"),
        "{stdout}"
    );
    // The same tool with its own arguments runs, unasked (the allow rule).
    assert!(stdout.contains("hello world"), "{stdout}");
    assert!(!stdout.contains("Can I run this tool?"), "{stdout}");
}

#[test]
fn keys_differing_only_in_case_never_pass_an_allow_rule() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("victim")).unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        r#"permissions:
  allow: ["shell:cmd=git status"]
agents:
  root:
    model: openai/gpt-4o
    toolsets: [{type: shell}]
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: command
              command: "jq -c .tool_input >> hook.log"
"#,
    )
    .unwrap();
    model(
        d,
        &[(
            "shell",
            json!({"CMD": "git status", "cmd": "rm -rf victim"}),
        )],
    );
    let stdout = run(d, &["--yolo"]);
    assert!(d.join("victim").is_dir(), "{stdout}");
    assert!(
        stdout.contains("`CMD` and `cmd` differ only in case"),
        "{stdout}"
    );
    // Refused before any hook or rule looked at it.
    assert!(!d.join("hook.log").exists(), "{stdout}");
}

#[test]
fn the_shell_tool_runs_only_what_cmd_says() {
    // The shipped example: an `rm *` deny rule, a tool_guard and a rewrite, under --yolo.
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("victim")).unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        include_str!("../../../examples/desk.yaml"),
    )
    .unwrap();
    model(
        d,
        &[
            ("shell", json!({"command": "rm -rf victim"})),
            ("shell", json!({"cmd": " ", "command": "rm -rf victim"})),
            ("shell", json!({"cmd": "echo still here"})),
        ],
    );
    let stdout = run(d, &["--yolo"]);
    assert!(d.join("victim").is_dir(), "{stdout}");
    assert!(
        stdout.contains("unknown argument `command` (the tool takes `cmd`, `cwd`, `timeout`)"),
        "{stdout}"
    );
    assert!(stdout.contains("still here"), "{stdout}");
}

#[test]
fn deny_rules_hold_wherever_the_command_is_written() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        r#"permissions:
  deny: ["shell:cmd=*sudo*", "shell:cmd=rm *"]
agents:
  root:
    model: openai/gpt-4o
    toolsets: [{type: shell}]
"#,
    )
    .unwrap();
    for cmd in [
        "sudo cat /etc/shadow",
        "cd /; sudo id",
        "echo x; sudo rm -rf /",
        "/bin/rm -rf victim",
        "env rm -rf victim",
        "true; rm -rf victim",
        "echo $(rm -rf victim)",
        "bash -c 'rm -rf victim'",
        "ls | xargs rm -rf",
        "$RM -rf victim",
    ] {
        std::fs::write(
            d.join("call.json"),
            json!({"tool_input": {"cmd": cmd}}).to_string(),
        )
        .unwrap();
        let out = tether(d)
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
        let decided: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (decided["decision"].as_str(), decided["source"].as_str()),
            (Some("deny"), Some("team_permissions_deny")),
            "{cmd}: {decided:#}"
        );
    }

    // The real thing, under --yolo: nothing is deleted.
    std::fs::create_dir(d.join("victim")).unwrap();
    model(
        d,
        &[
            ("shell", json!({"cmd": "/bin/rm -rf victim"})),
            ("shell", json!({"cmd": "env rm -rf victim"})),
            ("shell", json!({"cmd": "true; rm -rf victim"})),
            ("shell", json!({"cmd": "echo $(rm -rf victim)"})),
            ("shell", json!({"cmd": "echo kept"})),
        ],
    );
    let stdout = run(d, &["--yolo"]);
    assert!(d.join("victim").is_dir(), "{stdout}");
    assert_eq!(
        stdout
            .matches("Tool 'shell' is denied by permissions configuration.")
            .count(),
        4,
        "{stdout}"
    );
    assert!(stdout.contains("kept"), "{stdout}");
}

#[test]
fn claude_rules_and_hooks_keep_claude_semantics_when_imported() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("settings.json"),
        json!({
            "permissions": {"allow": ["Bash(echo test:*)"]},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "jq -r .tool_input.command >> hook.log"}
            ]}]}
        })
        .to_string(),
    )
    .unwrap();
    let out = tether(d)
        .args(["hooks", "import-claude", "settings.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let yaml = String::from_utf8(out.stdout).unwrap();
    // The hooks go under the agent; the commented permissions block to the top level.
    let (hooks, perms) = yaml.split_at(yaml.find("\n# Claude Code's permissions").unwrap());
    let hooks: String = hooks
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("    {l}\n"))
        .collect();
    let perms: String = perms
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .filter(|l| l.starts_with("permissions:") || l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(
        d.join("agent.yaml"),
        format!("{perms}agents:\n  root:\n    model: openai/gpt-4o\n    toolsets: [{{type: shell}}]\n{hooks}"),
    )
    .unwrap();
    model(
        d,
        &[
            ("shell", json!({"cmd": "echo test one"})),
            ("shell", json!({"cmd": "echo test two; touch victim"})),
        ],
    );
    let stdout = run(d, &[]);
    // The allowed command ran unasked, and the PreToolUse hook still saw it first.
    assert!(stdout.contains("test one"), "{stdout}");
    let log = std::fs::read_to_string(d.join("hook.log")).unwrap();
    assert_eq!(
        log, "echo test one\necho test two; touch victim\n",
        "{stdout}"
    );
    // The chained command was not covered by the prefix rule: asked, refused, never run.
    assert_eq!(
        stdout.matches("Can I run this tool?").count(),
        1,
        "{stdout}"
    );
    assert!(!d.join("victim").exists(), "{stdout}");
}
