//! The spellings of a path a deny or ask rule is tried on.
//!
//! A tool opens what the OS resolves, not what the model wrote: `/tmp/../etc/passwd`,
//! `//etc/passwd`, `passwd` in `/etc`, `~/x` and `link/passwd` (with `link` → `/etc`) all
//! open `/etc/passwd`. So besides the value as written, a deny or ask rule is tried on the
//! path made absolute (`~` expanded, against the working directory) with `.` and `..` applied
//! as text, on the real path the OS reaches (symlinks followed, `..` after each), and on each
//! of these written back relative to the working directory and under `~`, so that rules
//! written either way hold. Only deny and ask read these: more spellings only ever add
//! matches.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// Symlinks followed in one resolution (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// Longer values are not paths the OS would open (`PATH_MAX`).
const PATH_MAX: usize = 4096;

/// Where relative paths and `~` point for one call.
#[derive(Debug, Default)]
pub(crate) struct Anchors {
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
    /// `cwd` and `home` with their symlinks resolved, once per call.
    real_cwd: Option<PathBuf>,
    real_home: Option<PathBuf>,
    /// Spellings worked out in this call: every deny or ask rule on the same argument asks
    /// again, and each answer walks the filesystem.
    spelled: RefCell<HashMap<String, Rc<[String]>>>,
}

impl Anchors {
    /// The working directory given, and `$HOME` as the tools expand `~`.
    pub(crate) fn new(cwd: Option<&Path>) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Self::at(cwd, home.as_deref())
    }

    /// Anchored at `cwd` and `home` (each ignored unless absolute).
    fn at(cwd: Option<&Path>, home: Option<&Path>) -> Self {
        let cwd = cwd.filter(|c| c.is_absolute()).map(Path::to_path_buf);
        let home = home.filter(|h| h.is_absolute()).map(Path::to_path_buf);
        Self {
            real_cwd: cwd.as_deref().map(real),
            real_home: home.as_deref().map(real),
            cwd,
            home,
            spelled: RefCell::default(),
        }
    }

    /// Every other spelling of `value` read as a path (see the module doc); empty when it
    /// cannot name one.
    pub(crate) fn spellings(&self, value: &str) -> Rc<[String]> {
        if let Some(known) = self.spelled.borrow().get(value) {
            return Rc::clone(known);
        }
        let found: Rc<[String]> = self.spell(value).into();
        self.spelled
            .borrow_mut()
            .insert(value.to_owned(), Rc::clone(&found));
        found
    }

    fn spell(&self, value: &str) -> Vec<String> {
        let absolute = match self.absolute(value) {
            Some(Ok(absolute)) => absolute,
            Some(Err(relative)) => return vec![lexical(&relative).display().to_string()],
            None => return Vec::new(),
        };
        let mut out = Vec::new();
        for path in [lexical(&absolute), real(&absolute)] {
            out.push(path.display().to_string());
            for base in self.cwd.iter().chain(&self.real_cwd) {
                if let Ok(rest) = path.strip_prefix(base) {
                    out.push(rest.display().to_string());
                    out.push(format!("./{}", rest.display()));
                }
            }
            for base in self.home.iter().chain(&self.real_home) {
                if let Ok(rest) = path.strip_prefix(base) {
                    out.push(format!("~/{}", rest.display()));
                }
            }
        }
        out.retain(|s| s != value && !s.is_empty());
        out.sort();
        out.dedup();
        out
    }
}

impl Anchors {
    /// For an allow rule: where `value` really points when a symlink on the way takes it
    /// elsewhere than its text says, written the way the value is (relative when it is
    /// relative and stays under the working directory, under `~` when it starts with `~`,
    /// else absolute); `None` when it points where it reads or names no path.
    pub(crate) fn real_spelling(&self, value: &str) -> Option<String> {
        // Against the real working directory and home, so that only a symlink the value
        // itself passes through counts (a URL is not a path that exists).
        let absolute = self
            .absolute_from(value, &self.real_cwd, &self.real_home)?
            .ok()?;
        let real = real(&absolute);
        if real == lexical(&absolute) {
            return None;
        }
        let (base, prefix) = match (value.starts_with('~'), Path::new(value).is_absolute()) {
            (true, _) => (&self.real_home, "~/"),
            (false, false) => (&self.real_cwd, ""),
            (false, true) => (&None, ""),
        };
        let under = base
            .as_ref()
            .and_then(|b| real.strip_prefix(b).ok())
            .map(|rest| format!("{prefix}{}", rest.display()));
        Some(under.unwrap_or_else(|| real.display().to_string()))
    }

    /// `value` as an absolute path (`~` expanded, against the working directory); `Err` with
    /// the relative path when there is no working directory; `None` when it names no path.
    fn absolute(&self, value: &str) -> Option<Result<PathBuf, PathBuf>> {
        self.absolute_from(value, &self.cwd, &self.home)
    }

    /// [`Self::absolute`] against the given anchors.
    fn absolute_from(
        &self,
        value: &str,
        cwd: &Option<PathBuf>,
        home: &Option<PathBuf>,
    ) -> Option<Result<PathBuf, PathBuf>> {
        if value.is_empty() || value.len() > PATH_MAX || value.contains('\0') {
            return None;
        }
        let expanded = match (value.strip_prefix('~'), home) {
            (Some(""), Some(home)) => home.clone(),
            (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
            _ => PathBuf::from(value),
        };
        Some(match cwd {
            _ if expanded.is_absolute() => Ok(expanded),
            Some(cwd) => Ok(cwd.join(expanded)),
            None => Err(expanded),
        })
    }
}

/// `.` dropped and `..` applied to the text, as if no component were a symlink.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The path the OS reaches: each symlink replaced by its target before the next component,
/// `..` applied after it; components that do not exist yet are kept as written.
fn real(path: &Path) -> PathBuf {
    let mut todo: VecDeque<OsString> = names(path);
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&name);
        let target = std::fs::symlink_metadata(&next)
            .ok()
            .filter(|m| m.file_type().is_symlink())
            .and_then(|_| std::fs::read_link(&next).ok());
        match target {
            Some(target) if hops < MAX_HOPS => {
                hops += 1;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                for part in names(&target).into_iter().rev() {
                    todo.push_front(part);
                }
            }
            _ => out = next,
        }
    }
    out
}

/// The normal and `..` components of `path`, in order (`.` and the root dropped).
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_spelled_absolute_relative_and_under_home() {
        let anchors = Anchors::at(
            Some(Path::new("/nonexistent-w/p")),
            Some(Path::new("/nonexistent-w")),
        );
        let s = anchors.spellings("../p/./x//y");
        for want in ["/nonexistent-w/p/x/y", "x/y", "./x/y", "~/p/x/y"] {
            assert!(s.iter().any(|f| f == want), "{want}: {s:?}");
        }
        assert!(
            anchors
                .spellings("~/a")
                .contains(&"/nonexistent-w/a".to_owned())
        );
        assert!(anchors.spellings("a\0b").is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_as_the_os_follows_them() {
        let dir = tempfile::TempDir::new().unwrap();
        let d = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(d.join("real/sub")).unwrap();
        std::os::unix::fs::symlink(d.join("real/sub"), d.join("link")).unwrap();
        std::os::unix::fs::symlink("link/../x", d.join("rel")).unwrap();
        // `link/..` is the target's parent, not `d`.
        assert_eq!(real(&d.join("link/../f")), d.join("real/f"));
        assert_eq!(real(&d.join("rel/new")), d.join("real/x/new"));
        assert_eq!(lexical(&d.join("link/../f")), d.join("f"));
        let anchors = Anchors::at(Some(&d), None);
        assert_eq!(
            anchors.real_spelling("link/f"),
            Some("real/sub/f".to_owned())
        );
        assert_eq!(anchors.real_spelling("real/./sub//f"), None);
        assert_eq!(anchors.real_spelling("https://example.com/x"), None);
        let outside = anchors.real_spelling("link/../../..").unwrap();
        assert!(outside.starts_with('/'), "{outside}");
    }
}
