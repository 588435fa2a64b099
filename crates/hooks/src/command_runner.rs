//! Runs a `command` hook through `tether-exec` and turns the record into an [`Outcome`].

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tether_exec::{Direct, ExecRecord, ExecSpec, Shell, Stdin};
use tokio_util::sync::CancellationToken;

use crate::output_parser::{self, Parsed};
use crate::registry::HookEnv;
use crate::result::Outcome;

/// Per-stream output cap (docs/design.md, Bounded output).
pub const OUTPUT_CAP: usize = 4 * 1024 * 1024;

/// How long to wait for the pipes after the hook's shell exited (docs/design.md, Process groups).
pub const DRAIN_TIMEOUT: Duration = Duration::from_millis(250);

/// One command-hook invocation.
#[derive(Debug)]
pub(crate) struct CommandRun<'a> {
    pub(crate) shell: &'a Shell,
    pub(crate) command: &'a str,
    /// The words to exec without the shell, when `command` allows it.
    pub(crate) direct: Option<&'a Direct>,
    pub(crate) name: &'a str,
    pub(crate) cwd: &'a Path,
    pub(crate) env: &'a HookEnv,
    /// `TETHER_*` variables of this dispatch, set after the hook's own `env`.
    pub(crate) tether_env: [(OsString, OsString); 3],
    pub(crate) stdin: Arc<[u8]>,
    pub(crate) timeout: Duration,
    pub(crate) cancel: &'a CancellationToken,
    pub(crate) sandbox: Option<&'a Arc<tether_exec::sandbox::Sandbox>>,
}

pub(crate) async fn run(cmd: CommandRun<'_>) -> Outcome {
    let mut spec = ExecSpec::new(cmd.shell.program.clone(), cmd.cwd);
    spec.args = cmd.shell.args(cmd.command);
    spec.direct = cmd.direct.cloned();
    spec.base_env = cmd.env.base.clone();
    spec.env = cmd.env.vars.clone();
    spec.env.extend(cmd.tether_env);
    spec.stdin = Stdin::Bytes(match cmd.sandbox {
        Some(s) => crate::sandbox::tag_input(&cmd.stdin, s),
        None => cmd.stdin,
    });
    spec.sandbox = cmd.sandbox.cloned();
    spec.timeout = Some(cmd.timeout);
    spec.output_cap = OUTPUT_CAP;
    spec.drain_timeout = DRAIN_TIMEOUT;
    spec.cancel = Some(cmd.cancel.clone());
    let record = tether_exec::run(spec).await;
    outcome(cmd.name, cmd.timeout, record)
}

/// Go-style duration text for timeout messages (`5s`, `1m0s`, `1.5s`).
pub(crate) fn duration_text(d: Duration) -> String {
    let secs = d.as_secs();
    let millis = d.subsec_millis();
    match (secs, millis) {
        (s, 0) if s >= 60 => format!("{}m{}s", s / 60, s % 60),
        (s, 0) => format!("{s}s"),
        (s, m) => format!("{}s", s as f64 + f64::from(m) / 1000.0),
    }
}

fn outcome(name: &str, timeout: Duration, r: ExecRecord) -> Outcome {
    let stdout = r.stdout.lossy();
    let stderr = r.stderr.lossy();
    let failed = |error: String, timed_out: bool| Outcome::Failed {
        error,
        stdout: stdout.clone(),
        stderr: stderr.clone(),
        timed_out,
    };
    if let Some(cause) = &r.spawn_error {
        return failed(format!("could not start hook {name}: {cause}"), false);
    }
    if r.timed_out {
        return failed(
            format!("hook {name:?} timed out after {}", duration_text(timeout)),
            true,
        );
    }
    if r.cancelled {
        return failed(format!("hook {name:?} was cancelled"), false);
    }
    if r.overflowed {
        return failed(
            format!(
                "hook {name:?} printed more than {} MiB; it was killed",
                OUTPUT_CAP >> 20
            ),
            false,
        );
    }
    let Some(code) = r.exit_code else {
        let signal = r
            .signal
            .map_or_else(|| "unknown".to_owned(), |s| s.to_string());
        return failed(
            format!("hook {name:?} was killed by signal {signal}"),
            false,
        );
    };
    if code == 126 || code == 127 {
        let why = if code == 127 {
            "command not found"
        } else {
            "command not executable"
        };
        let detail = stderr.trim().lines().last().unwrap_or_default();
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        return failed(
            format!("hook {name:?} exited with status {code} ({why}){detail}"),
            false,
        );
    }
    let output = match (code, output_parser::parse(&stdout)) {
        (0, Parsed::Output(o)) => Some(o),
        _ => None,
    };
    Outcome::Exited {
        code,
        stdout,
        stderr,
        output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_go() {
        assert_eq!(duration_text(Duration::from_secs(5)), "5s");
        assert_eq!(duration_text(Duration::from_secs(60)), "1m0s");
        assert_eq!(duration_text(Duration::from_millis(1500)), "1.5s");
    }
}
