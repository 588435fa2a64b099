//! Which shell runs command hooks and the `shell` tool.
//!
//! `$SHELL` when set, else `bash` when it is on `PATH`, else `/bin/sh` (docs/design.md, "Which shell":
//! hook scripts such as `echo "$INPUT" | jq` break under dash, whose `echo` rewrites `\n`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A resolved shell: a program that takes `-c SCRIPT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shell {
    pub program: PathBuf,
    pub kind: ShellKind,
}

/// Where the shell came from (shown by `tether hooks check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    /// The `SHELL` environment variable.
    EnvShell,
    /// `bash` found on `PATH`.
    Bash,
    /// The `/bin/sh` fallback.
    Sh,
}

impl Shell {
    /// Resolves the shell from the given `SHELL` and `PATH` values.
    pub fn detect(shell_var: Option<&str>, path_var: Option<&str>) -> Self {
        if let Some(s) = shell_var.filter(|s| !s.trim().is_empty()) {
            return Self {
                program: PathBuf::from(s),
                kind: ShellKind::EnvShell,
            };
        }
        if let Some(bash) = path_var.and_then(|p| find_in_path("bash", p)) {
            return Self {
                program: bash,
                kind: ShellKind::Bash,
            };
        }
        Self {
            program: PathBuf::from("/bin/sh"),
            kind: ShellKind::Sh,
        }
    }

    /// Resolves the shell from this process's environment.
    pub fn from_env() -> Self {
        let shell = std::env::var("SHELL").ok();
        let path = std::env::var("PATH").ok();
        Self::detect(shell.as_deref(), path.as_deref())
    }

    /// The argument vector that runs `script`.
    pub fn args(&self, script: &str) -> Vec<OsString> {
        vec![OsString::from("-c"), OsString::from(script)]
    }
}

/// Looks `name` up in a `PATH`-style list; returns the first executable regular file.
pub fn find_in_path(name: &str, path_var: &str) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_variable_wins() {
        let s = Shell::detect(Some("/usr/bin/zsh"), Some("/usr/bin:/bin"));
        assert_eq!(s.program, PathBuf::from("/usr/bin/zsh"));
        assert_eq!(s.kind, ShellKind::EnvShell);
    }

    #[test]
    fn bash_on_path_is_next() {
        let dir = tempfile::tempdir().unwrap();
        let bash = dir.path().join("bash");
        std::fs::write(&bash, "#!/bin/sh\n").unwrap();
        let mut perms = std::fs::metadata(&bash).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&bash, perms).unwrap();
        let s = Shell::detect(Some("  "), Some(dir.path().to_str().unwrap()));
        assert_eq!(s.program, bash);
        assert_eq!(s.kind, ShellKind::Bash);
    }

    #[test]
    fn sh_is_the_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let s = Shell::detect(None, Some(dir.path().to_str().unwrap()));
        assert_eq!(s.program, PathBuf::from("/bin/sh"));
        assert_eq!(s.kind, ShellKind::Sh);
    }
}
