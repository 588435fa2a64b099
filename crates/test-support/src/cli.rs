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
