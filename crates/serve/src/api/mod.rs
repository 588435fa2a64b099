//! `tether serve api`: docker-agent's HTTP API under `/api`, a turn's events over SSE.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::Listen;

#[derive(Debug, Clone)]
pub struct ApiOptions {
    pub listen: Listen,
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: ApiOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let _ = (hub, opts, shutdown, bound);
    Err("`tether serve api` is not built yet".to_owned())
}
