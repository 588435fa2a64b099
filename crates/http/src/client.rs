//! The one client builder and the one wording of a request error.

use std::sync::Once;

static CRYPTO: Once = Once::new();

/// A client builder: the only way clients are made. rustls panics on first use unless a
/// crypto provider was installed (reqwest is built with `rustls-no-provider`), so this
/// installs ring once per process.
pub fn client_builder() -> reqwest::ClientBuilder {
    CRYPTO.call_once(|| {
        // Err means another provider was installed first, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// An error's message followed by its causes (reqwest's own text is terse: the refusal of a
/// connection or a resolver is a cause), each said once.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// An error with a message and an optional cause.
    #[derive(Debug)]
    struct Chain(&'static str, Option<Box<Self>>);

    impl std::fmt::Display for Chain {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Chain {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|c| c as _)
        }
    }

    #[test]
    fn causes_follow_the_message_each_said_once() {
        let e = Chain(
            "error sending request: connection refused",
            Some(Box::new(Chain(
                "client error (Connect)",
                Some(Box::new(Chain("connection refused", None))),
            ))),
        );
        assert_eq!(
            error_chain(&e),
            "error sending request: connection refused: client error (Connect)"
        );
    }

    #[test]
    fn a_built_client_does_not_panic_for_want_of_a_crypto_provider() {
        // Without the provider installed first, building a rustls client panics.
        assert!(client_builder().build().is_ok());
    }
}
