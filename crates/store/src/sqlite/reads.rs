//! The reads. A multi-query read (`load`) runs in one read transaction so that it sees one
//! snapshot even while another process writes; rows are copied out under the lock and decoded
//! (JSON, timestamps) after it is released.

use rusqlite::types::Value;
use rusqlite::{OptionalExtension, Row, Transaction};

use super::writes::exists;
use super::{Failure, Sqlite};
use crate::rows::{MetaRow, SummaryRow, UsageRow, decode_message};
use crate::{SessionSummary, StoreError, StoredSession, UsageRecord};

impl Sqlite {
    pub(crate) fn load(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        let raw = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            let Some(meta) = tx
                .prepare_cached(META_SQL)?
                .query_row([id], meta_row)
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

    pub(crate) fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let rows = self.with(|inner| {
            Ok(inner
                .conn
                .prepare_cached(LIST_SQL)?
                .query_map([], summary_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        rows.into_iter().map(SummaryRow::decode).collect()
    }

    pub(crate) fn latest(&self) -> Result<Option<String>, StoreError> {
        self.with(|inner| {
            Ok(inner
                .conn
                .prepare_cached(LATEST_SQL)?
                .query_row([], |row| row.get(0))
                .optional()?)
        })
    }

    pub(crate) fn children(&self, id: &str) -> Result<Vec<SessionSummary>, StoreError> {
        let rows = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            require(&tx, id)?;
            let rows = tx
                .prepare_cached(CHILDREN_SQL)?
                .query_map([id], summary_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            tx.commit()?;
            Ok(rows)
        })?;
        rows.into_iter().map(SummaryRow::decode).collect()
    }

    pub(crate) fn usage(&self, id: &str) -> Result<Vec<UsageRecord>, StoreError> {
        let rows = self.with(|inner| {
            let tx = inner.conn.transaction()?;
            require(&tx, id)?;
            let rows = tx
                .prepare_cached(USAGE_SQL)?
                .query_map([id], usage_row)?
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

fn meta_row(row: &Row<'_>) -> rusqlite::Result<MetaRow> {
    Ok(MetaRow {
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
        worktree_path: row.get::<_, Value>(11)?.into(),
        worktree_branch: row.get(12)?,
        working_dir: row.get::<_, Value>(13)?.into(),
        extra: row.get(14)?,
    })
}

fn summary_row(row: &Row<'_>) -> rusqlite::Result<SummaryRow> {
    Ok(SummaryRow {
        id: row.get(0)?,
        updated_at: row.get(1)?,
        agent: row.get(2)?,
        first_prompt: row.get(3)?,
    })
}

fn usage_row(row: &Row<'_>) -> rusqlite::Result<UsageRow> {
    Ok(UsageRow {
        model_id: row.get(0)?,
        counts: [row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?],
        reasoning_tokens: row.get(5)?,
        cost: row.get(6)?,
        at: row.get(7)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The plan SQLite picks for `sql`, one line per step.
    fn plan(store: &Sqlite, sql: &str) -> Vec<String> {
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
        let store = Sqlite::open_in_memory().unwrap();
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
        let store = Sqlite::open_in_memory().unwrap();

        let plans = [plan(&store, SUB_SESSIONS_SQL), plan(&store, CHILDREN_SQL)];

        let expected = vec![
            "SEARCH sessions USING INDEX sessions_by_parent (parent_id=?)".to_owned(),
            "USE TEMP B-TREE FOR ORDER BY".to_owned(),
        ];
        assert_eq!(plans, [expected.clone(), expected]);
    }
}
