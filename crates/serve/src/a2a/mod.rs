//! `tether serve a2a`: an agent over A2A (JSON-RPC; protocol 1.0 and 0.3) with its agent card.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::Listen;

#[derive(Debug, Clone)]
pub struct A2aOptions {
    pub agent: String,
    pub listen: Listen,
    /// Every request but the agent card needs `Authorization: Bearer TOKEN`.
    pub auth_token: Option<String>,
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: A2aOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let _ = (hub, opts, shutdown, bound);
    Err("`tether serve a2a` is not built yet".to_owned())
}
