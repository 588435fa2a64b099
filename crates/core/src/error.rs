//! The crate's error: why a runtime could not be built. Everything that goes wrong later is
//! data (a stop reason, a tool result, a hook record), not an `Err`.

use tether_providers::ProviderError;

/// Why a runtime could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The configuration cannot run (unknown agent, no model, invalid hooks). Not retryable.
    #[error("{0}")]
    Config(String),
    /// A model client could not be built (missing key, bad spec). Not retryable.
    #[error(transparent)]
    Provider(#[from] ProviderError),
}
