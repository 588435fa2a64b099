//! The user config (`$XDG_CONFIG_HOME/tether/config.yaml`): a default model, global
//! permissions after the file's own, `settings.snapshot`, and strict validation.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;

fn setup(user_config: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("config/tether")).unwrap();
    std::fs::write(dir.path().join("config/tether/config.yaml"), user_config).unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: '{{tool_result}}'}\ndefault: {text: default reply}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        "agents:\n  root:\n    toolsets: [{type: shell}]\n",
    )
    .unwrap();
    dir
}

fn tether(dir: &TempDir, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("TETHER_HOME", dir.path().join("home"))
        .env("SHELL", "/bin/bash")
        .args(args)
        .write_stdin("")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_default_model_and_global_permissions_apply() {
    let dir = setup("model: script/s.yaml\npermissions:\n  deny: [\"shell:cmd=rm *\"]\n");
    let (code, out, err) = tether(&dir, &["run", "agent.yaml", "--yolo", "--exec", "hello"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("default reply"), "{out}");
    let (code, out, err) = tether(&dir, &["run", "agent.yaml", "--exec", "Run: rm -rf x"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("shell response → \"Tool 'shell' is denied by permissions configuration.\""),
        "{out}"
    );
}

#[test]
fn an_invalid_user_config_is_an_error_with_its_location() {
    let dir = setup("settings:\n  snapshot: yes please\n");
    let (code, _, err) = tether(&dir, &["run", "agent.yaml", "--exec", "hello"]);
    assert_eq!(code, 1);
    assert!(err.contains("invalid user config"), "{err}");
    assert!(
        err.contains("config/tether/config.yaml:2:13: settings.snapshot:"),
        "{err}"
    );
    let (code, _, err) = tether(&dir, &["hooks", "check", "agent.yaml"]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn global_hooks_and_drop_ins_run_after_the_agent_files_and_before_the_clis() {
    let log = |tag: &str| format!("{{type: command, command: \"echo {tag} >> order.log\"}}");
    let dir = setup(&format!(
        "model: script/s.yaml\nsettings:\n  hooks:\n    pre_tool_use:\n      - matcher: shell\n        hooks: [{}]\n",
        log("user")
    ));
    let d = dir.path();
    std::fs::create_dir_all(d.join("config/tether/hooks.d")).unwrap();
    std::fs::write(
        d.join("config/tether/hooks.d/20-audit.yaml"),
        format!(
            "pre_tool_use:\n  - matcher: shell\n    hooks: [{}]\n",
            log("dropin-20")
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("config/tether/hooks.d/10-first.yml"),
        format!(
            "hooks:\n  pre_tool_use:\n    - hooks: [{}]\n",
            log("dropin-10")
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("config/tether/hooks.d/15-broken.yaml"),
        "pre_tool_use:\n  - matcher: shell\n    hooks: [{type: comand, command: x}]\n",
    )
    .unwrap();
    std::fs::write(d.join("config/tether/hooks.d/notes.txt"), "not a drop-in").unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    toolsets: [{{type: shell}}]\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks: [{}]\n",
            log("agent")
        ),
    )
    .unwrap();
    let (code, out, err) = tether(
        &dir,
        &[
            "run",
            "agent.yaml",
            "--hook-pre-tool-use",
            r#"echo cli >> order.log; echo '{"hook_specific_output":{"permission_decision":"allow"}}'"#,
            "--exec",
            "Run: echo ran",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("ran"), "{out}");
    assert!(
        err.contains("warning: hook drop-in skipped:") && err.contains("15-broken.yaml:3:"),
        "{err}"
    );
    // Hooks of one event run concurrently: every one ran...
    let mut ran: Vec<String> = std::fs::read_to_string(d.join("order.log"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    ran.sort();
    assert_eq!(ran, ["agent", "cli", "dropin-10", "dropin-20", "user"]);
    // ...and their results are taken in this order.
    let (code, out, err) = tether(
        &dir,
        &[
            "hooks",
            "check",
            "agent.yaml",
            "--hook-pre-tool-use",
            "echo cli",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let check: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pre = check["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "pre_tool_use")
        .unwrap();
    let order: Vec<(String, String)> = pre["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let at = h["location"].as_str().unwrap_or_default();
            let file = at.rsplit('/').next().unwrap_or_default();
            let file = file.split(':').next().unwrap_or_default();
            (h["source"].as_str().unwrap().to_owned(), file.to_owned())
        })
        .collect();
    let sources: Vec<&str> = order.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        sources,
        ["yaml", "user", "drop-in", "drop-in", "cli"],
        "{order:?}"
    );
    assert_eq!(
        (order[2].1.as_str(), order[3].1.as_str()),
        ("10-first.yml", "20-audit.yaml")
    );
    let (_, out, _) = tether(&dir, &["hooks", "check", "agent.yaml"]);
    for label in [
        "[yaml]",
        "[user]",
        "[drop-in 10-first.yml]",
        "[drop-in 20-audit.yaml]",
    ] {
        assert!(out.contains(label), "{label}: {out}");
    }
}
