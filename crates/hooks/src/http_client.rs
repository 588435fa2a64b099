//! What every HTTP caller of the crate shares (`type: http` hooks, the `http_post` and
//! `unload` builtins): a client builder that installs rustls' ring provider first (reqwest's
//! `rustls-no-provider` panics otherwise), and the full text of a request error.

use std::sync::Once;

static CRYPTO: Once = Once::new();

/// A client builder; the crypto provider is installed before the first client is built.
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    CRYPTO.call_once(|| {
        // Err means a provider is already installed, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// An error's message plus its causes (reqwest's own text is terse; a resolver's refusal is a
/// cause).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
