//! Engine tests with real processes: the hook-fixture binary and plain shell commands.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_config::{HooksConfig, load_str};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookResult, Registry, RunStatus};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tokio_util::sync::CancellationToken;

fn fixture() -> String {
    tether_test_support::bins::hook_fixture()
        .display()
        .to_string()
}

fn bash_registry() -> Arc<Registry> {
    let path = std::env::var("PATH").ok();
    Arc::new(Registry::new(Shell::detect(None, path.as_deref())))
}

/// Loads `hooks:` YAML (indented for an agent) into a config.
fn hooks(yaml: &str) -> HooksConfig {
    let indented: String = yaml.lines().map(|l| format!("      {l}\n")).collect();
    let file = load_str(
        &format!("agents:\n  root:\n    hooks:\n{indented}"),
        "t.yaml",
        Path::new("."),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    file.agents[0].hooks.clone()
}

fn executor(yaml: &str, dir: &Path) -> Executor {
    Executor::new(&hooks(yaml), bash_registry(), ExecutorOptions::new(dir)).unwrap()
}

fn tool_input(tool: &str, args: Value) -> HookInput {
    HookInput {
        session_id: "sess-1".into(),
        tool_name: tool.into(),
        tool_use_id: "call_1".into(),
        tool_input: args.as_object().cloned(),
        ..HookInput::default()
    }
}

async fn fire(exec: &Executor, event: HookEvent, input: HookInput) -> HookResult {
    exec.dispatch(event, Lane::Default, input, &CancellationToken::new())
        .await
}

fn log_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn is_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Shell single-quoting.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A YAML (JSON-style) double-quoted scalar.
fn y(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[tokio::test]
async fn hooks_receive_the_input_and_the_tether_environment() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("log");
    let yaml = format!(
        "pre_tool_use:\n  - matcher: shell\n    hooks:\n      - type: command\n        command: {f} --log {log}\n        env:\n          HOOK_PROFILE: dev\n",
        f = fixture(),
        log = log.display()
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(
        &exec,
        HookEvent::PreToolUse,
        tool_input("shell", json!({"cmd": "ls"})),
    )
    .await;
    assert!(r.allowed);
    let mut rec = log_lines(&log).remove(0);
    // Every run also carries its own process marker (see tether-exec's reaper).
    let marker = rec["env"]
        .as_object_mut()
        .and_then(|env| env.remove(tether_exec::MARKER));
    assert!(marker.is_some_and(|m| m.as_str().is_some_and(|m| !m.is_empty())));
    let cwd = dir.path().display().to_string();
    assert_eq!(
        rec["stdin"],
        json!({"session_id": "sess-1", "cwd": cwd, "hook_event_name": "pre_tool_use",
               "tool_name": "shell", "tool_use_id": "call_1", "tool_input": {"cmd": "ls"}})
    );
    assert_eq!(rec["cwd"], json!(cwd));
    assert_eq!(
        rec["env"],
        json!({"TETHER_SESSION_ID": "sess-1", "TETHER_HOOK_EVENT": "pre_tool_use",
               "TETHER_PROJECT_DIR": cwd, "HOOK_PROFILE": "dev"})
    );
}

#[tokio::test]
async fn matchers_select_hooks_by_tool_name() {
    let dir = TempDir::new().unwrap();
    let yaml = "pre_tool_use:\n  - matcher: shell|edit_file\n    hooks:\n      - {type: command, command: echo shell-hook, name: a}\n  - matcher: read_.*\n    hooks:\n      - {type: command, command: echo read-hook, name: b}\n  - hooks:\n      - {type: command, command: echo all, name: c}\n";
    let exec = executor(yaml, dir.path());
    let names = |r: &HookResult| r.runs.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
    let r = fire(&exec, HookEvent::PreToolUse, tool_input("shell", json!({}))).await;
    assert_eq!(names(&r), ["a", "c"]);
    let r = fire(
        &exec,
        HookEvent::PreToolUse,
        tool_input("read_file", json!({})),
    )
    .await;
    assert_eq!(names(&r), ["b", "c"]);
    let r = fire(
        &exec,
        HookEvent::PreToolUse,
        tool_input("shell2", json!({})),
    )
    .await;
    assert_eq!(names(&r), ["c"]);
}

#[tokio::test]
async fn results_follow_config_order_whatever_the_completion_order() {
    let dir = TempDir::new().unwrap();
    let f = fixture();
    let yaml = format!(
        "turn_start:\n  - {{type: command, command: \"{f} --sleep-ms 300 --stdout first\"}}\n  - {{type: command, command: \"{f} --sleep-ms 100 --stdout second\"}}\n  - {{type: command, command: \"{f} --stdout third\"}}\n"
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::TurnStart, HookInput::default()).await;
    assert_eq!(r.additional_context, "first\nsecond\nthird");
}

#[tokio::test]
async fn hooks_really_run_concurrently() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("log");
    let f = fixture();
    let hook = |n: &str| {
        format!(
            "  - {{type: command, command: \"{f} --sleep-ms 400 --stdout {n} --log {}\"}}\n",
            log.display()
        )
    };
    let yaml = format!("stop:\n{}{}{}", hook("a"), hook("b"), hook("c"));
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::Stop, HookInput::default()).await;
    assert_eq!(r.runs.len(), 3);
    let lines = log_lines(&log);
    let stamp = |v: &Value, k: &str| v[k].as_str().unwrap().parse::<u128>().unwrap();
    let latest_start = lines.iter().map(|l| stamp(l, "start_ns")).max().unwrap();
    let earliest_end = lines.iter().map(|l| stamp(l, "end_ns")).min().unwrap();
    assert!(
        latest_start < earliest_end,
        "the three runs did not overlap: {lines:?}"
    );
}

#[tokio::test]
async fn decisions_and_merged_input_from_real_processes() {
    let dir = TempDir::new().unwrap();
    let f = fixture();
    let out = |s: &str| format!("{f} --stdout {}", q(s));
    let yaml = format!(
        "pre_tool_use:\n  - hooks:\n      - type: command\n        command: {}\n      - type: command\n        command: {}\n      - type: command\n        command: {}\n",
        y(&out(
            r#"{"hook_specific_output":{"permission_decision":"allow","updated_input":{"cmd":"ls -h","cwd":"/a"}}}"#
        )),
        y(&out(
            r#"{"hook_specific_output":{"permission_decision":"ask","permission_decision_reason":"check","updated_input":{"cwd":"/b"}}}"#
        )),
        y(&out(r#"{"continue": true}"#)),
    );
    let exec = executor(&yaml, dir.path());
    let input = tool_input("shell", json!({"cmd": "ls", "timeout": 30}));
    let original = input.tool_input.clone();
    let r = fire(&exec, HookEvent::PreToolUse, input).await;
    assert_eq!(r.decision, Some(Decision::Ask));
    assert_eq!(r.decision_reason, "check");
    assert_eq!(
        r.apply_updated_input(original.as_ref()),
        json!({"cmd": "ls -h", "cwd": "/b", "timeout": 30})
            .as_object()
            .cloned()
    );
}

#[tokio::test]
async fn deny_beats_ask_beats_allow() {
    let dir = TempDir::new().unwrap();
    let hook = |d: &str| {
        format!(
            "      - type: command\n        command: {}\n",
            y(&format!(
                "echo '{{\"hook_specific_output\":{{\"permission_decision\":\"{d}\",\"permission_decision_reason\":\"{d} reason\"}}}}'"
            ))
        )
    };
    let yaml = format!(
        "pre_tool_use:\n  - hooks:\n{}{}{}",
        hook("allow"),
        hook("deny"),
        hook("ask")
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::PreToolUse, tool_input("shell", json!({}))).await;
    assert_eq!(r.decision, Some(Decision::Deny));
    assert_eq!(r.decision_reason, "deny reason");
    assert!(!r.allowed);
    assert_eq!(r.message, "deny reason");
}

#[tokio::test]
async fn plain_text_json_and_invalid_json() {
    let dir = TempDir::new().unwrap();
    let yaml = "session_start:\n  - {type: command, command: 'echo plain words'}\n  - {type: command, command: 'echo \"{\\\"hook_specific_output\\\":{\\\"additional_context\\\":\\\"from json\\\"}}\"'}\n  - {type: command, command: 'echo \"{broken\"'}\n";
    let exec = executor(yaml, dir.path());
    let r = fire(&exec, HookEvent::SessionStart, HookInput::default()).await;
    assert_eq!(r.additional_context, "plain words\nfrom json\n{broken");
}

#[tokio::test]
async fn exit_2_uses_stderr_then_json_reason_then_stdout() {
    let dir = TempDir::new().unwrap();
    let cases = [
        ("echo 'why not' >&2; exit 2", "why not"),
        (
            r#"echo '{"decision": "block", "reason": "Dangerous command blocked by policy"}'; exit 2"#,
            "Dangerous command blocked by policy",
        ),
        ("echo just text; exit 2", "just text"),
        ("exit 2", "blocked by hook guard"),
    ];
    for (cmd, want) in cases {
        let yaml = format!(
            "pre_tool_use:\n  - hooks:\n      - {{type: command, name: guard, command: {}}}\n",
            y(cmd)
        );
        let exec = executor(&yaml, dir.path());
        let r = fire(&exec, HookEvent::PreToolUse, tool_input("shell", json!({}))).await;
        assert!(!r.allowed, "{cmd}");
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.message, want, "{cmd}");
        assert_eq!(r.runs[0].status, RunStatus::Blocked);
        assert_eq!(r.runs[0].exit_code, Some(2));
    }
}

#[tokio::test]
async fn on_error_warn_ignore_and_block() {
    let dir = TempDir::new().unwrap();
    let base = "user_prompt_submit:\n  - {type: command, name: flaky, command: 'kill -9 $$'";
    let exec = executor(&format!("{base}}}\n"), dir.path());
    let r = fire(&exec, HookEvent::UserPromptSubmit, HookInput::default()).await;
    assert!(r.allowed);
    assert_eq!(
        r.warnings,
        ["user_prompt_submit hook `flaky` failed: hook \"flaky\" was killed by signal 9"]
    );
    assert_eq!(r.runs[0].status, RunStatus::Failed);
    assert_eq!(r.runs[0].exit_code, None);

    let exec = executor(&format!("{base}, on_error: ignore}}\n"), dir.path());
    let r = fire(&exec, HookEvent::UserPromptSubmit, HookInput::default()).await;
    assert!(r.allowed);
    assert!(r.warnings.is_empty());

    let exec = executor(&format!("{base}, on_error: block}}\n"), dir.path());
    let r = fire(&exec, HookEvent::UserPromptSubmit, HookInput::default()).await;
    assert!(!r.allowed);
    assert_eq!(r.exit_code, -1);
    assert_eq!(
        r.message,
        "user_prompt_submit hook failed to execute: hook \"flaky\" was killed by signal 9"
    );
}

#[tokio::test]
async fn pre_tool_use_fails_closed_on_timeout_crash_and_spawn_failure() {
    let dir = TempDir::new().unwrap();
    let cases = [
        (
            "{type: command, name: slow, command: 'sleep 5', timeout: 1, on_error: ignore}",
            "hook \"slow\" timed out after 1s",
            RunStatus::TimedOut,
        ),
        (
            "{type: command, name: crash, command: 'kill -SEGV $$'}",
            "hook \"crash\" was killed by signal 11",
            RunStatus::Failed,
        ),
        (
            "{type: command, name: nowhere, command: 'true', working_dir: /nonexistent/dir}",
            "could not start hook nowhere: working directory `/nonexistent/dir` does not exist",
            RunStatus::Failed,
        ),
        (
            "{type: command, name: typo, command: 'no-such-guard-script.sh'}",
            "hook \"typo\" exited with status 127 (command not found)",
            RunStatus::Failed,
        ),
    ];
    for (hook, want, status) in cases {
        let yaml = format!("pre_tool_use:\n  - hooks:\n      - {hook}\n");
        let exec = executor(&yaml, dir.path());
        let r = fire(&exec, HookEvent::PreToolUse, tool_input("shell", json!({}))).await;
        assert!(!r.allowed, "{hook}");
        assert_eq!(r.exit_code, -1);
        assert!(
            r.message
                .starts_with(&format!("pre_tool_use hook failed to execute: {want}")),
            "{hook}: {}",
            r.message
        );
        assert_eq!(r.runs[0].status, status);
        assert_eq!(r.runs[0].exit_code, None);
    }
}

#[tokio::test]
async fn a_hook_leaving_a_background_sleep_returns_promptly_and_leaves_nothing_alive() {
    let dir = TempDir::new().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!("sleep 30 & echo $! > {}; echo '{{}}'", pidfile.display());
    let yaml = format!("stop:\n  - {{type: command, command: {}}}\n", y(&cmd));
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::Stop, HookInput::default()).await;
    assert_eq!(r.runs[0].status, RunStatus::Ok);
    // The drain is bounded (250 ms); the run must not last anywhere near the sleep's 30 s.
    assert!(
        r.runs[0].duration < Duration::from_secs(10),
        "{:?}",
        r.runs[0].duration
    );
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    for _ in 0..100 {
        if !is_alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the background sleep {pid} is still alive");
}

#[tokio::test]
async fn output_over_the_cap_fails_the_hook() {
    let dir = TempDir::new().unwrap();
    let yaml = format!(
        "pre_tool_use:\n  - hooks:\n      - {{type: command, name: chatty, command: '{} --flood 5000000'}}\n",
        fixture()
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::PreToolUse, tool_input("shell", json!({}))).await;
    assert!(!r.allowed);
    assert_eq!(
        r.message,
        "pre_tool_use hook failed to execute: hook \"chatty\" printed more than 4 MiB; it was killed"
    );
}

#[tokio::test]
async fn a_hook_that_never_reads_stdin_still_works() {
    let dir = TempDir::new().unwrap();
    let yaml = format!(
        "before_llm_call:\n  - {{type: command, command: '{} --no-stdin --stdout \"{{}}\"'}}\n",
        fixture()
    );
    let exec = executor(&yaml, dir.path());
    let input = HookInput {
        messages: vec![tether_protocol::Message::user("x".repeat(1 << 20))],
        ..HookInput::default()
    };
    let r = fire(&exec, HookEvent::BeforeLlmCall, input).await;
    assert_eq!(r.runs[0].status, RunStatus::Ok);
    assert!(r.allowed);
}

#[tokio::test]
async fn duplicate_hooks_run_once_and_different_args_do_not_count_as_duplicates() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("log");
    let f = fixture();
    let cmd = format!("{f} --log {}", log.display());
    let yaml = format!(
        "post_tool_use:\n  - matcher: shell\n    hooks:\n      - {{type: command, command: '{cmd}', timeout: 5}}\n  - hooks:\n      - {{type: command, command: '{cmd}', name: same, timeout: 9}}\n      - {{type: command, command: '{cmd}', env: {{HOOK_X: y}}}}\n"
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(
        &exec,
        HookEvent::PostToolUse,
        tool_input("shell", json!({})),
    )
    .await;
    assert_eq!(r.runs.len(), 2);
    assert_eq!(log_lines(&log).len(), 2);
}

#[tokio::test]
async fn relative_working_dir_joins_the_executor_dir() {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let yaml = "turn_start:\n  - {type: command, command: pwd, working_dir: sub}\n";
    let exec = executor(yaml, dir.path());
    let r = fire(&exec, HookEvent::TurnStart, HookInput::default()).await;
    assert_eq!(
        r.additional_context,
        dir.path().join("sub").display().to_string()
    );
}

#[tokio::test]
async fn tool_response_transform_rewrites_chain_in_config_order() {
    let dir = TempDir::new().unwrap();
    let upper = r#"jq -c '{hook_specific_output: {updated_tool_response: (.tool_response | ascii_upcase)}}'"#;
    let suffix =
        r#"jq -c '{hook_specific_output: {updated_tool_response: (.tool_response + "!")}}'"#;
    let yaml = format!(
        "tool_response_transform:\n  - hooks:\n      - {{type: command, command: {}}}\n      - {{type: command, command: {}}}\n",
        y(upper),
        y(suffix)
    );
    let exec = executor(&yaml, dir.path());
    let mut input = tool_input("shell", json!({}));
    input.tool_response = Some("hello".into());
    let r = fire(&exec, HookEvent::ToolResponseTransform, input).await;
    assert_eq!(r.updated_tool_response.as_deref(), Some("HELLO!"));
}

#[tokio::test]
async fn a_chain_hook_that_changes_nothing_passes_the_last_rewrite_on() {
    let dir = TempDir::new().unwrap();
    let upper = r#"jq -c '{hook_specific_output: {updated_tool_response: (.tool_response | ascii_upcase)}}'"#;
    let reader = "cat >/dev/null";
    let suffix =
        r#"jq -c '{hook_specific_output: {updated_tool_response: (.tool_response + "!")}}'"#;
    let yaml = format!(
        "tool_response_transform:\n  - hooks:\n      - {{type: command, command: {}}}\n      - {{type: command, command: {}}}\n      - {{type: command, command: {}}}\n      - {{type: command, command: {}}}\n",
        y(reader),
        y(upper),
        y(&format!("{reader}; true")),
        y(suffix)
    );
    let exec = executor(&yaml, dir.path());
    let mut input = tool_input("shell", json!({}));
    input.tool_response = Some("hello".into());
    let r = fire(&exec, HookEvent::ToolResponseTransform, input).await;
    assert_eq!(r.updated_tool_response.as_deref(), Some("HELLO!"));
    assert_eq!(r.runs.len(), 4);
}

#[tokio::test]
async fn preempt_lane_runs_first_and_its_ask_skips_the_default_lane() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("log");
    let ask = r#"echo '{"hook_specific_output":{"permission_decision":"ask","metadata":{"blast_radius":"high"}}}'"#;
    let yaml = format!(
        "pre_tool_use:\n  - matcher: '*'\n    preempt_yolo: true\n    hooks:\n      - {{type: command, command: {}}}\n  - hooks:\n      - {{type: command, command: '{} --log {}'}}\n",
        y(ask),
        fixture(),
        log.display()
    );
    let exec = executor(&yaml, dir.path());
    assert!(exec.has(HookEvent::PreToolUse, Lane::Preempt));
    let r = exec
        .dispatch_pre_tool_use(tool_input("shell", json!({})), &CancellationToken::new())
        .await;
    assert_eq!(r.decision, Some(Decision::Ask));
    assert_eq!(
        r.metadata.get("blast_radius").map(String::as_str),
        Some("high")
    );
    assert_eq!(r.runs.len(), 1);
    assert!(!log.exists(), "the default lane ran");
}

#[tokio::test]
async fn preempt_lane_crash_is_a_deny() {
    let dir = TempDir::new().unwrap();
    let yaml = "pre_tool_use:\n  - preempt_yolo: true\n    hooks:\n      - {type: command, command: 'exit 1; '}\n      - {type: command, name: boom, command: 'kill -9 $$'}\n";
    let exec = executor(yaml, dir.path());
    let r = exec
        .dispatch_pre_tool_use(tool_input("shell", json!({})), &CancellationToken::new())
        .await;
    assert_eq!(r.decision, Some(Decision::Deny));
    assert!(!r.allowed);
}

#[tokio::test]
async fn cancellation_kills_running_hooks() {
    let dir = TempDir::new().unwrap();
    let yaml = "stop:\n  - {type: command, name: long, command: 'sleep 30'}\n";
    let exec = Arc::new(executor(yaml, dir.path()));
    let cancel = CancellationToken::new();
    let task = {
        let exec = Arc::clone(&exec);
        let cancel = cancel.clone();
        tokio::spawn(async move {
            exec.dispatch(
                HookEvent::Stop,
                Lane::Default,
                HookInput::default(),
                &cancel,
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    cancel.cancel();
    let r = task.await.unwrap();
    assert_eq!(r.runs[0].status, RunStatus::Failed);
    assert_eq!(
        r.runs[0].error.as_deref(),
        Some("hook \"long\" was cancelled")
    );
}

/// A builtin that counts how often executors prepared it.
#[derive(Debug, Default)]
struct Preparing(std::sync::atomic::AtomicUsize);

impl tether_hooks::Builtin for Preparing {
    fn name(&self) -> &'static str {
        "preparing"
    }

    fn prepare(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn call<'a>(
        &'a self,
        _: tether_hooks::BuiltinCall<'a>,
    ) -> futures::future::BoxFuture<'a, Result<Option<tether_protocol::HookOutput>, String>> {
        Box::pin(async { Ok(None) })
    }
}

#[test]
fn building_an_executor_prepares_each_builtin_hook_before_any_event() {
    let dir = TempDir::new().unwrap();
    let builtin = Arc::new(Preparing::default());
    let path = std::env::var("PATH").ok();
    let mut registry = Registry::new(Shell::detect(None, path.as_deref()));
    registry.register(Arc::clone(&builtin) as Arc<dyn tether_hooks::Builtin>);
    let config = hooks(
        "session_start:\n  - {type: builtin, command: preparing}\nstop:\n  - {type: builtin, command: preparing}\n  - {type: command, command: 'true'}",
    );
    let before = builtin.0.load(std::sync::atomic::Ordering::Relaxed);
    Executor::new(
        &config,
        Arc::new(registry),
        ExecutorOptions::new(dir.path()),
    )
    .unwrap();
    assert_eq!(
        (before, builtin.0.load(std::sync::atomic::Ordering::Relaxed)),
        (0, 2)
    );
}
