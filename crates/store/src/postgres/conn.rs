//! One PostgreSQL connection with the store's statements prepared on it, the transactions the
//! operations run in, and what a failure on it means for the caller.
//!
//! Statements are prepared once per connection (a round trip each, pipelined) so that a call
//! costs only the round trips of its own statements. Transactions are plain `BEGIN`/`COMMIT`
//! on the shared client because the pool hands a connection to one operation at a time.

use std::cell::Cell;
use std::path::Path;

use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls, Statement};

use crate::StoreError;

/// An error inside an operation, before it is given the store's URL.
#[derive(Debug)]
pub(crate) enum Failure {
    Pg(tokio_postgres::Error),
    /// `COMMIT` itself failed: whether the write was stored is unknown if the connection broke.
    Commit(tokio_postgres::Error),
    Store(StoreError),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Self::Pg(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

impl Failure {
    /// Whether the connection broke before anything was committed, so the operation can run
    /// again on a new connection.
    pub(crate) fn is_retryable_on_new_connection(&self) -> bool {
        matches!(self, Self::Pg(e) if is_connection_error(e))
    }

    pub(crate) fn into_store_error(self, url: &Path) -> StoreError {
        match self {
            Self::Store(e) => e,
            Self::Commit(e) if is_connection_error(&e) => StoreError::CommitUnknown {
                url: url.display().to_string(),
                source: e,
            },
            Self::Pg(e) | Self::Commit(e) => from_postgres(url, e),
        }
    }
}

/// Maps a PostgreSQL error to the variant that carries its remedy.
pub(crate) fn from_postgres(url: &Path, source: tokio_postgres::Error) -> StoreError {
    let path = url.to_path_buf();
    let url = url.display().to_string();
    let code = source.code();
    if code.is_some_and(|c| {
        [
            SqlState::LOCK_NOT_AVAILABLE,
            SqlState::T_R_SERIALIZATION_FAILURE,
            SqlState::T_R_DEADLOCK_DETECTED,
        ]
        .contains(c)
    }) {
        StoreError::Busy { path }
    } else if code == Some(&SqlState::READ_ONLY_SQL_TRANSACTION) {
        StoreError::ReadOnly { path }
    } else if code == Some(&SqlState::DISK_FULL) {
        StoreError::DiskFull { path }
    } else if is_connection_error(&source) {
        StoreError::ConnectionLost { url, source }
    } else {
        StoreError::Postgres { url, source }
    }
}

/// Whether `e` means the connection is gone: closed, an I/O error, or the server ending the
/// session (shutdown, `pg_terminate_backend`, SQLSTATE class 08).
pub(crate) fn is_connection_error(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(code) => {
            code.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                ]
                .contains(code)
        }
        None => std::error::Error::source(e)
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()),
    }
}

/// Opens a client; its connection task runs on the worker's `LocalSet` until the client drops.
pub(crate) async fn connect(config: &Config) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    // Its error, if any, reaches the caller through the client's next call (`is_closed`).
    tokio::task::spawn_local(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// A client with the store's statements prepared.
pub(crate) struct Conn {
    pub(crate) client: Client,
    pub(crate) st: Statements,
    /// Set when a transaction could not be ended: the connection must not be reused.
    broken: Cell<bool>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("closed", &self.client.is_closed())
            .finish_non_exhaustive()
    }
}

impl Conn {
    pub(crate) async fn prepare(client: Client) -> Result<Self, tokio_postgres::Error> {
        let st = Statements::prepare(&client).await?;
        Ok(Self {
            client,
            st,
            broken: Cell::new(false),
        })
    }

    /// Whether the connection can serve another operation.
    pub(crate) fn is_usable(&self) -> bool {
        !self.broken.get() && !self.client.is_closed()
    }

    /// Runs `f` in a transaction opened with `begin` and commits it; rolls back when `f` fails.
    ///
    /// `BEGIN` and `f`'s first statement go out together (`biased`: in that order), saving a
    /// round trip. On an idle connection `BEGIN` fails only when the connection does, and then
    /// the server runs neither; `f` is dropped before its second statement either way.
    pub(crate) async fn transaction<T>(
        &self,
        begin: Begin,
        f: impl AsyncFnOnce() -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let begun = async { Ok::<_, Failure>(self.client.batch_execute(begin.sql()).await?) };
        match tokio::try_join!(biased; begun, f()) {
            Ok(((), value)) => {
                self.client
                    .batch_execute("COMMIT")
                    .await
                    .map_err(Failure::Commit)?;
                Ok(value)
            }
            Err(e) => {
                if self.client.batch_execute("ROLLBACK").await.is_err() {
                    self.broken.set(true);
                }
                Err(e)
            }
        }
    }
}

/// How a transaction starts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Begin {
    /// A write. READ COMMITTED whatever the server's default: each statement then sees what
    /// other replicas committed before it, which the message sequence relies on (it is read
    /// after the session row is locked).
    Write,
    /// A read of several statements that must agree with each other.
    Snapshot,
}

impl Begin {
    fn sql(self) -> &'static str {
        match self {
            Self::Write => "BEGIN ISOLATION LEVEL READ COMMITTED",
            Self::Snapshot => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        }
    }
}

/// Declares the statements once: the struct, and preparing them all in one pipeline.
macro_rules! statements {
    ($($(#[$doc:meta])* $name:ident = $sql:expr;)*) => {
        /// The statements every operation uses, prepared on one connection.
        pub(crate) struct Statements {
            $($(#[$doc])* pub(crate) $name: Statement,)*
        }

        impl Statements {
            async fn prepare(client: &Client) -> Result<Self, tokio_postgres::Error> {
                let ($($name,)*) = tokio::try_join!($(client.prepare($sql),)*)?;
                Ok(Self { $($name,)*})
            }
        }
    };
}

statements! {
    meta = "SELECT id, parent_id, agent, created_at, updated_at, first_prompt, session_context, \
         summary, input_tokens, output_tokens, cost, worktree_path, worktree_branch, \
         working_dir, extra FROM sessions WHERE id = $1";
    messages = "SELECT seq, json FROM messages WHERE session_id = $1 ORDER BY seq";
    sub_sessions = "SELECT id FROM sessions WHERE parent_id = $1 ORDER BY created_at, created_order";
    list = "SELECT id, updated_at, agent, first_prompt FROM sessions WHERE parent_id IS NULL \
         ORDER BY updated_at DESC, created_order DESC";
    latest = "SELECT id FROM sessions WHERE parent_id IS NULL \
         ORDER BY updated_at DESC, created_order DESC LIMIT 1";
    children = "SELECT id, updated_at, agent, first_prompt FROM sessions WHERE parent_id = $1 \
         ORDER BY created_at, created_order";
    usage = "SELECT model_id, input_tokens, output_tokens, cached_input_tokens, \
         cached_write_tokens, reasoning_tokens, cost, at FROM usage WHERE session_id = $1 \
         ORDER BY seq";
    exists = "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)";
    /// `ON CONFLICT`: two replicas creating one id get `AlreadyExists`, not a unique violation.
    create = "INSERT INTO sessions (id, parent_id, agent, created_at, updated_at, first_prompt, \
         working_dir) VALUES ($1, $2, $3, $4, $4, $5, $6) ON CONFLICT (id) DO NOTHING";
    /// Locks the session row until commit: writers to one session take turns from here on.
    touch = "UPDATE sessions SET updated_at = $2 WHERE id = $1";
    /// Numbers the batch after the last stored message. Run after `touch`, so (READ COMMITTED)
    /// its snapshot includes every message another writer committed before the lock was ours.
    insert_messages = "WITH inserted AS ( \
         INSERT INTO messages (session_id, seq, role, json, created_at) \
         SELECT $1, next.seq + batch.ord - 1, batch.role, batch.json, $4 \
         FROM (SELECT coalesce(max(seq) + 1, 0) AS seq FROM messages WHERE session_id = $1) next, \
              unnest($2::text[], $3::text[]) WITH ORDINALITY AS batch(role, json, ord) \
         RETURNING seq) \
         SELECT min(seq) FROM inserted";
    delete_messages = "DELETE FROM messages WHERE session_id = $1";
    insert_usage = "INSERT INTO usage (session_id, seq, model_id, input_tokens, output_tokens, \
         cached_input_tokens, cached_write_tokens, reasoning_tokens, cost, at) \
         SELECT $1, coalesce(max(seq) + 1, 0), $2, $3, $4, $5, $6, $7, $8, $9 \
         FROM usage WHERE session_id = $1";
    /// One statement for every update: `$n` flags say which nullable columns to set.
    update = "UPDATE sessions SET updated_at = $2, \
         agent = coalesce($3, agent), \
         session_context = CASE WHEN $4 THEN $5 ELSE session_context END, \
         summary = CASE WHEN $6 THEN $7 ELSE summary END, \
         input_tokens = coalesce($8, input_tokens), \
         output_tokens = coalesce($9, output_tokens), \
         cost = coalesce($10, cost), \
         first_prompt = CASE WHEN $11 THEN $12 ELSE first_prompt END, \
         worktree_path = CASE WHEN $13 THEN $14 ELSE worktree_path END, \
         worktree_branch = CASE WHEN $15 THEN $16 ELSE worktree_branch END, \
         extra = coalesce($17, extra) \
         WHERE id = $1";
    delete = "DELETE FROM sessions WHERE id = $1";
}
