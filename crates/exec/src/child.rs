//! A running child: started by tokio (std's spawn) or by our own clone (sandboxed runs, see
//! `sandbox/launch.rs`), supervised the same way.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::process::ExitStatus;

use rustix::process::{WaitId, WaitIdOptions, WaitIdStatus};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest};
use tokio::net::unix::pipe::{Receiver, Sender};

pub(crate) type Reader = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// A child to supervise.
#[derive(Debug)]
pub(crate) enum Spawned {
    Tokio(tokio::process::Child),
    Raw(RawChild),
}

impl Spawned {
    pub(crate) fn id(&self) -> Option<u32> {
        match self {
            Self::Tokio(c) => c.id(),
            Self::Raw(c) => Some(c.pid),
        }
    }

    /// Waits for the exit status (cancel-safe).
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self {
            Self::Tokio(c) => c.wait().await,
            Self::Raw(c) => c.wait().await,
        }
    }

    pub(crate) fn take_stdin(&mut self) -> Option<Writer> {
        match self {
            Self::Tokio(c) => c.stdin.take().map(|s| Box::pin(s) as Writer),
            Self::Raw(c) => c.stdin.take().map(|s| Box::pin(s) as Writer),
        }
    }

    pub(crate) fn take_stdout(&mut self) -> Option<Reader> {
        match self {
            Self::Tokio(c) => c.stdout.take().map(|s| Box::pin(s) as Reader),
            Self::Raw(c) => c.stdout.take().map(|s| Box::pin(s) as Reader),
        }
    }

    pub(crate) fn take_stderr(&mut self) -> Option<Reader> {
        match self {
            Self::Tokio(c) => c.stderr.take().map(|s| Box::pin(s) as Reader),
            Self::Raw(c) => c.stderr.take().map(|s| Box::pin(s) as Reader),
        }
    }
}

/// A child of our own clone, watched through its pidfd (which also makes reaping exact: a
/// pidfd names one process, never a later one with the same pid). Dropping it before it was
/// waited for kills it, as tokio's `kill_on_drop`.
#[derive(Debug)]
pub(crate) struct RawChild {
    pid: u32,
    pidfd: Option<AsyncFd<OwnedFd>>,
    status: Option<ExitStatus>,
    pub(crate) stdin: Option<Sender>,
    pub(crate) stdout: Option<Receiver>,
    pub(crate) stderr: Option<Receiver>,
}

impl RawChild {
    /// Takes over a started child; must run inside the tokio runtime.
    pub(crate) fn new(pid: i32, pidfd: OwnedFd) -> io::Result<Self> {
        let pid = u32::try_from(pid).map_err(io::Error::other)?;
        // SAFETY: an owned descriptor, kept open and unchanged by the `AsyncFd` that owns it.
        #[expect(unsafe_code, reason = "tokio's registration of a descriptor we own")]
        let registered = unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) };
        let pidfd = match registered {
            Ok(fd) => fd,
            Err(e) => {
                // Not watchable: it must not run unwatched.
                let (pidfd, e) = e.into_parts();
                abandon(pidfd);
                return Err(e);
            }
        };
        Ok(Self {
            pid,
            pidfd: Some(pidfd),
            status: None,
            stdin: None,
            stdout: None,
            stderr: None,
        })
    }

    async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.status {
                return Ok(status);
            }
            let Some(pidfd) = self.pidfd.as_ref() else {
                return Err(io::Error::other("the child is gone"));
            };
            // The pidfd turns readable once the process has exited.
            let mut ready = pidfd.readable().await?;
            match reap(pidfd.get_ref(), WaitIdOptions::NOHANG)? {
                Some(status) => self.status = Some(status),
                None => ready.clear_ready(),
            }
        }
    }
}

impl Drop for RawChild {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        if let Some(pidfd) = self.pidfd.take() {
            abandon(pidfd.into_inner());
        }
    }
}

/// Kills the child and collects it, on another thread when it is not gone at once (it may be
/// in uninterruptible sleep).
fn abandon(pidfd: OwnedFd) {
    let _ = rustix::process::pidfd_send_signal(&pidfd, rustix::process::Signal::KILL);
    if matches!(reap(&pidfd, WaitIdOptions::NOHANG), Ok(Some(_))) {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("tether-exec-reap".into())
        .spawn(move || {
            let _ = reap(&pidfd, WaitIdOptions::empty());
        });
}

/// Collects the child's exit status (`NOHANG`: `None` while it runs).
fn reap(pidfd: &OwnedFd, options: WaitIdOptions) -> io::Result<Option<ExitStatus>> {
    let status = rustix::process::waitid(
        WaitId::PidFd(pidfd.as_fd()),
        options | WaitIdOptions::EXITED,
    )?;
    Ok(status.map(exit_status))
}

/// The status as `wait` would have encoded it.
fn exit_status(status: WaitIdStatus) -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    let raw = match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => (code & 0xff) << 8,
        (None, Some(signal)) if status.dumped() => signal | 0x80,
        (None, Some(signal)) => signal,
        (None, None) => 0,
    };
    ExitStatus::from_raw(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(pid: u32) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            // A zombie still has its directory: gone means killed and reaped.
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        false
    }

    #[tokio::test]
    async fn a_raw_child_dropped_before_its_exit_is_killed_and_reaped() {
        #[expect(clippy::disallowed_methods, reason = "a child to take over")]
        let child = std::process::Command::new("/bin/sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let raw_pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
        let pidfd =
            rustix::process::pidfd_open(raw_pid, rustix::process::PidfdFlags::empty()).unwrap();
        let raw = RawChild::new(i32::try_from(pid).unwrap(), pidfd).unwrap();
        assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
        drop(raw);
        assert!(gone(pid), "pid {pid} is still there");
        // std's handle must not wait for it any more: the status was collected.
        std::mem::forget(child);
    }

    #[tokio::test]
    async fn a_raw_child_reports_its_exit_code_and_signal() {
        for (script, code, signal) in [("exit 3", Some(3), None), ("kill -9 $$", None, Some(9))] {
            #[expect(clippy::disallowed_methods, reason = "a child to take over")]
            let child = std::process::Command::new("/bin/sh")
                .args(["-c", script])
                .spawn()
                .unwrap();
            let pid = i32::try_from(child.id()).unwrap();
            let pidfd = rustix::process::pidfd_open(
                rustix::process::Pid::from_raw(pid).unwrap(),
                rustix::process::PidfdFlags::empty(),
            )
            .unwrap();
            let mut raw = Spawned::Raw(RawChild::new(pid, pidfd).unwrap());
            let status = raw.wait().await.unwrap();
            use std::os::unix::process::ExitStatusExt;
            assert_eq!((status.code(), status.signal()), (code, signal), "{script}");
            assert_eq!(
                raw.wait().await.unwrap(),
                status,
                "waiting again gives the same"
            );
            std::mem::forget(child);
        }
    }
}
