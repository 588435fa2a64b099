//! One spawn function for every child process.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::pin::pin;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe::Receiver;
use tokio::net::unix::pipe::Sender;
use tokio::process::Child;
use tokio::time::{Instant as TokioInstant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::child::{RawChild, Reader, Spawned, Writer};
use crate::direct::{self, Prepared, ShellFlavor};
use crate::reaper;
use crate::sandbox::{Launch, Prepared as Sandboxed, Sandbox};
use crate::spool::{Spool, Spooler};

/// How long a run that was killed (timeout, cancel, overflow) waits for its pipes and exit
/// status before giving up on them.
const KILL_GRACE: Duration = Duration::from_millis(500);

const READ_CHUNK: usize = 16 * 1024;

/// A spooled stream may be huge: read a whole pipe buffer (64 KiB on Linux) at a time.
const SPOOL_READ_CHUNK: usize = 64 * 1024;

/// What the child reads on stdin.
#[derive(Debug, Clone, Default)]
pub enum Stdin {
    /// `/dev/null` (tools).
    #[default]
    Null,
    /// These bytes, then end of file (hooks). Shared so many hooks can take one payload.
    Bytes(Arc<[u8]>),
}

/// Everything needed to run one child.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// The environment to start from; `None` inherits this process's environment.
    pub base_env: Option<Arc<[(OsString, OsString)]>>,
    /// Variables set on top of the base, in order (later wins).
    pub env: Vec<(OsString, OsString)>,
    pub cwd: PathBuf,
    pub stdin: Stdin,
    /// Kill the group when it runs longer than this.
    pub timeout: Option<Duration>,
    /// Byte cap per stream; past it the group is killed and `overflowed` is set.
    pub output_cap: usize,
    /// How long to wait for the pipes to close after the main process exited.
    pub drain_timeout: Duration,
    /// Kill the group when this is cancelled.
    pub cancel: Option<CancellationToken>,
    /// Give stderr the stdout pipe, so the two interleave as written (as a terminal shows
    /// them); everything lands in [`ExecRecord::stdout`] and `stderr` stays empty.
    pub merge_stderr: bool,
    /// Past `keep_in_memory` bytes, stdout (with `merge_stderr`, the merged stream) goes to a
    /// file instead of memory and is no longer subject to `output_cap`: the child is not
    /// killed for printing a lot. stderr, when separate, keeps its cap.
    pub spool: Option<Spool>,
    /// `program` and `args` are `SHELL -c TEXT` and TEXT is a plain word list: exec the words
    /// directly when that is sure to behave as the shell would (see `direct.rs`); otherwise,
    /// and whenever that spawn fails, run `program` as usual.
    pub direct: Option<Direct>,
    /// Run inside this sandbox; a sandbox that cannot be set up is a spawn error.
    pub sandbox: Option<Arc<Sandbox>>,
}

/// A plain command's words and the shell that would otherwise run them.
#[derive(Debug, Clone)]
pub struct Direct {
    pub flavor: ShellFlavor,
    /// The words as written; the first names the program.
    pub words: Arc<[OsString]>,
}

impl ExecSpec {
    /// A spec with the defaults hooks use: inherit the environment, 4 MiB caps, 250 ms drain.
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            base_env: None,
            env: Vec::new(),
            cwd: cwd.into(),
            stdin: Stdin::Null,
            timeout: None,
            output_cap: 4 * 1024 * 1024,
            drain_timeout: Duration::from_millis(250),
            cancel: None,
            merge_stderr: false,
            spool: None,
            direct: None,
            sandbox: None,
        }
    }
}

/// Captured output of one stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The bytes kept: at most the cap; when spooled, the last `keep_in_memory` bytes.
    pub bytes: Vec<u8>,
    /// Every byte read, kept or not.
    pub total: u64,
}

impl Output {
    pub fn lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// What happened to a child. Always produced, whatever went wrong.
#[derive(Debug, Clone, Default)]
pub struct ExecRecord {
    /// Exit code of a normal exit; `None` if it never started or died from a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any (including our own kill).
    pub signal: Option<i32>,
    pub stdout: Output,
    pub stderr: Output,
    pub timed_out: bool,
    pub cancelled: bool,
    /// A stream passed `output_cap`; the group was killed.
    pub overflowed: bool,
    /// Why the child could not be started (missing program, missing cwd, …).
    pub spawn_error: Option<String>,
    /// The pipes were still open after the drain timeout; the group was killed.
    pub drain_killed: bool,
    /// The file holding the whole of stdout, when it outgrew [`Spool::keep_in_memory`].
    pub spooled: Option<PathBuf>,
    /// Why spooling failed (directory not writable, disk full); only the tail was kept and
    /// no partial file is left behind.
    pub spool_error: Option<String>,
    pub pid: Option<u32>,
    /// The program ran without its shell ([`ExecSpec::direct`]).
    pub direct: bool,
    pub duration: Duration,
}

impl ExecRecord {
    /// The child exited by itself with a status code (not killed, not failed to start).
    pub fn exited_normally(&self) -> bool {
        self.exit_code.is_some() && !self.timed_out && !self.cancelled && !self.overflowed
    }
}

/// Runs a child to completion. Never panics; every failure is described in the record.
///
/// Boxed on purpose: the supervision state machine is large, and a box keeps every caller's
/// future (and, in debug builds, its stack frame) small.
pub fn run(
    spec: ExecSpec,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ExecRecord> + Send>> {
    Box::pin(run_unboxed(spec))
}

async fn run_unboxed(mut spec: ExecSpec) -> ExecRecord {
    let started = Instant::now();
    let mut record = ExecRecord::default();
    let marker = reaper::new_marker();
    spec.env.push((reaper::MARKER.into(), marker.clone()));
    let sandboxed = match spec.sandbox.as_ref().map(|s| s.prepare()).transpose() {
        Ok(sandboxed) => sandboxed,
        Err(e) => {
            record.spawn_error = Some(format!("sandbox: {e}"));
            record.duration = started.elapsed();
            return record;
        }
    };
    if let Some(s) = &sandboxed {
        spec.env.push(("TMPDIR".into(), s.tmpdir.clone().into()));
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
    // A direct spawn that fails goes through the shell, whose error message and exit status
    // (126, 127, a script without `#!` run by the shell) are the ones to report.
    let spawned = match prepared
        .as_ref()
        .map(|p| spawn(&spec, Some(p), sandboxed.as_ref()))
    {
        Some(Ok(spawned)) => {
            record.direct = true;
            Ok(spawned)
        }
        Some(Err(_)) | None => spawn(&spec, None, sandboxed.as_ref()),
    };
    let (mut child, merged) = match spawned {
        Ok(spawned) => spawned,
        Err(e) => {
            record.spawn_error = Some(e);
            record.duration = started.elapsed();
            return record;
        }
    };
    record.pid = child.id();
    supervise(&spec, &mut child, merged, &mut record).await;
    reaper::released(record.pid);
    // Whatever the run left behind (its group, descendants that left it) goes now.
    reaper::sweep(record.pid, &marker).await;
    record.duration = started.elapsed();
    record
}

/// Starts the child (`prepared`: the plain command without its shell); with `merge_stderr`
/// also returns the read end of its shared output pipe.
fn spawn(
    spec: &ExecSpec,
    prepared: Option<&Prepared>,
    sandboxed: Option<&Arc<Sandboxed>>,
) -> Result<(Spawned, Option<Receiver>), String> {
    if !spec.cwd.is_dir() {
        return Err(format!(
            "working directory `{}` does not exist",
            spec.cwd.display()
        ));
    }
    let (outputs, merged) = match spec.merge_stderr {
        true => {
            let (stdout, stderr, receiver) = shared_pipe()?;
            (Some([stdout, stderr]), Some(receiver))
        }
        false => (None, None),
    };
    // Our own children are listed before a sweep may look at them.
    let mut own = reaper::own();
    let spawned = match sandboxed {
        Some(s) if launchable(spec, prepared) => {
            spawn_launched(spec, prepared, s, outputs).map(Spawned::Raw)
        }
        _ => spawn_command(spec, prepared, sandboxed, outputs).map(Spawned::Tokio),
    }
    .map_err(|e| {
        let program = spec.program.to_string_lossy();
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("`{program}` not found")
        } else {
            let place = if sandboxed.is_some() {
                " (in the sandbox)"
            } else {
                ""
            };
            format!("`{program}`: {e}{place}")
        }
    })?;
    own.extend(spawned.id().and_then(|p| i32::try_from(p).ok()));
    Ok((spawned, merged))
}

/// Whether the sandboxed child can be started by our own clone: its program is named by a
/// path (a bare name is left to std's `PATH` search), and the kernel has pidfds (Linux 5.2),
/// as every kernel with Landlock (5.13) has; a best-effort sandbox without Landlock forks.
fn launchable(spec: &ExecSpec, prepared: Option<&Prepared>) -> bool {
    (prepared.is_some() || spec.program.as_bytes().contains(&b'/'))
        && crate::sandbox::landlock_abi() > 0
}

/// Starts the child through std (tokio): `outputs` are the write ends for stdout and stderr
/// when they share a pipe.
fn spawn_command(
    spec: &ExecSpec,
    prepared: Option<&Prepared>,
    sandboxed: Option<&Arc<Sandboxed>>,
    outputs: Option<[OwnedFd; 2]>,
) -> std::io::Result<Child> {
    // An absolute program, no `pre_exec` and the group set through spawn attributes let std
    // use posix_spawn (vfork) instead of fork.
    #[expect(clippy::disallowed_methods, reason = "this is the one spawn function")]
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
    cmd.current_dir(&spec.cwd)
        .process_group(0)
        .kill_on_drop(true)
        .stdin(match spec.stdin {
            Stdin::Null => Stdio::null(),
            Stdin::Bytes(_) => Stdio::piped(),
        });
    match outputs {
        Some([stdout, stderr]) => cmd.stdout(stdout).stderr(stderr),
        None => cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
    };
    // `cmd` (and with it our copies of the write ends) is dropped by the spawn, so the reader
    // sees end of file once the child's group closes them.
    crate::sandbox::spawn(cmd, sandboxed)
}

/// Starts the sandboxed child by our own clone, which copies no page tables (see
/// `sandbox/launch.rs`); the same child as [`spawn_command`] would start.
fn spawn_launched(
    spec: &ExecSpec,
    prepared: Option<&Prepared>,
    sandboxed: &Arc<Sandboxed>,
    outputs: Option<[OwnedFd; 2]>,
) -> std::io::Result<RawChild> {
    let (stdin, our_stdin) = match spec.stdin {
        Stdin::Null => (OwnedFd::from(std::fs::File::open("/dev/null")?), None),
        Stdin::Bytes(_) => {
            let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
            (read, Some(Sender::from_owned_fd(write)?))
        }
    };
    let (stdout, stderr, our_stdout, our_stderr) = match outputs {
        Some([stdout, stderr]) => (stdout, stderr, None, None),
        None => {
            let (out_read, out_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
            let (err_read, err_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
            (
                out_write,
                err_write,
                Some(Receiver::from_owned_fd(out_read)?),
                Some(Receiver::from_owned_fd(err_read)?),
            )
        }
    };
    let stdio = [stdin, stdout, stderr];
    let launch = match prepared {
        Some(p) => Launch::new(
            p.program.as_os_str(),
            std::iter::once(p.arg0.as_os_str()).chain(p.args.iter().map(OsString::as_os_str)),
            p.env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())),
            &spec.cwd,
            stdio,
        )?,
        None => {
            let env = direct::merged_env(spec.base_env.as_deref(), &spec.env);
            Launch::new(
                &spec.program,
                std::iter::once(spec.program.as_os_str())
                    .chain(spec.args.iter().map(OsString::as_os_str)),
                env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())),
                &spec.cwd,
                stdio,
            )?
        }
    };
    // The launch (holding the child's ends of its pipes) is gone once the child started.
    let (pid, pidfd) = crate::sandbox::launch(launch, sandboxed)?;
    let mut child = RawChild::new(pid, pidfd)?;
    child.stdin = our_stdin;
    child.stdout = our_stdout;
    child.stderr = our_stderr;
    Ok(child)
}

/// One pipe whose write end serves as both stdout and stderr. Close-on-exec, so children
/// spawned concurrently by other runs never inherit it (which would hold it open).
fn shared_pipe() -> Result<(OwnedFd, OwnedFd, Receiver), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot create the output pipe: {e}");
    let (read, write) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| fail(&e))?;
    let write2 = write.try_clone().map_err(|e| fail(&e))?;
    let receiver = Receiver::from_owned_fd(read).map_err(|e| fail(&e))?;
    Ok((write, write2, receiver))
}

async fn write_stdin(stdin: Option<Writer>, bytes: Option<Arc<[u8]>>) {
    if let (Some(mut stdin), Some(bytes)) = (stdin, bytes) {
        // A child that never reads stdin, or exits early, makes this fail: that is its choice.
        let _ = stdin.write_all(&bytes).await;
        let _ = stdin.shutdown().await;
    }
}

/// Reads one chunk; `None` at end of stream or on a read error.
async fn read_chunk<R: AsyncRead + Unpin>(reader: &mut Option<R>, buf: &mut [u8]) -> Option<usize> {
    let r = reader.as_mut()?;
    match r.read(buf).await {
        Ok(0) | Err(_) => None,
        Ok(n) => Some(n),
    }
}

fn keep(out: &mut Output, data: &[u8], cap: usize) -> bool {
    out.total += data.len() as u64;
    let room = cap.saturating_sub(out.bytes.len());
    out.bytes.extend_from_slice(&data[..data.len().min(room)]);
    out.total > cap as u64
}

fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        // ESRCH (the group is already gone) is fine.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

fn record_status(record: &mut ExecRecord, status: ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    record.exit_code = status.code();
    record.signal = status.signal();
}

async fn supervise(
    spec: &ExecSpec,
    child: &mut Spawned,
    merged: Option<Receiver>,
    record: &mut ExecRecord,
) {
    let pid = record.pid;
    let mut stdout: Option<Reader> = match merged {
        Some(receiver) => Some(Box::pin(receiver)),
        None => child.take_stdout(),
    };
    let mut stderr: Option<Reader> = child.take_stderr();
    let mut spooler = spec.spool.as_ref().map(Spooler::new);
    let stdin_bytes = match &spec.stdin {
        Stdin::Bytes(b) => Some(Arc::clone(b)),
        Stdin::Null => None,
    };
    let mut writer = pin!(write_stdin(child.take_stdin(), stdin_bytes));
    let mut writer_done = false;

    let far = TokioInstant::now() + Duration::from_secs(60 * 60 * 24 * 365);
    let deadline = spec.timeout.map_or(far, |t| TokioInstant::now() + t);
    let mut timeout = pin!(sleep_until(deadline));
    // Armed once the main process exits, or once we killed the group.
    let mut drain = pin!(sleep_until(far));
    let cancel = spec.cancel.clone().unwrap_or_default();
    let mut cancelled = pin!(cancel.cancelled_owned());

    let mut out_buf = vec![
        0u8;
        if spooler.is_some() {
            SPOOL_READ_CHUNK
        } else {
            READ_CHUNK
        }
    ];
    let mut err_buf = vec![0u8; READ_CHUNK];
    let mut exited = false;
    let mut killed = false;

    loop {
        if exited && stdout.is_none() && stderr.is_none() {
            break;
        }
        tokio::select! {
            status = child.wait(), if !exited => {
                exited = true;
                if let Ok(status) = status {
                    record_status(record, status);
                }
                if !killed {
                    drain.as_mut().reset(TokioInstant::now() + spec.drain_timeout);
                }
            }
            n = read_chunk(&mut stdout, &mut out_buf), if stdout.is_some() => match (n, &mut spooler) {
                (Some(n), Some(spooler)) => spooler.push(&out_buf[..n]).await,
                (Some(n), None) => if keep(&mut record.stdout, &out_buf[..n], spec.output_cap) && !killed {
                    record.overflowed = true;
                    killed = kill(pid, &mut drain);
                },
                (None, _) => stdout = None,
            },
            n = read_chunk(&mut stderr, &mut err_buf), if stderr.is_some() => match n {
                Some(n) => if keep(&mut record.stderr, &err_buf[..n], spec.output_cap) && !killed {
                    record.overflowed = true;
                    killed = kill(pid, &mut drain);
                },
                None => stderr = None,
            },
            () = &mut writer, if !writer_done => writer_done = true,
            () = &mut timeout, if !killed && !exited => {
                record.timed_out = true;
                killed = kill(pid, &mut drain);
            }
            () = &mut cancelled, if !killed && !exited => {
                record.cancelled = true;
                killed = kill(pid, &mut drain);
            }
            () = &mut drain => {
                if !killed {
                    // The main process exited but something in its group still holds the pipes.
                    record.drain_killed = true;
                    killed = kill(pid, &mut drain);
                    continue;
                }
                break;
            }
        }
    }
    if !exited && let Ok(Ok(status)) = tokio::time::timeout(KILL_GRACE, child.wait()).await {
        record_status(record, status);
    }
    if let Some(spooler) = spooler {
        let outcome = spooler.finish(&mut record.stdout).await;
        record.spooled = outcome.path;
        record.spool_error = outcome.error;
    }
}

/// Kills the group and arms the grace period; returns `true` for `killed`.
fn kill(pid: Option<u32>, drain: &mut std::pin::Pin<&mut tokio::time::Sleep>) -> bool {
    kill_group(pid);
    drain.as_mut().reset(TokioInstant::now() + KILL_GRACE);
    true
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
