//! `tether serve acp`: the Agent Client Protocol over stdio, as editors drive it.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;

#[derive(Debug, Clone)]
pub struct AcpOptions {
    /// The agent sessions start with; `None`: `root`, else the first.
    pub agent: Option<String>,
}

/// Serves on standard input and output until the client closes its end or `shutdown`.
pub async fn serve(
    hub: Arc<Hub>,
    opts: AcpOptions,
    shutdown: CancellationToken,
) -> Result<(), String> {
    let _ = (hub, opts, shutdown);
    Err("`tether serve acp` is not built yet".to_owned())
}
