//! The PostgreSQL schema, as forward-only migrations like SQLite's (`sqlite/schema.rs`), safe
//! when several replicas start at once.
//!
//! Each step runs in one transaction that first takes a transaction-level advisory lock with a
//! fixed key: replicas migrating a new database at once queue on it, and each re-reads the
//! version once it holds the lock, so every step is applied exactly once. The lock ends with
//! the transaction, also when a replica dies mid-migration (its step rolls back).
//!
//! The tables mirror SQLite's, column for column, with these differences: timestamps are text
//! in the same fixed format (`timestamptz` would round nanoseconds away) compared with the "C"
//! collation so text order is time order; paths are `bytea` (SQLite's TEXT-or-BLOB in one
//! type); and `sessions.created_order` stands in for SQLite's rowid as the tie-break of equal
//! timestamps. `list` reads the partial index on top-level sessions in order; children and
//! the cascade from a parent use `sessions_by_parent`.

use tokio_postgres::Client;

use crate::codec::stamp;

/// Migration `i` brings the schema from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[V1];

/// The advisory lock key: "tether" in ASCII, then the store's number 1.
const LOCK_KEY: i64 = 0x7465_7468_6572_0001;

const V1: &str = r#"
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    parent_id       TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    agent           TEXT NOT NULL,
    created_at      TEXT COLLATE "C" NOT NULL,
    updated_at      TEXT COLLATE "C" NOT NULL,
    first_prompt    TEXT,
    session_context TEXT,
    summary         TEXT,
    input_tokens    BIGINT NOT NULL DEFAULT 0,
    output_tokens   BIGINT NOT NULL DEFAULT 0,
    cost            DOUBLE PRECISION NOT NULL DEFAULT 0,
    worktree_path   BYTEA,
    worktree_branch TEXT,
    working_dir     BYTEA NOT NULL,
    extra           TEXT NOT NULL DEFAULT '{}',
    created_order   BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX sessions_top_level ON sessions (updated_at, created_order) WHERE parent_id IS NULL;
CREATE INDEX sessions_by_parent ON sessions (parent_id, created_at, created_order);

CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    role       TEXT NOT NULL,
    json       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE usage (
    session_id          TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq                 BIGINT NOT NULL,
    model_id            TEXT NOT NULL,
    input_tokens        BIGINT NOT NULL,
    output_tokens       BIGINT NOT NULL,
    cached_input_tokens BIGINT NOT NULL,
    cached_write_tokens BIGINT NOT NULL,
    reasoning_tokens    BIGINT,
    cost                DOUBLE PRECISION,
    at                  TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"#;

/// What [`migrate`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Migration {
    /// The schema is at `migrations.len()` (possibly after applying some).
    Current,
    /// The database is at a version newer than `migrations` knows.
    TooNew { found: i64 },
}

/// The schema version recorded in the database; 0 when it has no `schema_version` table.
pub(crate) async fn version(client: &Client) -> Result<i64, tokio_postgres::Error> {
    let row = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .await?;
    if !row.try_get::<_, bool>(0)? {
        return Ok(0);
    }
    let row = client
        .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
        .await?;
    row.try_get(0)
}

/// Brings the schema up to `migrations.len()`, one locked transaction per step.
pub(crate) async fn migrate(
    client: &Client,
    migrations: &[&str],
) -> Result<Migration, tokio_postgres::Error> {
    let latest = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    loop {
        client.batch_execute("BEGIN").await?;
        let step = migrate_step(client, migrations, latest).await;
        let done = match step {
            Ok(done) => done,
            Err(e) => {
                // Best effort: a failed ROLLBACK means the connection is gone, which ends the
                // transaction too.
                let _ = client.batch_execute("ROLLBACK").await;
                return Err(e);
            }
        };
        client.batch_execute("COMMIT").await?;
        if let Some(migration) = done {
            return Ok(migration);
        }
    }
}

/// Applies the next step inside the caller's transaction; `Some` once there is none left.
async fn migrate_step(
    client: &Client,
    migrations: &[&str],
    latest: i64,
) -> Result<Option<Migration>, tokio_postgres::Error> {
    client
        .batch_execute(&format!("SELECT pg_advisory_xact_lock({LOCK_KEY})"))
        .await?;
    // Checked first: creating it, even `IF NOT EXISTS`, needs the CREATE privilege, which a
    // replica's role may lack once the schema exists.
    let has_table: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .await?
        .try_get(0)?;
    if !has_table {
        client
            .batch_execute(
                "CREATE TABLE schema_version (
                    version    BIGINT PRIMARY KEY,
                    applied_at TEXT NOT NULL
                )",
            )
            .await?;
    }
    let current = version(client).await?;
    if current > latest {
        return Ok(Some(Migration::TooNew { found: current }));
    }
    let Some(step) = usize::try_from(current)
        .ok()
        .and_then(|i| migrations.get(i))
    else {
        return Ok(Some(Migration::Current));
    };
    client.batch_execute(step).await?;
    client
        .execute(
            "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
            &[&(current + 1), &stamp(jiff::Timestamp::now())],
        )
        .await?;
    Ok(None)
}
