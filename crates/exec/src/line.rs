//! A service that answers each line written to its stdin with one line on its stdout
//! (persistent hooks).
//!
//! One call at a time: the caller holds `&mut`. A call that fails in any way (timeout,
//! cancellation, closed stdout, a line past the cap, a write the child did not take) leaves the
//! protocol out of step — a late answer would be read as the next call's — so the service is
//! marked unusable and the caller replaces it. Process rules are [`Service`]'s: own process
//! group, nothing left behind on [`LineService::stop`] or drop.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use crate::{Service, ServiceSpec};

/// Why a call got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// No full line within the call's timeout.
    #[error("no answer within the timeout")]
    TimedOut,
    /// The caller's token was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// stdout reached end of file before a full line (the child exited or closed it).
    #[error("its stdout closed before a full line")]
    Closed,
    /// The answer grew past the cap without a newline.
    #[error("its answer is longer than {0} bytes")]
    TooLong(usize),
    /// The request could not be written (the child no longer reads its stdin).
    #[error("writing to its stdin failed: {0}")]
    Write(String),
    /// An earlier call failed and the service was not replaced.
    #[error("an earlier call failed")]
    Unusable,
}

/// A running line service. Dropping it kills its process group.
#[derive(Debug)]
pub struct LineService {
    service: Service,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The request line being written, kept to spare an allocation per call.
    request: Vec<u8>,
    broken: bool,
}

impl LineService {
    /// Starts the child. Errors name the program and the cause.
    pub fn spawn(spec: &ServiceSpec) -> Result<Self, String> {
        let (service, stdin, stdout) = Service::spawn(spec)?;
        Ok(Self {
            service,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            request: Vec::new(),
            broken: false,
        })
    }

    /// The child's pid (also its process group).
    pub fn pid(&self) -> Option<u32> {
        self.service.pid()
    }

    /// Whether a call may be made: no call failed and the child has not exited.
    pub fn usable(&mut self) -> bool {
        !self.broken && self.service.try_exit().is_none()
    }

    /// Writes `request` and a newline, then reads one line (without its newline), all within
    /// `timeout`. `request` must not hold a newline. Any error makes the service unusable.
    pub async fn call(
        &mut self,
        request: &[u8],
        timeout: Duration,
        cap: usize,
        cancel: Option<&CancellationToken>,
    ) -> Result<Vec<u8>, LineError> {
        if self.broken {
            return Err(LineError::Unusable);
        }
        self.broken = true;
        self.request.clear();
        self.request.extend_from_slice(request);
        self.request.push(b'\n');
        let exchange = async {
            let stdin = self.stdin.as_mut().ok_or(LineError::Unusable)?;
            // One write: the line reaches the child whole, in one wake-up.
            stdin
                .write_all(&self.request)
                .await
                .map_err(|e| LineError::Write(e.to_string()))?;
            read_line(&mut self.stdout, cap).await
        };
        let cancelled = async {
            match cancel {
                Some(c) => c.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let answer = tokio::select! {
            r = tokio::time::timeout(timeout, exchange) => r.unwrap_or(Err(LineError::TimedOut)),
            () = cancelled => Err(LineError::Cancelled),
        }?;
        self.broken = false;
        Ok(answer)
    }

    /// What the child wrote to stderr since the last call.
    pub fn take_fresh_stderr(&self) -> String {
        self.service.take_fresh_stderr()
    }

    /// The last lines the child wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.service.stderr_tail()
    }

    /// The exit status, waiting up to `within` for the child to exit and for its stderr to
    /// close (so the tail holds its last words).
    pub async fn exit_within(&mut self, within: Duration) -> Option<ExitStatus> {
        let status = tokio::time::timeout(within, self.service.wait())
            .await
            .ok()
            .flatten();
        if status.is_some() {
            self.service.stderr_done(within).await;
        }
        status
    }

    /// Closes the child's stdin: a well-behaved service starts to exit.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Closes stdin, waits `grace` for the child to exit, then TERM, `grace`, KILL; the group
    /// and what left it are killed in every case.
    pub async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        drop(self.stdin.take());
        self.service.stop(grace).await
    }
}

/// One line of at most `cap` bytes, without its newline.
async fn read_line(r: &mut BufReader<ChildStdout>, cap: usize) -> Result<Vec<u8>, LineError> {
    let mut line = Vec::new();
    loop {
        let buf = r.fill_buf().await.map_err(|_| LineError::Closed)?;
        if buf.is_empty() {
            return Err(LineError::Closed);
        }
        if let Some(i) = buf.iter().position(|b| *b == b'\n') {
            line.extend_from_slice(&buf[..i]);
            r.consume(i + 1);
            if line.len() > cap {
                return Err(LineError::TooLong(cap));
            }
            return Ok(line);
        }
        let n = buf.len();
        line.extend_from_slice(buf);
        r.consume(n);
        if line.len() > cap {
            return Err(LineError::TooLong(cap));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StderrLog;

    fn spec(script: &str) -> ServiceSpec {
        ServiceSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            base_env: None,
            env: Vec::new(),
            cwd: std::env::temp_dir(),
            stderr: StderrLog {
                path: None,
                cap: 0,
                header: "test".into(),
            },
            direct: None,
            sandbox: None,
        }
    }

    const SECOND: Duration = Duration::from_secs(5);

    #[tokio::test]
    async fn each_line_gets_its_answer_from_one_process() {
        let mut svc = LineService::spawn(&spec(
            "while read l; do echo \"$$ $l\"; echo \"seen $l\" >&2; done",
        ))
        .unwrap();
        let pid = svc.pid().unwrap();
        for i in 0..5 {
            let answer = svc.call(format!("{i}").as_bytes(), SECOND, 64, None).await;
            assert_eq!(answer.unwrap(), format!("{pid} {i}").into_bytes());
        }
        assert!(svc.usable());
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(svc.take_fresh_stderr().contains("seen 4"));
        assert_eq!(svc.take_fresh_stderr(), "");
        let status = svc.stop(SECOND).await.unwrap();
        assert!(status.success(), "stdin closed: the loop ends by itself");
    }

    #[tokio::test]
    async fn a_hung_answer_times_out_and_the_service_is_unusable() {
        let mut svc = LineService::spawn(&spec("read l; sleep 30")).unwrap();
        let r = svc.call(b"x", Duration::from_millis(100), 64, None).await;
        assert_eq!(r, Err(LineError::TimedOut));
        assert!(!svc.usable());
        assert_eq!(
            svc.call(b"y", SECOND, 64, None).await,
            Err(LineError::Unusable)
        );
        svc.stop(Duration::from_millis(50)).await;
    }

    #[tokio::test]
    async fn a_child_that_exits_without_answering_is_a_closed_stdout() {
        let mut svc = LineService::spawn(&spec("read l; echo dying >&2; exit 3")).unwrap();
        assert_eq!(
            svc.call(b"x", SECOND, 64, None).await,
            Err(LineError::Closed)
        );
        let status = svc.exit_within(SECOND).await.unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(svc.stderr_tail(), "dying");
    }

    #[tokio::test]
    async fn an_answer_past_the_cap_is_refused() {
        let mut svc =
            LineService::spawn(&spec("read l; head -c 100 /dev/zero | tr '\\0' a; echo")).unwrap();
        assert_eq!(
            svc.call(b"x", SECOND, 10, None).await,
            Err(LineError::TooLong(10))
        );
    }

    #[tokio::test]
    async fn stop_leaves_nothing_behind_not_even_what_left_the_group() {
        let mut svc = LineService::spawn(&spec(
            "setsid sleep 300 & echo $! >&2; while read l; do echo ok; done",
        ))
        .unwrap();
        assert_eq!(svc.call(b"x", SECOND, 64, None).await.unwrap(), b"ok");
        let mut escaped = String::new();
        for _ in 0..100 {
            escaped = svc.stderr_tail();
            if !escaped.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let escaped: u32 = escaped.trim().parse().unwrap();
        let alive = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit_once(") ")
                    .is_some_and(|(_, r)| !r.starts_with('Z'))
            })
        };
        assert!(alive(escaped));
        let status = svc.stop(SECOND).await.unwrap();
        assert!(status.success());
        assert!(!alive(escaped), "{escaped} outlived the stop");
    }

    #[tokio::test]
    async fn cancelling_a_call_ends_it() {
        let mut svc = LineService::spawn(&spec("sleep 30")).unwrap();
        let token = CancellationToken::new();
        token.cancel();
        assert_eq!(
            svc.call(b"x", SECOND, 10, Some(&token)).await,
            Err(LineError::Cancelled)
        );
    }
}
