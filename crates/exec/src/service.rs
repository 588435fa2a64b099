//! Long-lived children that talk over stdin/stdout (MCP servers).
//!
//! Unlike [`crate::run`], a service is not run to completion: the caller gets its pipes and
//! keeps it for the session. It still lives by the same rules: its own process group, an
//! explicit environment, and no process left behind — [`Service::stop`] closes stdin, then
//! signals the group (TERM, then KILL), and dropping a service kills its group. Its stderr is
//! never shown to anyone: it is appended to a log file (capped) and its tail kept in memory
//! for error messages.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::direct::{self, Prepared};
use crate::reaper;
use crate::run::Direct;
use crate::sandbox::{Prepared as Sandboxed, Sandbox};

/// Bytes of stderr kept in memory for error messages.
const TAIL_BYTES: usize = 8 * 1024;

/// Lines of the tail shown in error messages.
const TAIL_LINES: usize = 20;

/// Where a service's stderr goes, and how much of it.
#[derive(Debug, Clone)]
pub struct StderrLog {
    /// Appended to (created mode 0600 with its directory); `None` keeps only the tail.
    pub path: Option<PathBuf>,
    /// Past this many bytes the log gets a note and nothing more (the child is never blocked:
    /// its stderr is still read and dropped).
    pub cap: u64,
    /// Written before the child's first byte of each start, e.g. `--- notes (pid 42) ---`.
    pub header: String,
}

/// Everything needed to start one service.
#[derive(Debug, Clone)]
pub struct ServiceSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// `None` inherits this process's environment.
    pub base_env: Option<Arc<[(OsString, OsString)]>>,
    /// Set on top of the base, in order (later wins).
    pub env: Vec<(OsString, OsString)>,
    pub cwd: PathBuf,
    pub stderr: StderrLog,
    /// `program` and `args` are `SHELL -c TEXT` and TEXT is a plain word list: exec the words
    /// without the shell when that behaves the same (as [`crate::ExecSpec::direct`]).
    pub direct: Option<Direct>,
    /// Run inside this sandbox; one that cannot be set up is a spawn error.
    pub sandbox: Option<Arc<Sandbox>>,
}

/// A running service. Dropping it kills its process group.
#[derive(Debug)]
pub struct Service {
    child: Child,
    pgid: Option<i32>,
    tail: Arc<Mutex<Tail>>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    exited: Option<ExitStatus>,
    /// This service's [`crate::MARKER`] value, to find what it started when it stops.
    marker: OsString,
    /// [`Self::stop`] swept what it left: dropping it has nothing more to do.
    swept: bool,
    /// Kept for the child's lifetime: the sandbox's temporary directory and pids cgroup.
    _sandboxed: Option<Arc<Sandboxed>>,
}

/// The last [`TAIL_BYTES`] of stderr.
#[derive(Debug, Default)]
struct Tail {
    bytes: Vec<u8>,
    /// Bytes pushed since the last [`Tail::take_fresh`] (at most [`TAIL_BYTES`] of them).
    fresh: usize,
}

impl Tail {
    fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        self.fresh = (self.fresh + data.len()).min(TAIL_BYTES);
        if self.bytes.len() > 2 * TAIL_BYTES {
            let cut = self.bytes.len() - TAIL_BYTES;
            self.bytes.drain(..cut);
        }
    }

    /// What arrived since the last call (its last [`TAIL_BYTES`] when there was more).
    fn take_fresh(&mut self) -> String {
        let start = self.bytes.len().saturating_sub(self.fresh);
        self.fresh = 0;
        String::from_utf8_lossy(&self.bytes[start..]).into_owned()
    }

    fn text(&self) -> String {
        let start = self.bytes.len().saturating_sub(TAIL_BYTES);
        let text = String::from_utf8_lossy(&self.bytes[start..]);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
    }
}

impl Service {
    /// Starts the child with stdin and stdout piped. Errors name the program and the cause.
    pub fn spawn(spec: &ServiceSpec) -> Result<(Self, ChildStdin, ChildStdout), String> {
        if !spec.cwd.is_dir() {
            return Err(format!(
                "working directory `{}` does not exist",
                spec.cwd.display()
            ));
        }
        let sandboxed = spec
            .sandbox
            .as_ref()
            .map(|s| s.prepare())
            .transpose()
            .map_err(|e| format!("sandbox: {e}"))?;
        let marker = reaper::new_marker();
        let mut extra = vec![(OsString::from(reaper::MARKER), marker.clone())];
        if let Some(s) = &sandboxed {
            extra.push(("TMPDIR".into(), s.tmpdir.clone().into()));
        }
        let prepared = spec.direct.as_ref().and_then(|d| {
            direct::prepare(
                d.flavor,
                &d.words,
                &spec.cwd,
                spec.base_env.as_deref(),
                &spec.env,
            )
        });
        let mut own = reaper::own();
        // A direct spawn that fails goes through the shell, whose error is the one to report.
        let spawned = match prepared
            .as_ref()
            .map(|p| crate::sandbox::spawn(command(spec, Some(p), &extra), sandboxed.as_ref()))
        {
            Some(Ok(child)) => Ok(child),
            Some(Err(_)) | None => {
                crate::sandbox::spawn(command(spec, None, &extra), sandboxed.as_ref())
            }
        };
        let mut child = spawned.map_err(|e| {
            let program = spec.program.to_string_lossy();
            let place = if sandboxed.is_some() {
                " (in the sandbox)"
            } else {
                ""
            };
            match e.kind() {
                std::io::ErrorKind::NotFound => format!("`{program}` not found"),
                std::io::ErrorKind::PermissionDenied => {
                    format!("`{program}` is not executable{place}")
                }
                _ => format!("`{program}`: {e}{place}"),
            }
        })?;
        let pgid = child.id().and_then(|p| i32::try_from(p).ok());
        own.extend(pgid);
        drop(own);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(pgid, rustix::process::Signal::KILL);
            return Err("the child's pipes could not be opened".to_owned());
        };
        let tail = Arc::new(Mutex::new(Tail::default()));
        let stderr_task = child.stderr.take().map(|stderr| {
            let mut log = spec.stderr.clone();
            log.header = format!("{} (pid {})", log.header, pgid.unwrap_or_default());
            tokio::spawn(drain_stderr(stderr, log, Arc::clone(&tail)))
        });
        Ok((
            Self {
                child,
                pgid,
                tail,
                stderr_task,
                exited: None,
                marker,
                swept: false,
                _sandboxed: sandboxed,
            },
            stdin,
            stdout,
        ))
    }

    /// The child's pid (also its process group).
    pub fn pid(&self) -> Option<u32> {
        self.pgid.and_then(|p| u32::try_from(p).ok())
    }

    /// The last lines the child wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .text()
    }

    /// What the child wrote to stderr since the last call (capped at the tail's size).
    pub fn take_fresh_stderr(&self) -> String {
        self.tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take_fresh()
    }

    /// The exit status, if the child has exited (non-blocking).
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        if self.exited.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.exited = Some(status);
        }
        self.exited
    }

    /// Waits for the child to exit.
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        if self.exited.is_none() {
            self.exited = self.child.wait().await.ok();
        }
        self.exited
    }

    /// Waits up to `within` for the child's stderr to reach end of file, so that
    /// [`Self::stderr_tail`] holds its last words (after it exited).
    pub async fn stderr_done(&mut self, within: Duration) {
        if let Some(task) = self.stderr_task.as_mut()
            && tokio::time::timeout(within, task).await.is_ok()
        {
            self.stderr_task = None;
        }
    }

    /// Stops the service: waits `grace` for it to exit by itself (the caller closed stdin),
    /// then SIGTERM to the group, `grace` again, then SIGKILL. The group is killed in every
    /// case, so nothing it started survives; the stderr log is complete on return.
    pub async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        if tokio::time::timeout(grace, self.wait()).await.is_err() {
            kill_group(self.pgid, rustix::process::Signal::TERM);
            if tokio::time::timeout(grace, self.wait()).await.is_err() {
                kill_group(self.pgid, rustix::process::Signal::KILL);
                let _ = tokio::time::timeout(grace, self.wait()).await;
            }
        }
        // Whatever the leader did, its group goes too, and what left the group.
        reaper::released(self.pid());
        reaper::sweep(self.pid(), &self.marker).await;
        self.swept = true;
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(grace, task).await;
        }
        self.exited
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if self.swept {
            return;
        }
        reaper::sweep_now(self.pgid, &self.marker);
        reaper::released(self.pid());
    }
}

/// The command for the child: the plain command without its shell (`prepared`) or
/// `program` with its environment, then `extra` variables on top.
fn command(
    spec: &ServiceSpec,
    prepared: Option<&Prepared>,
    extra: &[(OsString, OsString)],
) -> tokio::process::Command {
    #[expect(clippy::disallowed_methods, reason = "tether-exec spawns every child")]
    let mut cmd = match prepared {
        Some(p) => {
            let mut cmd = tokio::process::Command::new(&p.program);
            cmd.arg0(&p.arg0)
                .args(&p.args)
                .env_clear()
                .envs(p.env.iter().map(|(k, v)| (k, v)));
            cmd
        }
        None => {
            let mut cmd = tokio::process::Command::new(&spec.program);
            cmd.args(&spec.args);
            if let Some(base) = &spec.base_env {
                cmd.env_clear();
                cmd.envs(base.iter().map(|(k, v)| (k, v)));
            }
            cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
            cmd
        }
    };
    cmd.envs(extra.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .process_group(0)
        .kill_on_drop(true)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn kill_group(pgid: Option<i32>, signal: rustix::process::Signal) {
    if let Some(pid) = pgid.and_then(rustix::process::Pid::from_raw) {
        // ESRCH (the group is already gone) is fine.
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}

/// Copies stderr to the log (up to its cap) and the tail until the child closes it.
async fn drain_stderr(
    mut stderr: tokio::process::ChildStderr,
    log: StderrLog,
    tail: Arc<Mutex<Tail>>,
) {
    let mut file = log
        .path
        .as_ref()
        .and_then(|p| crate::private::append(p).ok());
    let mut written: u64 = 0;
    let mut noted = false;
    if let Some(f) = file.as_mut() {
        let _ = writeln!(f, "--- {} ---", log.header);
    }
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let data = &buf[..n];
        tail.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(data);
        let Some(f) = file.as_mut() else { continue };
        let room = log.cap.saturating_sub(written);
        let take = usize::try_from(room).unwrap_or(usize::MAX).min(n);
        if take > 0 && f.write_all(&data[..take]).is_ok() {
            written += take as u64;
        }
        if take < n && !noted {
            noted = true;
            let _ = writeln!(
                f,
                "\n--- stderr log cap of {} bytes reached; the rest is dropped ---",
                log.cap
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn spec(script: &str, log: Option<PathBuf>) -> ServiceSpec {
        ServiceSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            base_env: None,
            env: vec![("GREETING".into(), "hi".into())],
            cwd: std::env::temp_dir(),
            stderr: StderrLog {
                path: log,
                cap: 64,
                header: "test".into(),
            },
            direct: None,
            sandbox: None,
        }
    }

    /// Running (a zombie left to an init that does not reap is not).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    #[tokio::test]
    async fn a_service_talks_over_its_pipes_with_the_given_environment() {
        let (svc, mut stdin, stdout) =
            Service::spawn(&spec("read line; echo \"$GREETING $line\"", None)).unwrap();
        stdin.write_all(b"there\n").await.unwrap();
        let mut out = String::new();
        BufReader::new(stdout).read_line(&mut out).await.unwrap();
        assert_eq!(out, "hi there\n");
        drop(stdin);
        let status = svc.stop(Duration::from_secs(2)).await.unwrap();
        assert!(status.success());
    }

    #[tokio::test]
    async fn stderr_goes_to_a_capped_log_and_its_tail_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/server.log");
        let script = "i=0; while [ $i -lt 30 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 3";
        let (mut svc, _stdin, _stdout) = Service::spawn(&spec(script, Some(log.clone()))).unwrap();
        let status = svc.wait().await.unwrap();
        assert_eq!(status.code(), Some(3));
        let svc_tail = {
            // The drain task may still be copying the last bytes.
            let task = svc.stderr_task.take().unwrap();
            task.await.unwrap();
            svc.stderr_tail()
        };
        let tail: Vec<&str> = svc_tail.lines().collect();
        assert_eq!(tail.len(), TAIL_LINES);
        assert_eq!(tail.last(), Some(&"line 29"));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.starts_with("--- test (pid "), "{text}");
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&log), mode(log.parent().unwrap())), (0o600, 0o700));
        assert!(text.contains("line 0\n"), "{text}");
        assert!(!text.contains("line 29"), "past the cap: {text}");
        assert!(
            text.contains("stderr log cap of 64 bytes reached"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn stop_kills_a_service_that_ignores_eof_and_term_and_its_children() {
        let script = "trap '' TERM; sleep 300 & echo $! >&2; while true; do sleep 1; done";
        let (svc, stdin, _stdout) = Service::spawn(&spec(script, None)).unwrap();
        let pid = svc.pid().unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let grandchild: u32 = svc.stderr_tail().trim().parse().unwrap();
        assert!(alive(pid) && alive(grandchild));
        drop(stdin);
        svc.stop(Duration::from_millis(200)).await;
        // Reaped: the leader is gone; the grandchild was killed with the group (its parent,
        // init or a subreaper, reaps it shortly).
        assert!(!alive(pid));
        for _ in 0..50 {
            if !alive(grandchild) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("grandchild {grandchild} survived");
    }

    #[tokio::test]
    async fn dropping_a_service_kills_its_group() {
        let (svc, _stdin, _stdout) = Service::spawn(&spec("sleep 300", None)).unwrap();
        let pid = svc.pid().unwrap();
        drop(svc);
        for _ in 0..50 {
            if !alive(pid) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{pid} survived");
    }

    #[test]
    fn a_missing_program_is_named() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut s = spec("", None);
        s.program = "/no/such/server".into();
        let err = rt
            .block_on(async { Service::spawn(&s).map(|_| ()) })
            .unwrap_err();
        assert_eq!(err, "`/no/such/server` not found");
    }
}
