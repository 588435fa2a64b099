//! Seed 004 (`examples/hooks.yaml`) through `tether run --exec`, unchanged apart from
//! `--model` (the offline script model) and its `/tmp/` log paths, which point into a temp
//! directory so the test is hermetic.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Seed {
    dir: TempDir,
}

impl Seed {
    fn new() -> Self {
        let dir = TempDir::new().unwrap();
        let text = std::fs::read_to_string(repo().join("examples/hooks.yaml")).unwrap();
        let logs = format!("{}/", dir.path().display());
        std::fs::write(dir.path().join("hooks.yaml"), text.replace("/tmp/", &logs)).unwrap();
        std::fs::copy(
            repo().join("examples/demo.script.yaml"),
            dir.path().join("demo.script.yaml"),
        )
        .unwrap();
        Self { dir }
    }

    fn run(&self, prompt: &str) -> (i32, String, String) {
        let out = Command::cargo_bin("tether")
            .unwrap()
            .current_dir(self.dir.path())
            .env("TETHER_HOME", self.dir.path().join(".tether"))
            .env("XDG_CONFIG_HOME", self.dir.path().join(".config"))
            .env("SHELL", "/bin/bash")
            .env_remove("OPENAI_API_KEY")
            .args([
                "run",
                "hooks.yaml",
                "--model",
                "script/demo.script.yaml",
                "--exec",
                prompt,
            ])
            .write_stdin("")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }
}

const DENIED: &str = "Tool call blocked by hook: 🚫 HOOK BLOCKED: dangerous command pattern detected. rm -rf, sudo, mkfs, dd are not allowed.";

#[test]
fn the_four_prompts_of_seed_004() {
    let seed = Seed::new();

    let (code, out, err) = seed.run("Run: echo hello");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("\n--- Agent: root ---\n"), "{out}");
    assert!(
        out.contains("\nCalling shell(cmd: \"echo hello\")\n\nshell response → \"hello\\n\"\n"),
        "{out}"
    );

    for cmd in ["rm -rf /tmp/test", "sudo apt update"] {
        let (code, out, err) = seed.run(&format!("Run: {cmd}"));
        assert_eq!(code, 0, "{err}");
        assert!(
            !out.contains("Calling shell"),
            "the denied call must not run: {out}"
        );
        assert!(
            out.contains(&format!("shell response → \"{DENIED}\"")),
            "{out}"
        );
        // The script model quotes the tool result it received: the reason reached the model.
        assert!(
            out.ends_with(&format!("The last tool said:\n{DENIED}")),
            "{out}"
        );
        assert!(err.contains("blocked by pre_tool_use hook"), "{err}");
    }

    let (code, out, err) = seed.run("List files in current dir");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nCalling shell(cmd: \"ls -h\")\n"), "{out}");
    assert!(
        err.contains("warning: 📝 Hook modified command: added -h for human-readable output"),
        "{err}"
    );

    // Every log file the runs can reach received its lines.
    let session = seed.log("agent-session.log");
    assert_eq!(session.matches("🚀 Session ").count(), 4, "{session}");
    assert_eq!(session.matches("👋 Session ").count(), 4, "{session}");
    assert!(session.contains("ended (reason: other)"), "{session}");
    let prompts = seed.log("agent-prompts.log");
    for p in [
        "Run: echo hello",
        "Run: rm -rf /tmp/test",
        "Run: sudo apt update",
        "List files in current dir",
    ] {
        assert!(prompts.contains(&format!("] {p}\n")), "{prompts}");
    }
    let calls = seed.log("agent-llm-calls.log");
    assert_eq!(calls.matches("llm call starting").count(), 8, "{calls}");
    assert_eq!(calls.matches("llm call complete").count(), 8, "{calls}");
    let turns = seed.log("agent-turns.log");
    assert_eq!(
        turns.matches("turn ended (reason=continue)").count(),
        4,
        "{turns}"
    );
    assert_eq!(
        turns.matches("turn ended (reason=normal)").count(),
        4,
        "{turns}"
    );
    let permissions = seed.log("agent-permissions.log");
    assert!(
        permissions.contains("permission request: echo hello"),
        "{permissions}"
    );
    let responses = seed.log("agent-responses.log");
    assert_eq!(
        responses.matches("response length:").count(),
        4,
        "{responses}"
    );
}

#[test]
fn a_provider_error_reaches_notification_and_on_error_logs() {
    let seed = Seed::new();
    let script = "default:\n  error: {kind: server, message: upstream exploded}\n";
    std::fs::write(seed.dir.path().join("demo.script.yaml"), script).unwrap();
    let (code, _, err) = seed.run("hello");
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("error: model script/demo.script.yaml: "),
        "{err}"
    );
    let notes = seed.log("agent-notifications.log");
    assert!(
        notes.contains("[error] model script/demo.script.yaml: "),
        "{notes}"
    );
    let errors = seed.log("agent-errors.log");
    assert!(
        errors.contains("error: model script/demo.script.yaml: "),
        "{errors}"
    );
}
