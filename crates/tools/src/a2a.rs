//! `type: a2a`: a remote agent reached over the Agent-to-Agent protocol (0.3, JSON-RPC), as
//! docker-agent's toolset does it. The agent card is read when the run first needs the agent's
//! tools (`/.well-known/agent-card.json`, else the older `/.well-known/agent.json`), not at
//! load, so `tether hooks check` works offline. Each skill of the card is a tool taking
//! `{message}` (one tool named after the agent when the card lists no skill), named
//! `NAME_SKILL` when the toolset has a `name`, lower-cased with anything but letters, digits
//! and `_` made `_`. A call sends the message with `message/stream` when the card says it
//! streams, else `message/send`, and answers with the text the agent produced: the artifacts'
//! text when there is any, else the status and message text. Private addresses are refused
//! (the card's and the RPC endpoint's) unless `allow_private_ips: true`.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::net::{expand, guarded_client, read_capped, refused};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const CARD_PATHS: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];
const MAX_CARD: usize = 1 << 20;
const MAX_ANSWER: usize = 4 << 20;
/// The longest message sent to a remote agent.
const MAX_MESSAGE: usize = 1 << 20;

/// The tools of one `type: a2a` toolset, once the agent card was read.
#[derive(Debug)]
pub struct A2aToolset {
    url: String,
    name: Option<String>,
    shared: Arc<Shared>,
    loaded: RwLock<Option<Loaded>>,
}

#[derive(Debug, Clone)]
struct Loaded {
    tools: Vec<Arc<dyn Tool>>,
    instruction: String,
}

/// What every skill's tool shares.
#[derive(Debug)]
struct Shared {
    headers: Vec<(String, String)>,
    timeout: Duration,
    allow_private: bool,
}

impl A2aToolset {
    /// `None` unless `cfg` has a `url`.
    pub fn new(cfg: &tether_config::Toolset) -> Option<Self> {
        Some(Self {
            url: cfg.url.clone()?,
            name: cfg.name.clone(),
            shared: Arc::new(Shared {
                headers: cfg.headers.clone(),
                // Remote agents think and run tools: minutes, not seconds.
                timeout: cfg.timeout.unwrap_or(Duration::from_secs(600)),
                allow_private: cfg.allow_private_ips,
            }),
            loaded: RwLock::new(None),
        })
    }

    /// The card's name, description and skills, once read (docker-agent's instruction).
    pub fn instruction(&self) -> Option<String> {
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|l| l.instruction.clone())
    }

    pub fn loaded(&self) -> bool {
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// One tool per skill (none before [`Self::load`] succeeded).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|l| l.tools.clone())
            .unwrap_or_default()
    }

    /// Reads the agent card and builds the tools. Does nothing once it succeeded.
    pub async fn load(&self) -> Result<(), String> {
        if self.loaded() {
            return Ok(());
        }
        let card = self
            .card()
            .await
            .map_err(|e| format!("failed to fetch the A2A agent card of `{}`: {e}", self.url))?;
        let loaded = self.build(&card)?;
        *self.loaded.write().unwrap_or_else(PoisonError::into_inner) = Some(loaded);
        Ok(())
    }

    async fn card(&self) -> Result<Value, String> {
        let base = expand(&self.url, None, false)?;
        if let Some(why) = refused(&base, self.shared.allow_private) {
            return Err(why);
        }
        let client = guarded_client(Duration::from_secs(30), self.shared.allow_private)?;
        let root = base.trim_end_matches('/');
        let mut last = String::new();
        for path in CARD_PATHS {
            let url = format!("{root}{path}");
            let mut req = client.get(&url).header("Accept", "application/json");
            for (name, value) in &self.shared.headers {
                req = req.header(name, expand(value, None, false)?);
            }
            let resp = req
                .send()
                .await
                .map_err(|e| format!("request failed: {}", tether_http::error_chain(&e)))?;
            let status = resp.status();
            if !status.is_success() {
                last = format!("{url}: HTTP {}", status.as_u16());
                continue;
            }
            let body = read_capped(resp, MAX_CARD).await?;
            return serde_json::from_slice(&body.bytes)
                .map_err(|e| format!("{url}: not a JSON agent card: {e}"));
        }
        Err(last)
    }

    fn build(&self, card: &Value) -> Result<Loaded, String> {
        let text =
            |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
        let agent = text(card, "name");
        let description = text(card, "description");
        // The card names where to post; a relative or missing one means the URL we were given.
        let endpoint = card
            .get("url")
            .and_then(Value::as_str)
            .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
            .map_or_else(|| self.url.clone(), str::to_owned);
        if let Some(why) = refused(&endpoint, self.shared.allow_private) {
            return Err(format!("the card's endpoint `{endpoint}`: {why}"));
        }
        let streaming = card
            .pointer("/capabilities/streaming")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut skills: Vec<(String, String, String)> = card
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|s| {
                let id = text(s, "id");
                let name = text(s, "name");
                let key = if id.is_empty() { name.clone() } else { id };
                (key, name, text(s, "description"))
            })
            .collect();
        if skills.is_empty() {
            skills.push((agent.clone(), agent.clone(), description.clone()));
        }
        let mut instruction = format!("## {agent}\n\n{description}\n");
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for (key, name, about) in skills {
            instruction.push_str(&format!("- **{name}**: {about}\n"));
            let full = match &self.name {
                Some(prefix) => format!("{prefix}_{key}"),
                None => key,
            };
            let tool_name = sanitize(&full);
            if tool_name.is_empty() || tools.iter().any(|t| t.definition().name == tool_name) {
                continue;
            }
            tools.push(Arc::new(SkillTool {
                definition: ToolDefinition {
                    name: tool_name,
                    description: format!("Calls the '{name}' skill of the {agent} agent. {about}"),
                    parameters: json!({
                        "type": "object",
                        "properties": {"message": {
                            "type": "string",
                            "description": "The message or request to send to the agent",
                        }},
                        "required": ["message"],
                    }),
                    read_only: false,
                    category: "a2a",
                },
                endpoint: endpoint.clone(),
                streaming,
                shared: Arc::clone(&self.shared),
            }));
        }
        Ok(Loaded { tools, instruction })
    }
}

/// Lower case, anything but ASCII letters, digits and `_` made `_`, runs of `_` collapsed and
/// trimmed (docker-agent's tool names).
fn sanitize(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    mapped
        .split('_')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// One skill of the remote agent.
#[derive(Debug)]
struct SkillTool {
    definition: ToolDefinition,
    endpoint: String,
    streaming: bool,
    shared: Arc<Shared>,
}

impl Tool for SkillTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let Some(message) = args.get("message").and_then(Value::as_str) else {
                return ToolResult::error("missing required argument: message (a string)");
            };
            match crate::args::text("message", message, MAX_MESSAGE) {
                Ok(Some(_)) => {}
                Ok(None) => return ToolResult::error("`message` is empty"),
                Err(why) => return ToolResult::error(why),
            }
            let unknown: Vec<&str> = args
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "message")
                .collect();
            if !unknown.is_empty() {
                return ToolResult::error(format!("unknown argument(s): {}", unknown.join(", ")));
            }
            tokio::select! {
                r = self.send(message) => match r {
                    Ok(text) if text.is_empty() => ToolResult::ok("No response from agent"),
                    Ok(text) => ToolResult::ok(text),
                    Err(e) => ToolResult::error(format!("A2A call failed: {e}")),
                },
                () = ctx.cancel.cancelled() => ToolResult::error("cancelled"),
            }
        })
    }
}

impl SkillTool {
    async fn send(&self, message: &str) -> Result<String, String> {
        let client = guarded_client(self.shared.timeout, self.shared.allow_private)?;
        let method = if self.streaming {
            "message/stream"
        } else {
            "message/send"
        };
        let body = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": method,
            "params": {"message": {
                "kind": "message",
                "role": "user",
                "messageId": message_id(),
                "parts": [{"kind": "text", "text": message}],
            }},
        });
        let mut req = client.post(&self.endpoint).json(&body).header(
            "Accept",
            if self.streaming {
                "text/event-stream"
            } else {
                "application/json"
            },
        );
        for (name, value) in &self.shared.headers {
            req = req.header(name, expand(value, None, false)?);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| format!("request failed: {}", tether_http::error_chain(&e)))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(format!("HTTP {}", status.as_u16()));
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut answer = Answer::default();
        if is_sse {
            let mut decoder = tether_http::SseDecoder::new();
            let mut body = resp.bytes_stream();
            let mut read = 0usize;
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(|e| tether_http::error_chain(&e))?;
                read += chunk.len();
                if read > MAX_ANSWER {
                    return Err("the answer is too large".to_owned());
                }
                let events = decoder.push(&chunk).map_err(|e| e.to_string())?;
                for ev in events {
                    answer.rpc(&ev.data)?;
                }
            }
            if let Some(ev) = decoder.finish().map_err(|e| e.to_string())? {
                answer.rpc(&ev.data)?;
            }
        } else {
            let body = read_capped(resp, MAX_ANSWER).await?;
            answer.rpc(&String::from_utf8_lossy(&body.bytes))?;
        }
        Ok(answer.text())
    }
}

/// A random-enough message id without a new dependency: time and a counter.
fn message_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("tether-{nanos:x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The text of an answer, assembled from its events (one for `message/send`).
#[derive(Debug, Default)]
struct Answer {
    /// Artifact id → its text, in order of first appearance.
    artifacts: Vec<(String, String)>,
    /// Text of messages and status messages.
    messages: String,
}

impl Answer {
    /// One JSON-RPC response (or stream event): its `result` joins the answer; an `error` is
    /// the call's error.
    fn rpc(&mut self, data: &str) -> Result<(), String> {
        if data.trim().is_empty() {
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| format!("not a JSON-RPC response: {e}"))?;
        if let Some(err) = v.get("error") {
            let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
            return Err(format!("the agent answered with an error: {msg} ({err})"));
        }
        let Some(result) = v.get("result") else {
            return Err("a JSON-RPC response without `result`".to_owned());
        };
        self.event(result);
        Ok(())
    }

    fn event(&mut self, ev: &Value) {
        match ev.get("kind").and_then(Value::as_str).unwrap_or("") {
            "message" => self.messages.push_str(&parts_text(ev.get("parts"))),
            "task" => {
                for a in ev
                    .get("artifacts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.artifact(a, false);
                }
                self.messages
                    .push_str(&parts_text(ev.pointer("/status/message/parts")));
            }
            "status-update" => self
                .messages
                .push_str(&parts_text(ev.pointer("/status/message/parts"))),
            "artifact-update" => {
                let append = ev.get("append").and_then(Value::as_bool).unwrap_or(false);
                if let Some(a) = ev.get("artifact") {
                    self.artifact(a, append);
                }
            }
            _ => {}
        }
    }

    fn artifact(&mut self, a: &Value, append: bool) {
        let id = a
            .get("artifactId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let text = parts_text(a.get("parts"));
        match self.artifacts.iter_mut().find(|(k, _)| *k == id) {
            Some((_, t)) if append => t.push_str(&text),
            Some((_, t)) => *t = text,
            None => self.artifacts.push((id, text)),
        }
    }

    /// The artifacts' text when there is any (the answer proper), else the messages'.
    fn text(&self) -> String {
        let artifacts: Vec<&str> = self
            .artifacts
            .iter()
            .map(|(_, t)| t.as_str())
            .filter(|t| !t.is_empty())
            .collect();
        if artifacts.is_empty() {
            self.messages.clone()
        } else {
            artifacts.join("\n")
        }
    }
}

fn parts_text(parts: Option<&Value>) -> String {
    parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A toolset of `url`; private addresses allowed or not.
    fn toolset(url: &str, allow_private: bool) -> A2aToolset {
        let mut cfg = tether_config::Toolset::of_kind(tether_config::ToolsetKind::A2a);
        cfg.url = Some(url.to_owned());
        cfg.allow_private_ips = allow_private;
        A2aToolset::new(&cfg).unwrap()
    }

    #[tokio::test]
    async fn every_spelling_of_a_private_address_is_refused_before_connecting() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        for host in [
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "[::ffff:127.0.0.1]".to_owned(),
            "[::ffff:7f00:1]".to_owned(),
            "2130706433".to_owned(),
            "0x7f000001".to_owned(),
            "127.1".to_owned(),
            "0177.0.0.1".to_owned(),
        ] {
            let err = toolset(&format!("http://{host}:{port}/"), false)
                .load()
                .await
                .unwrap_err();
            assert!(
                err.contains("private addresses are refused"),
                "{host}: {err}"
            );
        }
        assert_eq!(
            listener.accept().map(|_| ()).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "the listener saw a connection"
        );
    }

    #[test]
    fn a_card_whose_endpoint_is_private_is_refused() {
        let set = toolset("https://agents.example.com/", false);
        for url in [
            "http://10.0.0.7/rpc",
            "http://[::ffff:a00:7]/",
            "http://167772167/",
        ] {
            let err = set
                .build(&json!({"name": "x", "url": url, "skills": []}))
                .unwrap_err();
            assert!(
                err.contains("private addresses are refused"),
                "{url}: {err}"
            );
        }
    }

    #[tokio::test]
    async fn a_blank_or_huge_message_is_refused_before_sending() {
        let set = toolset("http://127.0.0.1:9/", true);
        *set.loaded.write().unwrap() = Some(set.build(&json!({"name": "x"})).unwrap());
        let tool = set.tools().pop().unwrap();
        let cancel = tokio_util::sync::CancellationToken::new();
        for (message, want) in [
            (json!(""), "`message` is empty"),
            (json!(" \n\t"), "`message` is blank"),
            (
                json!("x".repeat(MAX_MESSAGE + 1)),
                "`message` is longer than",
            ),
            (json!(7), "missing required argument: message"),
        ] {
            let args = json!({"message": message});
            let ctx = ToolContext {
                working_dir: std::path::Path::new("/"),
                cancel: &cancel,
                env: &[],
                progress: None,
            };
            let r = tool.call(args.as_object().unwrap(), ctx).await;
            assert!(r.is_error && r.content.contains(want), "{}", r.content);
        }
    }

    #[test]
    fn tool_names_follow_docker_agents_rules() {
        assert_eq!(
            sanitize("Research Agent__Find-Papers"),
            "research_agent_find_papers"
        );
        assert_eq!(sanitize("__x__"), "x");
        assert_eq!(sanitize("../../etc"), "etc");
    }

    #[test]
    fn streamed_artifact_chunks_are_joined_and_win_over_status_text() {
        let mut a = Answer::default();
        for ev in [
            json!({"result": {"kind": "status-update", "status": {"state": "working", "message": {"parts": [{"kind": "text", "text": "thinking…"}]}}}}),
            json!({"result": {"kind": "artifact-update", "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "Hel"}]}}}),
            json!({"result": {"kind": "artifact-update", "append": true, "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "lo"}]}}}),
        ] {
            a.rpc(&ev.to_string()).unwrap();
        }
        assert_eq!(a.text(), "Hello");
    }

    #[test]
    fn a_message_answer_is_its_text_and_an_rpc_error_is_an_error() {
        let mut a = Answer::default();
        a.rpc(
            &json!({"result": {"kind": "message", "parts": [{"kind": "text", "text": "hi"}]}})
                .to_string(),
        )
        .unwrap();
        assert_eq!(a.text(), "hi");
        let err = a
            .rpc(&json!({"error": {"code": -32601, "message": "no such method"}}).to_string())
            .unwrap_err();
        assert!(err.contains("no such method"), "{err}");
    }
}
