//! Conversions between Rust values and stored columns, shared by both backends.
//!
//! Timestamps are RFC 3339 UTC text with a fixed nine-digit fraction, so that comparing the
//! strings (what the `updated_at` index does) orders them in time; PostgreSQL's `timestamptz`
//! would round them to microseconds. Paths are TEXT in SQLite when they are UTF-8, which is
//! always in practice and keeps the file readable with `sqlite3`, and BLOB bytes otherwise so no
//! path is ever mangled; PostgreSQL stores them as `bytea`, its one column type that holds both.
//! Counts are `u64` in Rust and 64-bit signed integers in both databases.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use rusqlite::types::Value;
use tether_protocol::Message;

use crate::StoreError;

/// A path column as read, before validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawPath {
    Null,
    Text(String),
    Bytes(Vec<u8>),
    /// A number: not a path.
    Other,
}

impl From<Value> for RawPath {
    fn from(value: Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Text(text) => Self::Text(text),
            Value::Blob(bytes) => Self::Bytes(bytes),
            Value::Integer(_) | Value::Real(_) => Self::Other,
        }
    }
}

impl From<Option<Vec<u8>>> for RawPath {
    fn from(value: Option<Vec<u8>>) -> Self {
        value.map_or(Self::Null, Self::Bytes)
    }
}

/// The current time, strictly later than `last` (which it updates), so that `updated_at`
/// strictly increases within a process even if the wall clock stalls or steps back; `list`
/// order depends on it.
pub(crate) fn next_stamp(last: &mut Timestamp) -> Timestamp {
    let now = Timestamp::now();
    let next = if now > *last {
        now
    } else {
        last.checked_add(jiff::SignedDuration::from_nanos(1))
            .unwrap_or(now)
    };
    *last = next;
    next
}

/// The stored form of a timestamp.
pub(crate) fn stamp(ts: Timestamp) -> String {
    format!("{ts:.9}")
}

pub(crate) fn parse_stamp(
    session_id: &str,
    column: &'static str,
    text: &str,
) -> Result<Timestamp, StoreError> {
    text.parse()
        .map_err(|e: jiff::Error| StoreError::CorruptRow {
            session_id: session_id.to_owned(),
            column,
            detail: format!("is not an RFC 3339 timestamp: {e}"),
        })
}

pub(crate) fn path_value(path: &Path) -> Value {
    match path.to_str() {
        Some(text) => Value::Text(text.to_owned()),
        None => Value::Blob(path.as_os_str().as_bytes().to_vec()),
    }
}

pub(crate) fn opt_path_value(path: Option<&Path>) -> Value {
    path.map_or(Value::Null, path_value)
}

/// The `bytea` form of a path: its bytes as the OS has them.
pub(crate) fn path_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_bytes()
}

pub(crate) fn path_from_raw(
    session_id: &str,
    column: &'static str,
    value: RawPath,
) -> Result<PathBuf, StoreError> {
    match value {
        RawPath::Text(text) => Ok(PathBuf::from(text)),
        RawPath::Bytes(bytes) => Ok(PathBuf::from(OsString::from_vec(bytes))),
        RawPath::Null | RawPath::Other => Err(StoreError::CorruptRow {
            session_id: session_id.to_owned(),
            column,
            detail: "is not a path".to_owned(),
        }),
    }
}

pub(crate) fn opt_path_from_raw(
    session_id: &str,
    column: &'static str,
    value: RawPath,
) -> Result<Option<PathBuf>, StoreError> {
    match value {
        RawPath::Null => Ok(None),
        other => path_from_raw(session_id, column, other).map(Some),
    }
}

/// Token counts never come near `i64::MAX`; saturating beats failing a write over one.
pub(crate) fn count_to_sql(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(crate) fn count_from_sql(
    session_id: &str,
    column: &'static str,
    n: i64,
) -> Result<u64, StoreError> {
    u64::try_from(n).map_err(|_| StoreError::CorruptRow {
        session_id: session_id.to_owned(),
        column,
        detail: format!("holds the negative count {n}"),
    })
}

/// A message ready to insert: its role and JSON, encoded before any lock is taken.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub(crate) role: &'static str,
    pub(crate) json: String,
}

pub(crate) fn encode(session_id: &str, ms: &[Message]) -> Result<Vec<Encoded>, StoreError> {
    ms.iter()
        .map(|m| {
            Ok(Encoded {
                role: m.role.as_str(),
                json: serde_json::to_string(m).map_err(|source| StoreError::Encode {
                    session_id: session_id.to_owned(),
                    source,
                })?,
            })
        })
        .collect()
}

/// The stored form of `extra`.
pub(crate) fn encode_extra(
    session_id: &str,
    extra: &serde_json::Value,
) -> Result<String, StoreError> {
    serde_json::to_string(extra).map_err(|source| StoreError::Encode {
        session_id: session_id.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn stamps_sort_as_text_in_time_order() {
        let times = [
            Timestamp::from_second(1_700_000_000).unwrap(),
            Timestamp::from_nanosecond(1_700_000_000_500_000_000).unwrap(),
            Timestamp::from_second(1_700_000_001).unwrap(),
        ];
        let mut texts: Vec<String> = times.iter().rev().map(|t| stamp(*t)).collect();
        texts.sort();
        let expected: Vec<String> = times.iter().map(|t| stamp(*t)).collect();
        assert_eq!(texts, expected);
    }

    #[test]
    fn stamps_round_trip_to_the_nanosecond() {
        let t = Timestamp::from_nanosecond(1_700_000_000_123_456_789).unwrap();
        assert_eq!(stamp(t), "2023-11-14T22:13:20.123456789Z");
        assert_eq!(parse_stamp("s", "at", &stamp(t)).unwrap(), t);
    }

    #[test]
    fn non_utf8_paths_survive_as_bytes() {
        let path = PathBuf::from(OsString::from_vec(b"/tmp/\xffdir".to_vec()));
        let value = path_value(&path);
        assert_eq!(value, Value::Blob(b"/tmp/\xffdir".to_vec()));
        assert_eq!(path_bytes(&path), b"/tmp/\xffdir");
        assert_eq!(
            path_from_raw("s", "working_dir", value.into()).unwrap(),
            path
        );
    }

    #[test]
    fn utf8_paths_are_stored_as_text() {
        let path = PathBuf::from("/home/me/project");
        let value = path_value(&path);
        assert_eq!(value, Value::Text("/home/me/project".to_owned()));
        assert_eq!(
            path_from_raw("s", "working_dir", value.into()).unwrap(),
            path
        );
    }

    #[test]
    fn negative_counts_are_reported_as_corrupt() {
        let err = count_from_sql("s1", "input_tokens", -3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "session `s1` is corrupt: `input_tokens` holds the negative count -3"
        );
    }
}
