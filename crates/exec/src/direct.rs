//! Running a plain command without its shell.
//!
//! `bash -c './check.sh --strict'` starts bash, which parses the text and execs the script:
//! a whole shell start (about a millisecond) for nothing. When the caller has established that
//! the text is a plain word list (bare words and single-quoted text: no expansions, globs,
//! redirections or operators, and not a builtin), we exec the program ourselves and reproduce
//! what the shell would have done first: the `PATH` lookup and the variables it adds to the
//! environment (`PWD`; for bash also `SHLVL`, `_` and a stale `OLDPWD` dropped; dash drops
//! variables whose names are not shell names). Whatever we cannot reproduce exactly returns
//! `None` and the command goes through the shell: a shell we do not know, a start-up file
//! (`BASH_ENV`, `ENV`), exported functions or options, a `PATH` we cannot search the way the
//! shell would, an unusual `PWD` or `SHLVL`.
//! A spawn that fails (not found, not executable, a script without `#!`) is also retried
//! through the shell, so errors, their messages and exit codes (126, 127) are the shell's own.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::Shell;

/// The shells whose start-up we reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellFlavor {
    Bash,
    Dash,
}

impl Shell {
    /// Which known shell this is, if any: `bash` or `dash` by their real file name (`/bin/sh`
    /// counts when it is dash; bash run as `sh` changes mode, so it does not).
    pub fn flavor(&self) -> Option<ShellFlavor> {
        let given = self.program.file_name()?.to_str()?;
        if !self.program.is_absolute() {
            return None;
        }
        let real = std::fs::canonicalize(&self.program).ok()?;
        match (given, real.file_name()?.to_str()?) {
            ("bash", "bash") => Some(ShellFlavor::Bash),
            ("dash" | "sh", "dash") => Some(ShellFlavor::Dash),
            _ => None,
        }
    }
}

/// A plain command ready to spawn without the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prepared {
    /// The file to exec (absolute).
    pub(crate) program: PathBuf,
    /// `argv[0]` as the shell passes it: the word as written.
    pub(crate) arg0: OsString,
    pub(crate) args: Vec<OsString>,
    /// The whole environment of the child.
    pub(crate) env: Vec<(OsString, OsString)>,
}

/// Variables that make the shell do more than exec the command: start-up files, options,
/// exported functions, a changed field separator.
fn changes_the_shell(name: &[u8]) -> bool {
    matches!(
        name,
        b"BASH_ENV" | b"ENV" | b"SHELLOPTS" | b"BASHOPTS" | b"IFS" | b"POSIXLY_CORRECT"
    ) || name.starts_with(b"BASH_FUNC_")
}

/// `[A-Za-z_][A-Za-z0-9_]*`: the names dash keeps from its environment.
fn is_shell_name(name: &[u8]) -> bool {
    name.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// The environment the child would get from `base` (`None`: ours) plus `vars` (later wins).
pub(crate) fn merged_env(
    base: Option<&[(OsString, OsString)]>,
    vars: &[(OsString, OsString)],
) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = match base {
        Some(base) => base.iter().cloned().collect(),
        None => std::env::vars_os().collect(),
    };
    for (k, v) in vars {
        env.insert(k.clone(), v.clone());
    }
    env
}

/// Prepares `words` (the plain command's words, as written) to run in `cwd` with the
/// environment the spec describes, as `flavor -c` would run them; `None` when only the shell
/// can tell what would happen.
pub(crate) fn prepare(
    flavor: ShellFlavor,
    words: &[OsString],
    cwd: &Path,
    base: Option<&[(OsString, OsString)]>,
    vars: &[(OsString, OsString)],
) -> Option<Prepared> {
    let (name, args) = words.split_first()?;
    let mut env = merged_env(base, vars);
    if env.keys().any(|k| changes_the_shell(k.as_bytes())) {
        return None;
    }
    let physical = cwd.canonicalize().ok()?;
    let (program, underscore) = if name.as_bytes().contains(&b'/') {
        (physical.join(name), name.clone())
    } else {
        let found = search_path(env.get(OsStr::new("PATH"))?, name)?;
        (found.clone(), found.into_os_string())
    };
    let pwd = shell_pwd(
        env.get(OsStr::new("PWD")).map(OsString::as_os_str),
        &physical,
    )?;
    env.insert("PWD".into(), pwd);
    match flavor {
        ShellFlavor::Bash => {
            let level = bash_shlvl(env.get(OsStr::new("SHLVL")).map(OsString::as_os_str))?;
            env.insert("SHLVL".into(), level.to_string().into());
            if let Some(old) = env.get(OsStr::new("OLDPWD"))
                && !physical.join(old).is_dir()
            {
                env.remove(OsStr::new("OLDPWD"));
            }
            env.insert("_".into(), underscore);
        }
        ShellFlavor::Dash => env.retain(|k, _| is_shell_name(k.as_bytes())),
    }
    Some(Prepared {
        program,
        arg0: name.clone(),
        args: args.to_vec(),
        env: env.into_iter().collect(),
    })
}

/// The first executable regular file named `name` in `path`, spelled as the shell spells it
/// (`DIR/NAME`). `None` when there is none (the shell reports it) or when an entry is empty or
/// relative (the shell would search the working directory; not worth reproducing).
fn search_path(path: &OsStr, name: &OsStr) -> Option<PathBuf> {
    for dir in path.as_bytes().split(|b| *b == b':') {
        if dir.first() != Some(&b'/') {
            return None;
        }
        let mut candidate = dir.to_vec();
        candidate.push(b'/');
        candidate.extend_from_slice(name.as_bytes());
        let candidate = PathBuf::from(OsString::from_vec(candidate));
        if is_executable_file(&candidate) {
            return Some(candidate);
        }
    }
    None
}

fn is_executable_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
        && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
}

/// `PWD` as the shell exports it: an inherited absolute `PWD` naming the working directory is
/// kept, anything else is replaced by the physical path. `None` for an inherited one that
/// names it in a non-canonical spelling (`/a/./b`): bash would rewrite it, dash would not.
fn shell_pwd(inherited: Option<&OsStr>, physical: &Path) -> Option<OsString> {
    let Some(pwd) = inherited.filter(|p| p.as_bytes().first() == Some(&b'/')) else {
        return Some(physical.as_os_str().to_owned());
    };
    if !same_file(Path::new(pwd), physical) {
        return Some(physical.as_os_str().to_owned());
    }
    let bytes = pwd.as_bytes();
    let canonical = bytes == b"/"
        || (!bytes.ends_with(b"/")
            && bytes[1..]
                .split(|b| *b == b'/')
                .all(|part| !matches!(part, b"" | b"." | b"..")));
    canonical.then(|| pwd.to_owned())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// bash raises `SHLVL` by one at start and lowers it again when it execs its last command, so
/// the program sees the inherited level (0 when unset or not a number). `None` for values it
/// would warn about or parse in ways not worth reproducing.
fn bash_shlvl(inherited: Option<&OsStr>) -> Option<u32> {
    let Some(value) = inherited else {
        return Some(0);
    };
    let bytes = value.as_bytes();
    if bytes.is_empty() || bytes.len() > 3 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(bytes)
        .ok()?
        .parse::<u32>()
        .ok()
        .filter(|n| *n < 999)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_levels_follow_bash() {
        assert_eq!(bash_shlvl(None), Some(0));
        assert_eq!(bash_shlvl(Some(OsStr::new("3"))), Some(3));
        assert_eq!(bash_shlvl(Some(OsStr::new("007"))), Some(7));
        assert_eq!(bash_shlvl(Some(OsStr::new(""))), None);
        assert_eq!(bash_shlvl(Some(OsStr::new("-1"))), None);
        assert_eq!(bash_shlvl(Some(OsStr::new("999"))), None);
    }

    #[test]
    fn pwd_is_kept_only_when_it_names_the_directory_canonically() {
        let dir = tempfile::tempdir().unwrap();
        let physical = dir.path().canonicalize().unwrap();
        let other = std::env::temp_dir().canonicalize().unwrap();
        let link = physical.join("link");
        std::os::unix::fs::symlink(&physical, &link).unwrap();
        let keep = |p: &Path| shell_pwd(Some(p.as_os_str()), &physical);
        assert_eq!(keep(&link), Some(link.clone().into_os_string()));
        assert_eq!(keep(&other), Some(physical.clone().into_os_string()));
        assert_eq!(keep(&link.join(".")), None);
        assert_eq!(
            shell_pwd(None, &physical),
            Some(physical.clone().into_os_string())
        );
        assert_eq!(
            shell_pwd(Some(OsStr::new("relative")), &physical),
            Some(physical.into_os_string())
        );
    }

    #[test]
    fn path_search_skips_what_cannot_run_and_gives_up_on_relative_entries() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(a.join("tool")).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(b.join("tool"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(b.join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", a.display(), b.display());
        assert_eq!(
            search_path(OsStr::new(&path), OsStr::new("tool")),
            Some(b.join("tool"))
        );
        assert_eq!(search_path(OsStr::new(&path), OsStr::new("none")), None);
        let relative = format!("bin:{}", b.display());
        assert_eq!(search_path(OsStr::new(&relative), OsStr::new("tool")), None);
    }

    #[test]
    fn startup_variables_send_the_command_to_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let words = [OsString::from("/bin/true")];
        let base = [("PATH".into(), "/usr/bin:/bin".into())];
        for var in ["BASH_ENV", "ENV", "SHELLOPTS", "BASH_FUNC_f%%"] {
            let vars = [(OsString::from(var), OsString::from("x"))];
            let prepared = prepare(ShellFlavor::Bash, &words, dir.path(), Some(&base), &vars);
            assert_eq!(prepared, None, "{var}");
        }
        assert!(prepare(ShellFlavor::Bash, &words, dir.path(), Some(&base), &[]).is_some());
    }
}
