//! Where sessions are kept. The runtime records every message before it moves on; a store
//! failure is reported once per session and the run goes on in memory, so nothing already
//! stored is lost and the user knows what was not. After a failure nothing more of that session
//! is written: what is stored stays a prefix of the conversation, never one with a hole (an
//! answer without the prompt it answers).

use tether_protocol::{Message, RuntimeEvent, Usage};

use crate::runtime::Runtime;
use crate::session::Session;
use crate::store::SessionStore;

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

    /// Runs one write on the store, unless writing this session already failed; a failure is
    /// reported once and stops later writes.
    fn write(
        &self,
        session: &mut Session,
        op: impl FnOnce(&dyn SessionStore, &Session) -> Result<(), String>,
    ) {
        let Some(store) = self.store.as_deref().filter(|_| !session.store_failed) else {
            return;
        };
        if let Err(error) = op(store, session) {
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
        self.write(session, |store, s| store.append(&s.id, &message));
        if message.role != tether_protocol::Role::Assistant {
            // The next model call's usage replaces this estimate with the real count.
            session.input_tokens += crate::compaction::estimate(&message);
        }
        session.messages.push(message);
    }

    /// Saves the session's metadata.
    pub(crate) fn persist_meta(&self, session: &mut Session) {
        self.write(session, |store, s| store.update(s));
    }

    /// Creates a new session in the store.
    pub(crate) fn persist_new(&self, session: &mut Session, first_prompt: Option<&str>) {
        // Reported here: later writes would only say that the session does not exist.
        self.write(session, |store, s| {
            store.create(s, &self.working_dir.display().to_string(), first_prompt)
        });
    }

    pub(crate) fn persist_usage(
        &self,
        session: &mut Session,
        model_id: &str,
        usage: &Usage,
        cost: Option<f64>,
    ) {
        self.write(session, |store, s| {
            store.record_usage(&s.id, model_id, usage, cost)
        });
    }

    pub(crate) fn persist_history(&self, session: &mut Session) {
        self.write(session, |store, s| {
            store.replace_messages(&s.id, &s.messages)
        });
    }
}
