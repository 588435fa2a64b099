//! Running `tether serve …` as a real server process for tests, and the official protocol
//! SDKs that drive it (installed by `scripts/serve-test-deps` into a cache directory on
//! first use).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The SDK directory (`venv/` with openai, agent-client-protocol, a2a-sdk 1.x and mcp;
/// `venv03/` with a2a-sdk 0.3), installed if missing.
pub fn deps() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = crate::mcp::workspace().join("scripts/serve-test-deps");
        #[expect(
            clippy::disallowed_methods,
            reason = "test support installs the protocol SDKs"
        )]
        let out = Command::new(&script)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} failed; run it by hand to see why",
            script.display()
        );
        let text = String::from_utf8_lossy(&out.stdout);
        PathBuf::from(text.lines().last().unwrap_or_default().trim())
    })
}

/// Python with openai, agent-client-protocol, a2a-sdk 1.x and mcp.
pub fn python() -> PathBuf {
    deps().join("venv/bin/python")
}

/// Python with a2a-sdk 0.3.
pub fn python03() -> PathBuf {
    deps().join("venv03/bin/python")
}

/// A running `tether serve MODE …`: killed (its whole process group) when dropped.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT` (or `unix://PATH`) from the `listening on` line.
    pub url: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `tether serve ARGS…` in `dir` (with `TETHER_HOME` and the config directory inside
    /// it) and waits for its `listening on URL` line. Add `--listen 127.0.0.1:0` for a free port.
    pub fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut cmd = command(dir, args, env);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = spawn(cmd);
        let Some(stderr) = child.stderr.take() else {
            panic!("tether serve's stderr is not piped");
        };
        let (url, log) = wait_for_listening(stderr);
        Self {
            child,
            url,
            stderr: log,
        }
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits up to `wait` for the exit status.
    pub fn terminate(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        signal(self.child.id(), rustix::process::Signal::TERM);
        let deadline = std::time::Instant::now() + wait;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tether serve ARGS…` in `dir` with the test environment, not yet started: for stdio modes
/// (`mcp` without `--http`, `acp`) whose client starts the process itself, use
/// [`command_line`] instead.
pub fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    #[expect(clippy::disallowed_methods, reason = "tests start the real server")]
    let mut cmd = Command::new(crate::bins::tether());
    cmd.arg("serve")
        .args(args)
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("SHELL", "/bin/bash");
    for (k, v) in env {
        cmd.env(k, v);
    }
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd
}

/// The `tether` binary and the environment a stdio client needs to start `tether serve ARGS…`
/// itself: `(program, args, env)`.
pub fn command_line(dir: &Path, args: &[&str]) -> (PathBuf, Vec<String>, Vec<(String, String)>) {
    let mut all = vec!["serve".to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let env = vec![
        (
            "TETHER_HOME".to_owned(),
            dir.join(".tether").display().to_string(),
        ),
        (
            "XDG_CONFIG_HOME".to_owned(),
            dir.join(".config").display().to_string(),
        ),
        ("SHELL".to_owned(), "/bin/bash".to_owned()),
    ];
    (crate::bins::tether().to_path_buf(), all, env)
}

fn spawn(mut cmd: Command) -> Child {
    cmd.spawn()
        .unwrap_or_else(|e| panic!("cannot start tether serve: {e}"))
}

/// Reads stderr until `… listening on URL` (kept reading in the background afterwards).
fn wait_for_listening(stderr: ChildStderr) -> (String, Arc<Mutex<String>>) {
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let keep = Arc::clone(&log);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stderr);
        let mut line = String::new();
        let mut sent = false;
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if let Ok(mut l) = keep.lock() {
                l.push_str(&line);
            }
            if !sent && let Some((_, url)) = line.trim().split_once("listening on ") {
                let _ = tx.send(url.to_owned());
                sent = true;
            }
        }
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(url) => (url, log),
        Err(_) => panic!(
            "tether serve did not start listening; stderr:\n{}",
            log.lock().map(|s| s.clone()).unwrap_or_default()
        ),
    }
}

fn signal(pid: u32, sig: rustix::process::Signal) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}
