//! A pids cgroup of Tether's own: the process limit that holds for root too.
//!
//! Joining a cgroup is a migration, and every migration waits for an RCU grace period
//! (`cgroup_threadgroup_rwsem`): milliseconds per child when children start seconds apart,
//! as hooks do. So where the hierarchy is cgroup v1 (threads may sit in different cgroups) one
//! thread of ours joins the cgroup once and forks every child of the sandbox: a child starts in
//! its parent thread's cgroup, with no migration. Elsewhere (cgroup v2) each child joins
//! itself between fork and exec.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// A cgroup with `pids.max` set, and either a thread inside it that forks the children or
/// its `cgroup.procs` open for each child to join.
#[derive(Debug)]
pub(super) struct Cgroup {
    dir: PathBuf,
    procs: OwnedFd,
    spawner: Option<Spawner>,
}

impl Cgroup {
    /// Creates one below this process's own pids cgroup (cgroup v1 `pids` hierarchy, or v2
    /// when `pids` is delegated there) allowing `max` processes to the sandbox's children.
    pub(super) fn create(max: u64) -> Result<Self, String> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let parent = own_pids_cgroup().ok_or("no pids cgroup hierarchy is mounted")?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("tether-sandbox-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let done = |dir: &Path| -> Result<Self, String> {
            let procs = OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
                .map_err(|e| format!("{}: {e}", dir.join("cgroup.procs").display()))?;
            // The spawner thread counts as one of the cgroup's tasks.
            let spawner = Spawner::start(dir).ok();
            let max = max.saturating_add(u64::from(spawner.is_some()));
            OpenOptions::new()
                .write(true)
                .open(dir.join("pids.max"))
                .and_then(|mut f| f.write_all(max.to_string().as_bytes()))
                .map_err(|e| format!("{}: {e}", dir.join("pids.max").display()))?;
            Ok(Self {
                dir: dir.to_path_buf(),
                procs: procs.into(),
                spawner,
            })
        };
        done(&dir).inspect_err(|_| {
            let _ = std::fs::remove_dir(&dir);
        })
    }

    /// The `cgroup.procs` a child must join itself, `None` when the spawner forks it inside.
    pub(super) fn procs_fd(&self) -> Option<i32> {
        self.spawner.is_none().then(|| self.procs.as_raw_fd())
    }

    /// Runs `job` (a fork) on the thread inside the cgroup, when there is one.
    pub(super) fn spawner(&self) -> Option<&Spawner> {
        self.spawner.as_ref()
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The spawner thread leaves the cgroup as it exits, a moment after it was joined.
        let tries = if self.spawner.take().is_some() { 50 } else { 1 };
        for _ in 0..tries {
            // Fails while a process is still inside; the kernel keeps nothing else.
            match std::fs::remove_dir(&self.dir) {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => return,
            }
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A thread of ours inside the cgroup, running the forks of the sandbox's children.
#[derive(Debug)]
pub(super) struct Spawner {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spawner {
    /// Starts the thread and moves it into `dir` (cgroup v1 `tasks`; cgroup v2 has no per-thread
    /// membership for the pids controller, and this fails there).
    fn start(dir: &Path) -> Result<Self, String> {
        let tasks = dir.join("tasks");
        let (ready, is_ready) = mpsc::channel::<Result<(), String>>();
        let (jobs, queue) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("tether-sandbox-spawner".into())
            .spawn(move || {
                // `0` in `tasks` moves the writing thread, not its whole process.
                let joined = OpenOptions::new()
                    .write(true)
                    .open(&tasks)
                    .and_then(|mut f| f.write_all(b"0"))
                    .map_err(|e| format!("{}: {e}", tasks.display()));
                let ok = joined.is_ok();
                let _ = ready.send(joined);
                if ok {
                    for job in queue {
                        job();
                    }
                }
            })
            .map_err(|e| format!("cannot start the sandbox's spawner thread: {e}"))?;
        let mut spawner = Self {
            jobs: Some(jobs),
            thread: Some(thread),
        };
        match is_ready.recv() {
            Ok(Ok(())) => Ok(spawner),
            Ok(Err(e)) => {
                spawner.stop();
                Err(e)
            }
            Err(_) => {
                spawner.stop();
                Err("the sandbox's spawner thread ended".to_owned())
            }
        }
    }

    /// Runs `f` on the thread and returns its result; `None` if the thread is gone.
    pub(super) fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = mpsc::sync_channel(1);
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.jobs.as_ref()?.send(job).ok()?;
        rx.recv().ok()
    }

    fn stop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        self.stop();
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
