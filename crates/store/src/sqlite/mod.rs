//! The SQLite backend: opening the database and sharing its one connection.
//!
//! The API is synchronous because SQLite is: the runtime calls it from `spawn_blocking`. One
//! connection behind a mutex (not a pool) is enough since every call is one short transaction,
//! and it makes the in-process order of writes the order they were called in. Writes take the
//! write lock up front (`BEGIN IMMEDIATE`) so that two processes sharing a file wait for each
//! other through the busy timeout instead of failing on a lock upgrade.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use jiff::Timestamp;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use tether_exec::private;

use crate::codec::next_stamp;
use crate::{StoreError, StoreOptions};
use schema::{MIGRATIONS, Migration};

mod reads;
mod schema;
mod writes;

/// One SQLite database behind one connection.
#[derive(Debug)]
pub(crate) struct Sqlite {
    /// For error messages; `:memory:` for an in-memory store.
    path: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) conn: Connection,
    /// The last timestamp handed out, so that `updated_at` strictly increases within a process
    /// even if the wall clock stalls or steps back; `list` order depends on it.
    last_stamp: Timestamp,
}

impl Inner {
    /// The current time, strictly later than any earlier call's.
    pub(crate) fn now(&mut self) -> Timestamp {
        next_stamp(&mut self.last_stamp)
    }

    /// Starts a write transaction holding the database's write lock.
    pub(crate) fn write(&mut self) -> rusqlite::Result<Transaction<'_>> {
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
    }
}

impl Sqlite {
    pub(crate) fn open_in_memory() -> Result<Self, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        Self::init(path, conn, &StoreOptions::default())
    }

    /// Opens (creating it and its parent directories unless read-only) the database at `path`.
    pub(crate) fn open_with(path: &Path, options: &StoreOptions) -> Result<Self, StoreError> {
        let path = path.to_path_buf();
        // The database holds prompts, tool output and tool arguments: owner-only, also when an
        // older Tether created it readable by others (`tether_exec::private`).
        let special = path.as_os_str().is_empty() || path.as_os_str() == ":memory:";
        let flags = if options.read_only {
            if !special {
                // Best effort: a read-only open must work on a file system it cannot change.
                let _ = private::tighten_sqlite(&path);
            }
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                private::create_dirs(dir).map_err(|source| StoreError::CreateDir {
                    dir: dir.to_path_buf(),
                    source,
                })?;
            }
            if !special {
                private::prepare_sqlite(&path).map_err(|source| StoreError::Permissions {
                    path: path.clone(),
                    source,
                })?;
            }
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = Connection::open_with_flags(&path, flags).map_err(|e| open_error(&path, e))?;
        Self::init(path, conn, options)
    }

    fn init(
        path: PathBuf,
        mut conn: Connection,
        options: &StoreOptions,
    ) -> Result<Self, StoreError> {
        let sql_err = |e| open_error(&path, e);
        schema::configure(&conn, options).map_err(sql_err)?;
        let supported = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
        if options.read_only {
            let found = schema::version(&conn).map_err(sql_err)?;
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
        } else if let Migration::TooNew { found } =
            schema::migrate(&mut conn, MIGRATIONS).map_err(sql_err)?
        {
            return Err(StoreError::SchemaTooNew {
                path,
                found,
                supported,
            });
        }
        Ok(Self {
            path,
            inner: Mutex::new(Inner {
                conn,
                last_stamp: Timestamp::UNIX_EPOCH,
            }),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the connection and maps SQLite failures to [`StoreError`].
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&mut Inner) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        // A panic while holding the lock dropped its transaction, which rolled it back: the
        // connection is still consistent, so poisoning carries no information here.
        let mut inner: MutexGuard<'_, Inner> =
            self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut inner).map_err(|failure| match failure {
            Failure::Sqlite(e) => StoreError::from_sqlite(&self.path, e),
            Failure::Store(e) => e,
        })
    }
}

/// A failure while opening: the specific variants where they apply, else [`StoreError::Open`].
fn open_error(path: &Path, e: rusqlite::Error) -> StoreError {
    match StoreError::from_sqlite(path, e) {
        StoreError::Sqlite { path, source } => StoreError::Open { path, source },
        other => other,
    }
}

/// An error inside a store call, before the path is attached to SQLite failures.
#[derive(Debug)]
pub(crate) enum Failure {
    Sqlite(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Self::Sqlite(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn pragma(store: &Sqlite, name: &str) -> i64 {
        store
            .with(|inner| Ok(inner.conn.pragma_query_value(None, name, |r| r.get(0))?))
            .unwrap()
    }

    #[test]
    fn a_file_connection_syncs_normally_enforces_foreign_keys_and_waits_when_busy() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir.path().join("s.db"));

        let values = ["synchronous", "foreign_keys", "busy_timeout"].map(|p| pragma(&store, p));

        // synchronous: 1 is NORMAL.
        assert_eq!(values, [1, 1, 5000]);
    }

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn beside(db: &Path, suffix: &str) -> PathBuf {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        name.into()
    }

    fn open(path: &Path) -> Sqlite {
        Sqlite::open_with(path, &StoreOptions::default()).unwrap()
    }

    fn write_one(store: &Sqlite) {
        store
            .create_session(&crate::NewSession {
                id: "s1".into(),
                parent_id: None,
                agent: "root".into(),
                working_dir: "/w".into(),
                first_prompt: Some("ghp_secret".into()),
            })
            .unwrap();
    }

    #[test]
    fn the_database_and_the_files_sqlite_makes_beside_it_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("new/sessions.db");
        let store = open(&db);
        write_one(&store);
        // While the connection is open the WAL files exist; SQLite gave them the file's mode.
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&beside(&db, "-wal")), 0o600);
        assert_eq!(mode(&beside(&db, "-shm")), 0o600);
        assert_eq!(mode(&dir.path().join("new")), 0o700);
    }

    #[test]
    fn an_existing_wide_database_and_its_wal_files_are_tightened_on_open() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sessions.db");
        let set = |p: &Path, mode: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        // Keep one connection open so the WAL files stay, as an older Tether left them.
        let first = open(&db);
        write_one(&first);
        for p in [db.clone(), beside(&db, "-wal"), beside(&db, "-shm")] {
            set(&p, 0o644);
        }
        set(dir.path(), 0o755);
        let second = open(&db);
        assert_eq!(second.list().unwrap().len(), 1);
        for p in [db.clone(), beside(&db, "-wal"), beside(&db, "-shm")] {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
        // The directory may be the user's (`--session-db`): left alone.
        assert_eq!(mode(dir.path()), 0o755);
        drop((first, second));
        set(&db, 0o644);
        let read_only = StoreOptions {
            read_only: true,
            ..StoreOptions::default()
        };
        Sqlite::open_with(&db, &read_only).unwrap();
        assert_eq!(mode(&db), 0o600);
    }

    #[test]
    fn the_clock_never_repeats_or_goes_back() {
        let store = Sqlite::open_in_memory().unwrap();
        let future = Timestamp::now()
            .checked_add(jiff::SignedDuration::from_hours(1))
            .unwrap();

        let stamps = store
            .with(|inner| {
                inner.last_stamp = future;
                Ok([inner.now(), inner.now()])
            })
            .unwrap();

        let one_ns = jiff::SignedDuration::from_nanos(1);
        let expected = [
            future.checked_add(one_ns).unwrap(),
            future.checked_add(one_ns * 2).unwrap(),
        ];
        assert_eq!(stamps, expected);
    }
}
