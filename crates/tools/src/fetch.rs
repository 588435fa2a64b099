//! `type: fetch`: HTTP GET of one or more URLs, as docker-agent's `fetch` tool (`urls`,
//! `format` text | markdown | html, `timeout`). robots.txt is respected; bodies are cut at
//! 1 MiB; at most 5 redirects are followed. Loopback, private, link-local and other
//! non-public addresses are refused (the model chooses the URL, so it must not reach the
//! machine's own services or the local network) unless the toolset sets
//! `allow_private_ips: true`; names are checked after DNS resolution and on every redirect,
//! and proxy variables are ignored then (see [`crate::net`]).
//! `allowed_domains` / `blocked_domains` are checked on each URL before anything is sent
//! (robots.txt included) and on every redirect.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use tether_http::error_chain;

use crate::html::{Flavor, convert};
use crate::net::{DomainLists, guarded_client_with, literal_refused, read_capped};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

pub const FETCH_INSTRUCTION: &str = "## Fetch Tool\n\nFetch content from HTTP/HTTPS URLs. Supports multiple URLs per call, output format selection (text, markdown, html), and respects robots.txt.";

const MAX_BODY: usize = 1 << 20;

#[derive(Debug)]
pub struct FetchTool {
    definition: ToolDefinition,
    timeout: Duration,
    allow_private: bool,
    domains: Option<Arc<DomainLists>>,
    escape_html: bool,
}

impl FetchTool {
    /// The tool of a `type: fetch` toolset: its `timeout`, `allow_private_ips`,
    /// `allowed_domains` / `blocked_domains` and `escape_html`.
    pub fn new(cfg: &tether_config::Toolset) -> Self {
        let domains =
            (!cfg.allowed_domains.is_empty() || !cfg.blocked_domains.is_empty()).then(|| {
                Arc::new(DomainLists {
                    allowed: cfg.allowed_domains.clone(),
                    blocked: cfg.blocked_domains.clone(),
                })
            });
        Self {
            definition: ToolDefinition {
                name: "fetch".to_owned(),
                description: "Fetch content from one or more HTTP/HTTPS URLs. Returns the response body and metadata.".to_owned(),
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "urls": {"type": "array", "items": {"type": "string"}, "description": "Array of URLs to fetch", "minItems": 1},
                        "format": {"type": "string", "description": "The format to return the content in (text, markdown, or html)", "enum": ["text", "markdown", "html"]},
                        "timeout": {"type": "integer", "description": "Request timeout in seconds (default: 30)", "minimum": 1, "maximum": 300}
                    },
                    "required": ["urls", "format"],
                    "additionalProperties": false
                }),
                read_only: false,
                category: "fetch",
            },
            timeout: cfg.timeout.unwrap_or(Duration::from_secs(30)),
            allow_private: cfg.allow_private_ips,
            domains,
            escape_html: cfg.escape_html,
        }
    }

    fn client(&self, timeout: Duration) -> Result<reqwest::Client, String> {
        guarded_client_with(timeout, self.allow_private, self.domains.clone())
    }
}

/// One URL's outcome (docker-agent's field names).
#[derive(Debug, Default, serde::Serialize)]
struct Fetched {
    url: String,
    #[serde(rename = "statusCode")]
    status_code: u16,
    status: String,
    #[serde(rename = "contentType", skip_serializing_if = "String::is_empty")]
    content_type: String,
    #[serde(rename = "contentLength")]
    content_length: usize,
    #[serde(skip_serializing_if = "String::is_empty")]
    body: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    error: String,
}

/// robots.txt's verdict for `path` (the `*` group; the longest matching rule wins).
fn robots_allow(robots: &str, path: &str) -> bool {
    let mut in_star = false;
    let mut group_started = false;
    let mut best: Option<(usize, bool)> = None;
    for line in robots.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        match key.as_str() {
            "user-agent" => {
                if group_started {
                    in_star = false;
                    group_started = false;
                }
                in_star |= value == "*";
            }
            "allow" | "disallow" if in_star => {
                group_started = true;
                if value.is_empty() || !path.starts_with(value) {
                    continue;
                }
                let allow = key == "allow";
                if best.is_none_or(|(len, _)| value.len() > len) {
                    best = Some((value.len(), allow));
                }
            }
            _ => group_started |= in_star,
        }
    }
    best.is_none_or(|(_, allow)| allow)
}

impl FetchTool {
    async fn fetch(
        &self,
        client: &reqwest::Client,
        url: &str,
        format: &str,
        robots: &mut Vec<(String, bool)>,
    ) -> Fetched {
        let mut r = Fetched {
            url: url.to_owned(),
            ..Fetched::default()
        };
        let parsed = match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => u,
            Ok(_) => {
                "only HTTP and HTTPS URLs are supported".clone_into(&mut r.error);
                return r;
            }
            Err(e) => {
                r.error = format!("invalid URL: {e}");
                return r;
            }
        };
        if let Some(why) = self.domains.as_ref().and_then(|d| d.refusal(&parsed)) {
            r.error = why;
            return r;
        }
        if !self.allow_private
            && let Some(why) = literal_refused(&parsed)
        {
            r.error = why;
            return r;
        }
        let origin = parsed.origin().ascii_serialization();
        let allowed = match robots.iter().find(|(o, _)| *o == origin) {
            Some((_, a)) => *a,
            None => {
                let a = match client.get(format!("{origin}/robots.txt")).send().await {
                    Ok(resp) if resp.status() == reqwest::StatusCode::NOT_FOUND => true,
                    Ok(resp) if resp.status().is_success() => {
                        let text = resp.text().await.unwrap_or_default();
                        robots_allow(&text, parsed.path())
                    }
                    Ok(_) => false,
                    Err(_) => true,
                };
                robots.push((origin, a));
                a
            }
        };
        if !allowed {
            "URL blocked by robots.txt".clone_into(&mut r.error);
            return r;
        }
        let accept = match format {
            "markdown" => "text/markdown;q=1.0, text/plain;q=0.9, text/html;q=0.7, */*;q=0.1",
            "html" => "text/html;q=1.0, text/plain;q=0.8, */*;q=0.1",
            "text" => "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
            _ => "text/plain;q=1.0, */*;q=0.1",
        };
        let resp = match client.get(parsed).header("Accept", accept).send().await {
            Ok(resp) => resp,
            Err(e) => {
                r.error = format!("request failed: {}", error_chain(&e));
                return r;
            }
        };
        r.status_code = resp.status().as_u16();
        r.status = resp.status().to_string();
        r.content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let (body, cut) = match read_capped(resp, MAX_BODY).await {
            Ok(capped) => (capped.bytes, capped.cut),
            Err(e) => {
                r.error = e;
                return r;
            }
        };
        let text = String::from_utf8_lossy(&body).into_owned();
        let html = r.content_type.contains("text/html");
        r.body = match format {
            "markdown" if html => convert(&text, Flavor::Markdown),
            "text" if html => convert(&text, Flavor::Text),
            _ => text,
        };
        if cut {
            r.body.push_str(&format!("\n[cut at {MAX_BODY} bytes]"));
        }
        r.content_length = r.body.len();
        r
    }
}

impl Tool for FetchTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let urls: Vec<&str> = args
                .get("urls")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if urls.is_empty() {
                return ToolResult::error("at least one URL is required");
            }
            let format = args.get("format").and_then(Value::as_str).unwrap_or("");
            let timeout = args
                .get("timeout")
                .and_then(Value::as_u64)
                .filter(|t| *t > 0)
                .map_or(self.timeout, |t| Duration::from_secs(t.min(300)));
            let client = match self.client(timeout) {
                Ok(c) => c,
                Err(e) => return ToolResult::error(e),
            };
            let mut robots = Vec::new();
            let mut results = Vec::new();
            for url in &urls {
                let fetched = tokio::select! {
                    r = self.fetch(&client, url, format, &mut robots) => r,
                    () = ctx.cancel.cancelled() => return ToolResult::error("cancelled"),
                };
                results.push(fetched);
            }
            if let [one] = results.as_slice() {
                if !one.error.is_empty() {
                    return ToolResult::error(format!("Error fetching {}: {}", one.url, one.error));
                }
                return ToolResult::ok(format!(
                    "Successfully fetched {} (Status: {}, Length: {} bytes):\n\n{}",
                    one.url, one.status_code, one.content_length, one.body
                ));
            }
            let json = serde_json::to_string(&results).unwrap_or_default();
            ToolResult::ok(if self.escape_html {
                escape_html(&json)
            } else {
                json
            })
        })
    }
}

/// JSON text with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026`, as Go's
/// encoder writes them by default (docker-agent's `escape_html: true`). In JSON text those
/// characters only occur inside strings, where the escapes mean the same.
fn escape_html(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escaping_keeps_the_json_equal() {
        let value = json!([{"body": "<a href=\"x?a=1&b=2\">x</a>", "url": "u"}]);
        let text = serde_json::to_string(&value).unwrap();
        let escaped = escape_html(&text);
        assert_eq!(
            escaped,
            r#"[{"body":"\u003ca href=\"x?a=1\u0026b=2\"\u003ex\u003c/a\u003e","url":"u"}]"#
        );
        assert_eq!(serde_json::from_str::<Value>(&escaped).unwrap(), value);
    }

    #[test]
    fn robots_rules_apply_longest_match_in_the_star_group() {
        let robots = "User-agent: bot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\nAllow: /private/ok\n";
        assert!(robots_allow(robots, "/public"));
        assert!(!robots_allow(robots, "/private/x"));
        assert!(robots_allow(robots, "/private/ok/page"));
        assert!(robots_allow("", "/anything"));
    }
}
