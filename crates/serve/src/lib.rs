//! Serving agents to the programs people use them from: editors (ACP), other agents (MCP,
//! A2A), web UIs (the HTTP API) and anything that speaks the OpenAI chat API.
//!
//! Every served conversation is a real Tether session on a runtime built exactly as
//! `tether run` builds one (the binary supplies a [`Factory`]), so every hook, permission and
//! budget applies. A [`Hub`] keeps one runtime per agent and routes each session's events
//! and questions to the client that owns it ([`Router`]); a question nobody can answer is a
//! denial, never an approval.

pub mod a2a;
pub mod acp;
pub mod api;
mod catalog;
pub mod chat;
mod factory;
mod hub;
mod listen;
pub mod mcp;
mod router;

pub use catalog::{Catalog, CatalogEntry};
pub use factory::{BuildSpec, Factory};
pub use hub::{Hub, Turn};
pub use listen::{GRACE, Listen, bearer_ok, is_loopback, serve_http, shutdown_signal};
pub use router::{Asker, Attached, Nobody, Route, Router};
