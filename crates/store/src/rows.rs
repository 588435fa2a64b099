//! Rows as either database returns them, before validation, and their decoding into the public
//! types: both backends read the same columns, so a corrupt value is reported the same way.

use tether_protocol::{Message, Usage};

use crate::codec::{RawPath, count_from_sql, opt_path_from_raw, parse_stamp, path_from_raw};
use crate::{SessionMeta, SessionSummary, StoreError, UsageRecord};

/// A `sessions` row.
pub(crate) struct MetaRow {
    pub(crate) id: String,
    pub(crate) parent_id: Option<String>,
    pub(crate) agent: String,
    pub(crate) created_at: String,
    pub(crate) updated_at: String,
    pub(crate) first_prompt: Option<String>,
    pub(crate) session_context: Option<String>,
    pub(crate) summary: Option<String>,
    pub(crate) input_tokens: i64,
    pub(crate) output_tokens: i64,
    pub(crate) cost: f64,
    pub(crate) worktree_path: RawPath,
    pub(crate) worktree_branch: Option<String>,
    pub(crate) working_dir: RawPath,
    pub(crate) extra: String,
}

impl MetaRow {
    pub(crate) fn decode(self) -> Result<SessionMeta, StoreError> {
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
            worktree_path: opt_path_from_raw(&id, "worktree_path", self.worktree_path)?,
            worktree_branch: self.worktree_branch,
            working_dir: path_from_raw(&id, "working_dir", self.working_dir)?,
            extra,
            id,
        })
    }
}

/// The columns of a `tether sessions list` line.
pub(crate) struct SummaryRow {
    pub(crate) id: String,
    pub(crate) updated_at: String,
    pub(crate) agent: String,
    pub(crate) first_prompt: Option<String>,
}

impl SummaryRow {
    pub(crate) fn decode(self) -> Result<SessionSummary, StoreError> {
        Ok(SessionSummary {
            updated_at: parse_stamp(&self.id, "updated_at", &self.updated_at)?,
            id: self.id,
            agent: self.agent,
            first_prompt: self.first_prompt,
        })
    }
}

/// A `usage` row.
pub(crate) struct UsageRow {
    pub(crate) model_id: String,
    /// Input, output, cached input and cached write tokens.
    pub(crate) counts: [i64; 4],
    pub(crate) reasoning_tokens: Option<i64>,
    pub(crate) cost: Option<f64>,
    pub(crate) at: String,
}

impl UsageRow {
    pub(crate) fn decode(self, session_id: &str) -> Result<UsageRecord, StoreError> {
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

pub(crate) fn decode_message(
    session_id: &str,
    seq: i64,
    json: &str,
) -> Result<Message, StoreError> {
    serde_json::from_str(json).map_err(|source| StoreError::CorruptMessage {
        session_id: session_id.to_owned(),
        seq: u64::try_from(seq).unwrap_or(0),
        source,
    })
}
