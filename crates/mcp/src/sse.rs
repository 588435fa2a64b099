//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer ships and
//! docker-agent examples still use (`transport_type: sse`).
//!
//! The client GETs the server's URL as an event stream; the first `endpoint` event names the
//! URL to POST messages to (relative to the stream's URL); the server's messages arrive as
//! `message` events on the stream. Never reconnected: a closed stream is a closed connection,
//! and the supervisor decides about restarting.

use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::HeaderMap;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use tether_http::SseDecoder;
use tokio::sync::mpsc;

/// A single event larger than this ends the connection (the client never buffers more).
pub(crate) const MAX_EVENT: usize = 16 * 1024 * 1024;

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SseError(String);

/// A connected legacy SSE transport.
#[derive(Debug)]
pub(crate) struct LegacySse {
    client: reqwest::Client,
    endpoint: Arc<str>,
    headers: HeaderMap,
    rx: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

/// Opens the event stream and waits for its `endpoint` event.
pub(crate) async fn connect(
    client: reqwest::Client,
    url: &str,
    headers: HeaderMap,
) -> Result<LegacySse, String> {
    let response = client
        .get(url)
        .headers(headers.clone())
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| tether_http::error_chain(&e))?;
    let status = response.status();
    if !status.is_success() {
        return Err(crate::connect::status_error(status, response).await);
    }
    let base = response.url().clone();
    let mut body = response.bytes_stream();
    let mut decoder = SseDecoder::new();
    let mut pending = 0usize;
    // Events that arrive with the endpoint event in one chunk are kept for the reader.
    let mut early = Vec::new();
    let endpoint = 'found: loop {
        let Some(chunk) = body.next().await else {
            return Err(
                "the event stream ended before the server sent its `endpoint` event".into(),
            );
        };
        let chunk = chunk.map_err(|e| tether_http::error_chain(&e))?;
        let events = decoder
            .push(&chunk)
            .map_err(|_| "the event stream is not UTF-8".to_owned())?;
        pending = if events.is_empty() {
            pending + chunk.len()
        } else {
            0
        };
        if pending > MAX_EVENT {
            return Err(format!("an event is larger than {MAX_EVENT} bytes"));
        }
        let mut events = events.into_iter();
        while let Some(ev) = events.next() {
            if ev.event == "endpoint" {
                early.extend(events);
                break 'found ev.data;
            }
        }
    };
    let endpoint = base.join(endpoint.trim()).map_err(|e| {
        format!(
            "the server's endpoint `{}` is not a URL: {e}",
            endpoint.trim()
        )
    })?;
    let (tx, rx) = mpsc::channel(64);
    let reader = tokio::spawn(async move {
        for ev in early {
            if !forward(&tx, &ev.event, &ev.data).await {
                return;
            }
        }
        let mut pending = 0usize;
        while let Some(Ok(chunk)) = body.next().await {
            let Ok(events) = decoder.push(&chunk) else {
                return;
            };
            pending = if events.is_empty() {
                pending + chunk.len()
            } else {
                0
            };
            if pending > MAX_EVENT {
                return;
            }
            for ev in events {
                if !forward(&tx, &ev.event, &ev.data).await {
                    return;
                }
            }
        }
    });
    Ok(LegacySse {
        client,
        endpoint: Arc::from(endpoint.as_str()),
        headers,
        rx,
        reader,
    })
}

/// Sends one `message` event on; `false` once nobody listens.
async fn forward(tx: &mpsc::Sender<ServerJsonRpcMessage>, event: &str, data: &str) -> bool {
    if !(event.is_empty() || event == "message") {
        return true;
    }
    match serde_json::from_str::<ServerJsonRpcMessage>(data) {
        Ok(message) => tx.send(message).await.is_ok(),
        // Not a message of ours (a server's own keep-alive payload): skipped.
        Err(_) => true,
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = SseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let request = self
            .client
            .post(&*self.endpoint)
            .headers(self.headers.clone())
            .json(&item);
        async move {
            let response = request
                .send()
                .await
                .map_err(|e| SseError(tether_http::error_chain(&e)))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(SseError(
                    crate::connect::status_error(status, response).await,
                ))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.rx.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
