//! The session store: Tether's sessions, their messages, per-call usage and sub-sessions, in one
//! SQLite file (`$TETHER_HOME/sessions.db`) or, for servers whose replicas share sessions, in a
//! PostgreSQL database (`postgres://…`), behind one API ([`Store`]).
//!
//! The runtime records every message as it happens and relies on "recorded means durable": a
//! run killed mid-tool-call must resume with everything recorded before the kill. So every
//! method is one short transaction committed before it returns; on SQLite a WAL database
//! (readers such as `tether sessions list` never block the writer). The API is synchronous,
//! like SQLite; async callers use `spawn_blocking`, or call it directly and block briefly (the
//! PostgreSQL backend does its async work on a thread of its own, never the caller's runtime).
//! Messages are stored whole as the `Message` JSON the runtime holds (including tool results as
//! hooks rewrote them), so a stored history replays to a provider exactly; only the columns
//! that queries need are split out.
//!
//! ```
//! use tether_protocol::Message;
//! use tether_store::{NewSession, Store};
//!
//! let store = Store::open_in_memory()?;
//! store.create_session(&NewSession {
//!     id: "s1".into(),
//!     parent_id: None,
//!     agent: "root".into(),
//!     working_dir: "/work".into(),
//!     first_prompt: Some("hello".into()),
//! })?;
//! store.append_message("s1", &Message::user("hello"))?;
//! let session = store.load("s1")?;
//! assert_eq!(session.map(|s| s.messages), Some(vec![Message::user("hello")]));
//! # Ok::<(), tether_store::StoreError>(())
//! ```

mod codec;
mod error;
mod model;
mod postgres;
mod rows;
mod sqlite;
mod store;

pub use error::StoreError;
pub use model::{
    NewSession, SessionMeta, SessionSummary, SessionUpdate, StoredSession, UsageRecord,
};
pub use store::{Store, StoreOptions};
