//! The public [`Store`]: one API over two databases.
//!
//! A local run keeps its sessions in a SQLite file; servers running as several replicas share
//! theirs in PostgreSQL. Callers must not care which, so `Store` is a thin type over a private
//! backend enum and every method is a one-line dispatch; the backends return the same values
//! and the same [`StoreError`] variants for the same calls (the integration tests run on both).

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use tether_protocol::Message;

use crate::postgres::{self, Postgres};
use crate::sqlite::Sqlite;
use crate::{NewSession, SessionSummary, SessionUpdate, StoreError, StoredSession, UsageRecord};

/// How to open a [`Store`]; `StoreOptions::default()` is what [`Store::open`] uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// How long a call waits for another process's lock before failing with
    /// [`StoreError::Busy`] (SQLite's busy timeout; PostgreSQL's `lock_timeout`).
    pub busy_timeout: Duration,
    /// SQLite only: refuse writes with [`StoreError::DiskFull`] once the file would grow past
    /// this size (SQLite `max_page_count`; never below the file's current size). PostgreSQL
    /// ignores it: quotas there are the server's business.
    pub max_size_bytes: Option<u64>,
    /// Open without write access: every write fails with [`StoreError::ReadOnly`] and the
    /// schema is not migrated (no directory is created for a SQLite file; PostgreSQL sessions
    /// run with `default_transaction_read_only`).
    pub read_only: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            busy_timeout: Duration::from_secs(5),
            max_size_bytes: None,
            read_only: false,
        }
    }
}

/// The session store: a SQLite file or a PostgreSQL database. `Send + Sync`; share it behind
/// an `Arc`.
///
/// Every call is synchronous and returns once its transaction is committed. On PostgreSQL the
/// call is carried out by the store's own thread (see `postgres/pool.rs`): the caller blocks on
/// a channel for about a network round trip or three, as it would on a SQLite lock.
#[derive(Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Sqlite(Sqlite),
    Postgres(Postgres),
}

/// Calls `$method` with the same arguments on whichever backend the store has.
macro_rules! dispatch {
    ($self:ident.$method:ident($($arg:expr),*)) => {
        match &$self.backend {
            Backend::Sqlite(db) => db.$method($($arg),*),
            Backend::Postgres(db) => db.$method($($arg),*),
        }
    };
}

impl Store {
    /// Opens the store at `location` and migrates its schema.
    ///
    /// A `postgres://` or `postgresql://` URL (see [`Store::is_postgres_url`]) opens that
    /// PostgreSQL database: TLS is not supported yet, so `sslmode=require` (or stricter) is
    /// refused rather than silently ignored. Anything else is the path of a SQLite file,
    /// created with its parent directories if needed; the file and SQLite's files beside it are
    /// made 0600 (new directories 0700), existing directories are left as they are.
    pub fn open(location: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_with(location, &StoreOptions::default())
    }

    /// Opens an existing store without write access, e.g. for `tether sessions list` while a
    /// run holds the file.
    pub fn open_read_only(location: impl AsRef<Path>) -> Result<Self, StoreError> {
        let options = StoreOptions {
            read_only: true,
            ..StoreOptions::default()
        };
        Self::open_with(location, &options)
    }

    /// A private SQLite database that lives as long as the store; for tests and runs that keep
    /// no history.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Ok(Self {
            backend: Backend::Sqlite(Sqlite::open_in_memory()?),
        })
    }

    /// Opens the store at `location` (a path or a PostgreSQL URL, as for [`Store::open`]) with
    /// explicit [`StoreOptions`].
    pub fn open_with(
        location: impl AsRef<Path>,
        options: &StoreOptions,
    ) -> Result<Self, StoreError> {
        let location = location.as_ref();
        let backend = match location.to_str().filter(|s| Self::is_postgres_url(s)) {
            Some(url) => Backend::Postgres(Postgres::open(url, options)?),
            None => Backend::Sqlite(Sqlite::open_with(location, options)?),
        };
        Ok(Self { backend })
    }

    /// Whether `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`)
    /// rather than a SQLite file, e.g. so that a caller does not create directories for it.
    pub fn is_postgres_url(location: impl AsRef<OsStr>) -> bool {
        location
            .as_ref()
            .to_str()
            .is_some_and(postgres::is_postgres_url)
    }

    /// Where the store is, for messages: the SQLite file (`:memory:` for an in-memory store),
    /// or the PostgreSQL URL without its password (`postgres://user@host:5432/db`). Errors
    /// name the store the same way.
    pub fn path(&self) -> &Path {
        dispatch!(self.path())
    }

    /// Stores a new session. Fails with [`StoreError::AlreadyExists`] for a known id and
    /// [`StoreError::ParentNotFound`] when `parent_id` is unknown.
    pub fn create_session(&self, s: &NewSession) -> Result<(), StoreError> {
        dispatch!(self.create_session(s))
    }

    /// Appends one message and returns its sequence number (0 for the first message).
    pub fn append_message(&self, session_id: &str, m: &Message) -> Result<u64, StoreError> {
        dispatch!(self.append(session_id, std::slice::from_ref(m)))
    }

    /// Appends several messages in one transaction: all of them are stored or none.
    pub fn append_messages(&self, session_id: &str, ms: &[Message]) -> Result<(), StoreError> {
        dispatch!(self.append(session_id, ms)).map(drop)
    }

    /// Replaces the whole history (after a compaction) in one transaction: a reader sees the
    /// old history or the new one, never a mix, and a failure keeps the old one. Sequence
    /// numbers restart at 0.
    pub fn replace_messages(&self, session_id: &str, ms: &[Message]) -> Result<(), StoreError> {
        dispatch!(self.replace_messages(session_id, ms))
    }

    /// Sets the fields of `u` that are `Some` and bumps `updated_at`.
    pub fn update(&self, session_id: &str, u: &SessionUpdate) -> Result<(), StoreError> {
        dispatch!(self.update(session_id, u))
    }

    /// Appends the accounting of one model call. The session's token and cost totals are left
    /// to [`update`](Self::update): whether they are running sums or the current context size
    /// is the runtime's decision.
    pub fn record_usage(&self, session_id: &str, r: &UsageRecord) -> Result<(), StoreError> {
        dispatch!(self.record_usage(session_id, r))
    }

    /// Deletes a session with its messages, usage and, recursively, its sub-sessions. Returns
    /// whether the session existed.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        dispatch!(self.delete(id))
    }

    /// The session with its messages in order and its direct sub-sessions; `None` if unknown.
    pub fn load(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        dispatch!(self.load(id))
    }

    /// Top-level sessions, most recently updated first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        dispatch!(self.list())
    }

    /// The id of the most recently updated top-level session (`tether run --resume`).
    pub fn latest(&self) -> Result<Option<String>, StoreError> {
        dispatch!(self.latest())
    }

    /// The direct sub-sessions of `id`, oldest first. Fails with [`StoreError::NotFound`] for
    /// an unknown id.
    pub fn children(&self, id: &str) -> Result<Vec<SessionSummary>, StoreError> {
        dispatch!(self.children(id))
    }

    /// The model calls of `id` in the order they were recorded. Fails with
    /// [`StoreError::NotFound`] for an unknown id.
    pub fn usage(&self, id: &str) -> Result<Vec<UsageRecord>, StoreError> {
        dispatch!(self.usage(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_urls_are_told_from_paths() {
        let urls = [
            "postgres://u@h/db",
            "postgresql://h:5433/db?sslmode=disable",
            "POSTGRES://h/db",
        ];
        let paths = [
            "sessions.db",
            "/tmp/postgres/sessions.db",
            "postgres:/x",
            "",
        ];
        assert!(urls.iter().all(Store::is_postgres_url));
        assert!(!paths.iter().any(Store::is_postgres_url));
        assert!(Store::is_postgres_url(Path::new("postgres://h/db")));
    }
}
