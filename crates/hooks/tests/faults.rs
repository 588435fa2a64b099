//! Fault injection into the hooks engine with real processes: hooks that misbehave in every way
//! docs/design.md, "Where we fix the reference", plans for. Each case asserts the specified verdict,
//! and that this process holds no more file descriptors than before, that no process is left
//! below it (orphans are adopted, so an escaped grandchild is seen) and that its peak memory
//! grew by a bounded amount.
//!
//! Needs nextest's one process per test (the resource checks read this process's `/proc`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tempfile::TempDir;
use tether_config::{HooksConfig, load_str};
use tether_exec::{Shell, ShellKind};
use tether_hooks::{
    Executor, ExecutorOptions, HookResult, OUTPUT_CAP, Outcome, Registry, RunStatus,
};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tether_test_support::resources::{self, FdChanges, Usage};
use tokio_util::sync::CancellationToken;

const MIB: u64 = 1024;

fn bash() -> Shell {
    Shell::detect(None, std::env::var("PATH").ok().as_deref())
}

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

fn executor_with(shell: Shell, yaml: &str, dir: &Path) -> Executor {
    Executor::new(
        &hooks(yaml),
        Arc::new(Registry::new(shell)),
        ExecutorOptions::new(dir),
    )
    .unwrap()
}

fn executor(yaml: &str, dir: &Path) -> Executor {
    executor_with(bash(), yaml, dir)
}

/// A YAML double-quoted scalar.
fn y(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn fixture() -> String {
    tether_test_support::bins::hook_fixture()
        .display()
        .to_string()
}

/// One `pre_tool_use` hook (every tool) with this name and command.
fn pre_tool_use(name: &str, command: &str) -> String {
    format!(
        "pre_tool_use:\n  - hooks:\n      - {{type: command, name: {name}, command: {}}}\n",
        y(command)
    )
}

fn shell_call() -> HookInput {
    HookInput {
        session_id: "sess-1".into(),
        tool_name: "shell".into(),
        tool_use_id: "call_1".into(),
        tool_input: json!({"cmd": "ls"}).as_object().cloned(),
        ..HookInput::default()
    }
}

async fn fire(exec: &Executor, event: HookEvent, input: HookInput) -> HookResult {
    exec.dispatch(event, Lane::Default, input, &CancellationToken::new())
        .await
}

/// The resources of this process before a case, taken after one hook run so that what the
/// first spawn sets up for good (the runtime's child-reaping signal pipe) is in the baseline.
struct Baseline(Usage);

impl Baseline {
    async fn take(dir: &Path) -> Self {
        resources::adopt_orphans().unwrap();
        let warm = executor("stop:\n  - {type: command, command: 'true'}\n", dir);
        let r = fire(&warm, HookEvent::Stop, HookInput::default()).await;
        assert_eq!(r.runs[0].status, RunStatus::Ok);
        Self(Usage::now())
    }

    /// No process left below this one, the same descriptors as before, and peak memory grown
    /// by less than `max_growth_mib`.
    fn check(&self, max_growth_mib: u64) {
        let left = resources::wait_for_no_descendants(Duration::from_secs(5));
        assert_eq!(left, [], "processes left behind");
        let now = Usage::now();
        assert_eq!(
            now.fd_changes(&self.0),
            FdChanges::default(),
            "descriptors leaked or closed"
        );
        let grown = now.peak_rss_kib.saturating_sub(self.0.peak_rss_kib) / MIB;
        assert!(
            grown < max_growth_mib,
            "peak memory grew by {grown} MiB (bound {max_growth_mib} MiB)"
        );
    }
}

/// What the kept output of a failed or finished run was.
fn kept_output(r: &HookResult) -> (usize, usize) {
    match &r.runs[0].outcome {
        Outcome::Exited { stdout, stderr, .. } | Outcome::Failed { stdout, stderr, .. } => {
            (stdout.len(), stderr.len())
        }
    }
}

#[tokio::test]
async fn grandchildren_holding_the_pipes_are_killed_after_the_drain() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    let pidfile = dir.path().join("pid");
    // One grandchild holds stdout only, one stderr only, one both; the shell exits at once.
    let cmd = format!(
        "sleep 30 2>/dev/null & sleep 31 >/dev/null & (sleep 32; echo late) & echo $$ > {}; echo ctx",
        pidfile.display()
    );
    let yaml = format!(
        "session_start:\n  - {{type: command, command: {}}}\n",
        y(&cmd)
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::SessionStart, HookInput::default()).await;
    assert_eq!(
        (
            r.runs[0].status,
            r.runs[0].exit_code,
            r.additional_context.as_str()
        ),
        (RunStatus::Ok, Some(0), "ctx")
    );
    // Waiting for the grandchildren would take 30 s; the drain is 250 ms, then the group dies.
    assert!(
        r.runs[0].duration < Duration::from_secs(10),
        "{:?}",
        r.runs[0].duration
    );
    let group: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        resources::wait_for_empty_group(group, Duration::from_secs(5)),
        []
    );
    base.check(16);
}

#[tokio::test]
async fn a_hook_printing_a_gibibyte_is_killed_at_the_cap_and_pre_tool_use_denies() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    for (name, redirect) in [("flood_out", ""), ("flood_err", " >&2")] {
        let exec = executor(
            &pre_tool_use(name, &format!("head -c 1073741824 /dev/zero{redirect}")),
            dir.path(),
        );
        let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
        // Fail closed: not allowed, and no exit status to report.
        assert_eq!(
            (
                r.allowed,
                r.exit_code,
                r.runs[0].status,
                r.runs[0].exit_code
            ),
            (false, -1, RunStatus::Failed, None),
            "{name}"
        );
        assert_eq!(
            r.message,
            format!(
                "pre_tool_use hook failed to execute: hook \"{name}\" printed more than 4 MiB; it was killed"
            )
        );
        // Exactly the cap is kept: the rest was never held.
        let kept = kept_output(&r);
        let flooded = if redirect.is_empty() { kept.0 } else { kept.1 };
        assert_eq!(flooded, OUTPUT_CAP, "{name}");
    }
    // Two runs of 4 MiB kept, plus their lossy copies (~13 MiB measured): far from 1 GiB.
    base.check(32);
}

#[tokio::test]
async fn invalid_utf8_and_binary_output_are_read_lossily_and_keep_their_meaning() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;

    // Plain text on a context event: bad bytes become U+FFFD, NUL stays a character.
    let exec = executor(
        "session_start:\n  - {type: command, command: \"printf 'ok\\\\377\\\\376\\\\000bin\\\\n'\"}\n",
        dir.path(),
    );
    let r = fire(&exec, HookEvent::SessionStart, HookInput::default()).await;
    assert_eq!(
        (r.runs[0].status, r.additional_context.as_str()),
        (RunStatus::Ok, "ok\u{FFFD}\u{FFFD}\u{0}bin")
    );

    // JSON with an invalid byte inside a string still parses and denies.
    let exec = executor(
        &pre_tool_use(
            "json",
            r#"printf '{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"bad \377 byte"}}'"#,
        ),
        dir.path(),
    );
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (r.allowed, r.decision, r.decision_reason.as_str()),
        (false, Some(Decision::Deny), "bad \u{FFFD} byte")
    );

    // Exit 2 with binary stderr: the block message is the lossy text.
    let exec = executor(
        &pre_tool_use("blocker", r"printf 'no\377\000way' >&2; exit 2"),
        dir.path(),
    );
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (r.allowed, r.runs[0].status, r.message.as_str()),
        (false, RunStatus::Blocked, "no\u{FFFD}\u{0}way")
    );

    // 64 KiB of random bytes with exit 0 is not an Output: nothing is decided, the call goes on.
    let exec = executor(
        &pre_tool_use("noise", "head -c 65536 /dev/urandom"),
        dir.path(),
    );
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (r.allowed, r.decision, r.runs[0].status, r.runs[0].verdict),
        (true, None, RunStatus::Ok, "none")
    );
    base.check(16);
}

#[tokio::test]
async fn hooks_that_never_read_a_large_stdin_neither_block_nor_buffer() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    // 8 MiB of Input: 128 pipe buffers' worth, serialized once and shared by the hooks, which
    // run concurrently.
    let mut input = shell_call();
    input.tool_response = Some("x".repeat(8 << 20));
    let f = fixture();
    let yaml = format!(
        "post_tool_use:\n  - hooks:\n      - {{type: command, name: quick, command: 'exit 0'}}\n      - {{type: command, name: late, command: 'sleep 0.3; echo {{}}'}}\n      - {{type: command, name: fixture, command: '{f} --no-stdin --sleep-ms 100'}}\n      - {{type: command, name: stuck, command: 'sleep 30', timeout: 1, on_error: ignore}}\n"
    );
    let exec = executor(&yaml, dir.path());
    let r = fire(&exec, HookEvent::PostToolUse, input).await;
    let statuses: Vec<_> = r
        .runs
        .iter()
        .map(|run| (run.name.as_str(), run.status, run.exit_code))
        .collect();
    assert_eq!(
        statuses,
        [
            ("quick", RunStatus::Ok, Some(0)),
            ("late", RunStatus::Ok, Some(0)),
            ("fixture", RunStatus::Ok, Some(0)),
            ("stuck", RunStatus::TimedOut, None),
        ]
    );
    assert!(r.allowed);
    // The Input (8 MiB), its JSON (8 MiB) and a clone (~25 MiB measured): no per-hook copy.
    base.check(48);
}

#[tokio::test]
async fn a_hook_that_closes_its_output_early_is_waited_for_until_it_exits() {
    // docs/design.md bounds only the time *after* the shell exits (250 ms for the pipes). Closed
    // pipes say nothing about the verdict, which is the exit status (2 blocks): so the run
    // waits for the exit, bounded by the hook's timeout.
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    let exec = executor(
        &pre_tool_use(
            "closer",
            "echo 'not on your watch' >&2; exec >&- 2>&-; sleep 0.5; exit 2",
        ),
        dir.path(),
    );
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (
            r.allowed,
            r.runs[0].status,
            r.runs[0].exit_code,
            r.message.as_str()
        ),
        (false, RunStatus::Blocked, Some(2), "not on your watch")
    );

    let pidfile = dir.path().join("pid");
    let exec = executor(
        &format!(
            "pre_tool_use:\n  - hooks:\n      - {{type: command, name: lingerer, timeout: 1, command: {}}}\n",
            y(&format!(
                "echo $$ > {}; exec >&- 2>&- </dev/null; sleep 30",
                pidfile.display()
            ))
        ),
        dir.path(),
    );
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (r.allowed, r.exit_code, r.runs[0].status, r.message.as_str()),
        (
            false,
            -1,
            RunStatus::TimedOut,
            "pre_tool_use hook failed to execute: hook \"lingerer\" timed out after 1s"
        )
    );
    let group: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        resources::wait_for_empty_group(group, Duration::from_secs(5)),
        []
    );
    base.check(16);
}

#[tokio::test]
async fn a_hundred_hooks_on_one_event_all_run_and_report_in_config_order() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    let f = fixture();
    // The first hooks sleep longest, so completion order is the reverse of config order.
    let context: String = (0..100)
        .map(|i| {
            format!(
                "  - {{type: command, name: h{i}, command: '{f} --sleep-ms {} --stdout n{i}'}}\n",
                (100 - i) * 3
            )
        })
        .collect();
    let exec = executor(&format!("turn_start:\n{context}"), dir.path());
    let r = fire(&exec, HookEvent::TurnStart, HookInput::default()).await;
    let want: Vec<String> = (0..100).map(|i| format!("n{i}")).collect();
    assert_eq!(r.additional_context, want.join("\n"));
    let names: Vec<String> = r.runs.iter().map(|run| run.name.clone()).collect();
    let want_names: Vec<String> = (0..100).map(|i| format!("h{i}")).collect();
    assert_eq!(names, want_names);
    assert!(r.runs.iter().all(|run| run.status == RunStatus::Ok));

    // On pre_tool_use one deny among a hundred allows wins, and every hook still ran.
    let guards: String = (0..100)
        .map(|i| {
            let decision = if i == 57 { "deny" } else { "allow" };
            let out = format!(
                r#"{{"hook_specific_output":{{"permission_decision":"{decision}","permission_decision_reason":"g{i}"}}}}"#
            );
            format!(
                "      - {{type: command, name: g{i}, command: {}}}\n",
                y(&format!("cat >/dev/null; echo '{out}'"))
            )
        })
        .collect();
    let exec = executor(&format!("pre_tool_use:\n  - hooks:\n{guards}"), dir.path());
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (
            r.allowed,
            r.decision,
            r.decision_reason.as_str(),
            r.runs.len()
        ),
        (false, Some(Decision::Deny), "g57", 100)
    );
    assert!(r.runs.iter().all(|run| run.exit_code == Some(0)));
    base.check(32);
}

#[tokio::test]
async fn a_missing_program_fails_the_hook_and_pre_tool_use_denies() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    let not_executable = dir.path().join("guard.sh");
    std::fs::write(&not_executable, "#!/bin/sh\nexit 0\n").unwrap();
    let cases = [
        // The shell's own last stderr line follows; its wording depends on the shell.
        (
            "no-such-guard-script.sh".to_owned(),
            "hook \"typo\" exited with status 127 (command not found): ",
            "no-such-guard-script.sh: command not found".to_owned(),
        ),
        (
            // Not even root may exec a file without an execute bit.
            not_executable.display().to_string(),
            "hook \"typo\" exited with status 126 (command not executable): ",
            format!("{}: Permission denied", not_executable.display()),
        ),
    ];
    for (command, want, detail) in cases {
        let exec = executor(&pre_tool_use("typo", &command), dir.path());
        let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
        assert_eq!(
            (
                r.allowed,
                r.exit_code,
                r.runs[0].status,
                r.runs[0].exit_code
            ),
            (false, -1, RunStatus::Failed, None),
            "{command}"
        );
        assert!(
            r.message
                .starts_with(&format!("pre_tool_use hook failed to execute: {want}"))
                && r.message.ends_with(&detail),
            "{command}: {}",
            r.message
        );

        // Elsewhere (post_tool_use does not fail closed) the same failure only warns.
        let yaml = format!(
            "post_tool_use:\n  - hooks:\n      - {{type: command, name: typo, command: {}}}\n",
            y(&command)
        );
        let r = fire(
            &executor(&yaml, dir.path()),
            HookEvent::PostToolUse,
            shell_call(),
        )
        .await;
        assert_eq!(
            (r.allowed, r.runs[0].status, r.warnings.len()),
            (true, RunStatus::Failed, 1),
            "{command}"
        );
    }

    // A shell that does not exist: the hook could not start, which is a failure too.
    let missing_shell = Shell {
        program: "/nonexistent/bin/sh".into(),
        kind: ShellKind::EnvShell,
    };
    let exec = executor_with(missing_shell, &pre_tool_use("guard", "true"), dir.path());
    let r = fire(&exec, HookEvent::PreToolUse, shell_call()).await;
    assert_eq!(
        (r.allowed, r.exit_code, r.message.as_str()),
        (
            false,
            -1,
            "pre_tool_use hook failed to execute: could not start hook guard: `/nonexistent/bin/sh` not found"
        )
    );
    base.check(16);
}

/// Gone: neither running nor a zombie waiting to be reaped.
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// The pids a hook wrote to `file`, one per line.
fn pids_in(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[tokio::test]
async fn a_grandchild_that_calls_setsid_is_gone_when_its_hook_returns() {
    let dir = TempDir::new().unwrap();
    let pids = dir.path().join("pids");
    let command = format!(
        "sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo $! >> {p}'; echo '{{}}'",
        p = pids.display()
    );
    let exec = executor(&pre_tool_use("escaper", &command), dir.path());
    let cancel = CancellationToken::new();
    let r = exec
        .dispatch(
            HookEvent::PreToolUse,
            Lane::Default,
            HookInput::default(),
            &cancel,
        )
        .await;
    assert_eq!(r.runs[0].exit_code, Some(0), "{:?}", r.runs[0].error);
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 1);
    assert!(gone(pids[0]), "pid {} survived its hook", pids[0]);
}

#[tokio::test]
async fn a_grandchild_that_calls_setsid_is_gone_when_its_hook_times_out() {
    let dir = TempDir::new().unwrap();
    let pids = dir.path().join("pids");
    let command = format!(
        "sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo $! >> {p}'; sleep 30",
        p = pids.display()
    );
    let yaml = format!(
        "pre_tool_use:\n  - hooks:\n      - {{type: command, name: stuck, timeout: 1, command: {}}}\n",
        y(&command)
    );
    let exec = executor(&yaml, dir.path());
    let cancel = CancellationToken::new();
    let r = exec
        .dispatch(
            HookEvent::PreToolUse,
            Lane::Default,
            HookInput::default(),
            &cancel,
        )
        .await;
    assert!(
        r.runs[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("timed out")
    );
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 1);
    assert!(gone(pids[0]), "pid {} survived its hook's timeout", pids[0]);
}
