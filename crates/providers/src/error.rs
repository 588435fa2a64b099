//! The one error type of the crate. Variants are classes the runtime acts on (retry, compact,
//! give up), not HTTP details: every adapter maps its vendor's statuses and error events here.

use std::path::PathBuf;
use std::time::Duration;

/// Why a model call failed. Messages are lowercase, without a trailing period, values in
/// backticks.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// Returned by `build_provider` before any request when the provider's key is not set.
    /// Not retryable.
    #[error("missing API key for `{provider}`: set `{var}`")]
    MissingKey { provider: String, var: String },

    /// Returned by `build_provider`/`ModelSpec::parse_inline` for a spec that names no known
    /// provider, an empty model or an invalid option. Not retryable.
    #[error("invalid model `{model}`: {reason}")]
    InvalidSpec { model: String, reason: String },

    /// HTTP 401/403 (or a vendor's "invalid key" answer). Not retryable.
    #[error("authentication failed for `{provider}` (HTTP {status}): {message}")]
    Auth {
        provider: String,
        status: u16,
        message: String,
    },

    /// HTTP 429 or a rate-limit error event. Retryable, after `retry_after` when the server
    /// said so.
    #[error("rate limited by `{provider}`{}: {message}", retry_hint(*.retry_after))]
    RateLimited {
        provider: String,
        retry_after: Option<Duration>,
        message: String,
    },

    /// HTTP 5xx (529 overloaded included) or a server error event. Retryable.
    #[error("`{provider}` server error (HTTP {status}): {message}")]
    Server {
        provider: String,
        status: u16,
        message: String,
    },

    /// The connection could not be made in time, or the stream stalled longer than the idle
    /// timeout. Retryable.
    #[error("`{provider}` did not answer within `{}ms`", .after.as_millis())]
    Timeout { provider: String, after: Duration },

    /// The prompt does not fit the model's context window. Not retryable as is: the runtime
    /// compacts and tries again.
    #[error("context window of `{provider}` exceeded: {message}")]
    ContextOverflow { provider: String, message: String },

    /// Any other 4xx: the request itself is wrong (unknown model, bad schema). Not retryable.
    #[error("`{provider}` rejected the request (HTTP {status}): {message}")]
    BadRequest {
        provider: String,
        status: u16,
        message: String,
    },

    /// The connection failed or broke (refused, reset, DNS). Retryable.
    #[error("network error talking to `{provider}`: {message}")]
    Network { provider: String, message: String },

    /// The stream was cut before its terminal event or carried something undecodable. Retryable
    /// only before any event was yielded (the retry layer enforces that).
    #[error("bad stream from `{provider}`: {message}")]
    Protocol { provider: String, message: String },

    /// A `script` model file is unreadable or malformed (`location` is `file:line:col`), or the
    /// script has no reply for the conversation. Not retryable.
    #[error("{location}: {message}")]
    Script { location: String, message: String },

    /// The script file could not be read. Not retryable.
    #[error("cannot read script `{}`: {source}", .path.display())]
    ScriptIo {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn retry_hint(retry_after: Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(" (retry after `{}s`)", d.as_secs_f64()),
        None => String::new(),
    }
}

impl ProviderError {
    /// Whether trying the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::RateLimited { .. }
            | Self::Server { .. }
            | Self::Timeout { .. }
            | Self::Network { .. }
            | Self::Protocol { .. } => true,
            Self::MissingKey { .. }
            | Self::InvalidSpec { .. }
            | Self::Auth { .. }
            | Self::ContextOverflow { .. }
            | Self::BadRequest { .. }
            | Self::Script { .. }
            | Self::ScriptIo { .. } => false,
        }
    }

    /// Whether the runtime should compact the conversation and try again.
    pub fn is_context_overflow(&self) -> bool {
        matches!(self, Self::ContextOverflow { .. })
    }

    /// How long the server asked us to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Classifies an HTTP error answer. `body` is the raw response body; its vendor error
    /// message (`error.message`) is quoted when there is one.
    pub(crate) fn from_status(
        provider: &str,
        status: u16,
        retry_after: Option<Duration>,
        body: &str,
    ) -> Self {
        let message = vendor_message(body);
        let provider = provider.to_owned();
        if is_overflow_text(body) {
            return Self::ContextOverflow { provider, message };
        }
        match status {
            401 | 403 => Self::Auth {
                provider,
                status,
                message,
            },
            // Gemini answers an invalid key with 400.
            400 if body.contains("API_KEY_INVALID") || body.contains("API key not valid") => {
                Self::Auth {
                    provider,
                    status,
                    message,
                }
            }
            429 => Self::RateLimited {
                provider,
                retry_after,
                message,
            },
            408 | 500..=599 => Self::Server {
                provider,
                status,
                message,
            },
            _ => Self::BadRequest {
                provider,
                status,
                message,
            },
        }
    }

    /// Classifies an error that arrived inside a 200 stream (an SSE `error` event), by the
    /// vendor's error type or code.
    pub(crate) fn from_stream_error(provider: &str, kind: &str, message: &str) -> Self {
        let provider = provider.to_owned();
        let message = tidy(message);
        let kind = kind.to_ascii_lowercase();
        if is_overflow_text(&kind) || is_overflow_text(&message) {
            Self::ContextOverflow { provider, message }
        } else if kind.contains("rate_limit") || kind.contains("resource_exhausted") {
            Self::RateLimited {
                provider,
                retry_after: None,
                message,
            }
        } else if kind.contains("auth") || kind.contains("permission") {
            Self::Auth {
                provider,
                status: 401,
                message,
            }
        } else if kind.contains("invalid_request") || kind.contains("invalid_argument") {
            Self::BadRequest {
                provider,
                status: 400,
                message,
            }
        } else {
            // overloaded_error, server_error, api_error and unknown kinds: transient.
            Self::Server {
                provider,
                status: 500,
                message,
            }
        }
    }

    pub(crate) fn protocol(provider: &str, message: impl Into<String>) -> Self {
        Self::Protocol {
            provider: provider.to_owned(),
            message: message.into(),
        }
    }
}

/// Phrases the vendors use for "prompt too long".
fn is_overflow_text(text: &str) -> bool {
    const NEEDLES: [&str; 7] = [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "context window",
        "input is too long",
        "exceeds the maximum number of tokens",
        "too many tokens",
    ];
    let lower = text.to_ascii_lowercase();
    NEEDLES.iter().any(|n| lower.contains(n))
}

/// `error.message` (OpenAI, Anthropic, Gemini) or `message` of a JSON body, else the body.
fn vendor_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let from_json = parsed.as_ref().and_then(|v| {
        let v = if v.is_array() { v.get(0)? } else { v };
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_owned());
    if text.is_empty() {
        "no details".to_owned()
    } else {
        tidy(&text)
    }
}

/// House style: no trailing period, lowercase first letter, bounded length.
fn tidy(message: &str) -> String {
    let mut m: String = message
        .trim()
        .trim_end_matches('.')
        .chars()
        .take(500)
        .collect();
    if let Some(first) = m.chars().next()
        && first.is_uppercase()
        && !m.chars().nth(1).is_some_and(char::is_uppercase)
    {
        m = first.to_lowercase().chain(m.chars().skip(1)).collect();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn statuses_map_to_error_classes() {
        let cases = [
            (
                401,
                "",
                "authentication failed for `p` (HTTP 401): no details",
            ),
            (
                429,
                r#"{"error":{"message":"Slow down."}}"#,
                "rate limited by `p` (retry after `2s`): slow down",
            ),
            (503, "busy", "`p` server error (HTTP 503): busy"),
            (
                400,
                r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens."}}"#,
                "context window of `p` exceeded: this model's maximum context length is 8192 tokens",
            ),
            (
                404,
                r#"{"type":"error","error":{"type":"not_found_error","message":"model: x"}}"#,
                "`p` rejected the request (HTTP 404): model: x",
            ),
            (
                400,
                r#"[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}]"#,
                "authentication failed for `p` (HTTP 400): API key not valid. Please pass a valid API key",
            ),
        ];
        let got: Vec<String> = cases
            .iter()
            .map(|(status, body, _)| {
                ProviderError::from_status("p", *status, Some(Duration::from_secs(2)), body)
                    .to_string()
            })
            .collect();
        let want: Vec<String> = cases.iter().map(|c| c.2.to_owned()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn retryable_classes_are_exactly_the_transient_ones() {
        let errors = [
            ProviderError::from_status("p", 401, None, ""),
            ProviderError::from_status("p", 429, None, ""),
            ProviderError::from_status("p", 500, None, ""),
            ProviderError::from_status("p", 400, None, "prompt is too long"),
            ProviderError::from_status("p", 422, None, ""),
            ProviderError::protocol("p", "cut"),
        ];
        let got: Vec<(bool, bool)> = errors
            .iter()
            .map(|e| (e.is_retryable(), e.is_context_overflow()))
            .collect();
        assert_eq!(
            got,
            vec![
                (false, false),
                (true, false),
                (true, false),
                (false, true),
                (false, false),
                (true, false)
            ]
        );
    }

    #[test]
    fn stream_error_kinds_are_classified() {
        let got: Vec<String> = [
            ("overloaded_error", "Overloaded"),
            ("rate_limit_error", "Too many"),
            ("invalid_request_error", "prompt is too long: 210000 tokens"),
        ]
        .iter()
        .map(|(k, m)| ProviderError::from_stream_error("anthropic", k, m).to_string())
        .collect();
        assert_eq!(
            got,
            vec![
                "`anthropic` server error (HTTP 500): overloaded",
                "rate limited by `anthropic`: too many",
                "context window of `anthropic` exceeded: prompt is too long: 210000 tokens",
            ]
        );
    }
}
