//! The HTTP plumbing every network caller shares: model providers, the web tools, the MCP
//! client, http hooks and hook builtins, and the CLI's downloads.
//!
//! A crate of its own so that tools and the MCP client need not depend on the model clients to
//! build an HTTP client, and so the hooks engine (which knows nothing of providers) stops
//! keeping copies that drift. It holds only what is the same for every caller, with no vendor,
//! tool or hook knowledge:
//! - [`client_builder`], the only way clients are made, and [`error_chain`], a request error
//!   with its causes;
//! - [`read_capped`], a response body read up to a limit;
//! - [`SseDecoder`], server-sent events, push-based;
//! - [`is_public`], [`literal_ip`] and [`public_only`], the address rule of clients whose URLs
//!   a model can steer. The wording of a refusal stays with the caller, which knows what
//!   setting lifts it.
//!
//! Errors are reqwest's own (or a UTF-8 error for SSE): nothing here fails in a way of its own.

mod address;
mod body;
mod client;
mod sse;

pub use address::{PublicOnly, is_public, literal_ip, public_only};
pub use body::{Capped, read_capped};
pub use client::{client_builder, error_chain};
pub use sse::{SseDecoder, SseEvent};
