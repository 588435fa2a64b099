//! The `shell` tool: one command through `tether-exec`, shown the way a terminal would.
//!
//! stdout and stderr share one pipe so they interleave as written; stdin is `/dev/null` so a
//! prompt fails fast instead of hanging; the command runs in its own process group, killed
//! with everything it started on timeout or cancellation. Huge output is spooled to a file
//! (the model sees the tail and the file's path) so memory stays bounded without killing a
//! command for being talkative. How the command ended is appended as a bracketed last line.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_exec::{ExecRecord, ExecSpec, Shell, Spool, Stdin};

use crate::args::{parse, resolve};
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolResult};

/// Used when the call gives no `timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Output kept in memory (and shown to the model) once a command's output is spooled.
pub const KEEP_IN_MEMORY: usize = 256 * 1024;

/// Longest accepted `timeout` (larger values are clamped).
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// The toolset's system-prompt text.
pub const SHELL_INSTRUCTION: &str = "## Shell Tools\n\n- Each call runs in a fresh shell session: no state (cd, variables) persists between calls\n- Use the \"cwd\" argument instead of cd within commands\n- Default timeout: 120s; set \"timeout\" for longer operations (builds, tests)\n- stdin is closed: use non-interactive flags (-y, --yes, --no-pager)\n- A non-zero exit is reported as an error, with [exit status N] on the last line";

const DESCRIPTION: &str = "Executes the given shell command in the user's default shell and returns its output, with stdout and stderr interleaved as a terminal shows them. Each call runs in a fresh shell in the working directory; stdin is closed. The command and every process it started are killed after `timeout` seconds (default 120). A non-zero exit status is an error and is shown as `[exit status N]` on the last line. Very long output is cut to its end and the full output is saved to a file whose path is given.";

/// The default spool directory: per process, so concurrent users and runs never collide;
/// the runtime may delete it when it exits.
pub fn default_spool_dir() -> PathBuf {
    std::env::temp_dir().join(format!("tether-shell-output-{}", std::process::id()))
}

#[derive(Debug, Deserialize)]
struct ShellArgs {
    cmd: Option<String>,
    cwd: Option<String>,
    timeout: Option<f64>,
}

/// The `shell` tool.
#[derive(Debug)]
pub struct ShellTool {
    definition: ToolDefinition,
    shell: Shell,
    /// The toolset's `env`, set after `ToolContext::env` (the toolset is more specific).
    env: Vec<(OsString, OsString)>,
    spool_dir: PathBuf,
    default_timeout: Duration,
}

impl ShellTool {
    pub fn new(shell: Shell, env: &[(String, String)]) -> Self {
        Self {
            definition: ToolDefinition {
                name: "shell".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(
                    json!({
                        "cmd": string("The shell command to run"),
                        "cwd": string("Working directory for the command, relative to the working directory (default \".\")"),
                        "timeout": {"description": "Timeout in seconds (default 120)", "type": "integer"},
                    }),
                    &["cmd"],
                ),
                read_only: false,
                category: "shell",
            },
            shell,
            env: env
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect(),
            spool_dir: default_spool_dir(),
            default_timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Where output larger than [`KEEP_IN_MEMORY`] is written.
    #[must_use]
    pub fn with_spool_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spool_dir = dir.into();
        self
    }

    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    pub fn spool_dir(&self) -> &std::path::Path {
        &self.spool_dir
    }

    fn spec(
        &self,
        args: ShellArgs,
        ctx: ToolContext<'_>,
    ) -> Result<(ExecSpec, Duration), ToolError> {
        // Only `cmd`: permission rules and hooks read that key, so no other may run.
        let cmd = args
            .cmd
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| ToolError::invalid("shell", "`cmd` is missing or empty"))?;
        let timeout = args
            .timeout
            .filter(|t| *t > 0.0)
            .and_then(|t| Duration::try_from_secs_f64(t).ok())
            .map_or(self.default_timeout, |t| t.min(MAX_TIMEOUT));
        let cwd = match args.cwd.as_deref() {
            None | Some("") => ctx.working_dir.to_path_buf(),
            Some(dir) => resolve(ctx.working_dir, dir),
        };
        let spec = command_spec(
            &self.shell,
            &cmd,
            cwd,
            &self.env,
            timeout,
            &ctx,
            &self.spool_dir,
        );
        Ok((spec, timeout))
    }
}

/// A command run by `shell -c`, as the shell tool and script tools run theirs: no stdin,
/// stderr merged into stdout, huge output spooled, killed with its group on timeout or
/// cancellation. `env` goes after the context's (it is more specific).
pub(crate) fn command_spec(
    shell: &Shell,
    cmd: &str,
    cwd: PathBuf,
    env: &[(OsString, OsString)],
    timeout: Duration,
    ctx: &ToolContext<'_>,
    spool_dir: &std::path::Path,
) -> ExecSpec {
    let mut spec = ExecSpec::new(shell.program.clone(), cwd);
    spec.args = shell.args(cmd);
    spec.env = ctx.env.to_vec();
    spec.env.extend(env.iter().cloned());
    spec.stdin = Stdin::Null;
    spec.timeout = Some(timeout);
    spec.cancel = Some(ctx.cancel.clone());
    spec.merge_stderr = true;
    spec.spool = Some(Spool {
        dir: spool_dir.to_path_buf(),
        keep_in_memory: KEEP_IN_MEMORY,
    });
    spec
}

impl Tool for ShellTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let spec = parse::<ShellArgs>("shell", args).and_then(|a| self.spec(a, ctx));
            match spec {
                Ok((spec, timeout)) => render(&tether_exec::run(spec).await, timeout),
                Err(e) => e.into(),
            }
        })
    }
}

/// The model's view of a finished run: the output, then one bracketed line per notable fact.
pub(crate) fn render(r: &ExecRecord, timeout: Duration) -> ToolResult {
    if let Some(cause) = &r.spawn_error {
        return ToolResult::error(format!("cannot run the command: {cause}"));
    }
    let cut = r.stdout.total > r.stdout.bytes.len() as u64;
    let bytes = if cut {
        // The tail may start inside a character: drop its continuation bytes.
        let skip = r
            .stdout
            .bytes
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xc0) == 0x80)
            .count();
        &r.stdout.bytes[skip..]
    } else {
        &r.stdout.bytes[..]
    };
    let mut content = String::from_utf8_lossy(bytes).into_owned();
    let mut notes = Vec::new();
    if cut {
        let whole = match (&r.spooled, &r.spool_error) {
            (Some(path), _) => format!("the full output is in `{}`", path.display()),
            (None, Some(e)) => format!("the full output could not be saved: {e}"),
            (None, None) => "the rest was discarded".to_owned(),
        };
        notes.push(format!(
            "[output truncated: {} bytes in total, only the last {} are shown; {whole}]",
            r.stdout.total,
            bytes.len()
        ));
    }
    if r.drain_killed {
        notes.push("[processes started by the command kept its output open after it exited; they were killed]".to_owned());
    }
    let mut is_error = true;
    if r.timed_out {
        notes.push(format!(
            "[timed out after {}s; the command and every process it started were killed]",
            timeout.as_secs_f64()
        ));
    } else if r.cancelled {
        notes.push("[cancelled; the command and every process it started were killed]".to_owned());
    } else if let Some(code) = r.exit_code {
        is_error = code != 0;
        if is_error {
            notes.push(format!("[exit status {code}]"));
        }
    } else if let Some(signal) = r.signal {
        notes.push(format!(
            "[killed by signal {signal}{}]",
            signal_name(signal)
        ));
    } else {
        notes.push("[the command's exit status is unknown]".to_owned());
    }
    if !notes.is_empty() {
        if !content.is_empty() && !content.ends_with('\n') {
            content.push('\n');
        }
        content.push_str(&notes.join("\n"));
    }
    ToolResult {
        content,
        is_error,
        spool: r.spooled.clone(),
        structured: None,
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        3 => " (SIGQUIT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tether_exec::Output;

    use super::*;

    fn exited(code: i32, out: &[u8]) -> ExecRecord {
        ExecRecord {
            exit_code: Some(code),
            stdout: Output {
                bytes: out.to_vec(),
                total: out.len() as u64,
            },
            ..ExecRecord::default()
        }
    }

    #[test]
    fn a_cut_tail_starts_at_a_character_boundary() {
        let mut r = exited(0, "\u{e9}t\u{e9}\n".as_bytes());
        // Keep from the middle of the first `é` (its continuation byte) onwards.
        r.stdout.bytes.remove(0);
        r.stdout.total = 100;
        r.spool_error = Some("cannot create `/x`: permission denied".to_owned());
        assert_eq!(
            render(&r, DEFAULT_TIMEOUT),
            ToolResult::ok(
                "t\u{e9}\n[output truncated: 100 bytes in total, only the last 4 are shown; the full output could not be saved: cannot create `/x`: permission denied]"
            )
        );
    }

    #[test]
    fn drain_kills_and_odd_endings_are_explained() {
        let mut r = exited(0, b"started\n");
        r.drain_killed = true;
        assert_eq!(
            render(&r, DEFAULT_TIMEOUT),
            ToolResult::ok(
                "started\n[processes started by the command kept its output open after it exited; they were killed]"
            )
        );
        let r = ExecRecord {
            signal: Some(64),
            ..ExecRecord::default()
        };
        assert_eq!(
            render(&r, DEFAULT_TIMEOUT),
            ToolResult::error("[killed by signal 64]")
        );
        let r = ExecRecord::default();
        assert_eq!(
            render(&r, DEFAULT_TIMEOUT),
            ToolResult::error("[the command's exit status is unknown]")
        );
    }

    #[test]
    fn timeouts_are_given_in_seconds_and_clamped() {
        let tool = ShellTool::new(
            Shell {
                program: "/bin/sh".into(),
                kind: tether_exec::ShellKind::Sh,
            },
            &[],
        );
        let cancel = tokio_util::sync::CancellationToken::new();
        let ctx = ToolContext {
            working_dir: std::path::Path::new("/"),
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        let cases = [
            (None, DEFAULT_TIMEOUT),
            (Some(0.0), DEFAULT_TIMEOUT),
            (Some(-5.0), DEFAULT_TIMEOUT),
            (Some(f64::NAN), DEFAULT_TIMEOUT),
            (Some(2.5), Duration::from_millis(2500)),
            (Some(1e12), MAX_TIMEOUT),
        ];
        for (timeout, want) in cases {
            let args = ShellArgs {
                cmd: Some("true".to_owned()),
                cwd: None,
                timeout,
            };
            let (spec, got) = tool.spec(args, ctx).unwrap();
            assert_eq!((got, spec.timeout), (want, Some(want)), "{timeout:?}");
        }
    }
}
