//! What a test process holds, read from `/proc` (Linux): its open file descriptors, threads and
//! resident memory, and the live processes below it.
//!
//! Fault-injection tests take a [`Usage`] before and after a case and compare: a leaked pipe
//! shows up as an extra fd (named by its `readlink` target, so a failure says *what* leaked),
//! a leaked hook as a live descendant. A grandchild whose parent exited is re-parented to init
//! and would vanish from the tree, so [`adopt_orphans`] makes this process a child subreaper:
//! orphans below it are re-parented to it and stay visible. That is per process, so these
//! checks rely on nextest's one process per test (the suite's runner); under plain
//! `cargo test` the tests of one binary share the process and would see each other's children.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// A live (not zombie) process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Process {
    pub pid: u32,
    pub ppid: u32,
    /// Its process group.
    pub pgid: u32,
    /// The kernel's short name (`comm`).
    pub name: String,
}

/// Descriptors opened and closed between two readings, as `(fd, target)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FdChanges {
    pub opened: Vec<(i32, String)>,
    pub closed: Vec<(i32, String)>,
}

/// One reading of this process's resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// Open descriptors: number → `readlink` target (`pipe:[…]`, `socket:[…]`, a path).
    pub fds: BTreeMap<i32, String>,
    pub threads: usize,
    /// Resident memory now (`VmRSS`), KiB.
    pub rss_kib: u64,
    /// Peak resident memory so far (`VmHWM`), KiB.
    pub peak_rss_kib: u64,
    /// Live processes below this one.
    pub descendants: Vec<Process>,
}

impl Usage {
    pub fn now() -> Self {
        // One read of `status` for all three fields.
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        Self {
            fds: open_fds(),
            threads: status_field(&status, "Threads:")
                .and_then(|v| usize::try_from(v).ok())
                .unwrap_or(0),
            rss_kib: status_field(&status, "VmRSS:").unwrap_or(0),
            peak_rss_kib: status_field(&status, "VmHWM:").unwrap_or(0),
            descendants: live_descendants(std::process::id()),
        }
    }

    /// Descriptors opened and closed since `before`; `FdChanges::default()` when none.
    pub fn fd_changes(&self, before: &Self) -> FdChanges {
        let diff = |a: &BTreeMap<i32, String>, b: &BTreeMap<i32, String>| {
            a.iter()
                .filter(|(fd, target)| b.get(fd) != Some(target))
                .map(|(fd, target)| (*fd, target.clone()))
                .collect::<Vec<_>>()
        };
        FdChanges {
            opened: diff(&self.fds, &before.fds),
            closed: diff(&before.fds, &self.fds),
        }
    }
}

/// This process's open descriptors (without the one used to list them).
pub fn open_fds() -> BTreeMap<i32, String> {
    let listing = format!("/proc/{}/fd", std::process::id());
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let fd = e.file_name().to_str()?.parse::<i32>().ok()?;
            let target = std::fs::read_link(e.path()).ok()?.display().to_string();
            (target != listing).then_some((fd, target))
        })
        .collect()
}

/// A `kB` (or plain count) field of a `/proc/PID/status` text, e.g. `VmRSS:` or `Threads:`.
fn status_field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A field of `/proc/PID/status`; `None` once the process is gone.
fn status_field_of(pid: &str, name: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_field(&status, name)
}

/// Resident memory now, KiB.
pub fn rss_kib() -> u64 {
    status_field_of("self", "VmRSS:").unwrap_or(0)
}

/// Peak resident memory of this process so far, KiB.
pub fn peak_rss_kib() -> u64 {
    status_field_of("self", "VmHWM:").unwrap_or(0)
}

/// Peak resident memory of another process (e.g. a `tether` child), KiB; `None` once gone.
pub fn peak_rss_kib_of(pid: u32) -> Option<u64> {
    status_field_of(&pid.to_string(), "VmHWM:")
}

/// Makes this process the reaper of orphans below it, so [`live_descendants`] still sees a
/// grandchild whose parent exited (a hook's `sleep 30 &`, a tool left behind by a killed
/// `tether`). Call it before spawning anything.
pub fn adopt_orphans() -> io::Result<()> {
    let me = rustix::process::getpid();
    rustix::process::set_child_subreaper(Some(me)).map_err(io::Error::from)
}

/// `(pid, ppid, pgid, state, comm)` from `/proc/PID/stat`; `comm` may hold spaces and parens.
fn stat(dir: &Path) -> Option<(u32, u32, u32, char, String)> {
    let text = std::fs::read_to_string(dir.join("stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let name = text[open + 1..close].to_owned();
    let mut rest = text[close + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgid = rest.next()?.parse().ok()?;
    Some((pid, ppid, pgid, state, name))
}

/// Every live process on the machine (zombies and dead ones left out).
pub fn live_processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out: Vec<Process> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| stat(&e.path()))
        .filter(|(_, _, _, state, _)| !matches!(state, 'Z' | 'X' | 'x'))
        .map(|(pid, ppid, pgid, _, name)| Process {
            pid,
            ppid,
            pgid,
            name,
        })
        .collect();
    out.sort();
    out
}

/// Live processes below `root` (children, their children, …), by pid.
pub fn live_descendants(root: u32) -> Vec<Process> {
    let all = live_processes();
    let mut below = vec![root];
    let mut out = Vec::new();
    // Parents may have larger pids than their children (pid wrap), so iterate to a fixpoint.
    loop {
        let found: Vec<Process> = all
            .iter()
            .filter(|p| below.contains(&p.ppid) && !below.contains(&p.pid))
            .cloned()
            .collect();
        if found.is_empty() {
            break;
        }
        below.extend(found.iter().map(|p| p.pid));
        out.extend(found);
    }
    out.sort();
    out
}

/// Live members of process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<Process> {
    live_processes()
        .into_iter()
        .filter(|p| p.pgid == pgid)
        .collect()
}

/// Polls until process group `pgid` has no live member, for at most `within` (a SIGKILLed
/// group takes a moment to die); returns those still alive then.
pub fn wait_for_empty_group(pgid: u32, within: Duration) -> Vec<Process> {
    poll_until_empty(within, || group_members(pgid))
}

/// Polls until no process lives below this one, for at most `within` (a SIGKILLed group takes
/// a moment to die); returns those still alive then.
pub fn wait_for_no_descendants(within: Duration) -> Vec<Process> {
    poll_until_empty(within, || live_descendants(std::process::id()))
}

/// Polls `left` every 20 ms until it is empty or `within` has passed; returns its last value.
fn poll_until_empty(within: Duration, left: impl Fn() -> Vec<Process>) -> Vec<Process> {
    let deadline = Instant::now() + within;
    loop {
        let now_left = left();
        if now_left.is_empty() || Instant::now() >= deadline {
            return now_left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opened_file_shows_up_as_a_new_fd_and_goes_away_when_closed() {
        let before = Usage::now();
        let file = std::fs::File::open("/proc/self/status").unwrap();
        let during = Usage::now();
        let changes = during.fd_changes(&before);
        assert_eq!(changes.opened.len(), 1, "{changes:?}");
        assert!(changes.opened[0].1.ends_with("/status"), "{changes:?}");
        assert_eq!(changes.closed, []);
        drop(file);
        assert_eq!(Usage::now().fd_changes(&before), FdChanges::default());
    }

    #[test]
    fn this_process_is_found_among_its_parents_descendants() {
        let me = std::process::id();
        let parent =
            rustix::process::getppid().map_or(1, |p| p.as_raw_nonzero().get().unsigned_abs());
        let below = live_descendants(parent);
        assert!(
            below.iter().any(|p| p.pid == me && p.ppid == parent),
            "{below:?}"
        );
        let mine = live_processes().into_iter().find(|p| p.pid == me).unwrap();
        assert!(group_members(mine.pgid).contains(&mine));
    }

    #[test]
    fn memory_readings_are_plausible() {
        let u = Usage::now();
        assert!(u.rss_kib > 0 && u.peak_rss_kib >= u.rss_kib, "{u:?}");
        assert!(u.threads >= 1);
        assert_eq!(peak_rss_kib_of(std::process::id()).map(|_| ()), Some(()));
    }
}
