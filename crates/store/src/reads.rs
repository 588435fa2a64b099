//! The reads. A multi-query read (`load`) runs in one read transaction so that it sees one
//! snapshot even while another process writes; rows are copied out under the lock and decoded
//! (JSON, timestamps) after it is released.

use rusqlite::types::Value;
use rusqlite::{OptionalExtension, Row, Transaction};
use tether_protocol::{Message, Usage};

use crate::codec::{count_from_sql, opt_path_from_value, parse_stamp, path_from_value};
use crate::store::Failure;
use crate::writes::exists;
use crate::{SessionMeta, SessionSummary, Store, StoreError, StoredSession, UsageRecord};

impl Store {
    /// The session with its messages in order and its direct sub-sessions; `None` if unknown.
    pub fn load(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        let raw = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            let Some(meta) = tx
                .prepare_cached(META_SQL)?
                .query_row([id], MetaRow::read)
                .optional()?
            else {
                return Ok(None);
            };
            let messages = tx
                .prepare_cached(MESSAGES_SQL)?
                .query_map([id], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let sub_sessions = tx
                .prepare_cached(SUB_SESSIONS_SQL)?
                .query_map([id], |row| row.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            tx.commit()?;
            Ok(Some((meta, messages, sub_sessions)))
        })?;
        let Some((meta, messages, sub_sessions)) = raw else {
            return Ok(None);
        };
        let messages = messages
            .into_iter()
            .map(|(seq, json)| decode_message(id, seq, &json))
            .collect::<Result<_, _>>()?;
        Ok(Some(StoredSession {
            meta: meta.decode()?,
            messages,
            sub_sessions,
        }))
    }

    /// Top-level sessions, most recently updated first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let rows = self.with(|inner| {
            Ok(inner
                .conn
                .prepare_cached(LIST_SQL)?
                .query_map([], SummaryRow::read)?
                .collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        rows.into_iter().map(SummaryRow::decode).collect()
    }

    /// The id of the most recently updated top-level session (`tether run --resume`).
    pub fn latest(&self) -> Result<Option<String>, StoreError> {
        self.with(|inner| {
            Ok(inner
                .conn
                .prepare_cached(LATEST_SQL)?
                .query_row([], |row| row.get(0))
                .optional()?)
        })
    }

    /// The direct sub-sessions of `id`, oldest first. Fails with [`StoreError::NotFound`] for
    /// an unknown id.
    pub fn children(&self, id: &str) -> Result<Vec<SessionSummary>, StoreError> {
        let rows = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            require(&tx, id)?;
            let rows = tx
                .prepare_cached(CHILDREN_SQL)?
                .query_map([id], SummaryRow::read)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            tx.commit()?;
            Ok(rows)
        })?;
        rows.into_iter().map(SummaryRow::decode).collect()
    }

    /// The model calls of `id` in the order they were recorded. Fails with
    /// [`StoreError::NotFound`] for an unknown id.
    pub fn usage(&self, id: &str) -> Result<Vec<UsageRecord>, StoreError> {
        let rows = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            require(&tx, id)?;
            let rows = tx
                .prepare_cached(USAGE_SQL)?
                .query_map([id], UsageRow::read)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            tx.commit()?;
            Ok(rows)
        })?;
        rows.into_iter().map(|row| row.decode(id)).collect()
    }
}

fn require(tx: &Transaction<'_>, id: &str) -> Result<(), Failure> {
    if exists(tx, id)? {
        Ok(())
    } else {
        Err(StoreError::NotFound { id: id.to_owned() }.into())
    }
}

fn decode_message(session_id: &str, seq: i64, json: &str) -> Result<Message, StoreError> {
    serde_json::from_str(json).map_err(|source| StoreError::CorruptMessage {
        session_id: session_id.to_owned(),
        seq: u64::try_from(seq).unwrap_or(0),
        source,
    })
}

const META_SQL: &str = "SELECT id, parent_id, agent, created_at, updated_at, first_prompt, \
     session_context, summary, input_tokens, output_tokens, cost, worktree_path, \
     worktree_branch, working_dir, extra FROM sessions WHERE id = ?1";
const MESSAGES_SQL: &str = "SELECT seq, json FROM messages WHERE session_id = ?1 ORDER BY seq";
const SUB_SESSIONS_SQL: &str =
    "SELECT id FROM sessions WHERE parent_id = ?1 ORDER BY created_at, rowid";
const LIST_SQL: &str = "SELECT id, updated_at, agent, first_prompt FROM sessions \
     WHERE parent_id IS NULL ORDER BY updated_at DESC, rowid DESC";
const LATEST_SQL: &str =
    "SELECT id FROM sessions WHERE parent_id IS NULL ORDER BY updated_at DESC, rowid DESC LIMIT 1";
const CHILDREN_SQL: &str = "SELECT id, updated_at, agent, first_prompt FROM sessions \
     WHERE parent_id = ?1 ORDER BY created_at, rowid";
const USAGE_SQL: &str = "SELECT model_id, input_tokens, output_tokens, cached_input_tokens, \
     cached_write_tokens, reasoning_tokens, cost, at FROM usage WHERE session_id = ?1 ORDER BY seq";

/// A `sessions` row as SQLite returns it, before validation.
struct MetaRow {
    id: String,
    parent_id: Option<String>,
    agent: String,
    created_at: String,
    updated_at: String,
    first_prompt: Option<String>,
    session_context: Option<String>,
    summary: Option<String>,
    input_tokens: i64,
    output_tokens: i64,
    cost: f64,
    worktree_path: Value,
    worktree_branch: Option<String>,
    working_dir: Value,
    extra: String,
}

impl MetaRow {
    fn read(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            parent_id: row.get(1)?,
            agent: row.get(2)?,
            created_at: row.get(3)?,
            updated_at: row.get(4)?,
            first_prompt: row.get(5)?,
            session_context: row.get(6)?,
            summary: row.get(7)?,
            input_tokens: row.get(8)?,
            output_tokens: row.get(9)?,
            cost: row.get(10)?,
            worktree_path: row.get(11)?,
            worktree_branch: row.get(12)?,
            working_dir: row.get(13)?,
            extra: row.get(14)?,
        })
    }

    fn decode(self) -> Result<SessionMeta, StoreError> {
        let id = self.id;
        let extra = serde_json::from_str(&self.extra).map_err(|e| StoreError::CorruptRow {
            session_id: id.clone(),
            column: "extra",
            detail: format!("is not JSON: {e}"),
        })?;
        Ok(SessionMeta {
            parent_id: self.parent_id,
            agent: self.agent,
            created_at: parse_stamp(&id, "created_at", &self.created_at)?,
            updated_at: parse_stamp(&id, "updated_at", &self.updated_at)?,
            first_prompt: self.first_prompt,
            session_context: self.session_context,
            summary: self.summary,
            input_tokens: count_from_sql(&id, "input_tokens", self.input_tokens)?,
            output_tokens: count_from_sql(&id, "output_tokens", self.output_tokens)?,
            cost: self.cost,
            worktree_path: opt_path_from_value(&id, "worktree_path", self.worktree_path)?,
            worktree_branch: self.worktree_branch,
            working_dir: path_from_value(&id, "working_dir", self.working_dir)?,
            extra,
            id,
        })
    }
}

struct SummaryRow {
    id: String,
    updated_at: String,
    agent: String,
    first_prompt: Option<String>,
}

impl SummaryRow {
    fn read(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            updated_at: row.get(1)?,
            agent: row.get(2)?,
            first_prompt: row.get(3)?,
        })
    }

    fn decode(self) -> Result<SessionSummary, StoreError> {
        Ok(SessionSummary {
            updated_at: parse_stamp(&self.id, "updated_at", &self.updated_at)?,
            id: self.id,
            agent: self.agent,
            first_prompt: self.first_prompt,
        })
    }
}

struct UsageRow {
    model_id: String,
    counts: [i64; 4],
    reasoning_tokens: Option<i64>,
    cost: Option<f64>,
    at: String,
}

impl UsageRow {
    fn read(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            model_id: row.get(0)?,
            counts: [row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?],
            reasoning_tokens: row.get(5)?,
            cost: row.get(6)?,
            at: row.get(7)?,
        })
    }

    fn decode(self, session_id: &str) -> Result<UsageRecord, StoreError> {
        let [input, output, cached_input, cached_write] = self.counts;
        let count = |column, n| count_from_sql(session_id, column, n);
        Ok(UsageRecord {
            model_id: self.model_id,
            usage: Usage {
                input_tokens: count("usage.input_tokens", input)?,
                output_tokens: count("usage.output_tokens", output)?,
                cached_input_tokens: count("usage.cached_input_tokens", cached_input)?,
                cached_write_tokens: count("usage.cached_write_tokens", cached_write)?,
                reasoning_tokens: self
                    .reasoning_tokens
                    .map(|n| count("usage.reasoning_tokens", n))
                    .transpose()?,
            },
            cost: self.cost,
            at: parse_stamp(session_id, "usage.at", &self.at)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The plan SQLite picks for `sql`, one line per step.
    fn plan(store: &Store, sql: &str) -> Vec<String> {
        store
            .with(|inner| {
                let mut stmt = inner.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let params = std::iter::repeat_n("id", stmt.parameter_count());
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(params), |row| {
                        row.get::<_, String>(3)
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })
            .unwrap()
    }

    #[test]
    fn the_hot_queries_read_indexes_without_a_sort_step() {
        let store = Store::open_in_memory().unwrap();
        let queries = [LIST_SQL, LATEST_SQL, MESSAGES_SQL, USAGE_SQL, META_SQL];

        let plans: Vec<Vec<String>> = queries.iter().map(|q| plan(&store, q)).collect();

        let list = "SEARCH sessions USING INDEX sessions_by_parent (parent_id=?)";
        let expected = [
            vec![list],
            vec![list],
            vec!["SEARCH messages USING INDEX sqlite_autoindex_messages_1 (session_id=?)"],
            vec!["SEARCH usage USING PRIMARY KEY (session_id=?)"],
            vec!["SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (id=?)"],
        ];
        let expected = expected.map(|p| p.into_iter().map(str::to_owned).collect::<Vec<_>>());
        assert_eq!(plans, expected);
    }

    #[test]
    fn sub_sessions_are_found_through_the_parent_index() {
        let store = Store::open_in_memory().unwrap();

        let plans = [plan(&store, SUB_SESSIONS_SQL), plan(&store, CHILDREN_SQL)];

        let expected = vec![
            "SEARCH sessions USING INDEX sessions_by_parent (parent_id=?)".to_owned(),
            "USE TEMP B-TREE FOR ORDER BY".to_owned(),
        ];
        assert_eq!(plans, [expected.clone(), expected]);
    }
}
