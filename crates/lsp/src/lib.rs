//! The LSP client: an agent's `type: lsp` toolsets as docker-agent's `lsp_*` tools.
//!
//! Each toolset is one [`LspServer`]: a child started through tether-exec (its own process
//! group, killed with it, stderr in a log file), spoken to over LSP's `Content-Length`
//! framing (ours) with `lsp-types` for the messages we read closely. All of an agent's
//! servers make one [`LspToolset`]: one set of tools, each call routed by the extension of its
//! `file` to the server whose `file_types` take it; tools no server declares are hidden.
//! Servers start together with the run, a call after a crash starts the server again, and
//! [`LspToolset::stop`] sends `shutdown`/`exit` and kills what is left.

mod client;
mod edit;
mod ops;
mod render;
mod server;
mod tools;
mod uri;
mod wire;

pub use server::{LspServer, STOP_GRACE};
pub use tools::{LSP_INSTRUCTION, LspTool, LspToolset};
