//! `type: webhook`: docker-agent's `send_webhook`. The destination (`webhook_config.url`,
//! often a secret token) and its headers come from the agent file and the environment; the
//! model only writes the message. A URL naming a loopback, private or link-local address, or
//! a host that resolves only to such addresses, is refused before any connection unless the
//! toolset sets `allow_private_ips`, and the client checks every address it connects to as
//! `fetch` does.
//!
//! Delivery is synchronous: the call returns once the message was delivered or has failed,
//! so the answer never claims a delivery that did not happen. Transient failures (network
//! errors, 429, 5xx) are retried up to four attempts, honouring `Retry-After`; a message
//! identical to one delivered in the last 30 seconds is not sent again, and sends are at least
//! a second apart. No answer or error names the URL.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_config::WebhookConfig;

use crate::args::parse;
use crate::net::{expand, guarded_client, literal_refused};
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = "Send a notification to the configured webhook (Slack, Discord, IFTTT, Telegram, Mattermost, Rocket.Chat, Google Chat, Teams, or a generic endpoint). The destination is set in the agent's configuration, so you only supply the message. Delivery is retried automatically; the answer says whether it was delivered.";

/// The toolset's system-prompt text.
pub const WEBHOOK_INSTRUCTION: &str = "## Webhook Tool

send_webhook(message) delivers a notification to the destination configured for
this agent. You do not choose the destination or its credentials.

- Delivery is reliable: transient failures (rate limits, 5xx, network errors) are
  retried with backoff, honouring the server's Retry-After.
- The call returns once the message was delivered or delivery failed; the answer says which.
- Identical messages sent again within a short window are suppressed, and
  notifications are rate limited, so avoid resending on your own.";

const MAX_ATTEMPTS: u32 = 4;
const DEDUPE_WINDOW: Duration = Duration::from_secs(30);
const MIN_INTERVAL: Duration = Duration::from_secs(1);
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
const MAX_RESPONSE: usize = 64 << 10;
/// The longest message (or IFTTT value) sent: Slack's own limit is 40,000 characters.
const MAX_MESSAGE: usize = 64 << 10;

#[derive(Debug, Deserialize)]
struct Args {
    message: String,
    #[serde(default)]
    value2: String,
    #[serde(default)]
    value3: String,
}

#[derive(Debug, Default)]
struct Sent {
    /// Messages delivered, by content, and when.
    recent: HashMap<(String, String, String), Instant>,
    last_attempt: Option<Instant>,
}

/// The `send_webhook` tool.
#[derive(Debug)]
pub struct WebhookTool {
    definition: ToolDefinition,
    config: WebhookConfig,
    timeout: Duration,
    allow_private: bool,
    sent: Mutex<Sent>,
}

enum Verdict {
    Delivered,
    /// Worth another attempt, after the server's `Retry-After` when it gave one.
    Transient(String, Option<Duration>),
    Permanent(String),
}

impl WebhookTool {
    pub fn new(config: &WebhookConfig, timeout: Option<Duration>, allow_private: bool) -> Self {
        Self {
            definition: ToolDefinition {
                name: "send_webhook".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(
                    json!({
                        "message": string("The message text to deliver"),
                        "value2": string("IFTTT value2 field (provider=ifttt only)"),
                        "value3": string("IFTTT value3 field (provider=ifttt only)"),
                    }),
                    &["message"],
                ),
                read_only: false,
                category: "webhook",
            },
            config: config.clone(),
            timeout: timeout.unwrap_or(Duration::from_secs(30)),
            allow_private,
            sent: Mutex::new(Sent::default()),
        }
    }

    fn payload(&self, a: &Args) -> Value {
        match self.config.provider.as_str() {
            "discord" => json!({"content": a.message}),
            "ifttt" => {
                let mut p = json!({"value1": a.message});
                for (key, v) in [("value2", &a.value2), ("value3", &a.value3)] {
                    if !v.is_empty() {
                        p[key] = json!(v);
                    }
                }
                p
            }
            "telegram" => json!({"chat_id": self.config.chat_id, "text": a.message}),
            _ => json!({"text": a.message}),
        }
    }

    async fn send(&self, a: Args, ctx: ToolContext<'_>) -> ToolResult {
        let provider = self.config.provider.as_str();
        if a.message.trim().is_empty() {
            return ToolResult::error("Error: message is required.");
        }
        for (name, value) in [
            ("message", &a.message),
            ("value2", &a.value2),
            ("value3", &a.value3),
        ] {
            if let Err(why) = crate::args::text(name, value, MAX_MESSAGE) {
                return ToolResult::error(format!("Error: {why}"));
            }
        }
        let key = (a.message.clone(), a.value2.clone(), a.value3.clone());
        let now = Instant::now();
        {
            let Ok(mut sent) = self.sent.lock() else {
                return ToolResult::error("Error: the webhook's state is unavailable");
            };
            sent.recent
                .retain(|_, at| now.duration_since(*at) <= DEDUPE_WINDOW);
            if sent.recent.contains_key(&key) {
                return ToolResult::ok(format!(
                    "Suppressed: an identical message was already delivered to the {provider} webhook within the last 30s."
                ));
            }
            if let Some(wait) = sent
                .last_attempt
                .and_then(|last| MIN_INTERVAL.checked_sub(now.duration_since(last)))
            {
                return ToolResult::error(format!(
                    "Error: rate limited; wait {}ms before sending another notification.",
                    wait.as_millis()
                ));
            }
            sent.last_attempt = Some(now);
        }
        let body = self.payload(&a);
        let mut last = String::new();
        for attempt in 0..MAX_ATTEMPTS {
            let verdict = tokio::select! {
                v = self.attempt(&body) => v,
                () = ctx.cancel.cancelled() => {
                    return ToolResult::error(format!(
                        "Delivery to the {provider} webhook was cancelled after {attempt} attempt(s)"
                    ));
                }
            };
            let delay = match verdict {
                Verdict::Delivered => {
                    if let Ok(mut sent) = self.sent.lock() {
                        sent.recent.insert(key, Instant::now());
                    }
                    return ToolResult::ok(format!(
                        "Delivered to the {provider} webhook (attempt {}/{MAX_ATTEMPTS}).",
                        attempt + 1
                    ));
                }
                Verdict::Permanent(why) => {
                    return ToolResult::error(format!(
                        "Delivery to the {provider} webhook failed permanently: {why}"
                    ));
                }
                Verdict::Transient(why, retry_after) => {
                    last = why;
                    retry_after.map_or_else(
                        || Duration::from_secs(1 << attempt),
                        |d| d.min(MAX_RETRY_AFTER),
                    )
                }
            };
            if attempt + 1 < MAX_ATTEMPTS {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = ctx.cancel.cancelled() => {
                        return ToolResult::error(format!(
                            "Delivery to the {provider} webhook was cancelled after {} attempt(s): {last}",
                            attempt + 1
                        ));
                    }
                }
            }
        }
        ToolResult::error(format!(
            "Delivery to the {provider} webhook failed after {MAX_ATTEMPTS} attempt(s): {last}"
        ))
    }

    async fn attempt(&self, body: &Value) -> Verdict {
        let endpoint = match expand(&self.config.url, None, false) {
            Ok(u) => u,
            Err(why) => return Verdict::Permanent(why),
        };
        let url = match reqwest::Url::parse(&endpoint) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => u,
            _ => {
                return Verdict::Permanent("configured url is not a valid http(s) URL".to_owned());
            }
        };
        if !self.allow_private
            && let Some(why) = private_destination(&url).await
        {
            return Verdict::Permanent(why);
        }
        let client = match guarded_client(self.timeout, self.allow_private) {
            Ok(c) => c,
            Err(why) => return Verdict::Permanent(why),
        };
        let mut req = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        for (name, value) in &self.config.headers {
            match expand(value, None, false) {
                Ok(v) => req = req.header(name, v),
                Err(why) => return Verdict::Permanent(why),
            }
        }
        let resp = match req.send().await {
            Ok(r) => r,
            // The URL may hold a token: errors are told without it.
            Err(e) => {
                let e = e.without_url();
                return Verdict::Transient(
                    format!("request failed: {}", tether_http::error_chain(&e)),
                    None,
                );
            }
        };
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|s| *s > 0)
            .map(Duration::from_secs);
        let text = tether_http::read_capped(resp, MAX_RESPONSE)
            .await
            .map(|c| snippet(&c.bytes))
            .unwrap_or_else(|_| "(no body)".to_owned());
        let detail = format!("HTTP {}: {text}", status.as_u16());
        if status.is_success() {
            Verdict::Delivered
        } else if status.as_u16() == 429 || status.is_server_error() {
            Verdict::Transient(detail, retry_after)
        } else {
            Verdict::Permanent(detail)
        }
    }
}

/// Why `url` may not be reached without `allow_private_ips`: an address literal that is not
/// public, or a name that resolves to no public address. Checked before connecting, so a
/// refused destination sees no connection at all (the client checks again when it connects).
async fn private_destination(url: &reqwest::Url) -> Option<String> {
    if let Some(why) = literal_refused(url) {
        return Some(why);
    }
    let host = url.host_str()?;
    if tether_http::literal_ip(url).is_some() {
        return None;
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let public = match tokio::net::lookup_host((host, port)).await {
        Ok(addrs) => addrs.into_iter().any(|a| tether_http::is_public(a.ip())),
        // Unresolvable: the request fails with its own error.
        Err(_) => return None,
    };
    (!public).then(|| {
        "the webhook's host resolves to no public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)".to_owned()
    })
}

/// The first 200 characters of a response body.
fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.is_empty() {
        return "(no body)".to_owned();
    }
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

impl Tool for WebhookTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            match parse::<Args>("send_webhook", args) {
                Ok(a) => self.send(a, ctx).await,
                Err(e) => e.into(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use tokio_util::sync::CancellationToken;

    use super::*;

    fn tool(provider: &str, url: &str) -> WebhookTool {
        let config = WebhookConfig {
            provider: provider.to_owned(),
            url: url.to_owned(),
            headers: Vec::new(),
            chat_id: Some("42".to_owned()),
        };
        WebhookTool::new(&config, Some(Duration::from_secs(2)), false)
    }

    #[test]
    fn each_provider_gets_its_payload_shape() {
        let a = |m: &str, v2: &str| Args {
            message: m.to_owned(),
            value2: v2.to_owned(),
            value3: String::new(),
        };
        let cases = [
            ("slack", json!({"text": "hi"})),
            ("discord", json!({"content": "hi"})),
            ("ifttt", json!({"value1": "hi", "value2": "two"})),
            ("telegram", json!({"chat_id": "42", "text": "hi"})),
            ("generic", json!({"text": "hi"})),
        ];
        for (provider, want) in cases {
            let t = tool(provider, "https://example.com/x");
            assert_eq!(t.payload(&a("hi", "two")), want, "{provider}");
        }
    }

    #[tokio::test]
    async fn private_literal_addresses_are_refused_and_see_no_connection() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let dir = std::env::temp_dir();
        let cancel = CancellationToken::new();
        let ctx = ToolContext {
            working_dir: &dir,
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        for url in [
            format!("http://127.0.0.1:{port}/hook"),
            format!("http://[::ffff:127.0.0.1]:{port}/hook"),
            "http://169.254.169.254/latest".to_owned(),
        ] {
            let t = tool("slack", &url);
            let args = json!({"message": "hi"}).as_object().unwrap().clone();
            let r = t.call(&args, ctx).await;
            assert!(r.is_error, "{url}: {}", r.content);
            assert!(
                r.content
                    .starts_with("Delivery to the slack webhook failed permanently: `"),
                "{url}: {}",
                r.content
            );
            assert!(
                r.content.contains("is not a public address"),
                "{}",
                r.content
            );
        }
        assert_eq!(
            listener.accept().map(|_| ()).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
    }
}
