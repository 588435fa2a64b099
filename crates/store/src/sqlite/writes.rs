//! The writes: each is one `BEGIN IMMEDIATE … COMMIT`, committed before the call returns, so
//! "recorded" means it survives the process being killed right after.
//!
//! Every write to a session starts by bumping its `updated_at`; the number of rows that
//! touched doubles as the existence check, so an unknown id costs no extra query and leaves
//! nothing behind. Messages are encoded to JSON before the lock is taken.

use rusqlite::types::Value;
use rusqlite::{Transaction, params};
use tether_protocol::Message;

use super::{Failure, Sqlite};
use crate::codec::{
    Encoded, count_to_sql, encode, encode_extra, opt_path_value, path_value, stamp,
};
use crate::{NewSession, SessionUpdate, StoreError, UsageRecord};

impl Sqlite {
    pub(crate) fn create_session(&self, s: &NewSession) -> Result<(), StoreError> {
        self.with(|inner| {
            let now = stamp(inner.now());
            let tx = inner.write()?;
            if exists(&tx, &s.id)? {
                return Err(StoreError::AlreadyExists { id: s.id.clone() }.into());
            }
            if let Some(parent_id) = &s.parent_id
                && !exists(&tx, parent_id)?
            {
                return Err(StoreError::ParentNotFound {
                    id: s.id.clone(),
                    parent_id: parent_id.clone(),
                }
                .into());
            }
            tx.execute(
                "INSERT INTO sessions (id, parent_id, agent, created_at, updated_at, first_prompt, working_dir)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
                params![
                    s.id,
                    s.parent_id,
                    s.agent,
                    now,
                    s.first_prompt,
                    path_value(&s.working_dir)
                ],
            )?;
            tx.commit()?;
            Ok(())
        })
    }

    /// Appends `ms` in one transaction; returns the sequence number of the first.
    pub(crate) fn append(&self, session_id: &str, ms: &[Message]) -> Result<u64, StoreError> {
        let encoded = encode(session_id, ms)?;
        self.with(|inner| {
            let now = stamp(inner.now());
            let tx = inner.write()?;
            touch(&tx, session_id, &now)?;
            let first = next_seq(&tx, "messages", session_id)?;
            insert_messages(&tx, session_id, first, &encoded, &now)?;
            tx.commit()?;
            Ok(first)
        })
    }

    pub(crate) fn replace_messages(
        &self,
        session_id: &str,
        ms: &[Message],
    ) -> Result<(), StoreError> {
        let encoded = encode(session_id, ms)?;
        self.with(|inner| {
            let now = stamp(inner.now());
            let tx = inner.write()?;
            touch(&tx, session_id, &now)?;
            tx.execute("DELETE FROM messages WHERE session_id = ?1", [session_id])?;
            insert_messages(&tx, session_id, 0, &encoded, &now)?;
            tx.commit()?;
            Ok(())
        })
    }

    pub(crate) fn update(&self, session_id: &str, u: &SessionUpdate) -> Result<(), StoreError> {
        let (assignments, mut values) = update_columns(session_id, u)?;
        self.with(|inner| {
            let now = stamp(inner.now());
            let tx = inner.write()?;
            let mut sql = String::from("UPDATE sessions SET updated_at = ?1");
            for (i, column) in assignments.iter().enumerate() {
                sql.push_str(&format!(", {column} = ?{}", i + 2));
            }
            sql.push_str(&format!(" WHERE id = ?{}", assignments.len() + 2));
            values.insert(0, Value::Text(now));
            values.push(Value::Text(session_id.to_owned()));
            let changed = tx.execute(&sql, rusqlite::params_from_iter(values.iter()))?;
            if changed == 0 {
                return Err(not_found(session_id));
            }
            tx.commit()?;
            Ok(())
        })
    }

    pub(crate) fn record_usage(&self, session_id: &str, r: &UsageRecord) -> Result<(), StoreError> {
        self.with(|inner| {
            let now = stamp(inner.now());
            let tx = inner.write()?;
            touch(&tx, session_id, &now)?;
            let seq = next_seq(&tx, "usage", session_id)?;
            tx.prepare_cached(
                "INSERT INTO usage (session_id, seq, model_id, input_tokens, output_tokens,
                     cached_input_tokens, cached_write_tokens, reasoning_tokens, cost, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                session_id,
                count_to_sql(seq),
                r.model_id,
                count_to_sql(r.usage.input_tokens),
                count_to_sql(r.usage.output_tokens),
                count_to_sql(r.usage.cached_input_tokens),
                count_to_sql(r.usage.cached_write_tokens),
                r.usage.reasoning_tokens.map(count_to_sql),
                r.cost,
                stamp(r.at),
            ])?;
            tx.commit()?;
            Ok(())
        })
    }

    pub(crate) fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.with(|inner| {
            let tx = inner.write()?;
            let deleted = tx.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
            tx.commit()?;
            Ok(deleted > 0)
        })
    }
}

fn not_found(id: &str) -> Failure {
    StoreError::NotFound { id: id.to_owned() }.into()
}

pub(crate) fn exists(tx: &Transaction<'_>, id: &str) -> rusqlite::Result<bool> {
    tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?1)")?
        .query_row([id], |row| row.get(0))
}

/// Bumps `updated_at`; fails with `NotFound` (before anything is written) for an unknown id.
fn touch(tx: &Transaction<'_>, id: &str, now: &str) -> Result<(), Failure> {
    let changed = tx
        .prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
        .execute([id, now])?;
    if changed == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

/// The next sequence number in `table` (`messages` or `usage`), read off its primary key.
fn next_seq(tx: &Transaction<'_>, table: &'static str, session_id: &str) -> rusqlite::Result<u64> {
    let sql = format!("SELECT coalesce(max(seq) + 1, 0) FROM {table} WHERE session_id = ?1");
    let next: i64 = tx
        .prepare_cached(&sql)?
        .query_row([session_id], |row| row.get(0))?;
    Ok(u64::try_from(next).unwrap_or(0))
}

fn insert_messages(
    tx: &Transaction<'_>,
    session_id: &str,
    first: u64,
    ms: &[Encoded],
    now: &str,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO messages (session_id, seq, role, json, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (seq, m) in (first..).zip(ms) {
        stmt.execute(params![session_id, count_to_sql(seq), m.role, m.json, now])?;
    }
    Ok(())
}

/// The `column = value` pairs of an update, in a fixed order.
fn update_columns(
    session_id: &str,
    u: &SessionUpdate,
) -> Result<(Vec<&'static str>, Vec<Value>), StoreError> {
    let text = |s: &Option<String>| s.clone().map_or(Value::Null, Value::Text);
    let mut columns = Vec::new();
    let mut values = Vec::new();
    let mut set = |column: &'static str, value: Value| {
        columns.push(column);
        values.push(value);
    };
    if let Some(agent) = &u.agent {
        set("agent", Value::Text(agent.clone()));
    }
    if let Some(context) = &u.session_context {
        set("session_context", text(context));
    }
    if let Some(summary) = &u.summary {
        set("summary", text(summary));
    }
    if let Some(n) = u.input_tokens {
        set("input_tokens", Value::Integer(count_to_sql(n)));
    }
    if let Some(n) = u.output_tokens {
        set("output_tokens", Value::Integer(count_to_sql(n)));
    }
    if let Some(cost) = u.cost {
        set("cost", Value::Real(cost));
    }
    if let Some(prompt) = &u.first_prompt {
        set("first_prompt", text(prompt));
    }
    if let Some(path) = &u.worktree_path {
        set("worktree_path", opt_path_value(path.as_deref()));
    }
    if let Some(branch) = &u.worktree_branch {
        set("worktree_branch", text(branch));
    }
    if let Some(extra) = &u.extra {
        set("extra", Value::Text(encode_extra(session_id, extra)?));
    }
    Ok((columns, values))
}
