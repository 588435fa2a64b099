//! Writing to the terminal: data on stdout, diagnostics on stderr, broken pipes are not errors.

use std::io::Write;

/// Writes a line to stdout.
pub(crate) fn line(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
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

pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
