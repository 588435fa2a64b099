//! `tether serve mcp`: each agent one MCP tool (`{message}` → `{response}`), over stdio or
//! streamable HTTP.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::Listen;

#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Serve only this agent; `None`: every agent of the file.
    pub agent: Option<String>,
    /// Streamable HTTP on this address; `None`: stdio.
    pub http: Option<Listen>,
    /// Every HTTP request needs `Authorization: Bearer TOKEN`.
    pub auth_token: Option<String>,
}

/// Serves until `shutdown` (or, on stdio, until the client closes standard input); `bound`
/// hears the HTTP address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: McpOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let _ = (hub, opts, shutdown, bound);
    Err("`tether serve mcp` is not built yet".to_owned())
}
