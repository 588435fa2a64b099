//! The PostgreSQL backend, for servers whose replicas share their sessions.
//!
//! Each method encodes its arguments on the caller's thread (as SQLite's do before taking the
//! lock), stamps the time from the store's clock, and hands an async operation (`ops.rs`) to
//! the store's worker thread (`pool.rs`), waiting for the result. The schema is migrated when
//! the store opens (`schema.rs`); what a connection holds and how failures map to
//! [`StoreError`] is in `conn.rs`; URLs in `url.rs`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use jiff::Timestamp;
use tether_protocol::Message;

use crate::codec::{encode, encode_extra, next_stamp, stamp};
use crate::{
    NewSession, SessionSummary, SessionUpdate, StoreError, StoreOptions, StoredSession, UsageRecord,
};

mod conn;
mod ops;
mod pool;
mod schema;
mod url;

pub(crate) use url::is_postgres_url;

/// A PostgreSQL database reached through the store's own thread.
#[derive(Debug)]
pub(crate) struct Postgres {
    /// The URL without its password, as a path for [`Store::path`](crate::Store::path).
    url: PathBuf,
    /// The last `updated_at` handed out (see [`next_stamp`]).
    clock: Mutex<Timestamp>,
    worker: pool::Worker,
}

impl Postgres {
    pub(crate) fn open(url: &str, options: &StoreOptions) -> Result<Self, StoreError> {
        let config = url::config(url, options)?;
        let shown = PathBuf::from(url::redact(url));
        let worker = pool::Worker::start(shown.clone(), config, options.read_only)?;
        Ok(Self {
            url: shown,
            clock: Mutex::new(Timestamp::UNIX_EPOCH),
            worker,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.url
    }

    fn now(&self) -> String {
        // The clock is a plain value: a panic elsewhere cannot leave it half-updated.
        let mut last = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
        stamp(next_stamp(&mut last))
    }

    pub(crate) fn create_session(&self, s: &NewSession) -> Result<(), StoreError> {
        let (s, now) = (s.clone(), self.now());
        self.worker
            .call(async move |c| ops::create_session(c, &s, &now).await)
    }

    pub(crate) fn append(&self, session_id: &str, ms: &[Message]) -> Result<u64, StoreError> {
        let encoded = encode(session_id, ms)?;
        let (id, now) = (session_id.to_owned(), self.now());
        self.worker
            .call(async move |c| ops::append(c, &id, &encoded, &now).await)
    }

    pub(crate) fn replace_messages(
        &self,
        session_id: &str,
        ms: &[Message],
    ) -> Result<(), StoreError> {
        let encoded = encode(session_id, ms)?;
        let (id, now) = (session_id.to_owned(), self.now());
        self.worker
            .call(async move |c| ops::replace_messages(c, &id, &encoded, &now).await)
    }

    pub(crate) fn update(&self, session_id: &str, u: &SessionUpdate) -> Result<(), StoreError> {
        let extra = u
            .extra
            .as_ref()
            .map(|e| encode_extra(session_id, e))
            .transpose()?;
        let (id, u, now) = (session_id.to_owned(), u.clone(), self.now());
        self.worker
            .call(async move |c| ops::update(c, &id, &u, extra.as_deref(), &now).await)
    }

    pub(crate) fn record_usage(&self, session_id: &str, r: &UsageRecord) -> Result<(), StoreError> {
        let (id, r, now) = (session_id.to_owned(), r.clone(), self.now());
        let at = stamp(r.at);
        self.worker
            .call(async move |c| ops::record_usage(c, &id, &r, &at, &now).await)
    }

    pub(crate) fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.worker.call(async move |c| ops::delete(c, &id).await)
    }

    pub(crate) fn load(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        let id = id.to_owned();
        let raw = self.worker.call(async move |c| ops::load(c, &id).await)?;
        raw.map(ops::RawSession::decode).transpose()
    }

    pub(crate) fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.worker.call(async |c| ops::list(c).await)
    }

    pub(crate) fn latest(&self) -> Result<Option<String>, StoreError> {
        self.worker.call(async |c| ops::latest(c).await)
    }

    pub(crate) fn children(&self, id: &str) -> Result<Vec<SessionSummary>, StoreError> {
        let id = id.to_owned();
        self.worker.call(async move |c| ops::children(c, &id).await)
    }

    pub(crate) fn usage(&self, id: &str) -> Result<Vec<UsageRecord>, StoreError> {
        let id = id.to_owned();
        self.worker.call(async move |c| ops::usage(c, &id).await)
    }
}
