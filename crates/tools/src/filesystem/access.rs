//! `allow_list` / `deny_list`: which paths the filesystem tools may touch.
//!
//! The entries are expanded when a tool runs (`.` and relative entries need the call's working
//! directory, `~` the home directory, `$NAME` the environment), then resolved to real paths.
//! A path the model gives is resolved the way the OS will resolve it, symlink by symlink with
//! `..` applied after each (so `link/..` is the link target's parent, not the working
//! directory), and the tools then work on that real path: what was checked is what is opened.
//! Paths that do not exist yet (a file `write_file` creates) are checked as they will be once
//! created. The real path holds no symlink, so the tools reach it without following any
//! (`open`): a directory swapped for a symlink between the check and the open makes the open
//! fail instead of escaping.

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// Symlinks followed in one resolution before giving up (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// A toolset's lists as written.
#[derive(Debug)]
pub(crate) struct PathRules {
    allow: Vec<String>,
    deny: Vec<String>,
}

/// One expanded entry.
#[derive(Debug)]
struct Root {
    written: String,
    real: PathBuf,
}

/// The lists of one call, expanded against its working directory.
#[derive(Debug)]
pub(super) struct Roots {
    allow: Vec<Root>,
    deny: Vec<Root>,
}

impl PathRules {
    /// `None` when both lists are empty: no restriction at all.
    pub(crate) fn new(allow: &[String], deny: &[String]) -> Option<Self> {
        (!allow.is_empty() || !deny.is_empty()).then(|| Self {
            allow: allow.to_vec(),
            deny: deny.to_vec(),
        })
    }

    /// Lines for the toolset's system-prompt text, so the model knows before it tries.
    pub(crate) fn describe(&self) -> String {
        let mut out = String::new();
        if !self.allow.is_empty() {
            out.push_str(&format!(
                "\n- These tools are restricted to paths under: {}. Any other path is rejected.",
                self.allow.join(", ")
            ));
        }
        if !self.deny.is_empty() {
            out.push_str(&format!(
                "\n- These tools must not access paths under: {}. Such paths are rejected.",
                self.deny.join(", ")
            ));
        }
        out
    }

    /// The lists for a call in `working_dir`. An entry that cannot be expanded (an unset
    /// variable, no home directory) refuses every call: a list that silently lost an entry
    /// would allow too much or deny too little.
    pub(super) fn expand(&self, working_dir: &Path) -> Result<Roots, ToolError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        self.expand_with(working_dir, home.as_deref(), |name| {
            std::env::var(name).ok()
        })
    }

    fn expand_with(
        &self,
        working_dir: &Path,
        home: Option<&Path>,
        lookup: impl Fn(&str) -> Option<String> + Copy,
    ) -> Result<Roots, ToolError> {
        let expand = |key: &str, entries: &[String]| -> Result<Vec<Root>, ToolError> {
            entries
                .iter()
                .map(|written| {
                    let disabled = |why: String| {
                        ToolError::Rejected(format!(
                            "the filesystem tools are disabled: `{key}` entry `{written}`: {why}"
                        ))
                    };
                    let text =
                        tether_config::expand_path_entry(written, lookup).map_err(disabled)?;
                    let path = match (text.strip_prefix('~'), home) {
                        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                            home.join(rest.trim_start_matches('/'))
                        }
                        (Some(rest), None) if rest.is_empty() || rest.starts_with('/') => {
                            return Err(disabled("`HOME` is not set".to_owned()));
                        }
                        _ => working_dir.join(&text),
                    };
                    let real = real_path(&path).map_err(|e| disabled(e.to_string()))?;
                    Ok(Root {
                        written: written.clone(),
                        real,
                    })
                })
                .collect()
        };
        Ok(Roots {
            allow: expand("allow_list", &self.allow)?,
            deny: expand("deny_list", &self.deny)?,
        })
    }
}

impl Roots {
    /// The real path of `resolved` (the model's `given` path, resolved against the working
    /// directory) when the lists admit it; else why not, naming `given` and the rule.
    pub(super) fn check(&self, given: &str, resolved: &Path) -> Result<PathBuf, ToolError> {
        let real = real_path(resolved).map_err(|e| ToolError::io("resolve", given, &e))?;
        self.admit(given, real)
    }

    /// [`Self::check`] for an operation on the directory entry itself, not what a symlink
    /// there points to (`remove_directory`): only its parent is resolved.
    pub(super) fn check_entry(&self, given: &str, resolved: &Path) -> Result<PathBuf, ToolError> {
        let real = std::path::absolute(resolved)
            .and_then(|abs| match (abs.parent(), abs.file_name()) {
                (Some(parent), Some(name)) => Ok(real_path(parent)?.join(name)),
                _ => real_path(&abs),
            })
            .map_err(|e| ToolError::io("resolve", given, &e))?;
        self.admit(given, real)
    }

    fn admit(&self, given: &str, real: PathBuf) -> Result<PathBuf, ToolError> {
        if let Some(root) = self.deny.iter().find(|r| real.starts_with(&r.real)) {
            return Err(ToolError::Rejected(format!(
                "`{given}` is inside a denied directory (`deny_list`: `{}`)",
                root.written
            )));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|r| real.starts_with(&r.real)) {
            let allowed: Vec<String> = self
                .allow
                .iter()
                .map(|r| format!("`{}`", r.written))
                .collect();
            return Err(ToolError::Rejected(format!(
                "`{given}` is outside the allowed directories (`allow_list`: {})",
                allowed.join(", ")
            )));
        }
        Ok(real)
    }

    /// Whether the lists admit `real`, a path without symlinks.
    fn admits(&self, real: &Path) -> bool {
        !self.deny.iter().any(|r| real.starts_with(&r.real))
            && (self.allow.is_empty() || self.allow.iter().any(|r| real.starts_with(&r.real)))
    }

    /// Where `path`, found under a real root by a walk or a listing, leads when the lists
    /// admit it (a walk may then show it and, for a directory, enter it): only a symlink
    /// needs resolving, everything else already is a real path.
    pub(super) fn admit_found(&self, path: &Path, is_symlink: bool) -> Option<PathBuf> {
        let real = if is_symlink {
            real_path(path).ok()?
        } else {
            path.to_path_buf()
        };
        self.admits(&real).then_some(real)
    }
}

/// One component still to resolve.
#[derive(Debug)]
enum Part {
    Root(OsString),
    Up,
    Name(OsString),
}

fn parts(path: &Path) -> impl DoubleEndedIterator<Item = Part> + '_ {
    path.components().filter_map(|c| match c {
        Component::Prefix(p) => Some(Part::Root(p.as_os_str().to_owned())),
        Component::RootDir => Some(Part::Root(OsString::from("/"))),
        Component::CurDir => None,
        Component::ParentDir => Some(Part::Up),
        Component::Normal(name) => Some(Part::Name(name.to_owned())),
    })
}

/// `path` (absolute) with every symlink replaced by its target and `..` applied where the OS
/// applies it. Missing components are kept as written (they hold no symlink yet), so a new
/// file's path, or a dangling symlink's target, is checked where it would be created.
pub(super) fn real_path(path: &Path) -> io::Result<PathBuf> {
    let path = std::path::absolute(path)?;
    // A stack: the next component to resolve is on top.
    let mut todo: Vec<Part> = parts(&path).rev().collect();
    let mut out = PathBuf::new();
    let mut hops = 0;
    while let Some(part) = todo.pop() {
        match part {
            Part::Root(root) => out = PathBuf::from(root),
            Part::Up => {
                out.pop();
            }
            Part::Name(name) => {
                out.push(&name);
                let meta = match std::fs::symlink_metadata(&out) {
                    Ok(meta) => meta,
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                        ) =>
                    {
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if !meta.file_type().is_symlink() {
                    continue;
                }
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(io::Error::other("too many levels of symbolic links"));
                }
                let target = std::fs::read_link(&out)?;
                out.pop();
                todo.extend(parts(&target).rev());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        /// The working directory (real: the temp dir may sit behind a symlink, as on macOS).
        wd: PathBuf,
        outside: PathBuf,
        home: PathBuf,
    }

    /// `wd/src/a.rs`, `wd/src/vendor/v.rs`, `wd/escape -> outside`, `outside/secret.txt`,
    /// `home/.ssh/id`.
    fn fixture() -> Fixture {
        let dir = tempfile::TempDir::new().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (wd, outside, home) = (base.join("wd"), base.join("outside"), base.join("home"));
        for d in [wd.join("src/vendor"), outside.clone(), home.join(".ssh")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(wd.join("src/a.rs"), "a").unwrap();
        std::fs::write(wd.join("src/vendor/v.rs"), "v").unwrap();
        std::fs::write(outside.join("secret.txt"), "s").unwrap();
        std::fs::write(home.join(".ssh/id"), "k").unwrap();
        symlink(&outside, wd.join("escape")).unwrap();
        Fixture {
            _dir: dir,
            wd,
            outside,
            home,
        }
    }

    fn roots(f: &Fixture, allow: &[&str], deny: &[&str]) -> Roots {
        let own = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        PathRules::new(&own(allow), &own(deny))
            .unwrap()
            .expand_with(&f.wd, Some(&f.home), |n| {
                (n == "DATA").then(|| "/srv/data".to_owned())
            })
            .unwrap()
    }

    fn check(f: &Fixture, r: &Roots, given: &str) -> Result<PathBuf, String> {
        r.check(given, &crate::args::resolve_in(&f.wd, given, Some(&f.home)))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn an_allow_list_admits_its_directories_and_nothing_else() {
        let f = fixture();
        let r = roots(&f, &["src"], &[]);
        assert_eq!(check(&f, &r, "src/a.rs"), Ok(f.wd.join("src/a.rs")));
        assert_eq!(
            check(&f, &r, "src/new/file.txt"),
            Ok(f.wd.join("src/new/file.txt"))
        );
        assert_eq!(check(&f, &r, "src"), Ok(f.wd.join("src")));
        let outside = "is outside the allowed directories (`allow_list`: `src`)";
        for given in [
            "README.md",
            ".",
            "src/../x",
            "srcx/a",
            "/etc/passwd",
            "~/.ssh/id",
        ] {
            assert_eq!(
                check(&f, &r, given),
                Err(format!("`{given}` {outside}")),
                "{given}"
            );
        }
    }

    #[test]
    fn dot_dot_and_symlinks_are_resolved_before_the_check() {
        let f = fixture();
        let r = roots(&f, &["."], &[]);
        let outside = "is outside the allowed directories (`allow_list`: `.`)";
        for given in [
            "escape/secret.txt",
            "escape",
            "escape/new.txt",
            "../outside/secret.txt",
        ] {
            assert_eq!(
                check(&f, &r, given),
                Err(format!("`{given}` {outside}")),
                "{given}"
            );
        }
        // `escape/..` is the target's parent, as the OS resolves it, not the working directory.
        assert!(check(&f, &r, "escape/../wd/src/a.rs").is_ok());
        assert!(check(&f, &r, "escape/../x").is_err());
        assert_eq!(
            check(&f, &r, "src/./vendor/../a.rs"),
            Ok(f.wd.join("src/a.rs"))
        );
        // A dangling link is checked where writing through it would create the file.
        symlink(f.outside.join("made.txt"), f.wd.join("dangling")).unwrap();
        assert!(check(&f, &r, "dangling").is_err());
        symlink(f.wd.join("src/a.rs"), f.wd.join("inner")).unwrap();
        assert_eq!(check(&f, &r, "inner"), Ok(f.wd.join("src/a.rs")));
        // The entry itself, for removal: the link, not its target.
        let entry = |given: &str| {
            r.check_entry(given, &crate::args::resolve_in(&f.wd, given, None))
                .map_err(|e| e.to_string())
        };
        assert_eq!(entry("escape"), Ok(f.wd.join("escape")));
        assert_eq!(entry("src/vendor/."), Ok(f.wd.join("src/vendor")));
        assert!(entry("escape/x").is_err());
        assert!(entry("src/..").is_ok() && entry("..").is_err());
    }

    #[test]
    fn a_symlink_into_the_allow_list_is_admitted_and_loops_are_refused() {
        let f = fixture();
        symlink(f.wd.join("src"), f.outside.join("to-src")).unwrap();
        let r = roots(&f, &["src"], &[]);
        let via = f.outside.join("to-src/a.rs");
        assert_eq!(
            check(&f, &r, via.to_str().unwrap()),
            Ok(f.wd.join("src/a.rs"))
        );
        symlink(f.wd.join("loop"), f.wd.join("loop")).unwrap();
        let err = check(&f, &r, "loop/x").unwrap_err();
        assert!(err.contains("too many levels of symbolic links"), "{err}");
    }

    #[test]
    fn deny_wins_over_allow_and_applies_through_symlinks() {
        let f = fixture();
        let r = roots(&f, &["."], &["src/vendor", "~/.ssh"]);
        assert!(check(&f, &r, "src/a.rs").is_ok());
        assert_eq!(
            check(&f, &r, "src/vendor/v.rs"),
            Err(
                "`src/vendor/v.rs` is inside a denied directory (`deny_list`: `src/vendor`)"
                    .to_owned()
            )
        );
        symlink(f.wd.join("src/vendor"), f.wd.join("shortcut")).unwrap();
        assert!(
            check(&f, &r, "shortcut/v.rs")
                .unwrap_err()
                .contains("denied")
        );
        // Deny alone leaves everything else reachable, `~` included.
        let r = roots(&f, &[], &["~/.ssh"]);
        assert!(check(&f, &r, "/etc/hosts").is_ok());
        assert_eq!(
            check(&f, &r, "~/.ssh/id"),
            Err("`~/.ssh/id` is inside a denied directory (`deny_list`: `~/.ssh`)".to_owned())
        );
        // A denied directory that does not exist yet is denied once created.
        assert!(check(&f, &r, "~/.ssh/new/key").is_err());
        let r = roots(&f, &[], &["~/.aws"]);
        assert!(check(&f, &r, "~/.aws/credentials").is_err());
    }

    #[test]
    fn entries_expand_home_variables_and_absolute_paths() {
        let f = fixture();
        let r = roots(&f, &["~", "$DATA", &f.outside.display().to_string()], &[]);
        let got: Vec<&Path> = r.allow.iter().map(|r| r.real.as_path()).collect();
        assert_eq!(
            got,
            [
                f.home.as_path(),
                Path::new("/srv/data"),
                f.outside.as_path()
            ]
        );
        let rules = PathRules::new(&["$NOPE/x".to_owned()], &[]).unwrap();
        let err = rules
            .expand_with(&f.wd, Some(&f.home), |_| None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "the filesystem tools are disabled: `allow_list` entry `$NOPE/x`: environment variable `NOPE` is not set"
        );
        let rules = PathRules::new(&[], &["~/.ssh".to_owned()]).unwrap();
        let err = rules
            .expand_with(&f.wd, None, |_| None)
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("`HOME` is not set"), "{err}");
    }

    #[test]
    fn walks_resolve_only_symlinks() {
        let f = fixture();
        let r = roots(&f, &["."], &["src/vendor"]);
        let a = f.wd.join("src/a.rs");
        assert_eq!(r.admit_found(&a, false), Some(a));
        assert_eq!(r.admit_found(&f.wd.join("src/vendor"), false), None);
        assert_eq!(r.admit_found(&f.wd.join("escape"), true), None);
        symlink(f.wd.join("src/a.rs"), f.wd.join("inner")).unwrap();
        assert_eq!(
            r.admit_found(&f.wd.join("inner"), true),
            Some(f.wd.join("src/a.rs"))
        );
        assert!(PathRules::new(&[], &[]).is_none());
    }
}
