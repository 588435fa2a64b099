//! Connection settings and the schema, as forward-only migrations.
//!
//! Each migration is one SQL batch applied in the same transaction as its row in
//! `schema_version`, so a crash mid-migration leaves the previous version whole. A database
//! whose version is newer than [`MIGRATIONS`] knows is refused rather than guessed at.
//!
//! Indexes follow the two hot queries: `list`/`latest` read `sessions_by_parent` backwards
//! from `parent_id IS NULL` (no sort step), and `load` reads messages through the
//! `(session_id, seq)` primary key. The same `parent_id` index serves `children` and the
//! `ON DELETE CASCADE` from a parent to its sub-sessions. `messages` keeps a rowid because its
//! rows (whole messages, often kilobytes) are too big for a `WITHOUT ROWID` table; `usage` rows
//! are small, so they live directly in their key.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::StoreOptions;
use crate::codec::stamp;

/// Migration `i` brings the schema from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[V1];

const V1: &str = "
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY NOT NULL,
    parent_id       TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    agent           TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    first_prompt    TEXT,
    session_context TEXT,
    summary         TEXT,
    input_tokens    INTEGER NOT NULL DEFAULT 0,
    output_tokens   INTEGER NOT NULL DEFAULT 0,
    cost            REAL NOT NULL DEFAULT 0,
    worktree_path   TEXT,
    worktree_branch TEXT,
    working_dir     TEXT NOT NULL,
    extra           TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_by_parent ON sessions(parent_id, updated_at);

CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    json       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE usage (
    session_id          TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    model_id            TEXT NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cached_write_tokens INTEGER NOT NULL,
    reasoning_tokens    INTEGER,
    cost                REAL,
    at                  TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
";

/// Applies the per-connection pragmas. WAL lets readers (`tether sessions list` in another
/// terminal) run beside the writer; `synchronous=NORMAL` makes a commit durable against a
/// process crash without an fsync per message (a power loss may drop the last commits).
pub(crate) fn configure(conn: &Connection, settings: &StoreOptions) -> rusqlite::Result<()> {
    conn.busy_timeout(settings.busy_timeout)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    if !settings.read_only {
        // Returns the resulting mode; an in-memory database stays `memory`, which is fine.
        let _mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    if let Some(bytes) = settings.max_size_bytes {
        let page_size: i64 = conn.pragma_query_value(None, "page_size", |row| row.get(0))?;
        let pages = i64::try_from(bytes).unwrap_or(i64::MAX) / page_size.max(1);
        // SQLite never lowers the limit below the current size; the pragma returns the result.
        let _pages: i64 =
            conn.pragma_update_and_check(None, "max_page_count", pages.max(1), |row| row.get(0))?;
    }
    Ok(())
}

/// The schema version recorded in the database; 0 for a new file.
pub(crate) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')",
        [],
        |row| row.get(0),
    )?;
    if !has_table {
        return Ok(0);
    }
    let max: Option<i64> = conn
        .query_row("SELECT max(version) FROM schema_version", [], |row| {
            row.get(0)
        })
        .optional()?
        .flatten();
    Ok(max.unwrap_or(0))
}

/// What [`migrate`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Migration {
    /// The schema is at `migrations.len()` (possibly after applying some).
    Current,
    /// The database is at a version newer than `migrations` knows.
    TooNew { found: i64 },
}

/// Brings the schema up to `migrations.len()`, one transaction per step.
pub(crate) fn migrate(conn: &mut Connection, migrations: &[&str]) -> rusqlite::Result<Migration> {
    let latest = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    loop {
        // IMMEDIATE: two processes opening a new file at once must not both migrate it.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_version (
                version    INTEGER PRIMARY KEY NOT NULL,
                applied_at TEXT NOT NULL
            )",
        )?;
        let current = version(&tx)?;
        if current > latest {
            return Ok(Migration::TooNew { found: current });
        }
        let Some(step) = usize::try_from(current)
            .ok()
            .and_then(|i| migrations.get(i))
        else {
            tx.commit()?;
            return Ok(Migration::Current);
        };
        tx.execute_batch(step)?;
        tx.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)",
            (current + 1, stamp(jiff::Timestamp::now())),
        )?;
        tx.commit()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn table_names(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_new_database_is_migrated_to_the_latest_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), Migration::Current);
        assert_eq!(
            version(&conn).unwrap(),
            i64::try_from(MIGRATIONS.len()).unwrap()
        );
        assert_eq!(
            table_names(&conn),
            ["messages", "schema_version", "sessions", "usage"]
        );
    }

    #[test]
    fn later_migrations_apply_on_top_of_existing_data() {
        let mut conn = Connection::open_in_memory().unwrap();
        let v1 = ["CREATE TABLE t (a INTEGER)"];
        migrate(&mut conn, &v1).unwrap();
        conn.execute("INSERT INTO t (a) VALUES (7)", []).unwrap();

        let v2 = [
            v1[0],
            "ALTER TABLE t ADD COLUMN b INTEGER NOT NULL DEFAULT 9",
        ];
        assert_eq!(migrate(&mut conn, &v2).unwrap(), Migration::Current);
        let row: (i64, i64) = conn
            .query_row("SELECT a, b FROM t", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((version(&conn).unwrap(), row), (2, (7, 9)));
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, &["CREATE TABLE a (x)", "CREATE TABLE b (x)"]).unwrap();
        assert_eq!(
            migrate(&mut conn, &["CREATE TABLE a (x)"]).unwrap(),
            Migration::TooNew { found: 2 }
        );
    }

    #[test]
    fn a_failed_migration_keeps_the_previous_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, &["CREATE TABLE a (x)"]).unwrap();
        migrate(
            &mut conn,
            &["CREATE TABLE a (x)", "CREATE TABLE b (x); NOT SQL"],
        )
        .unwrap_err();
        assert_eq!(
            (version(&conn).unwrap(), table_names(&conn)),
            (1, vec!["a".to_owned(), "schema_version".to_owned()])
        );
    }
}
