//! `tether serve chat`: the agents as models of an OpenAI-compatible chat completions API.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::Listen;

#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// Serve only this agent; `None`: every agent of the file, each a model.
    pub agent: Option<String>,
    pub listen: Listen,
    /// Every request needs `Authorization: Bearer KEY`.
    pub api_key: Option<String>,
    /// Conversations kept server-side (`X-Conversation-Id`); 0: stateless.
    pub conversations_max: usize,
    /// A conversation idle this long is forgotten.
    pub conversation_ttl: Duration,
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: ChatOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let _ = (hub, opts, shutdown, bound);
    Err("`tether serve chat` is not built yet".to_owned())
}
