//! Writing to the terminal: data on stdout, diagnostics on stderr, broken pipes are not errors.

use std::io::Write;

/// Writes a line to stdout.
pub(crate) fn line(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Writes `value` as pretty-printed JSON and a newline to stdout. Streamed: a large value (the
/// tool output a hook rewrote, megabytes) is escaped straight into a small buffer on its way to
/// stdout instead of into a string of its own first.
pub(crate) fn json_line(value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `error: …` on stderr.
pub(crate) fn error(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// A plain note on stderr.
pub(crate) fn note(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

/// `warning: …` on stderr.
pub(crate) fn warning(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

/// The variable that turns diagnostic logs on.
pub(crate) const LOG_ENV: &str = "TETHER_LOG";

/// Diagnostic logs on stderr: the `tracing` events of every crate (for example a hook's error,
/// including an `http_post` or `unload` that was not delivered, at `debug`), filtered by
/// `TETHER_LOG` in `RUST_LOG` syntax (`debug`, `tether_hooks=debug`). Unset or empty: none.
pub(crate) fn init_logs() {
    let Some(spec) = std::env::var_os(LOG_ENV).filter(|spec| !spec.is_empty()) else {
        return;
    };
    match tracing_subscriber::EnvFilter::try_new(spec.to_string_lossy()) {
        Ok(filter) => {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .try_init();
        }
        Err(e) => warning(&format!("`{LOG_ENV}` is not a log filter, no logs: {e}")),
    }
}

pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
