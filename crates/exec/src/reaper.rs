//! No escaped processes: what a run started is gone when the run ends.
//!
//! Killing a child's process group misses descendants that left it (`setsid`, daemons). So
//! Tether makes itself the child subreaper of its process tree (Linux): a descendant whose
//! parent dies is re-parented to us instead of to init, and every run sets a marker variable
//! ([`MARKER`], unique per run) that its descendants inherit (`setsid` keeps the environment).
//! When a run ends we kill its group, then sweep our children: an adopted child carrying the
//! run's marker is killed with all its descendants, and adopted zombies are reaped.
//!
//! Only processes we adopted are touched. The children `tether-exec` spawned and waits for
//! itself (through tokio) are listed in [`OWN`] while they live, and a sweep holds that list's
//! lock, so it can never steal their exit status; a zombie outside our own process group is an
//! orphan from some run (every run gets its own group), one inside it is someone else's.

use std::collections::HashSet;
use std::ffi::OsString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

/// The variable that ties a process to the run that started it.
pub const MARKER: &str = "TETHER_EXEC_RUN";

/// How long a sweep keeps killing and reaping before it gives up (a process in
/// uninterruptible sleep cannot die at once).
const SWEEP_LIMIT: Duration = Duration::from_millis(500);

/// How long a sweep waits for an adopted child whose environment it cannot read yet.
const SETTLE: Duration = Duration::from_millis(50);

static NEXT_RUN: AtomicU64 = AtomicU64::new(1);

/// Pids of the children tether-exec spawned and will wait for itself.
static OWN: LazyLock<Mutex<HashSet<i32>>> = LazyLock::new(|| {
    // Once per process, before the first spawn: adopt orphaned descendants. Not fatal when
    // refused (an old kernel): group kills still apply.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    Mutex::new(HashSet::new())
});

/// A fresh marker value for one run.
pub(crate) fn new_marker() -> OsString {
    let n = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
    format!("{}.{n}", rustix::process::getpid().as_raw_nonzero()).into()
}

/// The list of our own children, locked: hold it across a spawn so a sweep never mistakes the
/// new child for an orphan.
pub(crate) fn own() -> MutexGuard<'static, HashSet<i32>> {
    OWN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Forgets a child whose exit status we have collected (or given up on).
pub(crate) fn released(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        own().remove(&pid);
    }
}

/// Kills what is left of a finished run: its process group (`pgid`), then every adopted
/// process carrying `marker` and their descendants, reaping adopted zombies, until none is left
/// or [`SWEEP_LIMIT`] passed.
pub(crate) async fn sweep(pgid: Option<u32>, marker: &OsString) {
    let pgid = pgid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(Pid::from_raw);
    if let Some(pgid) = pgid {
        // ESRCH (nothing left in the group) is the common case.
        let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
    }
    let needle = marker_entry(marker);
    let started = Instant::now();
    loop {
        let (busy, unknown) = sweep_once(&needle);
        let group_alive = pgid.is_some_and(|g| rustix::process::test_kill_process_group(g).is_ok());
        // An adopted child caught mid-exec shows no environment for a moment: look again
        // briefly rather than let it escape.
        let settling = unknown && started.elapsed() < SETTLE;
        if (!busy && !group_alive && !settling) || started.elapsed() > SWEEP_LIMIT {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The same, without waiting: one pass (for `Drop`).
pub(crate) fn sweep_now(pgid: Option<i32>, marker: &OsString) {
    if let Some(pgid) = pgid.and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
    }
    let _ = sweep_once(&marker_entry(marker));
}

/// `MARKER=value` as it appears in `/proc/PID/environ`.
fn marker_entry(marker: &OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut entry = format!("{MARKER}=").into_bytes();
    entry.extend_from_slice(marker.as_bytes());
    entry
}

/// One pass over our adopted children: whether it found something to kill or reap (so more
/// may follow: descendants of a killed process are adopted as it dies), and whether an adopted
/// child's environment could not be read (it may be between `fork` and `exec`).
fn sweep_once(needle: &[u8]) -> (bool, bool) {
    let own = own();
    let our_group = rustix::process::getpgrp().as_raw_nonzero().get();
    let mut busy = false;
    let mut unknown = false;
    for pid in children(rustix::process::getpid().as_raw_nonzero().get()) {
        if own.contains(&pid) {
            continue;
        }
        let Some((state, pgrp)) = stat(pid) else {
            continue;
        };
        if state == 'Z' {
            if pgrp != our_group
                && let Some(p) = Pid::from_raw(pid)
            {
                // Only this adopted pid, never "any child": tokio waits for its own.
                let _ = rustix::process::waitid(
                    WaitId::Pid(p),
                    WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
                );
                busy = true;
            }
            continue;
        }
        match carries(pid, needle) {
            Some(true) => {
                kill_tree(pid);
                busy = true;
            }
            Some(false) => {}
            None => unknown = true,
        }
    }
    (busy, unknown)
}

/// SIGKILL to `pid` and everything below it, children first listed before it dies.
fn kill_tree(pid: i32) {
    let mut stack = vec![pid];
    let mut seen = HashSet::new();
    while let Some(pid) = stack.pop() {
        if !seen.insert(pid) {
            continue;
        }
        stack.extend(children(pid));
        if let Some(p) = Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(p, Signal::KILL);
        }
    }
}

/// The children of `pid`, from every thread's `children` list.
fn children(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out
}

/// State letter and process group of `pid`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the parenthesised command name: state, ppid, pgrp, …
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let pgrp = fields.nth(1)?.parse().ok()?;
    Some((state, pgrp))
}

/// Whether `pid`'s environment holds `needle` (`MARKER=value`) as a whole entry; `None`
/// when it cannot be read or is empty (a process in `exec`).
fn carries(pid: i32, needle: &[u8]) -> Option<bool> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    if env.is_empty() {
        return None;
    }
    Some(env.split(|b| *b == 0).any(|entry| entry == needle))
}
