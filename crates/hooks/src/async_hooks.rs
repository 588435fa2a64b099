//! `async: true` hooks: started by a dispatch and not awaited by it.
//!
//! At most [`MAX_CONCURRENT_ASYNC_HOOKS`] run at once per executor; the others wait for a
//! slot. Runs are kept per session, each session with its own cancellation token, so
//! [`AsyncHooks::shutdown`] of one session waits a grace period for that session's runs and
//! then kills what is left of them (the command runner kills the whole process group on
//! cancellation), leaving other sessions' runs alone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Async hooks running at once, per executor; more wait for a slot.
pub const MAX_CONCURRENT_ASYNC_HOOKS: usize = 16;

/// After the kill, how long to wait for cancelled hooks to report (their process groups are
/// already gone; this bounds only the bookkeeping).
const KILL_WAIT: Duration = Duration::from_secs(2);

/// The runs of one session, and the token that kills them.
#[derive(Debug, Default)]
struct SessionRuns {
    tasks: JoinSet<()>,
    cancel: CancellationToken,
}

/// The background runs of one executor, per session: a sub-agent's session ending must not
/// wait for, or kill, the parent session's runs.
#[derive(Debug)]
pub(crate) struct AsyncHooks {
    slots: Arc<Semaphore>,
    // Locked only to add a task or take a session's set, never across an await.
    sessions: Mutex<HashMap<String, SessionRuns>>,
}

impl Default for AsyncHooks {
    fn default() -> Self {
        Self {
            slots: Arc::new(Semaphore::new(MAX_CONCURRENT_ASYNC_HOOKS)),
            sessions: Mutex::new(HashMap::new()),
        }
    }
}

impl AsyncHooks {
    /// Starts `run` for `session` once a slot is free; it is given the token that
    /// `shutdown` cancels.
    pub(crate) fn spawn(
        &self,
        session: &str,
        run: impl FnOnce(CancellationToken) -> BoxFuture<'static, ()> + Send + 'static,
    ) {
        let slots = Arc::clone(&self.slots);
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let runs = sessions.entry(session.to_owned()).or_default();
        // Forget finished runs so a long session does not accumulate them.
        while runs.tasks.try_join_next().is_some() {}
        let cancel = runs.cancel.clone();
        runs.tasks.spawn(async move {
            let permit = tokio::select! {
                p = slots.acquire_owned() => p,
                () = cancel.cancelled() => return,
            };
            run(cancel).await;
            drop(permit);
        });
    }

    /// Waits up to `grace` for the runs of `session` (every session's when `None`), then
    /// cancels the rest and waits (bounded) for them to stop.
    pub(crate) async fn shutdown(&self, session: Option<&str>, grace: Duration) {
        let taken: Vec<SessionRuns> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
            match session {
                Some(id) => sessions.remove(id).into_iter().collect(),
                None => sessions.drain().map(|(_, runs)| runs).collect(),
            }
        };
        let (mut tasks, cancels): (Vec<_>, Vec<_>) =
            taken.into_iter().map(|r| (r.tasks, r.cancel)).unzip();
        let drain = async {
            for set in &mut tasks {
                while set.join_next().await.is_some() {}
            }
        };
        if tokio::time::timeout(grace, drain).await.is_ok() {
            return;
        }
        for cancel in &cancels {
            cancel.cancel();
        }
        let drain = async {
            for set in &mut tasks {
                while set.join_next().await.is_some() {}
            }
        };
        let _ = tokio::time::timeout(KILL_WAIT, drain).await;
        // Dropping the sets aborts anything still there.
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test]
    async fn ending_one_session_leaves_another_sessions_runs_alone() {
        let hooks = AsyncHooks::default();
        let finished = Arc::new(AtomicU32::new(0));
        let killed = Arc::new(AtomicU32::new(0));
        for session in ["parent", "child"] {
            let (finished, killed) = (Arc::clone(&finished), Arc::clone(&killed));
            hooks.spawn(session, move |cancel| {
                Box::pin(async move {
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(300)) => {
                            finished.fetch_add(1, Ordering::SeqCst);
                        }
                        () = cancel.cancelled() => {
                            killed.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
            });
        }
        // The child's session ends with no grace: only its run is killed, and the parent's
        // (still sleeping) was not waited for.
        hooks.shutdown(Some("child"), Duration::ZERO).await;
        assert_eq!(killed.load(Ordering::SeqCst), 1);
        assert_eq!(finished.load(Ordering::SeqCst), 0);
        // The parent's run goes on and finishes within its grace.
        hooks.shutdown(None, Duration::from_secs(5)).await;
        assert_eq!(finished.load(Ordering::SeqCst), 1);
        assert_eq!(killed.load(Ordering::SeqCst), 1);
    }
}
