//! Ending what an executor started: `async` hooks and persistent hook processes.

use std::time::Duration;

use super::Executor;

impl Executor {
    /// Waits up to `grace` for the `async` hooks still running, then kills what is left
    /// (process groups included) and waits for that, and stops every persistent hook process.
    /// Call it after `session_end`; the executor stays usable (a later session starts new
    /// async hooks and persistent processes).
    pub async fn shutdown(&self, grace: Duration) {
        self.background.shutdown(None, grace).await;
        self.runner.persistent.stop(None, grace).await;
    }

    /// [`Self::shutdown`] for the `async` hooks one session started (its `session_end`):
    /// other sessions' runs (a parent's, while a sub-agent's session ends) go on.
    /// Its persistent hook processes are stopped too.
    pub async fn shutdown_session(&self, session_id: &str, grace: Duration) {
        for task in self.shutdown_session_in_background(session_id, grace).await {
            let _ = task.await;
        }
    }

    /// [`Self::shutdown_session`], except that the persistent hook processes are only told to
    /// stop (stdin closed; TERM and KILL follow on the runtime's tasks): the returned handles
    /// finish when they are gone. Lets a process exiting overlap the caller's own shutdown.
    pub async fn shutdown_session_in_background(
        &self,
        session_id: &str,
        grace: Duration,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        self.background.shutdown(Some(session_id), grace).await;
        self.runner
            .persistent
            .stop_in_background(Some(session_id), grace)
    }
}
