//! Sandboxed command hooks through `tether hooks fire`: the kernel stops a hook reading the
//! user's key, writing outside its paths, reaching a TCP listener or forking past its limit,
//! while its allowed write lands; `sandbox: true` fails closed on a kernel without the
//! Landlock it needs, and `best_effort` runs (still sandboxed by what the kernel has).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::PathBuf;

use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli;

const PROBE: &str = r#"
import json, os, socket, sys, time
port = int(sys.argv[1])
res = {"input": json.loads(sys.stdin.read())}
def attempt(name, f):
    try:
        f()
        res[name] = "ok"
    except Exception as e:
        res[name] = type(e).__name__
attempt("read_key", lambda: open(os.environ["HOME"] + "/.ssh/id_ed25519").read())
attempt("write_outside", lambda: open(sys.argv[2] + "/stolen", "w").write("x"))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
pids = []
for i in range(40):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    pids.append(pid)
res["forks"] = len(pids)
for p in pids:
    os.kill(p, 9)
attempt("write_allowed", lambda: open("logs/report", "w").write("fine"))
print("probe " + json.dumps(res))
"#;

struct World {
    dir: TempDir,
    root: PathBuf,
    listener: TcpListener,
}

fn world(sandbox: &str) -> World {
    let dir = TempDir::new().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
    std::fs::write(root.join("home/.ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    std::fs::create_dir_all(root.join("elsewhere")).unwrap();
    std::fs::write(root.join("probe.py"), PROBE).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let hook = format!(
        "/usr/bin/python3 probe.py {port} {}/elsewhere",
        root.display()
    );
    let sandbox_line = if sandbox.is_empty() {
        String::new()
    } else {
        format!("\n            sandbox: {sandbox}")
    };
    std::fs::write(
        root.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: openai/gpt-4o-mini\n    hooks:\n      session_start:\n          - type: command\n            command: {hook}{sandbox_line}\n"
        ),
    )
    .unwrap();
    World {
        dir,
        root,
        listener,
    }
}

fn fire(w: &World, extra_env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = cli::tether(w.dir.path());
    cmd.env("HOME", w.root.join("home"))
        .args(["hooks", "fire", "session_start", "--config", "agent.yaml"])
        .args(["--input", "-"])
        .write_stdin("{}");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The probe's report: the hook's stdout, which `session_start` takes as context.
fn result(out: &std::process::Output) -> Value {
    let fired: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let context = fired["additional_context"].as_str().unwrap();
    let report = context.strip_prefix("probe ").unwrap_or(context);
    serde_json::from_str(report).unwrap_or_else(|e| panic!("{e}: {fired}"))
}

fn connections(listener: &TcpListener) -> usize {
    let mut n = 0;
    loop {
        match listener.accept() {
            Ok(_) => n += 1,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return n,
            Err(e) => panic!("{e}"),
        }
    }
}

fn assert_stopped(w: &World, out: &std::process::Output) {
    let r = result(out);
    assert_eq!(r["read_key"], "PermissionError", "{r}");
    assert_eq!(r["write_outside"], "PermissionError", "{r}");
    assert!(!w.root.join("elsewhere/stolen").exists());
    assert_eq!(r["tcp"], "PermissionError", "{r}");
    assert_eq!(connections(&w.listener), 0, "the listener saw a connection");
    let forks = r["forks"].as_u64().unwrap();
    assert!(
        (1..8).contains(&forks),
        "forked {forks} times under a limit of 8"
    );
    let sandbox = r["input"]["sandbox"].as_str().unwrap();
    assert!(sandbox.starts_with("landlock+seccomp"), "{sandbox}");
}

#[test]
fn a_sandboxed_hook_is_stopped_by_the_kernel_and_its_allowed_write_lands() {
    let w = world("{write: [./logs], processes: 8}");
    let out = fire(&w, &[]);
    assert!(out.status.success(), "{out:?}");
    assert_stopped(&w, &out);
    assert_eq!(result(&out)["write_allowed"], "ok");
    assert_eq!(
        std::fs::read_to_string(w.root.join("logs/report")).unwrap(),
        "fine"
    );

    // The same hook unsandboxed reads the key, writes and connects: the checks can fail.
    let w = world("false");
    std::fs::create_dir_all(w.root.join("logs")).unwrap();
    let out = fire(&w, &[]);
    assert!(out.status.success(), "{out:?}");
    let r = result(&out);
    assert_eq!(r["read_key"], "ok", "{r}");
    assert_eq!(r["write_outside"], "ok", "{r}");
    assert_eq!(r["tcp"], "ok", "{r}");
    assert_eq!(connections(&w.listener), 1);
    assert_eq!(r["input"]["sandbox"], Value::Null);
}

#[test]
fn sandbox_true_fails_closed_without_landlock_and_best_effort_runs() {
    let missing = [("TETHER_SANDBOX_SIMULATE_LANDLOCK_ABI", "0")];
    let w = world("true");
    let out = fire(&w, &missing);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the hook sandbox needs Landlock ABI 3")
            && stderr.contains("this kernel has no Landlock"),
        "{stderr}"
    );
    assert!(!w.root.join("logs/report").exists());

    // A simulated missing ABI never weakens a sandbox: best effort applies the real kernel's.
    let w = world("{best_effort: true, write: [./logs], processes: 8}");
    let out = fire(&w, &missing);
    assert!(out.status.success(), "{out:?}");
    assert_stopped(&w, &out);
}

#[test]
fn the_user_default_sandboxes_hooks_that_do_not_say() {
    let w = world("");
    let config = w.root.join(".config/tether");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.yaml"),
        "settings:\n  hooks_sandbox: true\n",
    )
    .unwrap();
    // The default profile writes only in TMPDIR: not even `./logs`.
    std::fs::create_dir_all(w.root.join("logs")).unwrap();
    let out = fire(&w, &[]);
    assert!(out.status.success(), "{out:?}");
    let r = result(&out);
    assert_eq!(r["write_allowed"], "PermissionError", "{r}");
    assert_eq!(r["read_key"], "PermissionError", "{r}");
    assert_eq!(r["tcp"], "PermissionError", "{r}");
    assert_eq!(connections(&w.listener), 0);
    assert!(r["input"]["sandbox"].is_string());
}
