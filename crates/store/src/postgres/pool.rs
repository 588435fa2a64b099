//! The thread that talks to PostgreSQL, and its small pool of connections.
//!
//! The store's API is synchronous and is called from inside the runtime's tokio tasks, where
//! `block_on` would panic (or starve the runtime). So the async client lives on a thread of
//! its own running a current-thread runtime: a call sends its operation over a channel and
//! waits for the answer on a std channel, like a SQLite call waiting on its lock. Every
//! operation is a task on that runtime, so calls from several threads overlap on up to
//! [`POOL_SIZE`] connections, while one caller's calls stay in the order it made them.
//!
//! Connections are opened on demand and dropped once broken. An operation whose connection
//! broke before it committed runs once more on a new connection (a server restart or a
//! `pg_terminate_backend` costs the caller nothing). If that fails too, the caller gets
//! [`StoreError::Connect`] (no server) or [`StoreError::ConnectionLost`], both retryable; a
//! break during `COMMIT` is never retried ([`StoreError::CommitUnknown`]). Nothing here panics
//! on a lost server.

use std::cell::RefCell;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;

use tokio::sync::{Semaphore, mpsc};
use tokio_postgres::Config;

use super::conn::{Conn, Failure, connect, from_postgres};
use super::schema::{self, MIGRATIONS, Migration};
use crate::StoreError;

/// Connections per store: enough for a server's concurrent sessions to overlap their round
/// trips, few enough that a dozen replicas stay far below PostgreSQL's default 100.
const POOL_SIZE: usize = 4;

type Job = Box<dyn FnOnce(Rc<Pool>) -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// The handle callers hold: a queue to the worker thread. Dropping it ends the thread.
#[derive(Debug)]
pub(crate) struct Worker {
    /// `None` only while dropping.
    jobs: Option<mpsc::UnboundedSender<Job>>,
    thread: Option<JoinHandle<()>>,
    url: PathBuf,
}

impl Worker {
    /// Starts the thread and opens the first connection on it, migrating the schema (or, read
    /// only, checking its version) before anything else can use the database.
    pub(crate) fn start(url: PathBuf, config: Config, read_only: bool) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::unbounded_channel::<Job>();
        let (ready_tx, ready_rx) = std_mpsc::sync_channel::<Result<(), StoreError>>(1);
        let pool_url = url.clone();
        let thread = std::thread::Builder::new()
            .name("tether-store-pg".into())
            .spawn(move || run(Pool::new(pool_url, config), read_only, queue, ready_tx))
            .map_err(|_| StoreError::WorkerStopped {
                url: url.display().to_string(),
            })?;
        let worker = Self {
            jobs: Some(jobs),
            thread: Some(thread),
            url,
        };
        // On failure, dropping the worker joins the thread, which has ended.
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(worker),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(worker.stopped()),
        }
    }

    /// Runs `op` on a pooled connection and waits for its result.
    pub(crate) fn call<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: AsyncFn(&Conn) -> Result<T, Failure> + Send + 'static,
    {
        let (reply, answer) = std_mpsc::sync_channel(1);
        let job: Job = Box::new(move |pool: Rc<Pool>| {
            Box::pin(async move {
                let result = pool.run(&op).await;
                // The caller waits for this; it cannot have gone away.
                let _ = reply.send(result);
            })
        });
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            return Err(self.stopped());
        }
        answer.recv().unwrap_or_else(|_| Err(self.stopped()))
    }

    fn stopped(&self) -> StoreError {
        StoreError::WorkerStopped {
            url: self.url.display().to_string(),
        }
    }

    fn stop(&mut self) {
        // Closing the queue ends the thread's loop; joining waits for its connections to close.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The worker thread's body: a current-thread runtime running each job as a local task.
fn run(
    pool: Pool,
    read_only: bool,
    mut queue: mpsc::UnboundedReceiver<Job>,
    ready: std_mpsc::SyncSender<Result<(), StoreError>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            // Only a process out of file descriptors gets here; the caller reports it stopped.
            drop((e, ready));
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let pool = Rc::new(pool);
        let opened = pool.open(read_only).await;
        let failed = opened.is_err();
        let _ = ready.send(opened);
        if failed {
            return;
        }
        while let Some(job) = queue.recv().await {
            tokio::task::spawn_local(job(Rc::clone(&pool)));
        }
    });
}

/// The connections of one store, used by one operation at a time each.
pub(crate) struct Pool {
    url: PathBuf,
    config: Config,
    idle: RefCell<Vec<Conn>>,
    permits: Semaphore,
}

impl Pool {
    fn new(url: PathBuf, config: Config) -> Self {
        Self {
            url,
            config,
            idle: RefCell::new(Vec::new()),
            permits: Semaphore::new(POOL_SIZE),
        }
    }

    /// Opens the first connection and brings the schema to the version this build knows.
    async fn open(&self, read_only: bool) -> Result<(), StoreError> {
        let path = self.url.clone();
        let client = connect(&self.config)
            .await
            .map_err(|e| self.connect_error(e))?;
        let supported = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
        let found = if read_only {
            schema::version(&client).await
        } else {
            schema::migrate(&client, MIGRATIONS).await.map(|m| match m {
                Migration::Current => supported,
                Migration::TooNew { found } => found,
            })
        }
        .map_err(|e| from_postgres(&path, e))?;
        if found > supported {
            return Err(StoreError::SchemaTooNew {
                path,
                found,
                supported,
            });
        }
        if found < supported {
            return Err(StoreError::SchemaNeedsMigration {
                path,
                found,
                supported,
            });
        }
        let conn = Conn::prepare(client)
            .await
            .map_err(|e| from_postgres(&path, e))?;
        self.idle.borrow_mut().push(conn);
        Ok(())
    }

    /// Runs `op`, once more on a new connection if its connection broke before committing.
    async fn run<T>(
        &self,
        op: &impl AsyncFn(&Conn) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        // The semaphore is never closed.
        let Ok(_permit) = self.permits.acquire().await else {
            return Err(StoreError::WorkerStopped {
                url: self.url.display().to_string(),
            });
        };
        let mut retried = false;
        loop {
            let conn = self.checkout().await?;
            let result = op(&conn).await;
            match result {
                Err(failure) if !retried && failure.is_retryable_on_new_connection() => {
                    retried = true;
                }
                result => {
                    if conn.is_usable() {
                        self.idle.borrow_mut().push(conn);
                    }
                    return result.map_err(|f| f.into_store_error(&self.url));
                }
            }
        }
    }

    /// An idle connection that is still open, else a new one.
    async fn checkout(&self) -> Result<Conn, StoreError> {
        loop {
            let Some(conn) = self.idle.borrow_mut().pop() else {
                break;
            };
            if conn.is_usable() {
                return Ok(conn);
            }
        }
        let client = connect(&self.config)
            .await
            .map_err(|e| self.connect_error(e))?;
        Conn::prepare(client)
            .await
            .map_err(|e| from_postgres(&self.url, e))
    }

    fn connect_error(&self, source: tokio_postgres::Error) -> StoreError {
        StoreError::Connect {
            url: self.url.display().to_string(),
            source,
        }
    }
}
