//! `async: true` hooks: started by a dispatch and not awaited by it.
//!
//! At most [`MAX_CONCURRENT_ASYNC_HOOKS`] run at once per executor; the others wait for a
//! slot. Each run gets the executor's current cancellation token, so [`AsyncHooks::shutdown`]
//! can wait a grace period and then kill what is left (the command runner kills the whole
//! process group on cancellation). The token is replaced afterwards, so an executor that
//! serves another session keeps working.

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

/// The background runs of one executor.
#[derive(Debug)]
pub(crate) struct AsyncHooks {
    slots: Arc<Semaphore>,
    // Locked only to add a task or take the set, never across an await.
    tasks: Mutex<JoinSet<()>>,
    cancel: Mutex<CancellationToken>,
}

impl Default for AsyncHooks {
    fn default() -> Self {
        Self {
            slots: Arc::new(Semaphore::new(MAX_CONCURRENT_ASYNC_HOOKS)),
            tasks: Mutex::new(JoinSet::new()),
            cancel: Mutex::new(CancellationToken::new()),
        }
    }
}

impl AsyncHooks {
    /// Starts `run` once a slot is free; it is given the token that `shutdown` cancels.
    pub(crate) fn spawn(
        &self,
        run: impl FnOnce(CancellationToken) -> BoxFuture<'static, ()> + Send + 'static,
    ) {
        let cancel = self
            .cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let slots = Arc::clone(&self.slots);
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        // Forget finished runs so a long session does not accumulate them.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(async move {
            let permit = tokio::select! {
                p = slots.acquire_owned() => p,
                () = cancel.cancelled() => return,
            };
            run(cancel).await;
            drop(permit);
        });
    }

    /// Waits up to `grace` for every run started so far, then cancels the rest and waits
    /// (bounded) for them to stop.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        let mut tasks =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        let cancel =
            std::mem::take(&mut *self.cancel.lock().unwrap_or_else(PoisonError::into_inner));
        let drain = async { while tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(grace, drain).await.is_ok() {
            return;
        }
        cancel.cancel();
        let drain = async { while tasks.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(KILL_WAIT, drain).await;
        // Dropping the set aborts anything still there.
    }
}
