//! How the tools reach a path: as given, or, with `allow_list` / `deny_list`, without
//! following a single symlink between the check and the use.
//!
//! A checked path is real (`access`): absolute, no `..`, no symlink when it was checked. It is
//! reached from a descriptor of `/` with `openat2` and `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS`, or, where the kernel has no `openat2`, one `O_NOFOLLOW` open per
//! component: never through the racy path. So a directory swapped for a symlink after the check
//! makes the open fail instead of leading into a directory the lists refuse. What follows the
//! open works on the descriptor (read, stat, list) or on a name relative to the checked parent's
//! descriptor (create, remove).

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Why a checked path could not be opened: something on it became a symlink.
const CHANGED: &str = "the path changed after it was checked (a symlink appeared on it)";

/// Set once `openat2` answered `ENOSYS` (Linux before 5.6): the walk is used from then on.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// The permissions `std` creates files and directories with, before the umask.
const FILE_MODE: u32 = 0o666;
const DIR_MODE: u32 = 0o777;

/// How a call reaches its paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fs {
    /// No lists: paths are used as given, symlinks followed.
    Plain,
    /// Checked real paths, reached without following symlinks.
    Checked,
}

impl Fs {
    /// `path` opened for reading.
    pub(super) fn read(self, path: &Path) -> io::Result<File> {
        match self {
            Self::Plain => File::open(path),
            Self::Checked => open(path, OFlags::RDONLY, Mode::empty()).map(File::from),
        }
    }

    /// What `path` is, following a final symlink when `Plain` (a checked path has none).
    pub(super) fn metadata(self, path: &Path) -> io::Result<Metadata> {
        match self {
            Self::Plain => std::fs::metadata(path),
            Self::Checked => File::from(open(path, OFlags::PATH, Mode::empty())?).metadata(),
        }
    }

    /// What the entry at `path` is, a final symlink not followed.
    pub(super) fn symlink_metadata(self, path: &Path) -> io::Result<Metadata> {
        match self {
            Self::Plain => std::fs::symlink_metadata(path),
            Self::Checked => {
                let fd = open(path, OFlags::PATH | OFlags::NOFOLLOW, Mode::empty())?;
                File::from(fd).metadata()
            }
        }
    }

    /// The directory at `path`, opened for listing.
    pub(super) fn dir(self, path: &Path) -> io::Result<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY;
        match self {
            Self::Plain => Ok(rustix::fs::openat(
                CWD,
                path,
                flags | OFlags::CLOEXEC,
                Mode::empty(),
            )?),
            Self::Checked => open(path, flags, Mode::empty()),
        }
    }

    /// `path` and its missing ancestors created as directories, like `create_dir_all`.
    pub(super) fn create_dirs(self, path: &Path) -> io::Result<()> {
        match self {
            Self::Plain => std::fs::create_dir_all(path),
            Self::Checked => create_dirs(path).map(drop),
        }
    }

    /// `bytes` written to `path`, created or truncated, like `std::fs::write`.
    pub(super) fn write(self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        match self {
            Self::Plain => std::fs::write(path, bytes),
            Self::Checked => {
                let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC;
                let fd = open(path, flags, Mode::from_raw_mode(FILE_MODE))?;
                File::from(fd).write_all(bytes)
            }
        }
    }

    /// The empty directory at `path` removed; a symlink there is not followed (`rmdir`).
    pub(super) fn remove_dir(self, path: &Path) -> io::Result<()> {
        match (self, path.parent(), path.file_name()) {
            (Self::Checked, Some(parent), Some(name)) => {
                let dir = open(parent, OFlags::PATH | OFlags::DIRECTORY, Mode::empty())?;
                Ok(rustix::fs::unlinkat(&dir, name, AtFlags::REMOVEDIR)?)
            }
            // `/` itself, or no lists: nothing to follow, or following is what is asked.
            _ => std::fs::remove_dir(path),
        }
    }
}

/// The names below `/` of a checked path; `..` or a relative path is refused rather than
/// resolved (a checked path never holds one).
fn names(path: &Path) -> io::Result<Vec<&OsStr>> {
    let mut components = path.components();
    if components.next() != Some(Component::RootDir) {
        return Err(io::Error::other(format!(
            "`{}` is not an absolute path",
            path.display()
        )));
    }
    components
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::other(format!("`{}` holds `..`", path.display()))),
        })
        .collect()
}

fn root() -> io::Result<OwnedFd> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::openat(CWD, "/", flags, Mode::empty())?)
}

/// A symlink met on a checked path means the path changed since the check.
fn changed(e: Errno) -> io::Error {
    if matches!(e, Errno::LOOP | Errno::XDEV) {
        io::Error::other(CHANGED)
    } else {
        e.into()
    }
}

/// `path` (checked: absolute, no symlink, no `..`) opened with `flags`, no symlink followed.
/// With `O_PATH | O_NOFOLLOW`, a final symlink is opened itself.
fn open(path: &Path, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    let names = names(path)?;
    open_beneath(root()?.as_fd(), &names, flags, mode).map_err(changed)
}

/// `names` below `dir` opened with `flags`, following no symlink: `openat2`, or the walk.
fn open_beneath(
    dir: BorrowedFd<'_>,
    names: &[&OsStr],
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, Errno> {
    let flags = flags | OFlags::CLOEXEC;
    if !NO_OPENAT2.load(Ordering::Relaxed) {
        let rel: PathBuf = if names.is_empty() {
            PathBuf::from(".")
        } else {
            names.iter().collect()
        };
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
        match rustix::fs::openat2(dir, &rel, flags, mode, resolve) {
            Err(Errno::NOSYS) => NO_OPENAT2.store(true, Ordering::Relaxed),
            // A seccomp filter older than `openat2` may refuse it with `EPERM`; the walk
            // then either succeeds or meets the real error.
            Err(Errno::PERM) => {}
            other => return other,
        }
    }
    walk(dir, names, flags, mode)
}

/// [`open_beneath`] without `openat2`: each directory on the way opened with `O_NOFOLLOW`
/// from the one before, so no symlink is ever followed.
fn walk(
    dir: BorrowedFd<'_>,
    names: &[&OsStr],
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, Errno> {
    let Some((last, parents)) = names.split_last() else {
        return rustix::fs::openat(dir, ".", flags, mode);
    };
    let mut held: Option<OwnedFd> = None;
    for name in parents {
        let at = held.as_ref().map_or(dir, AsFd::as_fd);
        let step = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let next = rustix::fs::openat(at, *name, step, Mode::empty())
            .map_err(|e| as_openat2(e, at, name))?;
        held = Some(next);
    }
    let at = held.as_ref().map_or(dir, AsFd::as_fd);
    let fd = rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW, mode)
        .map_err(|e| as_openat2(e, at, last))?;
    // `O_PATH | O_NOFOLLOW` opens a final symlink itself; `openat2` only does when asked.
    if flags.contains(OFlags::PATH)
        && !flags.contains(OFlags::NOFOLLOW)
        && FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) == FileType::Symlink
    {
        return Err(Errno::LOOP);
    }
    Ok(fd)
}

/// `O_PATH | O_DIRECTORY | O_NOFOLLOW` answers `ENOTDIR` for a symlink, where `openat2`
/// answers `ELOOP`: the same error for the same refusal.
fn as_openat2(e: Errno, at: BorrowedFd<'_>, name: &OsStr) -> Errno {
    let is_symlink = || {
        rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink)
    };
    if e == Errno::NOTDIR && is_symlink() {
        Errno::LOOP
    } else {
        e
    }
}

/// `path` and its missing ancestors created one directory at a time, each created and
/// then opened relative to its parent's descriptor; the last one's descriptor.
fn create_dirs(path: &Path) -> io::Result<OwnedFd> {
    let names = names(path)?;
    let dir_flags = OFlags::PATH | OFlags::DIRECTORY;
    let mut dir = root()?;
    // Most calls find it already there; any failure is met again, and named, below.
    if let Ok(fd) = open_beneath(dir.as_fd(), &names, dir_flags, Mode::empty()) {
        return Ok(fd);
    }
    for (i, name) in names.iter().enumerate() {
        let step = [*name];
        let next = match open_beneath(dir.as_fd(), &step, dir_flags, Mode::empty()) {
            Err(Errno::NOENT) => {
                match rustix::fs::mkdirat(&dir, *name, Mode::from_raw_mode(DIR_MODE)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                open_beneath(dir.as_fd(), &step, dir_flags, Mode::empty())
            }
            other => other,
        };
        dir = match next {
            Ok(fd) => fd,
            // What `create_dir_all` says when the last name is taken by a file.
            Err(Errno::NOTDIR) if i + 1 == names.len() => return Err(Errno::EXIST.into()),
            Err(e) => return Err(changed(e)),
        };
    }
    Ok(dir)
}

/// The names in the directory `dir` (`.` and `..` left out), each with what the listing
/// says it is (`FileType::Unknown` on filesystems that do not say).
pub(super) fn entries(dir: OwnedFd) -> io::Result<Vec<(Vec<u8>, FileType)>> {
    let mut out = Vec::new();
    for entry in rustix::fs::Dir::new(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            out.push((name.to_vec(), entry.file_type()));
        }
    }
    Ok(out)
}

/// What `name` in the directory `dir` is, following a symlink when `follow`.
pub(super) fn stat_in(dir: BorrowedFd<'_>, name: &[u8], follow: bool) -> Option<FileType> {
    let flags = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    rustix::fs::statat(dir, OsStr::from_bytes(name), flags)
        .ok()
        .map(|s| FileType::from_raw_mode(s.st_mode))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// `base/ok/f.txt`, `base/outside/s.txt`, `base/ok/link -> outside`, `base/ok/flink ->
    /// ok/f.txt`.
    fn fixture() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::TempDir::new().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("ok")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("ok/f.txt"), "f").unwrap();
        std::fs::write(base.join("outside/s.txt"), "s").unwrap();
        symlink(base.join("outside"), base.join("ok/link")).unwrap();
        symlink(base.join("ok/f.txt"), base.join("ok/flink")).unwrap();
        (dir, base)
    }

    /// The outcome of opening `path` both ways: `openat2` and the walk.
    fn both(path: &Path, flags: OFlags) -> [Result<(), Errno>; 2] {
        let names = names(path).unwrap();
        let root = root().unwrap();
        let flags = flags | OFlags::CLOEXEC;
        let openat2 = rustix::fs::openat2(
            root.as_fd(),
            names.iter().collect::<PathBuf>(),
            flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
        );
        let walked = walk(root.as_fd(), &names, flags, Mode::empty());
        [openat2.map(drop), walked.map(drop)]
    }

    #[test]
    fn no_symlink_is_followed_on_the_way_or_at_the_end_by_either_way() {
        let (_dir, base) = fixture();
        let loop_ = Err(Errno::LOOP);
        let cases = [
            ("ok/f.txt", OFlags::RDONLY, Ok(())),
            ("ok", OFlags::RDONLY | OFlags::DIRECTORY, Ok(())),
            ("ok", OFlags::PATH | OFlags::DIRECTORY, Ok(())),
            ("ok/link/s.txt", OFlags::RDONLY, loop_),
            ("ok/link/s.txt", OFlags::PATH, loop_),
            ("ok/link", OFlags::RDONLY | OFlags::DIRECTORY, loop_),
            ("ok/link", OFlags::PATH | OFlags::DIRECTORY, loop_),
            ("ok/flink", OFlags::RDONLY, loop_),
            ("ok/flink", OFlags::WRONLY | OFlags::CREATE, loop_),
            // The link itself, for a stat that does not follow it.
            ("ok/flink", OFlags::PATH | OFlags::NOFOLLOW, Ok(())),
            ("ok/flink", OFlags::PATH, loop_),
            ("ok/f.txt/x", OFlags::RDONLY, Err(Errno::NOTDIR)),
            ("ok/none", OFlags::RDONLY, Err(Errno::NOENT)),
        ];
        for (rel, flags, want) in cases {
            assert_eq!(both(&base.join(rel), flags), [want, want], "{rel}");
        }
        assert_eq!(
            std::fs::read_to_string(base.join("outside/s.txt")).unwrap(),
            "s"
        );
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_after_the_check_is_refused_at_open() {
        let (_dir, base) = fixture();
        std::fs::create_dir_all(base.join("ok/d")).unwrap();
        std::fs::write(base.join("ok/d/s.txt"), "public").unwrap();
        // Checked while `ok/d` was a directory...
        let checked = base.join("ok/d/s.txt");
        assert_eq!(
            std::io::read_to_string(Fs::Checked.read(&checked).unwrap()).unwrap(),
            "public"
        );
        // ...then swapped for a symlink to `outside`, which holds an `s.txt` too.
        std::fs::rename(base.join("ok/d"), base.join("aside")).unwrap();
        symlink(base.join("outside"), base.join("ok/d")).unwrap();
        let refused = |r: io::Result<()>| r.map_err(|e| e.to_string());
        let changed = Err(CHANGED.to_owned());
        assert_eq!(refused(Fs::Checked.read(&checked).map(drop)), changed);
        assert_eq!(refused(Fs::Checked.metadata(&checked).map(drop)), changed);
        assert_eq!(
            refused(Fs::Checked.dir(&base.join("ok/d")).map(drop)),
            changed
        );
        assert_eq!(refused(Fs::Checked.write(&checked, b"x")), changed);
        assert_eq!(
            refused(Fs::Checked.create_dirs(&base.join("ok/d/new"))),
            changed
        );
        assert_eq!(
            refused(Fs::Checked.remove_dir(&base.join("ok/d/empty"))),
            changed
        );
        // Nothing happened beyond the link.
        assert_eq!(
            std::fs::read_to_string(base.join("outside/s.txt")).unwrap(),
            "s"
        );
        assert!(!base.join("outside/new").exists());
        // The same calls without lists follow the link, as they always did.
        assert_eq!(
            std::io::read_to_string(Fs::Plain.read(&checked).unwrap()).unwrap(),
            "s"
        );
    }

    /// The fallback walk against the race `openat2` closes: `ok/d` keeps being exchanged
    /// with a symlink to `outside` while the walk reads `ok/d/s.txt`.
    #[test]
    fn the_walk_never_reads_through_a_directory_swapped_for_a_symlink() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicUsize;
        let (_dir, base) = fixture();
        std::fs::create_dir_all(base.join("ok/d")).unwrap();
        std::fs::write(base.join("ok/d/s.txt"), "public").unwrap();
        symlink(base.join("outside"), base.join("aside")).unwrap();
        let (stop, swaps) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicUsize::new(0)),
        );
        let (d, aside) = (base.join("ok/d"), base.join("aside"));
        let (flag, count) = (stop.clone(), swaps.clone());
        let swapper = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let exchange = rustix::fs::RenameFlags::EXCHANGE;
                rustix::fs::renameat_with(CWD, &d, CWD, &aside, exchange).unwrap();
                count.fetch_add(1, Ordering::Relaxed);
            }
        });
        let checked = base.join("ok/d/s.txt");
        let names = names(&checked).unwrap();
        let (mut tries, mut read) = (0, Vec::new());
        // Counted, not timed: as many tries as it takes to overlap many swaps.
        while tries < 20_000 || swaps.load(Ordering::Relaxed) < 20_000 {
            tries += 1;
            let root = root().unwrap();
            if let Ok(fd) = walk(root.as_fd(), &names, OFlags::RDONLY, Mode::empty()) {
                read.push(std::io::read_to_string(File::from(fd)).unwrap());
            }
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        assert!(read.iter().all(|text| text == "public"), "{read:?}");
    }

    #[test]
    fn checked_creation_matches_std() {
        let (_dir, base) = fixture();
        let fs = Fs::Checked;
        fs.create_dirs(&base.join("ok/a/b/c")).unwrap();
        assert!(base.join("ok/a/b/c").is_dir());
        fs.create_dirs(&base.join("ok/a/b")).unwrap();
        fs.write(&base.join("ok/a/b/w.txt"), b"w").unwrap();
        fs.write(&base.join("ok/a/b/w.txt"), b"v").unwrap();
        assert_eq!(
            std::fs::read_to_string(base.join("ok/a/b/w.txt")).unwrap(),
            "v"
        );
        let kind = |r: io::Result<()>| r.map_err(|e| e.kind());
        for fs in [Fs::Plain, Fs::Checked] {
            let f = base.join("ok/f.txt");
            assert_eq!(kind(fs.create_dirs(&f)), Err(io::ErrorKind::AlreadyExists));
            assert_eq!(
                kind(fs.create_dirs(&f.join("x"))),
                Err(io::ErrorKind::NotADirectory)
            );
            assert_eq!(
                kind(fs.remove_dir(&base.join("ok/a"))),
                Err(io::ErrorKind::DirectoryNotEmpty)
            );
            assert_eq!(
                kind(fs.write(&base.join("ok/a"), b"x")),
                Err(io::ErrorKind::IsADirectory)
            );
        }
        fs.remove_dir(&base.join("ok/a/b/c")).unwrap();
        assert!(!base.join("ok/a/b/c").exists());
        // `rmdir` on the link itself, not its target.
        assert_eq!(
            kind(fs.remove_dir(&base.join("ok/link"))),
            Err(io::ErrorKind::NotADirectory)
        );
        assert!(base.join("outside").is_dir());
        let err = open(Path::new("/tmp/../etc"), OFlags::PATH, Mode::empty()).unwrap_err();
        assert_eq!(err.to_string(), "`/tmp/../etc` holds `..`");
    }
}
