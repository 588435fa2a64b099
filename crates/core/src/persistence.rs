//! Where sessions are kept. The runtime records every message before it moves on; a store
//! failure is reported once per session and the run goes on in memory, so nothing already
//! stored is lost and the user knows what was not. After a failure nothing more of that session
//! is written: what is stored stays a prefix of the conversation, never one with a hole (an
//! answer without the prompt it answers).

use std::sync::Arc;

use tether_protocol::{Message, RuntimeEvent, Usage};

use crate::session::Session;
use crate::setup::Runtime;

/// A session store (SQLite in production; anything in tests).
pub trait SessionStore: Send + Sync + std::fmt::Debug {
    /// Creates the session row (`first_prompt` for listings).
    fn create(
        &self,
        session: &Session,
        working_dir: &str,
        first_prompt: Option<&str>,
    ) -> Result<(), String>;
    /// Appends one message; durable when it returns.
    fn append(&self, session_id: &str, message: &Message) -> Result<(), String>;
    /// Saves the session's metadata (agent, context, summary, tokens, cost).
    fn update(&self, session: &Session) -> Result<(), String>;
    /// Replaces the whole history (after a compaction).
    fn replace_messages(&self, session_id: &str, messages: &[Message]) -> Result<(), String>;
    /// Records one model call's usage and cost.
    fn record_usage(
        &self,
        session_id: &str,
        model_id: &str,
        usage: &Usage,
        cost: Option<f64>,
    ) -> Result<(), String>;
}

impl Runtime {
    /// Saves a new session (first prompt for listings), or a restored one whose history was
    /// repaired, with its metadata.
    pub fn save_session(&self, session: &mut Session, first_prompt: Option<&str>, restored: bool) {
        if restored {
            self.persist_history(session);
        } else {
            self.persist_new(session, first_prompt);
        }
        self.persist_meta(session);
    }

    pub(crate) fn store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.store.as_ref()
    }

    /// The store, unless writing this session already failed.
    fn store_for(&self, session: &Session) -> Option<&Arc<dyn SessionStore>> {
        self.store().filter(|_| !session.store_failed)
    }

    fn store_failed(&self, session: &mut Session, error: &str) {
        if !session.store_failed {
            session.store_failed = true;
            self.emit(
                &session.id,
                RuntimeEvent::Error {
                    code: "store_error".to_owned(),
                    message: format!("the session could not be saved: {error}"),
                },
            );
        }
    }

    /// Appends a message to the session and to the store.
    pub(crate) fn record(&self, session: &mut Session, message: Message) {
        if let Some(store) = self.store_for(session)
            && let Err(e) = store.append(&session.id, &message)
        {
            self.store_failed(session, &e);
        }
        if message.role != tether_protocol::Role::Assistant {
            // The next model call's usage replaces this estimate with the real count.
            session.input_tokens += crate::compaction::estimate(&message);
        }
        session.messages.push(message);
    }

    /// Saves the session's metadata.
    pub(crate) fn persist_meta(&self, session: &mut Session) {
        if let Some(store) = self.store_for(session)
            && let Err(e) = store.update(session)
        {
            self.store_failed(session, &e);
        }
    }

    /// Creates a new session in the store.
    pub(crate) fn persist_new(&self, session: &mut Session, first_prompt: Option<&str>) {
        // Reported here: later writes would only say that the session does not exist.
        if let Some(store) = self.store_for(session)
            && let Err(e) = store.create(
                session,
                &self.working_dir.display().to_string(),
                first_prompt,
            )
        {
            self.store_failed(session, &e);
        }
    }

    pub(crate) fn persist_usage(
        &self,
        session: &mut Session,
        model_id: &str,
        usage: &Usage,
        cost: Option<f64>,
    ) {
        if let Some(store) = self.store_for(session)
            && let Err(e) = store.record_usage(&session.id, model_id, usage, cost)
        {
            self.store_failed(session, &e);
        }
    }

    pub(crate) fn persist_history(&self, session: &mut Session) {
        if let Some(store) = self.store_for(session)
            && let Err(e) = store.replace_messages(&session.id, &session.messages)
        {
            self.store_failed(session, &e);
        }
    }
}
