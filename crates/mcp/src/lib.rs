//! The MCP client: an agent's `type: mcp` toolsets as tools it can call.
//!
//! Each toolset is one [`McpServer`]: a stdio child (started through tether-exec, in its own
//! process group, its stderr in a per-session log file), a Streamable HTTP or legacy SSE
//! endpoint, or a Docker catalog server behind the Docker MCP Gateway. The protocol is rmcp's
//! (the official Rust SDK); the transports, the supervision (start timeout, restarts with
//! backoff, clean stops) and the rendering of results are ours. Its tools are plain
//! [`tether_tools::Tool`]s, so the runtime's approval chain and hooks treat them like any
//! other; [`tether_tools::Tool::qualified_name`] gives hooks and permissions their
//! `mcp:SERVER:TOOL` name.

mod catalog;
mod connect;
mod gateway;
mod handler;
mod host;
mod render;
mod server;
mod sse;
mod tool;

pub use catalog::{CATALOG_INSTRUCTION, CatalogToolset};
pub use gateway::{CATALOG_ENV, CATALOG_URL};
pub use handler::{Progress, SAMPLING_DECLINED};
pub use host::{Elicitation, ElicitationAnswer, McpEvent, McpHost, NoUser};
pub use render::NO_OUTPUT;
pub use server::{McpContext, McpServer, STOP_GRACE, Status};
pub use tether_config::vars::{Lookup, ProcessEnv, expand};
pub use tool::McpTool;
