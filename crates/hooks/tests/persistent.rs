//! `persistent: true` command hooks with a real Python process: one process answers every
//! event of a session, its answers mean what a command hook's stdout means, a failed call
//! fails closed on `pre_tool_use` and the next event gets a new process, and nothing it
//! started survives the end of its session.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::json;
use tempfile::TempDir;
use tether_config::{HooksConfig, load_str};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookResult, Outcome, Registry, RunStatus};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tether_test_support::resources;
use tokio_util::sync::CancellationToken;

/// Answers by the shell command it is asked about; logs `PID EVENT` per line to `$PIDS`.
const HOOK: &str = r#"#!/usr/bin/env python3
import json, os, signal, subprocess, sys, time
stubborn = False
while True:
    line = sys.stdin.readline()
    if not line:
        while stubborn:
            time.sleep(1)
        break
    event = json.loads(line)
    with open(os.environ["PIDS"], "a") as f:
        f.write(f"{os.getpid()} {event['hook_event_name']}\n")
    cmd = (event.get("tool_input") or {}).get("cmd", "")
    answer = {}
    if cmd == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stubborn = True
    if cmd == "crash":
        sys.exit(3)
    if cmd == "hang":
        time.sleep(60)
    if cmd == "spawn":
        child = subprocess.Popen(["sleep", "300"])
        answer = {"hook_specific_output": {"additional_context": str(child.pid)}}
    if cmd == "noise":
        print("looks fine to me", flush=True)
        continue
    if cmd.startswith("rm "):
        answer = {"hook_specific_output": {"permission_decision": "deny",
                  "permission_decision_reason": "no deleting"}}
    if cmd == "rewrite":
        answer = {"hook_specific_output": {"updated_input": {"cmd": "echo safe"}}}
    print("oops", cmd, file=sys.stderr, flush=True)
    print(json.dumps(answer), flush=True)
"#;

struct Fixture {
    dir: TempDir,
    exec: Executor,
}

impl Fixture {
    /// The hook on `pre_tool_use` and `post_tool_use`, with `extra` YAML fields.
    fn new(extra: &str) -> Self {
        let dir = TempDir::new().unwrap();
        let script = dir.path().join("guard.py");
        std::fs::write(&script, HOOK).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let hook = format!(
            "{{type: command, command: {}, persistent: true, env: {{PIDS: {}}}{extra}}}",
            script.display(),
            dir.path().join("pids").display()
        );
        let yaml = format!(
            "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - hooks: [{hook}]\n      post_tool_use:\n        - hooks: [{hook}]\n"
        );
        let file = load_str(&yaml, "t.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let config: HooksConfig = file.agents[0].hooks.clone();
        let shell = Shell::detect(None, std::env::var("PATH").ok().as_deref());
        let exec = Executor::new(
            &config,
            Arc::new(Registry::new(shell)),
            ExecutorOptions::new(dir.path()),
        )
        .unwrap();
        Self { dir, exec }
    }

    async fn fire(&self, event: HookEvent, session: &str, cmd: &str) -> HookResult {
        let input = HookInput {
            session_id: session.into(),
            tool_name: "shell".into(),
            tool_use_id: "call_1".into(),
            tool_input: json!({ "cmd": cmd }).as_object().cloned(),
            ..HookInput::default()
        };
        self.exec
            .dispatch(event, Lane::Default, input, &CancellationToken::new())
            .await
    }

    async fn pre(&self, cmd: &str) -> HookResult {
        self.fire(HookEvent::PreToolUse, "s1", cmd).await
    }

    /// `(pid, event)` per line the process(es) read.
    fn log(&self) -> Vec<(u32, String)> {
        std::fs::read_to_string(self.pids())
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let (pid, event) = l.split_once(' ').unwrap();
                (pid.parse().unwrap(), event.to_owned())
            })
            .collect()
    }

    fn pids(&self) -> PathBuf {
        self.dir.path().join("pids")
    }
}

/// Running (a zombie is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

fn gone_within(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

fn failure(r: &HookResult) -> (&str, bool) {
    match &r.runs[0].outcome {
        Outcome::Failed {
            error, timed_out, ..
        } => (error.as_str(), *timed_out),
        other @ Outcome::Exited { .. } => panic!("not a failure: {other:?}"),
    }
}

#[tokio::test]
async fn one_process_answers_every_event_of_a_session_in_order() {
    let f = Fixture::new("");
    for _ in 0..6 {
        let r = f.pre("ls").await;
        assert_eq!((r.allowed, r.runs[0].status), (true, RunStatus::Ok));
        let r = f.fire(HookEvent::PostToolUse, "s1", "ls").await;
        assert_eq!(r.runs[0].status, RunStatus::Ok);
    }
    let log = f.log();
    assert_eq!(log.len(), 12);
    let pid = log[0].0;
    assert!(log.iter().all(|(p, _)| *p == pid), "{log:?}");
    let events: Vec<&str> = log.iter().map(|(_, e)| e.as_str()).take(4).collect();
    assert_eq!(
        events,
        [
            "pre_tool_use",
            "post_tool_use",
            "pre_tool_use",
            "post_tool_use"
        ]
    );
    // What it writes to stderr is kept with the call it came during (or, read a moment late,
    // the next one).
    let mut stderr = String::new();
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        match &f.pre("ls").await.runs[0].outcome {
            Outcome::Exited { stderr: e, .. } => stderr.push_str(e),
            other @ Outcome::Failed { .. } => panic!("{other:?}"),
        }
    }
    assert!(stderr.starts_with("oops ls\n"), "{stderr:?}");
    // Another session gets its own process.
    f.fire(HookEvent::PreToolUse, "s2", "ls").await;
    let other = f.log().last().unwrap().0;
    assert_ne!(other, pid);
    f.exec.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_deny_from_the_process_blocks_and_a_rewrite_is_the_result() {
    let f = Fixture::new("");
    let r = f.pre("rm -rf /").await;
    assert_eq!(
        (r.allowed, r.decision, r.message.as_str()),
        (false, Some(Decision::Deny), "no deleting")
    );
    let r = f.pre("rewrite").await;
    assert_eq!(
        r.updated_input,
        json!({"cmd": "echo safe"}).as_object().cloned()
    );
    f.exec.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_crash_fails_the_call_closed_and_the_next_event_starts_a_new_process() {
    let f = Fixture::new("");
    f.pre("ls").await;
    let first = f.log()[0].0;
    let r = f.pre("crash").await;
    assert_eq!((r.allowed, r.exit_code), (false, -1));
    let (error, timed_out) = failure(&r);
    assert!(!timed_out);
    assert!(
        error.contains("exited with status 3 before answering"),
        "{error}"
    );
    assert!(gone_within(first, Duration::from_secs(5)));
    let r = f.pre("ls").await;
    assert_eq!((r.allowed, r.runs[0].status), (true, RunStatus::Ok));
    let second = f.log().last().unwrap().0;
    assert_ne!(second, first);
    f.exec.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_hung_answer_times_out_closed_and_the_process_is_replaced() {
    let f = Fixture::new(", timeout: 1");
    f.pre("ls").await;
    let first = f.log()[0].0;
    let started = Instant::now();
    let r = f.pre("hang").await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!((r.allowed, r.exit_code), (false, -1));
    let (error, timed_out) = failure(&r);
    assert!(timed_out);
    assert!(error.ends_with("guard.py\" timed out after 1s"), "{error}");
    assert!(
        gone_within(first, Duration::from_secs(5)),
        "the hung process is stopped"
    );
    let r = f.pre("ls").await;
    assert_eq!(r.runs[0].status, RunStatus::Ok);
    f.exec.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_line_that_is_not_json_is_a_failure() {
    let f = Fixture::new("");
    let r = f.pre("noise").await;
    assert_eq!((r.allowed, r.exit_code), (false, -1));
    let (error, _) = failure(&r);
    assert!(
        error.ends_with("answered with a line that is not a JSON object: \"looks fine to me\""),
        "{error}"
    );
    f.exec.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn nothing_the_process_started_survives_its_session() {
    let f = Fixture::new("");
    let r = f.pre("spawn").await;
    let child: u32 = r.additional_context.trim().parse().unwrap();
    f.fire(HookEvent::PreToolUse, "other", "ls").await;
    let (pid, other) = (f.log()[0].0, f.log()[1].0);
    assert!(alive(pid) && alive(child) && alive(other));
    f.exec
        .shutdown_session("s1", Duration::from_millis(500))
        .await;
    assert!(gone_within(pid, Duration::from_secs(5)), "{pid} survived");
    assert!(
        gone_within(child, Duration::from_secs(5)),
        "{child} survived"
    );
    assert!(alive(other), "another session's process goes on");
    drop(f);
    assert!(
        gone_within(other, Duration::from_secs(5)),
        "dropping the executor stops it"
    );
    assert_eq!(
        resources::wait_for_no_descendants(Duration::from_secs(5)),
        []
    );
}

#[tokio::test]
async fn a_process_that_exits_at_end_of_input_is_stopped_without_waiting_out_the_grace() {
    let f = Fixture::new("");
    f.pre("ls").await;
    let pid = f.log()[0].0;
    let grace = Duration::from_secs(20);
    let started = Instant::now();
    f.exec.shutdown_session("s1", grace).await;
    let took = started.elapsed();
    assert!(took < grace / 2, "no fixed wait at session end: {took:?}");
    assert!(!alive(pid), "{pid} survived");
    assert_eq!(
        resources::wait_for_no_descendants(Duration::from_secs(5)),
        []
    );
}

#[tokio::test]
async fn a_process_deaf_to_end_of_input_and_term_is_killed_after_two_grace_periods() {
    let f = Fixture::new("");
    f.pre("stubborn").await;
    let pid = f.log()[0].0;
    let grace = Duration::from_millis(300);
    let started = Instant::now();
    f.exec.shutdown_session("s1", grace).await;
    let took = started.elapsed();
    assert!(
        took >= 2 * grace,
        "end of input, then TERM, each get the grace period: {took:?}"
    );
    assert!(
        took < 2 * grace + Duration::from_secs(5),
        "then KILL: {took:?}"
    );
    assert!(!alive(pid), "{pid} survived");
    assert_eq!(
        resources::wait_for_no_descendants(Duration::from_secs(5)),
        []
    );
}

/// Tries, for each line, to read the fake key and to write outside and inside its paths;
/// answers with what happened and the Input's `sandbox` field.
const PROBE: &str = r#"#!/usr/bin/env python3
import json, os, sys
for line in sys.stdin:
    event = json.loads(line)
    res = {"sandbox": event.get("sandbox"), "pid": os.getpid()}
    def attempt(name, f):
        try:
            f()
            res[name] = "ok"
        except Exception as e:
            res[name] = type(e).__name__
    attempt("read_key", lambda: open(os.environ["HOME"] + "/.ssh/id_ed25519").read())
    attempt("write_outside", lambda: open(os.environ["OUTSIDE"] + "/stolen", "w").write("x"))
    attempt("write_allowed", lambda: open("out/report", "a").write("fine\n"))
    print(json.dumps({"hook_specific_output": {"additional_context": json.dumps(res)}}), flush=True)
"#;

/// A persistent probe on `pre_tool_use` with `sandbox`, its HOME holding a fake key.
fn sandboxed(sandbox: &str) -> (TempDir, PathBuf, Executor) {
    let dir = TempDir::new().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
    std::fs::write(root.join("home/.ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    std::fs::create_dir_all(root.join("elsewhere")).unwrap();
    let script = root.join("probe.py");
    std::fs::write(&script, PROBE).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let yaml = format!(
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - hooks: [{{type: command, command: {}, persistent: true, sandbox: {sandbox}}}]\n",
        script.display()
    );
    let file = load_str(&yaml, "t.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let config: HooksConfig = file.agents[0].hooks.clone();
    let shell = Shell::detect(None, std::env::var("PATH").ok().as_deref());
    let mut opts = ExecutorOptions::new(&root);
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> =
        std::env::vars_os().filter(|(k, _)| k != "HOME").collect();
    env.push(("HOME".into(), root.join("home").into()));
    env.push(("OUTSIDE".into(), root.join("elsewhere").into()));
    opts.base_env = Some(env.into());
    let exec = Executor::new(&config, Arc::new(Registry::new(shell)), opts);
    match exec {
        Ok(exec) => (dir, root, exec),
        Err(e) => panic!("{e:?}"),
    }
}

async fn probe(exec: &Executor) -> serde_json::Value {
    let input = HookInput {
        session_id: "s1".into(),
        tool_name: "shell".into(),
        tool_input: json!({ "cmd": "ls" }).as_object().cloned(),
        ..HookInput::default()
    };
    let r = exec
        .dispatch(
            HookEvent::PreToolUse,
            Lane::Default,
            input,
            &CancellationToken::new(),
        )
        .await;
    let context = &r.additional_context;
    serde_json::from_str(context).unwrap_or_else(|e| panic!("{e}: {context}"))
}

#[tokio::test]
async fn a_sandboxed_persistent_hook_cannot_read_the_key_or_write_outside_its_paths() {
    let (_dir, root, exec) = sandboxed("{write: [out]}");
    let first = probe(&exec).await;
    let second = probe(&exec).await;
    for r in [&first, &second] {
        assert_eq!(r["read_key"], "PermissionError", "{r}");
        assert_eq!(r["write_outside"], "PermissionError", "{r}");
        assert_eq!(r["write_allowed"], "ok", "{r}");
        let sandbox = r["sandbox"].as_str().unwrap_or_else(|| panic!("{r}"));
        assert!(sandbox.starts_with("landlock+seccomp+"), "{r}");
    }
    assert_eq!(first["pid"], second["pid"], "one process for both lines");
    assert!(!root.join("elsewhere/stolen").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("out/report")).unwrap(),
        "fine\nfine\n"
    );
    exec.shutdown(Duration::from_secs(1)).await;
}
