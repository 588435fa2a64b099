//! The real MCP servers tests run against: the official Python SDK server written for the
//! tests (`crates/test-support/mcp/test_server.py`) and the reference servers from npm, all
//! installed by `scripts/mcp-test-deps` into a cache directory (done here on first use).

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The dependency directory (Python venv, npm packages), installed if missing.
pub fn deps() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = workspace().join("scripts/mcp-test-deps");
        #[expect(
            clippy::disallowed_methods,
            reason = "test support installs the test servers"
        )]
        let out = std::process::Command::new(&script)
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

/// The venv's Python (it has the `mcp` SDK).
pub fn python() -> PathBuf {
    deps().join("venv/bin/python")
}

/// `test_server.py`.
pub fn test_server() -> PathBuf {
    workspace().join("crates/test-support/mcp/test_server.py")
}

/// An npm server's entry point (`mcp-server-everything`, `mcp-server-filesystem`).
pub fn npm_bin(name: &str) -> PathBuf {
    deps().join("node/node_modules/.bin").join(name)
}

/// A language server's entry point (`pyright-langserver`, `typescript-language-server`,
/// `bash-language-server`; each takes `--stdio`).
pub fn lsp_bin(name: &str) -> PathBuf {
    deps().join("lsp/node_modules/.bin").join(name)
}

/// `echo_server.py`: a dependency-free language server that answers at once (run it with
/// `python3`).
pub fn echo_lsp() -> PathBuf {
    workspace().join("crates/test-support/lsp/echo_server.py")
}

/// The processes of process group `pgid` still alive (zombies excluded), from `/proc`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid pgrp …`: comm may hold spaces, so split after its `)`.
            let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .collect()
}

/// A free port on 127.0.0.1 (for servers that cannot bind port 0 and tell).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// A server listening on HTTP, killed (with its process group) when dropped.
#[derive(Debug)]
pub struct HttpServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    child: Child,
    /// Everything it wrote to stderr so far.
    stderr: std::sync::Arc<Mutex<String>>,
}

impl HttpServer {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(pgid) = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
        let _ = self.child.wait();
    }
}

/// Starts `program args` in its own process group and waits (30 s at most) for a stderr
/// line containing `ready`; returns the server and that line.
fn spawn_until(
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    ready: &str,
) -> (HttpServer, String) {
    use std::os::unix::process::CommandExt;
    #[expect(
        clippy::disallowed_methods,
        reason = "test support starts the HTTP test servers"
    )]
    let mut cmd = std::process::Command::new(program);
    cmd.args(args)
        .envs(env.iter().copied())
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let stderr = child
        .stderr
        .take()
        .unwrap_or_else(|| panic!("no stderr pipe"));
    let seen = std::sync::Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let sink = std::sync::Arc::clone(&seen);
    let ready = ready.to_owned();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Ok(mut s) = sink.lock() {
                s.push_str(&line);
                s.push('\n');
            }
            if line.contains(&ready)
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(line);
            }
        }
    });
    let server = HttpServer {
        base: String::new(),
        child,
        stderr: seen,
    };
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(line) => (server, line),
        Err(_) => panic!(
            "{} did not get ready; its stderr:\n{}",
            program.display(),
            server.stderr()
        ),
    }
}

/// `test_server.py --transport TRANSPORT` (`sse` or `streamable-http`) with `args`.
pub fn spawn_test_server_http(transport: &str, args: &[&str]) -> HttpServer {
    let script = test_server();
    let mut all = vec![
        script.to_str().unwrap_or_default(),
        "--transport",
        transport,
        "--port",
        "0",
    ];
    all.extend_from_slice(args);
    let (mut server, line) = spawn_until(&python(), &all, &[], "LISTENING ");
    server.base = line
        .split("LISTENING ")
        .nth(1)
        .unwrap_or_default()
        .trim()
        .to_owned();
    server
}

/// `mcp-server-everything streamableHttp` on a free port; its endpoint is `BASE/mcp`.
pub fn spawn_everything_http() -> HttpServer {
    let port = free_port().to_string();
    let (mut server, _) = spawn_until(
        &npm_bin("mcp-server-everything"),
        &["streamableHttp"],
        &[("PORT", &port)],
        "listening on port",
    );
    server.base = format!("http://127.0.0.1:{port}");
    server
}
