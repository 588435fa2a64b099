//! The crate's one error type.
//!
//! SQLite reports most failures as a bare result code; the runtime and the CLI need to tell the
//! user what to do about them (free disk space, fix permissions, wait for another process), so
//! the codes that have a remedy get their own variant and a message with a hint, and everything
//! else keeps the SQLite error as its source. PostgreSQL's SQLSTATEs with the same remedy map to
//! the same variants (a lock timeout is [`StoreError::Busy`]); what only a server has (a URL,
//! a connection that breaks) has variants of its own. A PostgreSQL store's "path" in messages
//! is its URL without the password.

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

/// Everything [`Store`](crate::Store) can fail with.
///
/// Every write runs in one transaction, so whatever the variant, a failed call leaves the data
/// stored before it intact.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Returned by the `open*` constructors when the parent directory of the database cannot be
    /// created. Not retryable until the file system is fixed.
    #[error("cannot create the directory `{}` for the session database: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Returned by `open` and `open_with` when the database file cannot be created 0600, or an
    /// existing one (or its `-wal`, `-shm` or `-journal` file) that others can read cannot be
    /// made private. Not retryable until the permissions change.
    #[error("cannot make the session database `{}` private: {source}", path.display())]
    Permissions {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Returned by the `open*` constructors when SQLite cannot open the file (missing with
    /// `open_read_only`, a directory, no permission to create it). Not retryable.
    #[error("cannot open the session database `{}`: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    /// Returned by any write (and by `open` when it must migrate) when the file system is full
    /// (`SQLITE_FULL`; also when the configured `max_size_bytes` is reached). Retryable once
    /// space has been freed; nothing of the failed call was stored.
    #[error("cannot write to `{}`: the disk is full; free some space and retry", path.display())]
    DiskFull { path: PathBuf },

    /// Returned by any write on a database that cannot be written (`SQLITE_READONLY`): opened
    /// with `open_read_only`, or a file or directory without write permission. Not retryable
    /// until the permissions change.
    #[error("{}", read_only_message(path))]
    ReadOnly { path: PathBuf },

    /// Returned by any call when another connection held the database lock for longer than the
    /// busy timeout (`SQLITE_BUSY` / `SQLITE_LOCKED`). Retryable.
    #[error(
        "the session database `{}` is locked by another process; retry when it has finished",
        path.display()
    )]
    Busy { path: PathBuf },

    /// Returned by any call when SQLite finds the file damaged or not a database at all
    /// (`SQLITE_CORRUPT`, `SQLITE_NOTADB`). Not retryable.
    #[error(
        "the session database `{}` is corrupt or not a database ({source}): move it aside to start afresh",
        path.display()
    )]
    CorruptDatabase {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    /// Returned by `load` when a stored message's JSON does not parse as a `Message`. Not
    /// retryable: the row has to be repaired or the session deleted.
    #[error("message {seq} of session `{session_id}` is corrupt: {source}")]
    CorruptMessage {
        session_id: String,
        seq: u64,
        #[source]
        source: serde_json::Error,
    },

    /// Returned by the read calls when a stored value is out of its domain (a timestamp that is
    /// not RFC 3339, a negative token count, `extra` that is not JSON). Not retryable.
    #[error("session `{session_id}` is corrupt: `{column}` {detail}")]
    CorruptRow {
        session_id: String,
        column: &'static str,
        detail: String,
    },

    /// Returned by the `open*` constructors when the database was written by a newer Tether
    /// whose schema this one does not know. Not retryable: upgrade Tether.
    #[error(
        "the session database `{}` has schema version {found}, newer than this tether supports ({supported}): upgrade tether",
        path.display()
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// Returned by `open_read_only` when the database predates the current schema and would
    /// need a migration, which a read-only connection cannot run. Not retryable read-only: open
    /// it once with `open`.
    #[error(
        "the session database `{}` has schema version {found} and needs migrating to {supported}: open it read-write once",
        path.display()
    )]
    SchemaNeedsMigration {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// Returned by the writes that target an existing session (`append_*`, `replace_messages`,
    /// `update`, `record_usage`) when there is no session with that id. Not retryable.
    #[error("session `{id}` not found")]
    NotFound { id: String },

    /// Returned by `create_session` when `parent_id` names no stored session. Not retryable.
    #[error("cannot create session `{id}`: its parent session `{parent_id}` not found")]
    ParentNotFound { id: String, parent_id: String },

    /// Returned by `create_session` when a session with that id is already stored. Not
    /// retryable: pick a fresh id.
    #[error("session `{id}` already exists")]
    AlreadyExists { id: String },

    /// Returned by `append_*`, `replace_messages` and `update` when a value cannot be encoded as
    /// JSON (in practice: a map with non-string keys in `provider_state` or `extra`). Not
    /// retryable.
    #[error("cannot encode a value of session `{session_id}` as JSON: {source}")]
    Encode {
        session_id: String,
        #[source]
        source: serde_json::Error,
    },

    /// Returned by any call for SQLite failures without a dedicated variant (I/O errors, a
    /// constraint a caller bypassed, bugs). Not retryable in general.
    #[error("session database `{}`: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    /// Returned by the `open*` constructors for a PostgreSQL URL that cannot be used: one that
    /// does not parse, or one that asks for TLS (`sslmode=require` and stricter), which is not
    /// supported yet. Not retryable.
    #[error("cannot use the session database URL `{url}`: {detail}")]
    Url { url: String, detail: String },

    /// Returned by the `open*` constructors, and by any call that needs a new connection, when
    /// the PostgreSQL server cannot be reached or refuses the login. Retryable.
    #[error("cannot connect to the session database `{url}`: {}", describe(source))]
    Connect {
        url: String,
        #[source]
        source: tokio_postgres::Error,
    },

    /// Returned by any call whose PostgreSQL connection broke before its transaction committed,
    /// also on the fresh connection the store retries on once by itself: nothing of the call
    /// was stored. Retryable.
    #[error(
        "lost the connection to the session database `{url}`: {}; retry when it is back",
        describe(source)
    )]
    ConnectionLost {
        url: String,
        #[source]
        source: tokio_postgres::Error,
    },

    /// Returned by a write whose PostgreSQL connection broke while committing: the server may
    /// or may not have stored it. Not retryable blindly (an append could be stored twice):
    /// load the session to see.
    #[error(
        "lost the connection to the session database `{url}` while committing, so the write may or may not be stored: {}",
        describe(source)
    )]
    CommitUnknown {
        url: String,
        #[source]
        source: tokio_postgres::Error,
    },

    /// Returned by any call for PostgreSQL failures without a dedicated variant (a missing
    /// privilege, a schema changed by hand, bugs). Not retryable in general.
    #[error("session database `{url}`: {}", describe(source))]
    Postgres {
        url: String,
        #[source]
        source: tokio_postgres::Error,
    },

    /// Returned by any call on a PostgreSQL store whose worker thread has stopped (only a bug
    /// stops it). Not retryable: open the store again.
    #[error("the session database `{url}` is unavailable: the store's worker thread stopped")]
    WorkerStopped { url: String },
}

/// A PostgreSQL error with its cause: the client's own `Display` says only "db error".
pub(crate) fn describe(e: &tokio_postgres::Error) -> String {
    use std::error::Error as _;
    if let Some(db) = e.as_db_error() {
        return db.to_string();
    }
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

fn read_only_message(path: &Path) -> String {
    let shown = path.display();
    if crate::Store::is_postgres_url(path) {
        format!(
            "cannot write to `{shown}`: the database is read-only: opened read-only, or a standby server"
        )
    } else {
        format!(
            "cannot write to `{shown}`: the database is read-only: check the permissions of `{shown}` and its directory"
        )
    }
}

impl StoreError {
    /// Whether repeating the same call later can succeed without anyone changing the database
    /// or its permissions: a lock held by another process, a disk that may get space back, a
    /// PostgreSQL server that may come back.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Busy { .. }
            | Self::DiskFull { .. }
            | Self::Connect { .. }
            | Self::ConnectionLost { .. } => true,
            Self::CreateDir { .. }
            | Self::Permissions { .. }
            | Self::Open { .. }
            | Self::ReadOnly { .. }
            | Self::CorruptDatabase { .. }
            | Self::CorruptMessage { .. }
            | Self::CorruptRow { .. }
            | Self::SchemaTooNew { .. }
            | Self::SchemaNeedsMigration { .. }
            | Self::NotFound { .. }
            | Self::ParentNotFound { .. }
            | Self::AlreadyExists { .. }
            | Self::Encode { .. }
            | Self::Sqlite { .. }
            | Self::Url { .. }
            | Self::CommitUnknown { .. }
            | Self::Postgres { .. }
            | Self::WorkerStopped { .. } => false,
        }
    }

    /// Maps a SQLite failure on the database at `path` to the variant that carries its remedy.
    pub(crate) fn from_sqlite(path: &Path, source: rusqlite::Error) -> Self {
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Self::DiskFull { path },
            Some(ErrorCode::ReadOnly) => Self::ReadOnly { path },
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Busy { path },
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                Self::CorruptDatabase { path, source }
            }
            _ => Self::Sqlite { path, source },
        }
    }
}
