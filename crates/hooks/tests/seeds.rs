//! Every pure-hook example of the seeds, run through the engine with the real `jq` and bash:
//! seed 001's validation script, audit logging, session lifecycle, response logging and error
//! notifications, and every command hook of seed 004 (`examples/hooks.yaml`). Log paths under
//! `/tmp/` are redirected to a temp directory so tests stay hermetic.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_config::{CliHooks, InjectOptions, effective_hooks, load_str};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookResult, RunStatus, default_registry};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tokio_util::sync::CancellationToken;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the effective hooks of the first agent of `yaml`, with `/tmp/` pointing at `logs`.
fn executor(yaml: &str, logs: &Path, cwd: &Path) -> Executor {
    let yaml = yaml.replace("/tmp/", &format!("{}/", logs.display()));
    let file = load_str(&yaml, "seed.yaml", cwd).unwrap_or_else(|e| panic!("{e}"));
    let hooks = effective_hooks(
        &file.agents[0],
        &tether_config::HooksConfig::default(),
        &CliHooks::default(),
        InjectOptions::default(),
    );
    let path = std::env::var("PATH").ok();
    let registry = Arc::new(default_registry(Shell::detect(None, path.as_deref())));
    Executor::new(&hooks, registry, ExecutorOptions::new(cwd)).unwrap()
}

fn shell_call(cmd: &str) -> HookInput {
    HookInput {
        session_id: "sess-42".into(),
        agent_name: "root".into(),
        tool_name: "shell".into(),
        tool_category: "shell".into(),
        tool_use_id: "call_1".into(),
        tool_input: json!({"cmd": cmd}).as_object().cloned(),
        ..HookInput::default()
    }
}

fn session(extra: Value) -> HookInput {
    let mut v = json!({"session_id": "sess-42", "agent_name": "root"});
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    serde_json::from_value(v).unwrap()
}

async fn fire(exec: &Executor, event: HookEvent, input: HookInput) -> HookResult {
    let cancel = CancellationToken::new();
    let r = if event == HookEvent::PreToolUse {
        exec.dispatch_pre_tool_use(input, &cancel).await
    } else {
        exec.dispatch(event, Lane::Default, input, &cancel).await
    };
    for run in &r.runs {
        assert!(
            matches!(run.status, RunStatus::Ok | RunStatus::Blocked),
            "{event} hook {} failed: {:?}",
            run.name,
            run.outcome
        );
    }
    r
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[tokio::test]
async fn seed_001_validation_script_blocks_sudo_and_rm_rf_with_its_reason() {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::copy(
        repo().join("examples/scripts/validate-command.sh"),
        dir.path().join("scripts/validate-command.sh"),
    )
    .unwrap();
    let yaml = "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: \"shell|edit_file\"\n          hooks:\n            - type: command\n              command: \"./scripts/validate-command.sh\"\n              timeout: 30\n";
    let exec = executor(yaml, dir.path(), dir.path());
    for cmd in ["sudo apt update", "rm -rf /tmp/x"] {
        let r = fire(&exec, HookEvent::PreToolUse, shell_call(cmd)).await;
        assert!(!r.allowed, "{cmd}");
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.message, "Dangerous command blocked by policy");
    }
    let r = fire(&exec, HookEvent::PreToolUse, shell_call("ls -la")).await;
    assert!(r.allowed);
    assert_eq!(r.decision, None);
    let mut edit = shell_call("");
    edit.tool_name = "edit_file".into();
    let r = fire(&exec, HookEvent::PreToolUse, edit).await;
    assert!(r.allowed);
    assert_eq!(r.runs.len(), 1);
}

#[tokio::test]
async fn seed_001_audit_logging_appends_one_line_per_call() {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::copy(
        repo().join("examples/scripts/log-tool-call.sh"),
        dir.path().join("scripts/log-tool-call.sh"),
    )
    .unwrap();
    let yaml = "agents:\n  root:\n    hooks:\n      post_tool_use:\n        - matcher: \"*\"\n          hooks:\n            - type: command\n              command: \"./scripts/log-tool-call.sh\"\n";
    let exec = executor(yaml, dir.path(), dir.path());
    let mut input = shell_call("ls");
    input.tool_response = Some("a\nb\n".into());
    let r = fire(&exec, HookEvent::PostToolUse, input.clone()).await;
    assert!(r.allowed);
    assert_eq!(r.additional_context, "");
    input.tool_name = "read_file".into();
    fire(&exec, HookEvent::PostToolUse, input).await;
    let log = read(&dir.path().join("audit.log"));
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].ends_with("Z | sess-42 | shell"), "{log}");
    assert!(lines[1].ends_with("Z | sess-42 | read_file"), "{log}");
}

const LIFECYCLE: &str = r#"agents:
  root:
    hooks:
      session_start:
        - type: command
          timeout: 10
          command: |
            INPUT=$(cat)
            SESSION_ID=$(echo "$INPUT" | jq -r '.session_id // "unknown"')
            echo "Session $SESSION_ID started at $(date)" >> /tmp/agent-session.log
            echo '{"hook_specific_output":{"additional_context":"Session initialized."}}'

      session_end:
        - type: command
          timeout: 10
          command: |
            INPUT=$(cat)
            SESSION_ID=$(echo "$INPUT" | jq -r '.session_id // "unknown"')
            REASON=$(echo "$INPUT" | jq -r '.reason // "unknown"')
            echo "Session $SESSION_ID ended ($REASON) at $(date)" >> /tmp/agent-session.log
      stop:
        - type: command
          timeout: 10
          command: |
            INPUT=$(cat)
            SESSION_ID=$(echo "$INPUT" | jq -r '.session_id // "unknown"')
            RESPONSE_LENGTH=$(echo "$INPUT" | jq -r '.stop_response // ""' | wc -c | tr -d ' ')
            echo "[$(date)] Session $SESSION_ID - Response: $RESPONSE_LENGTH chars" >> /tmp/agent-responses.log
      notification:
        - type: command
          timeout: 10
          command: |
            INPUT=$(cat)
            LEVEL=$(echo "$INPUT" | jq -r '.notification_level // "unknown"')
            MESSAGE=$(echo "$INPUT" | jq -r '.notification_message // "no message"')
            echo "[$(date)] [$LEVEL] $MESSAGE" >> /tmp/agent-notifications.log
"#;

#[tokio::test]
async fn seed_001_session_lifecycle_response_logging_and_notifications() {
    let dir = TempDir::new().unwrap();
    let exec = executor(LIFECYCLE, dir.path(), dir.path());
    let r = fire(
        &exec,
        HookEvent::SessionStart,
        session(json!({"source": "startup"})),
    )
    .await;
    assert_eq!(r.additional_context, "Session initialized.");
    let r = fire(
        &exec,
        HookEvent::Stop,
        session(json!({"stop_response": "four"})),
    )
    .await;
    assert!(r.allowed);
    fire(
        &exec,
        HookEvent::Notification,
        session(json!({"notification_level": "error", "notification_message": "model failed"})),
    )
    .await;
    fire(
        &exec,
        HookEvent::SessionEnd,
        session(json!({"reason": "other"})),
    )
    .await;

    let sessions = read(&dir.path().join("agent-session.log"));
    let lines: Vec<&str> = sessions.lines().collect();
    assert_eq!(lines.len(), 2, "{sessions}");
    assert!(
        lines[0].starts_with("Session sess-42 started at "),
        "{sessions}"
    );
    assert!(
        lines[1].starts_with("Session sess-42 ended (other) at "),
        "{sessions}"
    );
    let responses = read(&dir.path().join("agent-responses.log"));
    assert!(
        responses
            .trim_end()
            .ends_with("] Session sess-42 - Response: 5 chars"),
        "{responses}"
    );
    let notes = read(&dir.path().join("agent-notifications.log"));
    assert!(
        notes.trim_end().ends_with("] [error] model failed"),
        "{notes}"
    );
}

fn seed_004() -> String {
    std::fs::read_to_string(repo().join("examples/hooks.yaml")).unwrap()
}

#[tokio::test]
async fn seed_004_pre_tool_use_allows_denies_and_rewrites() {
    let dir = TempDir::new().unwrap();
    let exec = executor(&seed_004(), dir.path(), dir.path());

    let r = fire(&exec, HookEvent::PreToolUse, shell_call("echo hello")).await;
    assert!(r.allowed);
    assert_eq!(r.decision, None);
    assert_eq!(r.updated_input, None);

    for cmd in ["rm -rf /tmp/test", "sudo apt update"] {
        let r = fire(&exec, HookEvent::PreToolUse, shell_call(cmd)).await;
        assert!(!r.allowed, "{cmd}");
        assert_eq!(r.decision, Some(Decision::Deny));
        assert_eq!(
            r.message,
            "🚫 HOOK BLOCKED: dangerous command pattern detected. rm -rf, sudo, mkfs, dd are not allowed."
        );
    }

    let input = shell_call("ls");
    let original = input.tool_input.clone();
    let r = fire(&exec, HookEvent::PreToolUse, input).await;
    assert!(r.allowed);
    assert_eq!(r.decision, Some(Decision::Allow));
    assert_eq!(
        r.apply_updated_input(original.as_ref()),
        json!({"cmd": "ls -h"}).as_object().cloned()
    );
    assert_eq!(
        r.system_message,
        "📝 Hook modified command: added -h for human-readable output"
    );
}

#[tokio::test]
async fn seed_004_post_tool_use_and_permission_request() {
    let dir = TempDir::new().unwrap();
    let exec = executor(&seed_004(), dir.path(), dir.path());
    let mut input = shell_call("echo hello");
    input.tool_response = Some("hello\n".into());
    let r = fire(&exec, HookEvent::PostToolUse, input).await;
    // `echo "$x" | wc -c` counts the newline jq adds after the value's own.
    assert_eq!(
        r.additional_context,
        "✅ Post-hook: shell completed (error=false, output=7 chars, profile=dev)"
    );

    let r = fire(&exec, HookEvent::PermissionRequest, shell_call("ls -la")).await;
    assert!(r.permission_allowed);
    assert_eq!(r.additional_context, "safe read-only command");
    let r = fire(
        &exec,
        HookEvent::PermissionRequest,
        shell_call("make install"),
    )
    .await;
    assert!(!r.permission_allowed);
    assert!(r.allowed);
    let log = read(&dir.path().join("agent-permissions.log"));
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].ends_with("] permission request: ls -la"), "{log}");
    assert!(
        lines[1].ends_with("] permission request: make install"),
        "{log}"
    );
}

#[tokio::test]
async fn seed_004_lifecycle_hooks_write_every_log_and_contribute_context() {
    let dir = TempDir::new().unwrap();
    let work = TempDir::new().unwrap();
    std::fs::write(work.path().join("GUIDELINES.md"), "Be careful.").unwrap();
    let exec = executor(&seed_004(), dir.path(), work.path());
    let logs = dir.path();

    let r = fire(
        &exec,
        HookEvent::SessionStart,
        session(json!({"source": "startup"})),
    )
    .await;
    let ctx: Vec<&str> = r.additional_context.lines().collect();
    assert_eq!(
        ctx[0],
        "Here is useful information about the environment you are running in:"
    );
    assert_eq!(
        ctx.last(),
        Some(
            &"Session log: /tmp/agent-session.log"
                .replace("/tmp/", &format!("{}/", logs.display()))
                .as_str()
        )
    );

    let r = fire(
        &exec,
        HookEvent::UserPromptSubmit,
        session(json!({"prompt": "where are the logs?"})),
    )
    .await;
    assert_eq!(
        r.additional_context,
        format!(
            "Hook hint: agent log files live under {}/agent-*.log",
            logs.display()
        )
    );
    let r = fire(
        &exec,
        HookEvent::UserPromptSubmit,
        session(json!({"prompt": "hello"})),
    )
    .await;
    assert_eq!(r.additional_context, "");

    let r = fire(&exec, HookEvent::TurnStart, session(json!({}))).await;
    assert_eq!(
        r.additional_context,
        format!(
            "Today's date: {}\nBe careful.",
            jiff::Zoned::now().date().strftime("%Y-%m-%d")
        )
    );
    fire(
        &exec,
        HookEvent::BeforeLlmCall,
        session(json!({"iteration": 1, "model_id": "openai/gpt-4o"})),
    )
    .await;
    fire(
        &exec,
        HookEvent::AfterLlmCall,
        session(json!({"stop_response": "hi"})),
    )
    .await;
    fire(
        &exec,
        HookEvent::TurnEnd,
        session(json!({"reason": "normal"})),
    )
    .await;
    let r = fire(
        &exec,
        HookEvent::PreCompact,
        session(json!({"source": "manual"})),
    )
    .await;
    assert_eq!(
        r.additional_context,
        "When summarizing, please preserve any TODOs, file paths, and command outputs verbatim."
    );
    let r = fire(&exec, HookEvent::BeforeCompaction, session(json!({"compaction_reason": "manual", "input_tokens": 100, "output_tokens": 20, "context_limit": 1000}))).await;
    assert!(r.allowed);
    assert_eq!(r.summary, "");
    fire(&exec, HookEvent::AfterCompaction, session(json!({"compaction_reason": "manual", "input_tokens": 100, "output_tokens": 20, "summary": "S"}))).await;
    fire(
        &exec,
        HookEvent::SubagentStop,
        session(
            json!({"agent_name": "helper", "parent_session_id": "sess-0", "stop_response": "done"}),
        ),
    )
    .await;
    fire(&exec, HookEvent::OnUserInput, session(json!({}))).await;
    fire(
        &exec,
        HookEvent::Stop,
        session(json!({"stop_response": "four"})),
    )
    .await;
    fire(&exec, HookEvent::Notification, session(json!({"notification_level": "warning", "notification_message": "Maximum iterations reached (3)"}))).await;
    fire(
        &exec,
        HookEvent::OnError,
        session(json!({"notification_level": "error", "notification_message": "boom"})),
    )
    .await;
    fire(&exec, HookEvent::OnMaxIterations, session(json!({"notification_level": "warning", "notification_message": "Maximum iterations reached (3)"}))).await;
    fire(
        &exec,
        HookEvent::SessionEnd,
        session(json!({"reason": "other"})),
    )
    .await;

    let tail = |name: &str| -> Vec<String> {
        read(&logs.join(name))
            .lines()
            .map(|l| l.split_once("] ").map_or(l, |(_, rest)| rest).to_owned())
            .collect()
    };
    let session_log = read(&logs.join("agent-session.log"));
    assert!(
        session_log.starts_with("🚀 Session sess-42 started at "),
        "{session_log}"
    );
    assert!(
        session_log.contains("\n👋 Session sess-42 ended (reason: other) at "),
        "{session_log}"
    );
    assert_eq!(
        tail("agent-prompts.log"),
        ["[sess-42] where are the logs?", "[sess-42] hello"]
    );
    assert_eq!(
        tail("agent-llm-calls.log"),
        [
            "[→] sess-42 llm call starting",
            "[←] sess-42 llm call complete, content=3 chars"
        ]
    );
    assert_eq!(
        tail("agent-turns.log"),
        ["[←] sess-42 root turn ended (reason=normal)"]
    );
    assert_eq!(
        tail("agent-compactions.log"),
        [
            "sess-42 compacting (source=manual)",
            "[→] compacting (reason=manual, in=100, out=20, ctx=1000)",
            "[✓] compacted (reason=manual, 100+20 tokens → 2 chars summary)"
        ]
    );
    assert_eq!(
        tail("agent-subagents.log"),
        ["helper child=sess-42 parent=sess-0 len=5"]
    );
    assert_eq!(
        tail("agent-responses.log"),
        ["Session sess-42 - response length: 5 chars"]
    );
    assert_eq!(
        tail("agent-notifications.log"),
        ["[warning] Maximum iterations reached (3)"]
    );
    assert_eq!(tail("agent-errors.log"), ["error: boom"]);
    assert_eq!(
        tail("agent-max-iter.log"),
        ["max-iterations: Maximum iterations reached (3)"]
    );
}
