//! The operations, as async functions on one pooled connection. Each mirrors its SQLite twin
//! (`sqlite/reads.rs`, `sqlite/writes.rs`) and returns the same values and errors.
//!
//! Every write runs in an explicit READ COMMITTED transaction, also those of one statement: a
//! connection that breaks before `COMMIT` is then known to have stored nothing, which is what
//! lets the pool run the operation again (`pool.rs`). Writes to a session start by bumping its
//! `updated_at`: that locks the session row, so a second writer to the same session (another
//! thread, another replica) waits there until the first commits, and then numbers its
//! messages after the first's. The row count doubles as the existence check, as in SQLite.
//! Reads of more than one statement share one REPEATABLE READ snapshot.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::conn::{Begin, Conn, Failure};
use crate::codec::{Encoded, RawPath, count_to_sql, path_bytes};
use crate::rows::{MetaRow, SummaryRow, UsageRow, decode_message};
use crate::{NewSession, SessionSummary, SessionUpdate, StoreError, StoredSession, UsageRecord};

pub(crate) async fn create_session(c: &Conn, s: &NewSession, now: &str) -> Result<(), Failure> {
    c.transaction(Begin::Write, async || {
        let inserted = c
            .client
            .execute(
                &c.st.create,
                &[
                    &s.id,
                    &s.parent_id,
                    &s.agent,
                    &now,
                    &s.first_prompt,
                    &path_bytes(&s.working_dir),
                ],
            )
            .await
            .map_err(|e| parent_missing(e, s))?;
        if inserted == 0 {
            return Err(StoreError::AlreadyExists { id: s.id.clone() }.into());
        }
        Ok(())
    })
    .await
}

/// A foreign-key violation on insert: the parent is not stored (or was deleted meanwhile).
fn parent_missing(e: tokio_postgres::Error, s: &NewSession) -> Failure {
    match &s.parent_id {
        Some(parent_id)
            if e.code() == Some(&tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION) =>
        {
            StoreError::ParentNotFound {
                id: s.id.clone(),
                parent_id: parent_id.clone(),
            }
            .into()
        }
        _ => e.into(),
    }
}

pub(crate) async fn append(
    c: &Conn,
    session_id: &str,
    ms: &[Encoded],
    now: &str,
) -> Result<u64, Failure> {
    c.transaction(Begin::Write, async || {
        touch(c, session_id, now).await?;
        insert_messages(c, session_id, ms, now).await
    })
    .await
}

pub(crate) async fn replace_messages(
    c: &Conn,
    session_id: &str,
    ms: &[Encoded],
    now: &str,
) -> Result<(), Failure> {
    c.transaction(Begin::Write, async || {
        touch(c, session_id, now).await?;
        c.client
            .execute(&c.st.delete_messages, &[&session_id])
            .await?;
        // Numbered from 0: the statement sees this transaction's delete.
        insert_messages(c, session_id, ms, now).await.map(drop)
    })
    .await
}

pub(crate) async fn update(
    c: &Conn,
    session_id: &str,
    u: &SessionUpdate,
    extra: Option<&str>,
    now: &str,
) -> Result<(), Failure> {
    let flag = |o: &Option<Option<String>>| o.is_some();
    let value = |o: &Option<Option<String>>| o.clone().flatten();
    let worktree_path = u.worktree_path.clone().flatten();
    let changed = c
        .transaction(Begin::Write, async || {
            Ok(c.client
                .execute(
                    &c.st.update,
                    &[
                        &session_id,
                        &now,
                        &u.agent,
                        &flag(&u.session_context),
                        &value(&u.session_context),
                        &flag(&u.summary),
                        &value(&u.summary),
                        &u.input_tokens.map(count_to_sql),
                        &u.output_tokens.map(count_to_sql),
                        &u.cost,
                        &flag(&u.first_prompt),
                        &value(&u.first_prompt),
                        &u.worktree_path.is_some(),
                        &worktree_path.as_deref().map(path_bytes),
                        &flag(&u.worktree_branch),
                        &value(&u.worktree_branch),
                        &extra,
                    ],
                )
                .await?)
        })
        .await?;
    if changed == 0 {
        return Err(not_found(session_id));
    }
    Ok(())
}

pub(crate) async fn record_usage(
    c: &Conn,
    session_id: &str,
    r: &UsageRecord,
    at: &str,
    now: &str,
) -> Result<(), Failure> {
    c.transaction(Begin::Write, async || {
        touch(c, session_id, now).await?;
        let u = &r.usage;
        c.client
            .execute(
                &c.st.insert_usage,
                &[
                    &session_id,
                    &r.model_id,
                    &count_to_sql(u.input_tokens),
                    &count_to_sql(u.output_tokens),
                    &count_to_sql(u.cached_input_tokens),
                    &count_to_sql(u.cached_write_tokens),
                    &u.reasoning_tokens.map(count_to_sql),
                    &r.cost,
                    &at,
                ],
            )
            .await?;
        Ok(())
    })
    .await
}

pub(crate) async fn delete(c: &Conn, id: &str) -> Result<bool, Failure> {
    let deleted = c
        .transaction(Begin::Write, async || {
            Ok(c.client.execute(&c.st.delete, &[&id]).await?)
        })
        .await?;
    Ok(deleted > 0)
}

/// A session's rows, decoded by the caller ([`RawSession::decode`]) so that decoding a long
/// history does not hold up the worker thread.
pub(crate) struct RawSession {
    meta: MetaRow,
    messages: Vec<(i64, String)>,
    sub_sessions: Vec<String>,
}

impl RawSession {
    pub(crate) fn decode(self) -> Result<StoredSession, StoreError> {
        let meta = self.meta.decode()?;
        let messages = self
            .messages
            .iter()
            .map(|(seq, json)| decode_message(&meta.id, *seq, json))
            .collect::<Result<_, _>>()?;
        Ok(StoredSession {
            meta,
            messages,
            sub_sessions: self.sub_sessions,
        })
    }
}

pub(crate) async fn load(c: &Conn, id: &str) -> Result<Option<RawSession>, Failure> {
    let (meta, messages, subs) = c
        .transaction(Begin::Snapshot, async || {
            let by_id: &[&(dyn ToSql + Sync)] = &[&id];
            // Sent together: one round trip for the three.
            Ok(tokio::try_join!(
                c.client.query_opt(&c.st.meta, by_id),
                c.client.query(&c.st.messages, by_id),
                c.client.query(&c.st.sub_sessions, by_id),
            )?)
        })
        .await?;
    let Some(meta) = meta else {
        return Ok(None);
    };
    Ok(Some(RawSession {
        meta: meta_row(&meta)?,
        messages: messages
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, tokio_postgres::Error>>()?,
        sub_sessions: subs
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?,
    }))
}

pub(crate) async fn list(c: &Conn) -> Result<Vec<SessionSummary>, Failure> {
    let rows = c.client.query(&c.st.list, &[]).await?;
    summaries(&rows)
}

pub(crate) async fn latest(c: &Conn) -> Result<Option<String>, Failure> {
    let row = c.client.query_opt(&c.st.latest, &[]).await?;
    Ok(row.map(|r| r.try_get(0)).transpose()?)
}

pub(crate) async fn children(c: &Conn, id: &str) -> Result<Vec<SessionSummary>, Failure> {
    let rows = c
        .transaction(Begin::Snapshot, async || {
            let by_id: &[&(dyn ToSql + Sync)] = &[&id];
            let (exists, rows) = tokio::try_join!(
                c.client.query_one(&c.st.exists, by_id),
                c.client.query(&c.st.children, by_id),
            )?;
            require(&exists, id)?;
            Ok(rows)
        })
        .await?;
    summaries(&rows)
}

pub(crate) async fn usage(c: &Conn, id: &str) -> Result<Vec<UsageRecord>, Failure> {
    let rows = c
        .transaction(Begin::Snapshot, async || {
            let by_id: &[&(dyn ToSql + Sync)] = &[&id];
            let (exists, rows) = tokio::try_join!(
                c.client.query_one(&c.st.exists, by_id),
                c.client.query(&c.st.usage, by_id),
            )?;
            require(&exists, id)?;
            Ok(rows)
        })
        .await?;
    rows.iter()
        .map(|row| {
            let raw = UsageRow {
                model_id: row.try_get(0)?,
                counts: [
                    row.try_get(1)?,
                    row.try_get(2)?,
                    row.try_get(3)?,
                    row.try_get(4)?,
                ],
                reasoning_tokens: row.try_get(5)?,
                cost: row.try_get(6)?,
                at: row.try_get(7)?,
            };
            Ok(raw.decode(id)?)
        })
        .collect()
}

fn not_found(id: &str) -> Failure {
    StoreError::NotFound { id: id.to_owned() }.into()
}

fn require(exists: &Row, id: &str) -> Result<(), Failure> {
    if exists.try_get(0)? {
        Ok(())
    } else {
        Err(not_found(id))
    }
}

/// Bumps `updated_at`, locking the session row; `NotFound` (nothing written) for an unknown id.
async fn touch(c: &Conn, id: &str, now: &str) -> Result<(), Failure> {
    if c.client.execute(&c.st.touch, &[&id, &now]).await? == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

/// Inserts `ms` after the session's last message; returns the first one's sequence number.
async fn insert_messages(
    c: &Conn,
    session_id: &str,
    ms: &[Encoded],
    now: &str,
) -> Result<u64, Failure> {
    if ms.is_empty() {
        return Ok(0);
    }
    let roles: Vec<&str> = ms.iter().map(|m| m.role).collect();
    let jsons: Vec<&str> = ms.iter().map(|m| m.json.as_str()).collect();
    let row = c
        .client
        .query_one(&c.st.insert_messages, &[&session_id, &roles, &jsons, &now])
        .await?;
    let first: i64 = row.try_get(0)?;
    Ok(u64::try_from(first).unwrap_or(0))
}

fn summaries(rows: &[Row]) -> Result<Vec<SessionSummary>, Failure> {
    rows.iter()
        .map(|row| {
            let raw = SummaryRow {
                id: row.try_get(0)?,
                updated_at: row.try_get(1)?,
                agent: row.try_get(2)?,
                first_prompt: row.try_get(3)?,
            };
            Ok(raw.decode()?)
        })
        .collect()
}

fn meta_row(row: &Row) -> Result<MetaRow, tokio_postgres::Error> {
    Ok(MetaRow {
        id: row.try_get(0)?,
        parent_id: row.try_get(1)?,
        agent: row.try_get(2)?,
        created_at: row.try_get(3)?,
        updated_at: row.try_get(4)?,
        first_prompt: row.try_get(5)?,
        session_context: row.try_get(6)?,
        summary: row.try_get(7)?,
        input_tokens: row.try_get(8)?,
        output_tokens: row.try_get(9)?,
        cost: row.try_get(10)?,
        worktree_path: RawPath::from(row.try_get::<_, Option<Vec<u8>>>(11)?),
        worktree_branch: row.try_get(12)?,
        working_dir: RawPath::from(row.try_get::<_, Option<Vec<u8>>>(13)?),
        extra: row.try_get(14)?,
    })
}
