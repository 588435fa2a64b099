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
