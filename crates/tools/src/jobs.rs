//! `type: background_jobs`: docker-agent's `run_background_job`, `list_background_jobs`,
//! `view_background_job` and `stop_background_job`.
//!
//! A job is a shell command started as a [`tether_exec::Service`]: its own process group, stdin
//! closed, stderr joined to stdout (`exec 2>&1` before the command, in a POSIX shell), the
//! combined output kept up to [`OUTPUT_CAP`] bytes and the rest counted and dropped. When the
//! command ends, whatever it left behind (a `sleep 60 &`) is killed with its group, so a job
//! never outlives itself; [`JobTable::stop_all`] kills every running job when the runtime stops,
//! and dropping a job's service kills its group as a last resort. Only `cmd` (and `cwd`) are
//! read: hooks and permission rules match on `cmd`, so no alias may smuggle another command.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_exec::{Service, ServiceSpec, Shell, StderrLog};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::args::{parse, resolve};
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolResult};

/// Bytes of output kept per job, as docker-agent keeps them.
pub const OUTPUT_CAP: usize = 10 * 1024 * 1024;

/// How long a stopped job gets after each signal (TERM, then KILL).
const STOP_GRACE: Duration = Duration::from_millis(500);

/// How long the output reader may still run once the command exited.
const DRAIN: Duration = Duration::from_millis(500);

/// The toolset's system-prompt text.
pub const JOBS_INSTRUCTION: &str = "## Background Jobs\n\nUse run_background_job for long-running processes (servers, watchers). Output capped at 10MB per job. All jobs auto-terminate when the agent stops.";

/// The jobs of one run: every `background_jobs` toolset registers its jobs here, so the
/// runtime can stop them all when it ends.
#[derive(Debug, Default)]
pub struct JobTable {
    jobs: Mutex<Vec<Arc<Job>>>,
    next: AtomicU64,
}

impl JobTable {
    /// Stops every running job and waits until each is gone.
    pub async fn stop_all(&self) {
        let jobs = self
            .jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        futures::future::join_all(jobs.iter().map(|j| j.stop_and_wait())).await;
    }

    /// The number of jobs still running.
    pub fn running(&self) -> usize {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|j| j.state() == State::Running)
            .count()
    }

    fn find(&self, id: &str) -> Option<Arc<Job>> {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|j| j.id == id)
            .cloned()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Completed,
    Failed,
    Stopped,
}

impl State {
    const fn name(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
        }
    }
}

/// The output kept so far.
#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: u64,
}

impl Captured {
    fn push(&mut self, data: &[u8]) {
        let room = OUTPUT_CAP.saturating_sub(self.bytes.len());
        let kept = room.min(data.len());
        self.bytes.extend_from_slice(&data[..kept]);
        self.dropped += (data.len() - kept) as u64;
    }
}

#[derive(Debug)]
struct Job {
    id: String,
    cmd: String,
    cwd: String,
    started: Instant,
    output: Mutex<Captured>,
    /// The state and, once ended, the exit code (-1 when killed by a signal).
    end: Mutex<(State, Option<i32>)>,
    stop: CancellationToken,
    done: watch::Receiver<bool>,
}

impl Job {
    fn state(&self) -> State {
        self.end.lock().unwrap_or_else(PoisonError::into_inner).0
    }

    fn exit_code(&self) -> Option<i32> {
        self.end.lock().unwrap_or_else(PoisonError::into_inner).1
    }

    async fn stop_and_wait(&self) {
        self.stop.cancel();
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d).await;
    }
}

/// Starts `cmd`, returns the job at once; a task watches it until it ends or is stopped.
fn start(
    table: &Arc<JobTable>,
    shell: &Shell,
    cmd: &str,
    cwd_arg: &str,
    cwd: PathBuf,
    env: Vec<(OsString, OsString)>,
) -> Result<Arc<Job>, String> {
    let spec = ServiceSpec {
        program: shell.program.clone().into_os_string(),
        args: shell.args(&script(&shell.program, cmd)),
        base_env: None,
        env,
        cwd,
        stderr: StderrLog {
            path: None,
            cap: 0,
            header: String::new(),
        },
        direct: None,
        sandbox: None,
    };
    let (service, stdin, stdout) = Service::spawn(&spec)?;
    drop(stdin);
    let n = table.next.fetch_add(1, Ordering::Relaxed) + 1;
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (done_tx, done) = watch::channel(false);
    let job = Arc::new(Job {
        id: format!("job_{secs}_{n}"),
        cmd: cmd.to_owned(),
        cwd: cwd_arg.to_owned(),
        started: Instant::now(),
        output: Mutex::new(Captured::default()),
        end: Mutex::new((State::Running, None)),
        stop: CancellationToken::new(),
        done,
    });
    table
        .jobs
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Arc::clone(&job));
    tokio::spawn(watch_job(Arc::clone(&job), service, stdout, done_tx));
    Ok(job)
}

/// The text the shell runs: stderr joined to stdout first, where the shell speaks POSIX.
fn script(program: &Path, cmd: &str) -> String {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(
        name.as_str(),
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "busybox"
    ) {
        format!("exec 2>&1\n{cmd}")
    } else {
        cmd.to_owned()
    }
}

async fn watch_job(
    job: Arc<Job>,
    mut service: Service,
    mut stdout: tokio::process::ChildStdout,
    done: watch::Sender<bool>,
) {
    let reader_job = Arc::clone(&job);
    let mut reader = tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        while let Ok(n) = stdout.read(&mut buf).await {
            if n == 0 {
                break;
            }
            reader_job
                .output
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(&buf[..n]);
        }
    });
    let status = tokio::select! {
        status = service.wait() => Some(status),
        () = job.stop.cancelled() => None,
    };
    // The command's own last words, unless something it started holds the pipe open.
    let read_all = status.is_some() && tokio::time::timeout(DRAIN, &mut reader).await.is_ok();
    // Kills what is left of the group (everything, when stopped) and reaps it.
    let stopped_status = service.stop(STOP_GRACE).await;
    if !read_all {
        let _ = tokio::time::timeout(DRAIN, &mut reader).await;
    }
    reader.abort();
    let end = match status {
        Some(status) => {
            let code = status.and_then(|s| s.code()).unwrap_or(-1);
            let state = if code == 0 {
                State::Completed
            } else {
                State::Failed
            };
            (state, Some(code))
        }
        None => (
            State::Stopped,
            Some(stopped_status.and_then(|s| s.code()).unwrap_or(-1)),
        ),
    };
    *job.end.lock().unwrap_or_else(PoisonError::into_inner) = end;
    let _ = done.send(true);
}

#[derive(Debug, Deserialize)]
struct RunArgs {
    cmd: Option<String>,
    cwd: Option<String>,
}

#[derive(Debug, Deserialize)]
struct JobArgs {
    job_id: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Which {
    Run,
    List,
    View,
    Stop,
}

/// One tool of the set.
#[derive(Debug)]
pub struct JobTool {
    definition: ToolDefinition,
    which: Which,
    table: Arc<JobTable>,
    shell: Shell,
    env: Vec<(OsString, OsString)>,
}

impl JobTool {
    /// The four tools over `table`, running commands with `shell` and the toolset's `env`.
    pub fn all(
        table: &Arc<JobTable>,
        shell: &Shell,
        env: &[(String, String)],
    ) -> Vec<Arc<dyn Tool>> {
        let env: Vec<(OsString, OsString)> = env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect();
        let job_id = || object(json!({"job_id": string("Background job ID")}), &["job_id"]);
        let tools = [
            (
                Which::Run,
                "run_background_job",
                "Starts a shell command in the background and returns immediately with a job ID. Use this for long-running processes like servers, watches, or any command that should run while other tasks are performed.",
                object(
                    json!({
                        "cmd": string("Shell command to run in background"),
                        "cwd": string("Working directory (default \".\")"),
                    }),
                    &["cmd"],
                ),
                false,
            ),
            (
                Which::List,
                "list_background_jobs",
                "Lists all background jobs with their status, runtime, and other information.",
                object(json!({}), &[]),
                true,
            ),
            (
                Which::View,
                "view_background_job",
                "Views the output and status of a specific background job by job ID.",
                job_id(),
                true,
            ),
            (
                Which::Stop,
                "stop_background_job",
                "Stops a running background job by job ID. The process and all its child processes will be terminated.",
                job_id(),
                false,
            ),
        ];
        tools
            .into_iter()
            .map(|(which, name, description, parameters, read_only)| {
                Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "shell",
                    },
                    which,
                    table: Arc::clone(table),
                    shell: shell.clone(),
                    env: env.clone(),
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    fn run(&self, args: &Map<String, Value>, ctx: ToolContext<'_>) -> Result<String, ToolError> {
        let args: RunArgs = parse(&self.definition.name, args)?;
        let cmd = args.cmd.filter(|c| !c.trim().is_empty()).ok_or_else(|| {
            ToolError::Rejected(
                "Error: missing or empty \"cmd\" parameter. Pass the shell command as {\"cmd\": \"...\"}.".to_owned(),
            )
        })?;
        let cwd_arg = args.cwd.unwrap_or_default();
        let cwd = match cwd_arg.as_str() {
            "" | "." => ctx.working_dir.to_path_buf(),
            dir => resolve(ctx.working_dir, dir),
        };
        let mut env = ctx.env.to_vec();
        env.extend(self.env.iter().cloned());
        let job = start(&self.table, &self.shell, &cmd, &cwd_arg, cwd, env)
            .map_err(|e| ToolError::Rejected(format!("Error starting background command: {e}")))?;
        Ok(format!(
            "Background job started with ID: {}\nCommand: {}\nWorking directory: {}",
            job.id, job.cmd, job.cwd
        ))
    }

    fn list(&self) -> String {
        let jobs = self
            .table
            .jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut out = String::from("Background Jobs:\n\n");
        for job in &jobs {
            let state = job.state();
            let _ = writeln!(out, "ID: {}", job.id);
            let _ = writeln!(out, "  Command: {}", job.cmd);
            let _ = writeln!(out, "  Status: {}", state.name());
            let _ = writeln!(out, "  Runtime: {}", runtime(job.started));
            if let (false, Some(code)) = (state == State::Running, job.exit_code()) {
                let _ = writeln!(out, "  Exit Code: {code}");
            }
            out.push('\n');
        }
        if jobs.is_empty() {
            out.push_str("No background jobs found.\n");
        }
        out
    }

    fn job(&self, args: &Map<String, Value>) -> Result<Arc<Job>, ToolError> {
        let args: JobArgs = parse(&self.definition.name, args)?;
        let id = args.job_id.unwrap_or_default();
        self.table
            .find(&id)
            .ok_or_else(|| ToolError::Rejected(format!("Job not found: {id}")))
    }

    fn view(&self, job: &Job) -> String {
        let state = job.state();
        let mut out = String::new();
        let _ = writeln!(out, "Job ID: {}", job.id);
        let _ = writeln!(out, "Command: {}", job.cmd);
        let _ = writeln!(out, "Status: {}", state.name());
        let _ = writeln!(out, "Runtime: {}", runtime(job.started));
        if let (false, Some(code)) = (state == State::Running, job.exit_code()) {
            let _ = writeln!(out, "Exit Code: {code}");
        }
        out.push_str("\n--- Output ---\n");
        let captured = job.output.lock().unwrap_or_else(PoisonError::into_inner);
        if captured.bytes.is_empty() {
            out.push_str("<no output>\n");
        } else {
            out.push_str(&String::from_utf8_lossy(&captured.bytes));
            if captured.dropped > 0 {
                let _ = write!(
                    out,
                    "\n\n[Output truncated at 10MB limit: {} more bytes dropped]",
                    captured.dropped
                );
            }
        }
        out
    }

    async fn stop(&self, job: &Job) -> Result<String, ToolError> {
        let state = job.state();
        if state != State::Running {
            return Err(ToolError::Rejected(format!(
                "Job {} is not running (current status: {})",
                job.id,
                state.name()
            )));
        }
        job.stop_and_wait().await;
        match job.state() {
            State::Stopped => Ok(format!("Job {} stopped successfully", job.id)),
            // It ended by itself while being stopped.
            other => Err(ToolError::Rejected(format!(
                "Job {} is not running (current status: {})",
                job.id,
                other.name()
            ))),
        }
    }
}

/// Seconds since `started`, as Go prints a rounded duration (`1m5s`).
fn runtime(started: Instant) -> String {
    let secs = started.elapsed().as_secs_f64().round() as u64;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m{s}s"),
        _ => format!("{h}h{m}m{s}s"),
    }
}

impl Tool for JobTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let result = match self.which {
                Which::Run => self.run(args, ctx),
                Which::List => Ok(self.list()),
                Which::View => self.job(args).map(|j| self.view(&j)),
                Which::Stop => match self.job(args) {
                    Ok(job) => self.stop(&job).await,
                    Err(e) => Err(e),
                },
            };
            match result {
                Ok(text) => ToolResult::ok(text),
                Err(e) => e.into(),
            }
        })
    }
}

#[cfg(test)]
#[path = "jobs_tests.rs"]
mod tests;
