//! Persistent command hooks (`persistent: true`): one process per hook and session, started
//! at the hook's first event, fed each event's Input as one line of compact JSON on stdin and
//! answering each with one line of Output JSON on stdout.
//!
//! The answer means exactly what a command hook's stdout means (the same parser), except that
//! a line that is not a JSON object is a failure: with one line per call there is no room for
//! plain-text context, and a stray `print` must not pass silently. Calls to one process are
//! serialised in arrival order (a fair lock). A failed call — timeout, crash, closed stdout,
//! not JSON — is that call's failure, with the event's usual meaning (a deny where the event
//! fails closed); the process is stopped and the next event starts a new one. Processes end
//! with their session ([`PersistentPool::stop`]) or when the pool is dropped.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tether_exec::sandbox::Sandbox;
use tether_exec::{Direct, LineError, LineService, ServiceSpec, Shell, StderrLog};
use tokio_util::sync::CancellationToken;

use crate::command_runner::{OUTPUT_CAP, duration_text};
use crate::output_parser::{self, Parsed};
use crate::registry::HookEnv;
use crate::result::Outcome;

/// How long to wait for the exit status of a process that closed its stdout.
const EXIT_WAIT: Duration = Duration::from_millis(200);

type Slot = Arc<tokio::sync::Mutex<Option<LineService>>>;

/// The running processes of one executor, by hook (its de-duplication key) and session.
#[derive(Debug, Default)]
pub(crate) struct PersistentPool {
    slots: Mutex<HashMap<(String, String), Slot>>,
}

/// One call to a persistent hook.
#[derive(Debug)]
pub(crate) struct PersistentCall<'a> {
    pub(crate) shell: &'a Shell,
    pub(crate) command: &'a str,
    /// The words to exec without the shell, when `command` allows it.
    pub(crate) direct: Option<&'a Direct>,
    /// Processes are shared by hooks with the same key (the same definition on several events).
    pub(crate) key: &'a str,
    pub(crate) name: &'a str,
    pub(crate) cwd: &'a Path,
    pub(crate) env: &'a HookEnv,
    pub(crate) session_id: &'a str,
    pub(crate) project_dir: &'a Path,
    /// Compact JSON: one line.
    pub(crate) payload: &'a [u8],
    pub(crate) timeout: Duration,
    pub(crate) cancel: &'a CancellationToken,
    /// The process runs in it, and each Input line says so (as a command hook's Input).
    pub(crate) sandbox: Option<&'a Arc<Sandbox>>,
}

impl PersistentPool {
    pub(crate) async fn run(&self, call: PersistentCall<'_>) -> Outcome {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let key = (call.key.to_owned(), call.session_id.to_owned());
            Arc::clone(slots.entry(key).or_default())
        };
        let mut guard = slot.lock().await;
        if guard.as_mut().is_some_and(|p| !p.usable()) {
            // It exited since its last answer: dropping it kills what is left of its group.
            drop(guard.take());
        }
        let process = match &mut *guard {
            Some(p) => p,
            None => match LineService::spawn(&spec(&call)) {
                Ok(p) => guard.insert(p),
                Err(e) => {
                    return Outcome::failed(format!("could not start hook {}: {e}", call.name));
                }
            },
        };
        let tagged = call
            .sandbox
            .map(|s| crate::sandbox::tag_input(call.payload, s));
        let payload = tagged.as_deref().unwrap_or(call.payload);
        let answer = process
            .call(payload, call.timeout, OUTPUT_CAP, Some(call.cancel))
            .await;
        let line = match answer {
            Ok(line) => line,
            Err(e) => {
                let outcome = failure(&call, process, &e).await;
                // The answer never came (or came broken): the process and its group are killed
                // now, not at the next event; that one starts a new process.
                drop(guard.take());
                return outcome;
            }
        };
        let stderr = process.take_fresh_stderr();
        let stdout = String::from_utf8_lossy(&line).into_owned();
        match output_parser::parse(&stdout) {
            Parsed::Output(output) => Outcome::Exited {
                code: 0,
                stdout,
                stderr,
                output: Some(output),
            },
            Parsed::PlainText(text) => Outcome::Failed {
                error: format!(
                    "hook {:?} answered with a line that is not a JSON object: {}",
                    call.name,
                    excerpt(&text)
                ),
                stdout,
                stderr,
                timed_out: false,
            },
        }
    }

    /// Stops the processes of `session` (every session's with `None`): stdin closed, `grace`
    /// to exit, then TERM, `grace`, KILL. Waits for calls in flight to finish first.
    pub(crate) async fn stop(&self, session: Option<&str>, grace: Duration) {
        for task in self.stop_in_background(session, grace) {
            // A panicked stop dropped its process, which kills its group.
            let _ = task.await;
        }
    }

    /// [`Self::stop`] on tasks of the runtime: stdin is closed now (for a process between
    /// calls), the rest happens while the caller goes on; each task ends when its process is
    /// gone.
    pub(crate) fn stop_in_background(
        &self,
        session: Option<&str>,
        grace: Duration,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        let tasks = self.take(session).into_iter().map(|slot| {
            let idle = slot.try_lock().ok().and_then(|mut p| p.take());
            let idle = idle.map(|mut p| {
                p.close_stdin();
                p
            });
            tokio::spawn(async move {
                let process = match idle {
                    Some(p) => Some(p),
                    // A call in flight: it ends first, as with `stop`.
                    None => slot.lock().await.take(),
                };
                if let Some(p) = process {
                    p.stop(grace).await;
                }
            })
        });
        tasks.collect()
    }

    /// Removes the slots of `session` (every session's with `None`).
    fn take(&self, session: Option<&str>) -> Vec<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let keys: Vec<_> = slots
            .keys()
            .filter(|(_, s)| session.is_none_or(|id| id == s))
            .cloned()
            .collect();
        keys.iter().filter_map(|k| slots.remove(k)).collect()
    }
}

fn spec(call: &PersistentCall<'_>) -> ServiceSpec {
    let mut env = call.env.vars.clone();
    env.push(("TETHER_SESSION_ID".into(), call.session_id.into()));
    env.push((
        "TETHER_PROJECT_DIR".into(),
        OsString::from(call.project_dir.as_os_str()),
    ));
    ServiceSpec {
        program: call.shell.program.clone().into_os_string(),
        args: call.shell.args(call.command),
        base_env: call.env.base.clone(),
        env,
        cwd: call.cwd.to_path_buf(),
        stderr: StderrLog {
            path: None,
            cap: 0,
            header: call.name.to_owned(),
        },
        direct: call.direct.cloned(),
        sandbox: call.sandbox.cloned(),
    }
}

/// The failed call's outcome; `process` is not used again.
async fn failure(call: &PersistentCall<'_>, process: &mut LineService, e: &LineError) -> Outcome {
    let name = call.name;
    let (error, timed_out) = match e {
        LineError::TimedOut => (
            format!(
                "hook {name:?} timed out after {}",
                duration_text(call.timeout)
            ),
            true,
        ),
        LineError::Cancelled => (format!("hook {name:?} was cancelled"), false),
        LineError::TooLong(cap) => (
            format!(
                "hook {name:?} answered with a line of more than {} MiB; it was stopped",
                cap >> 20
            ),
            false,
        ),
        LineError::Closed | LineError::Write(_) | LineError::Unusable => {
            let how = match process.exit_within(EXIT_WAIT).await {
                Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                    (Some(code), _) => format!("exited with status {code}"),
                    (None, Some(sig)) => format!("was killed by signal {sig}"),
                    (None, None) => "exited".to_owned(),
                },
                None => "closed its stdout".to_owned(),
            };
            let tail = process.stderr_tail();
            let detail = tail
                .lines()
                .last()
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            (
                format!("hook {name:?} {how} before answering{detail}"),
                false,
            )
        }
    };
    Outcome::Failed {
        error,
        stdout: String::new(),
        stderr: process.take_fresh_stderr(),
        timed_out,
    }
}

/// At most 200 characters of `text`, for an error message.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{:?}…", &text[..i]),
        None => format!("{text:?}"),
    }
}
