//! The HTTP half shared by every vendor adapter: the model client (built by `tether-http`),
//! status classification, SSE reading with an idle timeout, and the retry policy.
//!
//! Retrying is allowed only until the first event was yielded to the caller: before that a
//! failed attempt is invisible and is started again with a fresh decoder; after it, a cut
//! stream is an error and the partial message is dropped (the stream never yields
//! `Completed`).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{StreamExt, future::BoxFuture};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::{ModelSpec, ProviderError, ResponseStream, StreamEvent};
use tether_http::{SseDecoder, SseEvent, client_builder, error_chain};

/// Timeouts and retries; read from `provider_opts` (`connect_timeout_ms`, `idle_timeout_ms`,
/// `max_retries`, `retry_backoff_ms`) so tests can use short ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HttpOptions {
    pub(crate) connect_timeout: Duration,
    /// Longest silence allowed while waiting for the response head or the next bytes.
    pub(crate) idle_timeout: Duration,
    /// Attempts after the first one.
    pub(crate) max_retries: u32,
    /// First backoff; doubled on each retry, capped at `max_backoff`.
    pub(crate) initial_backoff: Duration,
    pub(crate) max_backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            // Reasoning models can think silently for minutes before their first token.
            idle_timeout: Duration::from_secs(300),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl HttpOptions {
    pub(crate) fn from_spec(spec: &ModelSpec) -> Self {
        let d = Self::default();
        let ms =
            |key: &str, default: Duration| spec.opt_u64(key).map_or(default, Duration::from_millis);
        Self {
            connect_timeout: ms("connect_timeout_ms", d.connect_timeout),
            idle_timeout: ms("idle_timeout_ms", d.idle_timeout),
            max_retries: spec
                .opt_u64("max_retries")
                .map_or(d.max_retries, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            initial_backoff: ms("retry_backoff_ms", d.initial_backoff),
            max_backoff: d.max_backoff,
        }
    }

    /// The wait before retry number `attempt` (0-based): the server's `retry-after` when it
    /// gave one (bounded), else exponential backoff.
    pub(crate) fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(d) = retry_after {
            return d.min(Duration::from_secs(60));
        }
        let factor = 2u32.saturating_pow(attempt.min(16));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Builds a model client's HTTP client; `spec.headers` (expanded) go on every request.
pub(crate) fn build_client(
    spec: &ModelSpec,
    opts: &HttpOptions,
) -> Result<reqwest::Client, ProviderError> {
    let mut headers = HeaderMap::new();
    for (name, value) in &spec.headers {
        let invalid = |what: &str| ProviderError::InvalidSpec {
            model: spec.id(),
            reason: format!("header `{name}`: {what}"),
        };
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid("not a valid header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| invalid("its value is not allowed in HTTP"))?;
        headers.insert(name, value);
    }
    client_builder()
        .connect_timeout(opts.connect_timeout)
        .default_headers(headers)
        .build()
        .map_err(|e| ProviderError::Network {
            provider: "http".to_owned(),
            message: format!("cannot build HTTP client: {e}"),
        })
}

/// Turns one vendor's SSE events into stream events. A fresh decoder is made per attempt.
pub(crate) trait Decoder: Send + 'static {
    /// Handles one SSE event; pushes what it produces into `out` (ending with `Completed`
    /// once the terminal event arrived).
    fn event(&mut self, ev: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError>;

    /// The body ended. Dialects without a terminal event (Gemini) complete here; the others
    /// report a cut stream.
    fn eof(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError>;
}

/// One POST with a JSON body, ready to be sent as many times as retries need.
#[derive(Debug)]
pub(crate) struct HttpCall {
    client: reqwest::Client,
    provider: String,
    url: String,
    headers: HeaderMap,
    body: bytes::Bytes,
    opts: HttpOptions,
}

type Body = BoxStream<'static, reqwest::Result<bytes::Bytes>>;

impl HttpCall {
    pub(crate) fn new(
        client: &reqwest::Client,
        provider: &str,
        url: String,
        headers: &[(&'static str, String)],
        body: &serde_json::Value,
        opts: HttpOptions,
    ) -> Result<Self, ProviderError> {
        let mut map = HeaderMap::new();
        map.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        map.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        for (name, value) in headers {
            let value = HeaderValue::from_str(value).map_err(|_| ProviderError::InvalidSpec {
                model: provider.to_owned(),
                reason: format!("header `{name}` has a value that is not allowed in HTTP"),
            })?;
            map.insert(HeaderName::from_static(name), value);
        }
        let body = serde_json::to_vec(body).map_err(|e| {
            ProviderError::protocol(provider, format!("cannot encode request: {e}"))
        })?;
        Ok(Self {
            client: client.clone(),
            provider: provider.to_owned(),
            url,
            headers: map,
            body: body.into(),
            opts,
        })
    }

    fn timeout(&self) -> ProviderError {
        ProviderError::Timeout {
            provider: self.provider.clone(),
            after: self.opts.idle_timeout,
        }
    }

    fn network(&self, e: &reqwest::Error) -> ProviderError {
        if e.is_timeout() {
            return ProviderError::Timeout {
                provider: self.provider.clone(),
                after: self.opts.connect_timeout,
            };
        }
        // The source chain says why (refused, reset); the top level only says "error sending".
        ProviderError::Network {
            provider: self.provider.clone(),
            message: error_chain(e),
        }
    }

    /// One attempt: sends the request and returns the body stream of a 2xx answer.
    async fn open(&self) -> Result<Body, ProviderError> {
        let send = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .body(self.body.clone())
            .send();
        let resp = tokio::time::timeout(self.opts.idle_timeout, send)
            .await
            .map_err(|_| self.timeout())?
            .map_err(|e| self.network(&e))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp.bytes_stream().boxed());
        }
        let retry_after = retry_after(resp.headers());
        let body = tokio::time::timeout(self.opts.idle_timeout, resp.text())
            .await
            .map_err(|_| self.timeout())?
            .unwrap_or_default();
        Err(ProviderError::from_status(
            &self.provider,
            status.as_u16(),
            retry_after,
            &body,
        ))
    }

    /// Sends the request, retrying retryable failures, and returns the decoded event stream.
    pub(crate) fn stream<D: Decoder>(
        self,
        make_decoder: impl Fn() -> D + Send + Sync + 'static,
    ) -> BoxFuture<'static, Result<ResponseStream, ProviderError>> {
        Box::pin(async move {
            let call = Arc::new(self);
            let mut attempt = 0;
            let body = loop {
                match call.open().await {
                    Ok(body) => break body,
                    Err(e) if e.is_retryable() && attempt < call.opts.max_retries => {
                        tokio::time::sleep(call.opts.backoff(attempt, e.retry_after())).await;
                        attempt += 1;
                    }
                    Err(e) => return Err(e),
                }
            };
            let state = Running {
                decoder: make_decoder(),
                make_decoder: Box::new(make_decoder),
                call,
                body: Some(body),
                sse: SseDecoder::new(),
                pending: VecDeque::new(),
                yielded: false,
                done: false,
                attempt,
            };
            let stream: ResponseStream = Box::pin(futures::stream::unfold(state, Running::next));
            Ok(stream)
        })
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    get("retry-after")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

struct Running<D> {
    call: Arc<HttpCall>,
    decoder: D,
    make_decoder: Box<dyn Fn() -> D + Send + Sync>,
    body: Option<Body>,
    sse: SseDecoder,
    pending: VecDeque<StreamEvent>,
    yielded: bool,
    done: bool,
    attempt: u32,
}

type Step<D> = Option<(Result<StreamEvent, ProviderError>, Running<D>)>;

impl<D: Decoder> Running<D> {
    async fn next(mut self) -> Step<D> {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                self.yielded = true;
                if matches!(ev, StreamEvent::Completed(_)) {
                    self.done = true;
                    self.pending.clear();
                }
                return Some((Ok(ev), self));
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.advance().await {
                if !self.yielded && e.is_retryable() && self.attempt < self.call.opts.max_retries {
                    let wait = self.call.opts.backoff(self.attempt, e.retry_after());
                    tokio::time::sleep(wait).await;
                    self.attempt += 1;
                    self.restart();
                    continue;
                }
                self.done = true;
                return Some((Err(e), self));
            }
        }
    }

    fn restart(&mut self) {
        self.body = None;
        self.sse = SseDecoder::new();
        self.decoder = (self.make_decoder)();
    }

    /// Reads until at least one stream event is pending (or the stream is over).
    async fn advance(&mut self) -> Result<(), ProviderError> {
        let body = match self.body.as_mut() {
            Some(body) => body,
            None => self.body.insert(self.call.open().await?),
        };
        let provider = &self.call.provider;
        let mut out = Vec::new();
        let chunk = tokio::time::timeout(self.call.opts.idle_timeout, body.next())
            .await
            .map_err(|_| self.call.timeout())?;
        match chunk {
            Some(Ok(bytes)) => {
                decode_chunk(provider, &mut self.sse, &mut self.decoder, &bytes, &mut out)?;
            }
            Some(Err(e)) => {
                return Err(ProviderError::protocol(
                    provider,
                    format!("stream cut: {}", self.call.network(&e)),
                ));
            }
            None => {
                decode_end(provider, &mut self.sse, &mut self.decoder, &mut out)?;
                if out.is_empty() {
                    self.done = true;
                }
            }
        }
        self.pending.extend(out);
        Ok(())
    }
}

/// Frames one body chunk into SSE events and hands them to `decoder`.
pub(crate) fn decode_chunk<D: Decoder + ?Sized>(
    provider: &str,
    sse: &mut SseDecoder,
    decoder: &mut D,
    bytes: &[u8],
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    for ev in sse.push(bytes).map_err(|e| invalid_utf8(provider, e))? {
        decoder.event(ev, out)?;
    }
    Ok(())
}

/// The body ended: hands the last SSE event to `decoder`, then, unless `out` already holds
/// the completion, lets it complete (Gemini) or report a cut stream.
pub(crate) fn decode_end<D: Decoder + ?Sized>(
    provider: &str,
    sse: &mut SseDecoder,
    decoder: &mut D,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    if let Some(ev) = sse.finish().map_err(|e| invalid_utf8(provider, e))? {
        decoder.event(ev, out)?;
    }
    if !out.iter().any(|e| matches!(e, StreamEvent::Completed(_))) {
        decoder.eof(out)?;
    }
    Ok(())
}

fn invalid_utf8(provider: &str, e: std::str::Utf8Error) -> ProviderError {
    ProviderError::protocol(provider, format!("invalid UTF-8: {e}"))
}

/// Parses an SSE `data` payload as JSON, naming the provider on failure.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    provider: &str,
    data: &str,
) -> Result<T, ProviderError> {
    serde_json::from_str(data).map_err(|e| {
        let snippet: String = data.chars().take(120).collect();
        ProviderError::protocol(provider, format!("cannot decode event `{snippet}`: {e}"))
    })
}

/// Joins a base URL and a path without doubling or dropping the slash.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn backoff_doubles_and_honours_retry_after() {
        let opts = HttpOptions {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            ..HttpOptions::default()
        };
        let got: Vec<Duration> = vec![
            opts.backoff(0, None),
            opts.backoff(1, None),
            opts.backoff(2, None),
            opts.backoff(3, Some(Duration::from_secs(2))),
            opts.backoff(0, Some(Duration::from_secs(3600))),
        ];
        assert_eq!(
            got,
            vec![
                Duration::from_millis(100),
                Duration::from_millis(200),
                Duration::from_millis(350),
                Duration::from_secs(2),
                Duration::from_secs(60),
            ]
        );
    }

    #[test]
    fn retry_after_reads_milliseconds_then_seconds() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        let secs = retry_after(&h);
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(
            (secs, retry_after(&h)),
            (
                Some(Duration::from_secs(2)),
                Some(Duration::from_millis(250))
            )
        );
    }

    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(
            (
                join_url("http://h/v1/", "/chat/completions"),
                join_url("http://h/v1", "chat/completions")
            ),
            (
                "http://h/v1/chat/completions".to_owned(),
                "http://h/v1/chat/completions".to_owned()
            )
        );
    }
}
