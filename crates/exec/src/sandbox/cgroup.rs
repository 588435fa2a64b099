//! A pids cgroup of Tether's own: the process limit that holds for root too.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

/// A cgroup with `pids.max` set, and its `cgroup.procs` open for the child to join.
#[derive(Debug)]
pub(super) struct Cgroup {
    dir: PathBuf,
    procs: OwnedFd,
}

impl Cgroup {
    /// Creates one below this process's own pids cgroup (cgroup v1 `pids` hierarchy, or v2
    /// when `pids` is delegated there).
    pub(super) fn create(max: u64) -> Result<Self, String> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let parent = own_pids_cgroup().ok_or("no pids cgroup hierarchy is mounted")?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("tether-sandbox-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let done = |dir: PathBuf| -> Result<Self, String> {
            std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("pids.max"))
                .and_then(|mut f| f.write_all(max.to_string().as_bytes()))
                .map_err(|e| format!("{}: {e}", dir.join("pids.max").display()))?;
            let procs = OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
                .map_err(|e| format!("{}: {e}", dir.join("cgroup.procs").display()))?;
            Ok(Self {
                dir,
                procs: procs.into(),
            })
        };
        done(dir.clone()).inspect_err(|_| {
            let _ = std::fs::remove_dir(&dir);
        })
    }

    pub(super) fn procs_fd(&self) -> i32 {
        self.procs.as_raw_fd()
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // Fails while a process is still inside; the kernel keeps nothing else.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The directory of this process's pids cgroup.
fn own_pids_cgroup() -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    // v1: `N:pids:/path` and a `cgroup` mount with the `pids` option.
    let v1 = cgroups.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == "pids").then_some(path)
    });
    let mount_of = |fstype: &str, option: Option<&str>| {
        mounts.lines().find_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let ok = f.len() > 3
                && f[2] == fstype
                && option.is_none_or(|o| f[3].split(',').any(|x| x == o));
            ok.then(|| PathBuf::from(f[1]))
        })
    };
    let (mount, path) = match v1 {
        Some(path) => (mount_of("cgroup", Some("pids"))?, path),
        None => {
            let path = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?;
            (mount_of("cgroup2", None)?, path)
        }
    };
    Some(mount.join(path.trim_start_matches('/')))
}
