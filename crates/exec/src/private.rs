//! Private files. What Tether keeps (sessions, memories, caches, logs, spooled output) holds
//! prompts, tool output and tool arguments, secrets among them, so only its owner may read it:
//! directories are created 0700 and files 0600 whatever the umask, and an existing one that
//! others can read (an older Tether created them so) is tightened when it is next opened, with
//! one notice per process.
//!
//! The data directory (`$TETHER_HOME`) and what is inside it are Tether's own and are
//! tightened, as are the directories Tether names for itself elsewhere (its spool directory in
//! the temp directory); other directories belong to the user and are only ever created, never
//! changed. Files Tether writes are 0600 wherever they are.

use std::ffi::OsString;
use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The mode of the directories Tether creates.
pub const DIR_MODE: u32 = 0o700;
/// The mode of the files Tether creates.
pub const FILE_MODE: u32 = 0o600;

/// The group and other permission bits.
const SHARED: u32 = 0o077;

static NOTIFY: OnceLock<fn(&str)> = OnceLock::new();
static NOTIFIED: AtomicBool = AtomicBool::new(false);

/// Where the one notice about tightened permissions goes (the CLI's `warning:` line). The first
/// call wins; without one, nothing is said.
pub fn on_tightened(notify: fn(&str)) {
    let _ = NOTIFY.set(notify);
}

fn notice(path: &Path) {
    if NOTIFIED.swap(true, Ordering::Relaxed) {
        return;
    }
    if let Some(notify) = NOTIFY.get() {
        notify(&format!(
            "`{}` was readable by other users: made it private; tether keeps its data owner-only (directories 0700, files 0600) and tightens older files as it opens them",
            path.display()
        ));
    }
}

/// The mode without group and other bits (and without setuid, setgid and sticky), or `None`
/// when it has none to take away.
fn tightened(mode: u32) -> Option<u32> {
    (mode & SHARED != 0).then_some(mode & 0o700)
}

/// Takes the group and other permissions off `path` (a file or a directory, symlinks
/// followed) when it has any. A missing path is left missing.
pub fn tighten(path: &Path) -> io::Result<()> {
    let mode = match std::fs::metadata(path) {
        Ok(m) => m.permissions().mode(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if let Some(mode) = tightened(mode) {
        std::fs::set_permissions(path, Permissions::from_mode(mode))?;
        notice(path);
    }
    Ok(())
}

/// Tightens `root` and everything below it, without following symlinks below it and without
/// descending into the directories `keep_inside` names (they are tightened themselves, their
/// contents left as they are). For a data directory an older Tether left readable by others,
/// whose files would otherwise wait to be tightened until each is next opened. Best effort:
/// an entry that cannot be read or changed is passed over.
pub fn tighten_tree(root: &Path, keep_inside: &dyn Fn(&Path) -> bool) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = if path == root {
            std::fs::metadata(&path)
        } else {
            std::fs::symlink_metadata(&path)
        };
        let Ok(meta) = meta else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        if meta.is_dir()
            && !keep_inside(&path)
            && let Ok(entries) = std::fs::read_dir(&path)
        {
            stack.extend(entries.flatten().map(|e| e.path()));
        }
        if let Some(mode) = tightened(meta.permissions().mode())
            && std::fs::set_permissions(&path, Permissions::from_mode(mode)).is_ok()
        {
            notice(&path);
        }
    }
}

/// Creates `dir` and its missing parents, each 0700; existing directories are left as they
/// are (they may be the user's).
pub fn create_dirs(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
}

/// Makes `dir` exist privately: missing directories are created 0700, and when `dir` is inside
/// `home` (the data directory, or `dir` itself when it is Tether's own), `home` and every
/// directory from it down to `dir` are tightened to 0700. Outside `home`, existing directories
/// are the user's and are left alone.
pub fn create_dir(home: &Path, dir: &Path) -> io::Result<()> {
    create_dirs(dir)?;
    let Ok(rel) = dir.strip_prefix(home) else {
        return Ok(());
    };
    // `home/../x` is not inside `home`.
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Ok(());
    }
    let mut at = home.to_path_buf();
    tighten(&at)?;
    for part in rel {
        at.push(part);
        tighten(&at)?;
    }
    Ok(())
}

/// Opens `path` with `options`; a file it creates is 0600, and an existing file others can
/// read is tightened through the open handle.
pub fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options.mode(FILE_MODE).open(path)?;
    if let Some(mode) = tightened(file.metadata()?.permissions().mode()) {
        file.set_permissions(Permissions::from_mode(mode))?;
        notice(path);
    }
    Ok(file)
}

/// Opens `path` for appending (a log), creating it 0600 and its missing directories 0700.
pub fn append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    open(path, OpenOptions::new().create(true).append(true))
}

/// Writes `bytes` to a private file beside `path`, then renames it over `path` (its missing
/// directories created 0700): a reader never sees half a file, and the result is 0600 whatever
/// the mode of the file it replaces.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = open(
        &tmp,
        OpenOptions::new().write(true).create(true).truncate(true),
    )?;
    file.write_all(bytes)?;
    drop(file);
    std::fs::rename(&tmp, path)
}

/// The files SQLite keeps beside the database `db`: its rollback journal and its WAL files.
fn sqlite_companions(db: &Path) -> [PathBuf; 3] {
    ["-journal", "-wal", "-shm"].map(|suffix| {
        let mut name = OsString::from(db.as_os_str());
        name.push(suffix);
        PathBuf::from(name)
    })
}

/// Readies the SQLite database `db` for a read-write open: creates it empty and 0600 when it
/// is missing (SQLite gives the `-journal`, `-wal` and `-shm` files it creates the database's
/// mode), and tightens it and those files when they exist wider. Missing directories are
/// created 0700.
pub fn prepare_sqlite(db: &Path) -> io::Result<()> {
    if let Some(dir) = db.parent() {
        create_dirs(dir)?;
    }
    match open(db, OpenOptions::new().write(true).create_new(true)) {
        Ok(_) => {}
        // Tightened without opening it: a read-only database stays SQLite's to refuse.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => tighten(db)?,
        Err(e) => return Err(e),
    }
    sqlite_companions(db).iter().try_for_each(|f| tighten(f))
}

/// Tightens an existing SQLite database and its companion files (for a read-only open, which
/// creates nothing).
pub fn tighten_sqlite(db: &Path) -> io::Result<()> {
    tighten(db)?;
    sqlite_companions(db).iter().try_for_each(|f| tighten(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn directories_inside_home_are_created_and_tightened_down_to_the_leaf() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join("logs")).unwrap();
        set_mode(&home, 0o755);
        set_mode(&home.join("logs"), 0o775);
        create_dir(&home, &home.join("logs/s1/x")).unwrap();
        for d in ["", "logs", "logs/s1", "logs/s1/x"] {
            assert_eq!(mode(&home.join(d)), 0o700, "{d}");
        }
    }

    #[test]
    fn directories_outside_home_are_created_private_but_existing_ones_are_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("project");
        std::fs::create_dir(&user).unwrap();
        set_mode(&user, 0o755);
        let home = tmp.path().join("home");
        create_dir(&home, &user.join("a/b")).unwrap();
        assert_eq!(mode(&user), 0o755);
        assert_eq!(mode(&user.join("a")), 0o700);
        assert_eq!(mode(&user.join("a/b")), 0o700);
        // `..` does not make a path inside `home`.
        create_dir(&home, &home.join("../project")).unwrap();
        assert_eq!(mode(&user), 0o755);
    }

    #[test]
    fn files_are_created_private_and_existing_ones_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("logs/a.log");
        let mut f = append(&log).unwrap();
        f.write_all(b"one\n").unwrap();
        assert_eq!(mode(&log), 0o600);
        assert_eq!(mode(&tmp.path().join("logs")), 0o700);
        set_mode(&log, 0o644);
        append(&log).unwrap().write_all(b"two\n").unwrap();
        assert_eq!(mode(&log), 0o600);
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "one\ntwo\n");
    }

    #[test]
    fn a_whole_write_replaces_a_wide_file_with_a_private_one() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c/answers.json");
        std::fs::create_dir(tmp.path().join("c")).unwrap();
        std::fs::write(&path, "old").unwrap();
        set_mode(&path, 0o644);
        write_whole(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn a_database_is_created_private_and_its_wide_companions_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("d/x.db");
        prepare_sqlite(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
        let wal = tmp.path().join("d/x.db-wal");
        std::fs::write(&wal, "").unwrap();
        set_mode(&wal, 0o644);
        set_mode(&db, 0o664);
        prepare_sqlite(&db).unwrap();
        assert_eq!((mode(&db), mode(&wal)), (0o600, 0o600));
        set_mode(&db, 0o644);
        tighten_sqlite(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert!(!tmp.path().join("d/x.db-shm").exists());
    }

    #[test]
    fn a_whole_tree_is_tightened_but_not_what_it_keeps_inside_nor_symlink_targets() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let outside = tmp.path().join("outside.txt");
        std::fs::write(&outside, "").unwrap();
        set_mode(&outside, 0o644);
        std::fs::create_dir_all(home.join("logs/s1")).unwrap();
        std::fs::create_dir_all(home.join("worktrees/repo/src")).unwrap();
        std::fs::write(home.join("logs/s1/mcp-a.log"), "").unwrap();
        std::fs::write(home.join("worktrees/repo/src/main.rs"), "").unwrap();
        std::os::unix::fs::symlink(&outside, home.join("link")).unwrap();
        for p in ["", "logs", "logs/s1", "worktrees", "worktrees/repo"] {
            set_mode(&home.join(p), 0o755);
        }
        set_mode(&home.join("logs/s1/mcp-a.log"), 0o644);
        set_mode(&home.join("worktrees/repo/src/main.rs"), 0o644);
        // Through a symlinked home, as `$TETHER_HOME` may be.
        let linked = tmp.path().join("linked-home");
        std::os::unix::fs::symlink(&home, &linked).unwrap();
        tighten_tree(&linked, &|p| p == linked.join("worktrees"));
        for d in ["", "logs", "logs/s1", "worktrees"] {
            assert_eq!(mode(&home.join(d)), 0o700, "{d}");
        }
        assert_eq!(mode(&home.join("logs/s1/mcp-a.log")), 0o600);
        assert_eq!(mode(&home.join("worktrees/repo")), 0o755);
        assert_eq!(mode(&home.join("worktrees/repo/src/main.rs")), 0o644);
        assert_eq!(mode(&outside), 0o644);
    }

    #[test]
    fn tightening_keeps_owner_bits_and_ignores_missing_paths() {
        assert_eq!(tightened(0o100_644), Some(0o600));
        assert_eq!(tightened(0o040_755), Some(0o700));
        assert_eq!(tightened(0o2775), Some(0o700));
        assert_eq!(tightened(0o600), None);
        assert_eq!(tightened(0o400), None);
        tighten(Path::new("/nonexistent/tether/x")).unwrap();
    }
}
