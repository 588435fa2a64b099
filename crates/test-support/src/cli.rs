//! Running the `tether` binary the way the CLI tests do: in a directory of the test's own,
//! with `TETHER_HOME` and the config directory inside it (so no test reads or writes the
//! user's), and bash as the shell of hook commands and the shell tool.

use std::path::Path;

/// `tether`, to run in `dir`; add arguments, environment and stdin as needed.
pub fn tether(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(crate::bins::tether());
    cmd.current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("SHELL", "/bin/bash");
    cmd
}

/// Writes `agent` as `agent.yaml` in `dir` and asserts that `tether hooks check` refuses it
/// (exit 1) with every one of `errors` on stderr.
///
/// # Panics
/// When it does not.
#[expect(clippy::expect_used, reason = "a test fails loudly")]
pub fn assert_load_errors(dir: &Path, agent: &str, errors: &[&str]) {
    std::fs::write(dir.join("agent.yaml"), agent).expect("the agent file is written");
    let out = tether(dir)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .expect("tether runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for want in errors {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
}

/// Runs `cmd` (a [`tether`] command with its arguments) with empty stdin and asserts it exits
/// 0; its output, for the test to read.
///
/// # Panics
/// When it cannot run or exits otherwise (the message holds its stdout and stderr).
#[expect(clippy::expect_used, reason = "a test fails loudly")]
pub fn succeeds(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.write_stdin("").output().expect("tether runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
