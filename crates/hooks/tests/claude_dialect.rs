//! `dialect: claude`: hook scripts written for Claude Code, run as real processes, see Claude's
//! names and keys, and their answers reach the tool in ours.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_config::load_str;
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookResult, Registry};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tokio_util::sync::CancellationToken;

/// A PreToolUse guard the way Claude Code's documentation writes one.
const GUARD: &str = r#"#!/bin/bash
INPUT=$(cat)
[ "$(echo "$INPUT" | jq -r .hook_event_name)" = PreToolUse ] || exit 0
[ "$(echo "$INPUT" | jq -r .tool_name)" = Bash ] || exit 0
COMMAND=$(echo "$INPUT" | jq -r '.tool_input.command // empty')
if echo "$COMMAND" | grep -q 'rm -rf'; then
  jq -n --arg c "$COMMAND" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: ("Destructive command blocked: " + $c)}}'
fi
"#;

fn executor(dir: &Path, hooks_yaml: &str) -> Executor {
    let indented: String = hooks_yaml.lines().map(|l| format!("      {l}\n")).collect();
    let file = load_str(
        &format!("agents:\n  root:\n    hooks:\n{indented}"),
        "t.yaml",
        dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = std::env::var("PATH").ok();
    let registry = Arc::new(Registry::new(Shell::detect(None, path.as_deref())));
    Executor::new(&file.agents[0].hooks, registry, ExecutorOptions::new(dir)).unwrap()
}

fn script(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    format!("bash {}", path.display())
}

fn shell_call(cmd: &str) -> HookInput {
    HookInput {
        session_id: "sess-1".into(),
        tool_name: "shell".into(),
        tool_use_id: "call_1".into(),
        tool_input: json!({"cmd": cmd}).as_object().cloned(),
        ..HookInput::default()
    }
}

async fn pre_tool_use(exec: &Executor, input: HookInput) -> HookResult {
    exec.dispatch_pre_tool_use(input, &CancellationToken::new())
        .await
}

#[tokio::test]
async fn a_claude_code_guard_blocks_in_its_dialect_and_misses_everything_without_it() {
    let dir = TempDir::new().unwrap();
    let guard = script(dir.path(), "guard.sh", GUARD);
    let hooks = |dialect: &str| {
        format!(
            "pre_tool_use:\n  - matcher: shell\n    hooks:\n      - {{type: command, command: {guard:?}{dialect}}}\n"
        )
    };

    let claude = executor(dir.path(), &hooks(", dialect: claude"));
    let r = pre_tool_use(&claude, shell_call("rm -rf /tmp/x")).await;
    assert_eq!(
        (r.allowed, r.decision, r.decision_reason.as_str()),
        (
            false,
            Some(Decision::Deny),
            "Destructive command blocked: rm -rf /tmp/x"
        )
    );
    let r = pre_tool_use(&claude, shell_call("ls")).await;
    assert_eq!((r.allowed, r.decision), (true, None));

    // Read with our spelling, the same script sees no `PreToolUse`, no `Bash`, no command.
    let ours = executor(dir.path(), &hooks(""));
    let r = pre_tool_use(&ours, shell_call("rm -rf /tmp/x")).await;
    assert_eq!((r.allowed, r.decision), (true, None));
}

#[tokio::test]
async fn a_claude_rewrite_reaches_the_tool_in_our_spelling() {
    let dir = TempDir::new().unwrap();
    let rewrite = script(
        dir.path(),
        "rewrite.sh",
        r#"jq -c '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {command: (.tool_input.command + " --dry-run")}}}'"#,
    );
    let exec = executor(
        dir.path(),
        &format!(
            "pre_tool_use:\n  - matcher: shell\n    hooks:\n      - {{type: command, command: {rewrite:?}, dialect: claude}}\n"
        ),
    );
    let r = pre_tool_use(&exec, shell_call("make deploy")).await;
    assert_eq!(r.decision, Some(Decision::Allow));
    assert_eq!(
        r.updated_input.map(Value::Object),
        Some(json!({"cmd": "make deploy --dry-run"}))
    );
}

#[tokio::test]
async fn claude_hooks_get_their_event_names_and_project_dir_beside_ours() {
    let dir = TempDir::new().unwrap();
    let echo = r#"echo "$(jq -r .hook_event_name) $CLAUDE_PROJECT_DIR""#;
    let exec = executor(
        dir.path(),
        &format!(
            "session_start:\n  - {{type: command, command: {echo:?}, dialect: claude}}\n  - {{type: command, command: {:?}}}\n",
            format!("{echo} ours")
        ),
    );
    let input = HookInput {
        session_id: "sess-1".into(),
        source: "startup".into(),
        ..HookInput::default()
    };
    let r = exec
        .dispatch(
            HookEvent::SessionStart,
            Lane::Default,
            input,
            &CancellationToken::new(),
        )
        .await;
    let d = dir.path().display();
    assert_eq!(
        r.additional_context,
        format!("SessionStart {d}\nsession_start  ours")
    );
}

#[test]
fn dialect_is_checked_at_load() {
    let load = |hook: &str| {
        load_str(
            &format!("agents:\n  root:\n    hooks:\n      stop:\n        - {hook}\n"),
            "t.yaml",
            Path::new("."),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    assert_eq!(load("{type: command, command: x, dialect: claude}"), Ok(()));
    let bad = load("{type: command, command: x, dialect: codex}").unwrap_err();
    assert!(
        bad.contains(
            "t.yaml:5:48: agents.root.hooks.stop[0].dialect: invalid dialect 'codex' (supported: 'docker-agent', 'claude')"
        ),
        "{bad}"
    );
    let builtin = load("{type: builtin, command: add_date, dialect: claude}").unwrap_err();
    assert!(
        builtin.contains("dialect applies only to command and http hooks"),
        "{builtin}"
    );
}

#[tokio::test]
async fn a_claude_post_tool_use_block_reaches_the_model_instead_of_stopping_the_run() {
    let dir = TempDir::new().unwrap();
    let lint = script(
        dir.path(),
        "lint.sh",
        "echo 'lint failed: missing semicolon' >&2; exit 2\n",
    );
    let json = script(
        dir.path(),
        "review.sh",
        r#"echo '{"decision": "block", "reason": "add a test for this change"}'"#,
    );
    let hooks = |dialect: &str| {
        format!(
            "post_tool_use:\n  - matcher: shell\n    hooks:\n      - {{type: command, command: {lint:?}{dialect}}}\n      - {{type: command, command: {json:?}{dialect}}}\n"
        )
    };
    let mut input = shell_call("make");
    input.tool_response = Some("ok".into());
    let fire = |exec: Executor, input: HookInput| async move {
        exec.dispatch(
            HookEvent::PostToolUse,
            Lane::Default,
            input,
            &CancellationToken::new(),
        )
        .await
    };

    let r = fire(
        executor(dir.path(), &hooks(", dialect: claude")),
        input.clone(),
    )
    .await;
    assert_eq!(
        (r.allowed, r.additional_context.as_str()),
        (
            true,
            "lint failed: missing semicolon\nadd a test for this change"
        )
    );

    // docker-agent's meaning: a post_tool_use block stops the run.
    let r = fire(executor(dir.path(), &hooks("")), input).await;
    assert!(!r.allowed);
}
