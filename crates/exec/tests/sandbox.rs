//! A sandboxed child is stopped by the kernel: it cannot read the user's secrets, write
//! outside its paths, reach a TCP listener or fork past its limit, while what it is allowed
//! works. The same program without the sandbox does all of it, so each check can fail.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_exec::sandbox::{
    Limits, Network, Sandbox, SandboxMode, SandboxPolicy, default_denied, landlock_abi,
};
use tether_exec::{ExecRecord, ExecSpec};

const PROBE: &str = r#"
import json, os, socket, sys, time
home, allowed, outside, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
res = {}
def attempt(name, f):
    try:
        f()
        res[name] = "ok"
    except Exception as e:
        res[name] = type(e).__name__
attempt("read_key", lambda: open(home + "/.ssh/id_ed25519").read())
attempt("write_outside", lambda: open(outside + "/stolen", "w").write("x"))
attempt("write_allowed", lambda: open(allowed + "/report", "w").write("fine"))
attempt("write_tmp", lambda: open(os.environ["TMPDIR"] + "/scratch", "w").write("x"))
attempt("read_usr", lambda: open("/usr/bin/env", "rb").read(16))
attempt("dev_null", lambda: open("/dev/null", "w").write("x"))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
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
print(json.dumps(res))
"#;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    allowed: PathBuf,
    outside: PathBuf,
    listener: TcpListener,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    let allowed = root.join("logs");
    let outside = root.join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    World {
        _dir: dir,
        home,
        allowed,
        outside,
        listener,
    }
}

fn policy(w: &World, network: Network) -> SandboxPolicy {
    SandboxPolicy {
        mode: SandboxMode::Enforce,
        deny_read: default_denied(&w.home),
        write: vec![w.allowed.clone()],
        network,
        limits: Limits {
            processes: 8,
            ..Limits::default()
        },
    }
}

async fn probe(w: &World, sandbox: Option<Arc<Sandbox>>) -> (ExecRecord, serde_json::Value) {
    std::fs::create_dir_all(&w.allowed).unwrap();
    let mut spec = ExecSpec::new("/usr/bin/python3", &w.home);
    let port = w.listener.local_addr().unwrap().port().to_string();
    spec.args = ["-c", PROBE]
        .into_iter()
        .map(Into::into)
        .chain([&w.home, &w.allowed, &w.outside].map(|p| p.as_os_str().to_owned()))
        .chain([port.into()])
        .collect();
    spec.env.push(("HOME".into(), w.home.clone().into()));
    spec.timeout = Some(std::time::Duration::from_secs(20));
    spec.sandbox = sandbox;
    let r = tether_exec::run(spec).await;
    let v = serde_json::from_str(r.stdout.lossy().trim()).unwrap_or_default();
    (r, v)
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

fn exists(p: &Path) -> bool {
    p.exists()
}

#[tokio::test]
async fn a_sandboxed_hook_cannot_read_secrets_write_outside_connect_or_fork_past_its_limit() {
    assert!(
        landlock_abi() >= 4,
        "this kernel has Landlock ABI 4 or later"
    );
    let w = world();

    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::Off)));
    let (r, v) = probe(&w, Some(Arc::clone(&sandbox))).await;
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert_eq!(v["read_key"], "PermissionError", "{v}");
    assert_eq!(v["write_outside"], "PermissionError", "{v}");
    assert!(!exists(&w.outside.join("stolen")));
    assert_eq!(v["write_allowed"], "ok", "{v}");
    assert_eq!(
        std::fs::read_to_string(w.allowed.join("report")).unwrap(),
        "fine"
    );
    assert_eq!(v["write_tmp"], "ok", "{v}");
    assert_eq!(v["read_usr"], "ok", "{v}");
    assert_eq!(v["dev_null"], "ok", "{v}");
    assert_eq!(v["tcp"], "PermissionError", "{v}");
    assert_eq!(v["udp"], "PermissionError", "{v}");
    assert_eq!(connections(&w.listener), 0, "the listener saw a connection");
    let forks = v["forks"].as_u64().unwrap();
    assert!(
        (1..8).contains(&forks),
        "forked {forks} times under a limit of 8"
    );
    assert_eq!(
        sandbox.describe(),
        "landlock+seccomp+no_new_privs+rlimits+pids"
    );

    // The same program unsandboxed does every one of those things.
    std::fs::remove_file(w.allowed.join("report")).unwrap();
    let (r, v) = probe(&w, None).await;
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    for key in ["read_key", "write_outside", "write_allowed", "tcp", "udp"] {
        assert_eq!(v[key], "ok", "{key}: {v}");
    }
    assert!(exists(&w.outside.join("stolen")));
    assert_eq!(connections(&w.listener), 1);
    assert_eq!(v["forks"], 40);
}

#[tokio::test]
async fn a_listed_tcp_port_is_reachable_and_no_other() {
    let w = world();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let port = other.local_addr().unwrap().port();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::TcpPorts(vec![port]))));
    let (r, v) = probe(&w, Some(sandbox)).await;
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert_eq!(v["tcp"], "PermissionError", "{v}");
    assert_eq!(v["udp"], "PermissionError", "{v}");
    assert_eq!(connections(&w.listener), 0);

    // Pointed at the listed port, the probe connects.
    let w2 = World {
        listener: other,
        ..world()
    };
    let sandbox = Arc::new(Sandbox::new(policy(&w2, Network::TcpPorts(vec![port]))));
    let (_, v) = probe(&w2, Some(sandbox)).await;
    assert_eq!(v["tcp"], "ok", "{v}");
    assert_eq!(connections(&w2.listener), 1);
}

#[tokio::test]
async fn the_private_temporary_directory_is_given_as_tmpdir_and_removed_with_the_sandbox() {
    let w = world();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::On)));
    let mut spec = ExecSpec::new("/bin/sh", &w.home);
    spec.args = vec!["-c".into(), "echo $TMPDIR; touch $TMPDIR/x".into()];
    spec.sandbox = Some(Arc::clone(&sandbox));
    let r = tether_exec::run(spec).await;
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    let tmp = PathBuf::from(r.stdout.lossy().trim());
    assert!(tmp.join("x").exists());
    drop(sandbox);
    assert!(!tmp.exists());
}

#[tokio::test]
async fn sandboxed_children_start_in_its_pids_cgroup_which_goes_with_the_sandbox() {
    if !rustix::process::geteuid().is_root() {
        // An ordinary user gets `RLIMIT_NPROC` instead (docs/hooks.md).
        return;
    }
    let w = world();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::Off)));
    let mut dirs = Vec::new();
    for _ in 0..3 {
        let mut spec = ExecSpec::new("/bin/cat", &w.home);
        spec.args = vec!["/proc/self/cgroup".into()];
        spec.sandbox = Some(Arc::clone(&sandbox));
        let r = tether_exec::run(spec).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let text = r.stdout.lossy();
        let path = text
            .lines()
            .find(|l| l.contains("tether-sandbox-"))
            .and_then(|l| l.rsplit_once(':'))
            .map(|(_, p)| p.trim_start_matches('/').to_owned())
            .unwrap_or_else(|| panic!("not in a sandbox cgroup: {text}"));
        let dir = [
            "/sys/fs/cgroup/pids",
            "/sys/fs/cgroup",
            "/sys/fs/cgroup/unified",
        ]
        .into_iter()
        .map(|m| Path::new(m).join(&path))
        .find(|d| d.is_dir())
        .unwrap_or_else(|| panic!("no directory for {path}"));
        dirs.push(dir);
    }
    assert!(
        dirs.windows(2).all(|d| d[0] == d[1]),
        "one cgroup: {dirs:?}"
    );
    drop(sandbox);
    assert!(!dirs[0].exists(), "{} is left behind", dirs[0].display());
}

/// Runs `program args` in `sandbox` (or not) with `stdin`, from `w.home`.
async fn run_in(
    w: &World,
    sandbox: Option<&Arc<Sandbox>>,
    program: &str,
    args: &[&str],
    configure: impl FnOnce(&mut ExecSpec),
) -> ExecRecord {
    let mut spec = ExecSpec::new(program, &w.home);
    spec.args = args.iter().map(Into::into).collect();
    spec.timeout = Some(std::time::Duration::from_secs(20));
    spec.sandbox = sandbox.map(Arc::clone);
    configure(&mut spec);
    tether_exec::run(spec).await
}

/// The children of this test process (every thread's), zombies included.
fn children() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .flat_map(|task| {
            let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            list.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn a_sandboxed_program_that_cannot_start_is_reported_and_leaves_nothing_running() {
    let w = world();
    std::fs::create_dir_all(&w.allowed).unwrap();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::Off)));
    let missing = w.home.join("no-such-hook");
    let r = run_in(&w, Some(&sandbox), missing.to_str().unwrap(), &[], |_| {}).await;
    let error = r.spawn_error.clone().unwrap_or_default();
    assert!(error.contains("not found"), "{r:?}");
    assert_eq!((r.pid, r.exit_code), (None, None), "{r:?}");

    let script = w.allowed.join("not-executable.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let r = run_in(&w, Some(&sandbox), script.to_str().unwrap(), &[], |_| {}).await;
    let error = r.spawn_error.clone().unwrap_or_default();
    assert!(
        error.contains("Permission denied") && error.contains("in the sandbox"),
        "{r:?}"
    );

    let r = run_in(&w, Some(&sandbox), "/bin/sh", &["-c", "true"], |s| {
        s.cwd = w.home.join("gone");
    })
    .await;
    let error = r.spawn_error.clone().unwrap_or_default();
    assert!(error.contains("does not exist"), "{r:?}");
    assert_eq!(
        children(),
        Vec::<String>::new(),
        "no child left, not even a zombie"
    );

    // The sandbox still starts what it can start.
    let r = run_in(&w, Some(&sandbox), "/bin/sh", &["-c", "echo ok"], |_| {}).await;
    assert_eq!(
        (r.exit_code, r.stdout.lossy().trim()),
        (Some(0), "ok"),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_sandboxed_child_gets_its_stdin_output_status_group_and_default_signals() {
    let w = world();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::Off)));
    // The shell reports its group, echoes stdin to stdout, writes to stderr and ends with an
    // exit code of its choosing.
    let script = r#"
        echo "pgid $(cut -d' ' -f5 /proc/$$/stat) pid $$"
        cat
        echo oops >&2
        exit 7
    "#;
    let mut signals = Vec::new();
    for sandboxed in [None, Some(&sandbox)] {
        let r = run_in(&w, sandboxed, "/bin/sh", &["-c", script], |s| {
            s.stdin = tether_exec::Stdin::Bytes(b"from stdin\n".to_vec().into());
        })
        .await;
        assert_eq!(r.exit_code, Some(7), "{r:?}");
        assert_eq!(r.stderr.lossy(), "oops\n", "{r:?}");
        let pid = r.pid.unwrap().to_string();
        assert_eq!(
            r.stdout.lossy(),
            format!("pgid {pid} pid {pid}\nfrom stdin\n"),
            "its own group, then stdin"
        );
        // The signal state a program starts with, as the kernel sees it.
        let status = "/proc/self/status";
        let r = run_in(
            &w,
            sandboxed,
            "/bin/grep",
            &["-E", "^Sig(Blk|Ign)", status],
            |_| {},
        )
        .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let mask = |name: &str| {
            let out = r.stdout.lossy();
            let line = out
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap()
                .to_owned();
            u64::from_str_radix(line.rsplit('\t').next().unwrap(), 16).unwrap()
        };
        // glibc's own signals (32, 33) are glibc's business; the standard ones are compared.
        signals.push((mask("SigBlk"), mask("SigIgn") & 0x7fff_ffff));
    }
    assert_eq!(signals[0], signals[1], "the same signal state");
    let (blocked, ignored) = signals[1];
    assert_eq!(blocked, 0, "nothing blocked");
    assert_eq!(ignored & (1 << (SIGPIPE - 1)), 0, "SIGPIPE at its default");

    // Killed by a signal, and killed at its timeout with its group.
    let r = run_in(&w, Some(&sandbox), "/bin/sh", &["-c", "kill -9 $$"], |_| {}).await;
    assert_eq!((r.exit_code, r.signal), (None, Some(9)), "{r:?}");
    let started = std::time::Instant::now();
    let r = run_in(
        &w,
        Some(&sandbox),
        "/bin/sh",
        &["-c", "sleep 30 & sleep 30"],
        |s| {
            s.timeout = Some(std::time::Duration::from_millis(300));
        },
    )
    .await;
    assert!(r.timed_out && r.signal == Some(9), "{r:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

const SIGPIPE: u32 = 13;

#[tokio::test]
async fn a_program_named_without_a_path_is_sandboxed_too() {
    let w = world();
    let sandbox = Arc::new(Sandbox::new(policy(&w, Network::Off)));
    let key = w.home.join(".ssh/id_ed25519");
    let key = key.to_str().unwrap();
    let r = run_in(&w, Some(&sandbox), "cat", &[key], |_| {}).await;
    assert_eq!(r.exit_code, Some(1), "{r:?}");
    assert!(r.stderr.lossy().contains("Permission denied"), "{r:?}");
    assert_eq!(r.stdout.lossy(), "");

    let r = run_in(&w, None, "cat", &[key], |_| {}).await;
    assert_eq!(r.stdout.lossy(), "PRIVATE KEY", "{r:?}");
}
