//! Anthropic Messages API.
//!
//! The dialect differs from OpenAI's in ways that shape this file: system prompts are a
//! top-level field, tool results are `tool_result` blocks inside a *user* message, roles must
//! alternate (so consecutive same-role messages are merged), and thinking blocks must be sent
//! back unchanged, signature included, before the tool calls they led to. All thinking blocks
//! of a response are kept in `provider_state` (`{"anthropic": {"thinking": [...]}}`) because a
//! message may hold several; `reasoning_content` + `thinking_signature` is the fallback.
//!
//! Structured output uses a forced tool: the schema becomes a tool that `tool_choice` forces,
//! and its input is returned as the message text. That works on every Claude model, unlike
//! the newer native output format.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tether_protocol::chat::{ContentPart, Message, Role, ToolCall, Usage};

use crate::http::{Decoder, HttpCall, HttpOptions, build_client, join_url, parse_json};
use crate::openai::arguments_object;
use crate::{
    ChatRequest, FinishReason, ModelResponse, ModelSpec, Provider, ProviderError, ResponseStream,
    StreamEvent, Thinking, ToolChoice, catalogue,
};
use tether_http::SseEvent;

const STATE_KEY: &str = "anthropic";
const API_VERSION: &str = "2023-06-01";

/// A client for one Claude model.
#[derive(Debug)]
pub struct AnthropicProvider {
    id: String,
    client: reqwest::Client,
    base_url: String,
    api_key: String,
    spec: ModelSpec,
    opts: HttpOptions,
}

impl AnthropicProvider {
    /// `base_url` has no version (`https://api.anthropic.com`).
    pub fn new(spec: &ModelSpec, base_url: String, api_key: String) -> Result<Self, ProviderError> {
        let opts = HttpOptions::from_spec(spec);
        Ok(Self {
            id: spec.id(),
            client: build_client(spec, &opts)?,
            base_url,
            api_key,
            spec: spec.clone(),
            opts,
        })
    }
}

impl Provider for AnthropicProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        let headers = [
            ("x-api-key", self.api_key.clone()),
            ("anthropic-version", API_VERSION.to_owned()),
        ];
        let id = self.id.clone();
        let schema_tool = req.response_schema.as_ref().map(|s| s.name.clone());
        let call = HttpCall::new(
            &self.client,
            &self.id,
            join_url(&self.base_url, "v1/messages"),
            &headers,
            &body(&self.spec, req),
            self.opts,
        );
        match call {
            Ok(call) => call.stream(move || AnthropicDecoder::new(&id, schema_tool.clone())),
            Err(e) => Box::pin(futures::future::ready(Err(e))),
        }
    }
}

pub(crate) fn body(spec: &ModelSpec, req: &ChatRequest) -> Value {
    let mut system: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| json!({"type": "text", "text": m.text()}))
        .collect();
    let mut messages: Vec<Value> = Vec::new();
    for m in req.messages.iter().filter(|m| m.role != Role::System) {
        let (role, blocks) = blocks(m);
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(blocks);
                }
            }
            _ => messages.push(json!({"role": role, "content": blocks})),
        }
    }
    // Cache the stable prefix: the system prompt and the conversation so far.
    if let Some(last) = system.last_mut() {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    if let Some(block) = messages
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|c| c.last_mut())
        .filter(|b| {
            matches!(
                b["type"].as_str(),
                Some("text" | "tool_result" | "tool_use")
            )
        })
    {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    let max_tokens = spec
        .max_tokens
        .or_else(|| {
            catalogue::lookup(&spec.provider, &spec.model).and_then(|i| i.max_output_tokens)
        })
        .unwrap_or(4096);
    let mut body = json!({
        "model": spec.model,
        "max_tokens": max_tokens,
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!(system);
    }
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    let thinking = spec.thinking().filter(|t| *t != Thinking::Disabled);
    if let Some(schema) = &req.response_schema {
        // With other tools the model may call them first; the answer is the schema tool.
        let choice = if tools.is_empty() {
            json!({"type": "tool", "name": schema.name})
        } else {
            json!({"type": "any"})
        };
        tools.push(
            json!({"name": schema.name, "description": schema.description,
                          "input_schema": schema.schema}),
        );
        body["tool_choice"] = choice;
    } else if let Some(t) = &thinking {
        // Forced tool use and thinking are incompatible, so thinking is off for schemas.
        match t {
            Thinking::Tokens(budget) => {
                body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
            }
            Thinking::Effort(_) => {
                body["thinking"] = json!({"type": "adaptive"});
                let effort = t.effort().filter(|e| *e != "adaptive").unwrap_or("high");
                body["output_config"] = json!({"effort": effort});
            }
            Thinking::Disabled | Thinking::Dynamic => {}
        }
    }
    if !req.tools.is_empty() && req.response_schema.is_none() {
        let kind = match req.tool_choice {
            Some(ToolChoice::Required) => Some("any"),
            Some(ToolChoice::None) => Some("none"),
            Some(ToolChoice::Auto) => Some("auto"),
            None if spec.parallel_tool_calls == Some(false) => Some("auto"),
            None => None,
        };
        if let Some(kind) = kind {
            let mut choice = json!({ "type": kind });
            if spec.parallel_tool_calls == Some(false) && kind != "none" {
                choice["disable_parallel_tool_use"] = json!(true);
            }
            body["tool_choice"] = choice;
        }
    }
    if !tools.is_empty() {
        body["tools"] = json!(tools);
    }
    if thinking.is_none() || req.response_schema.is_some() {
        if let Some(t) = spec.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(p) = spec.top_p {
            body["top_p"] = json!(p);
        }
    }
    body
}

/// The role and content blocks of one message (tool results travel as user content).
fn blocks(m: &Message) -> (&'static str, Vec<Value>) {
    match m.role {
        Role::Tool => {
            let mut b = json!({"type": "tool_result", "tool_use_id": m.tool_call_id,
                               "content": m.text()});
            if m.is_error {
                b["is_error"] = json!(true);
            }
            ("user", vec![b])
        }
        Role::User | Role::System => {
            let blocks = if m.multi_content.is_empty() {
                text_block(&m.content).into_iter().collect()
            } else {
                m.multi_content.iter().filter_map(part_block).collect()
            };
            ("user", blocks)
        }
        Role::Assistant => {
            let mut blocks = thinking_blocks(m);
            blocks.extend(text_block(&m.text()));
            for c in &m.tool_calls {
                blocks.push(
                    json!({"type": "tool_use", "id": c.id, "name": c.function.name,
                                   "input": arguments_object(&c.function.arguments)}),
                );
            }
            ("assistant", blocks)
        }
    }
}

fn thinking_blocks(m: &Message) -> Vec<Value> {
    let kept = m
        .provider_state
        .as_ref()
        .and_then(|s| s.pointer(&format!("/{STATE_KEY}/thinking")))
        .and_then(Value::as_array);
    if let Some(kept) = kept {
        return kept.clone();
    }
    if !m.reasoning_content.is_empty() && !m.thinking_signature.is_empty() {
        return vec![json!({"type": "thinking", "thinking": m.reasoning_content,
                           "signature": m.thinking_signature})];
    }
    Vec::new()
}

/// Anthropic rejects empty text blocks.
fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn part_block(p: &ContentPart) -> Option<Value> {
    match p {
        ContentPart::Text { text } => text_block(text),
        ContentPart::ImageUrl { image_url } => {
            let url = &image_url.url;
            let source = match url
                .strip_prefix("data:")
                .and_then(|r| r.split_once(";base64,"))
            {
                Some((media, data)) => json!({"type": "base64", "media_type": media, "data": data}),
                None => json!({"type": "url", "url": url}),
            };
            Some(json!({"type": "image", "source": source}))
        }
    }
}

#[derive(Deserialize)]
struct EventWire {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    index: usize,
    message: Option<MessageStartWire>,
    content_block: Option<Value>,
    delta: Option<Value>,
    usage: Option<UsageWire>,
    error: Option<ErrorWire>,
}

#[derive(Deserialize)]
struct MessageStartWire {
    usage: Option<UsageWire>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct UsageWire {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorWire {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    message: String,
}

/// One content block being streamed.
enum Block {
    Text,
    Thinking {
        text: String,
        signature: String,
    },
    Redacted(Value),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
}

pub(crate) struct AnthropicDecoder {
    provider: String,
    schema_tool: Option<String>,
    blocks: Vec<(usize, Block)>,
    text: String,
    usage: UsageWire,
    stop_reason: Option<String>,
}

impl AnthropicDecoder {
    pub(crate) fn new(provider: &str, schema_tool: Option<String>) -> Self {
        Self {
            provider: provider.to_owned(),
            schema_tool,
            blocks: Vec::new(),
            text: String::new(),
            usage: UsageWire::default(),
            stop_reason: None,
        }
    }

    fn merge_usage(&mut self, u: UsageWire) {
        let merge = |old: Option<u64>, new: Option<u64>| new.or(old);
        self.usage = UsageWire {
            input_tokens: merge(self.usage.input_tokens, u.input_tokens),
            output_tokens: merge(self.usage.output_tokens, u.output_tokens),
            cache_creation_input_tokens: merge(
                self.usage.cache_creation_input_tokens,
                u.cache_creation_input_tokens,
            ),
            cache_read_input_tokens: merge(
                self.usage.cache_read_input_tokens,
                u.cache_read_input_tokens,
            ),
        };
    }

    fn block_start(&mut self, index: usize, block: &Value, out: &mut Vec<StreamEvent>) {
        let s = |k: &str| {
            block
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let b = match block.get("type").and_then(Value::as_str) {
            Some("thinking") => Block::Thinking {
                text: s("thinking"),
                signature: s("signature"),
            },
            Some("redacted_thinking") => Block::Redacted(block.clone()),
            Some("tool_use") => {
                let (id, name) = (s("id"), s("name"));
                if self.schema_tool.as_deref() != Some(name.as_str()) {
                    out.push(StreamEvent::ToolCallStarted {
                        id: id.clone(),
                        name: name.clone(),
                    });
                }
                Block::ToolUse {
                    id,
                    name,
                    json: String::new(),
                }
            }
            _ => {
                let text = s("text");
                if !text.is_empty() {
                    self.text.push_str(&text);
                    out.push(StreamEvent::TextDelta(text));
                }
                Block::Text
            }
        };
        self.blocks.push((index, b));
    }

    fn block_delta(&mut self, index: usize, delta: &Value, out: &mut Vec<StreamEvent>) {
        let s = |k: &str| delta.get(k).and_then(Value::as_str).unwrap_or_default();
        let Some((_, block)) = self.blocks.iter_mut().rev().find(|(i, _)| *i == index) else {
            return;
        };
        match (delta.get("type").and_then(Value::as_str), block) {
            (Some("text_delta"), _) if !s("text").is_empty() => {
                self.text.push_str(s("text"));
                out.push(StreamEvent::TextDelta(s("text").to_owned()));
            }
            (Some("thinking_delta"), Block::Thinking { text, .. }) => {
                text.push_str(s("thinking"));
                out.push(StreamEvent::ReasoningDelta(s("thinking").to_owned()));
            }
            (Some("signature_delta"), Block::Thinking { signature, .. }) => {
                signature.push_str(s("signature"));
            }
            (Some("input_json_delta"), Block::ToolUse { json, .. }) => {
                json.push_str(s("partial_json"));
            }
            _ => {}
        }
    }

    fn complete(&mut self, out: &mut Vec<StreamEvent>) {
        let mut message = Message::assistant("");
        let mut kept = Vec::new();
        for (_, block) in std::mem::take(&mut self.blocks) {
            match block {
                Block::Text => {}
                Block::Thinking { text, signature } => {
                    message.reasoning_content.push_str(&text);
                    message.thinking_signature.clone_from(&signature);
                    kept.push(
                        json!({"type": "thinking", "thinking": text, "signature": signature}),
                    );
                }
                Block::Redacted(raw) => kept.push(raw),
                Block::ToolUse { id, name, json } => {
                    let args = if json.is_empty() {
                        "{}".to_owned()
                    } else {
                        json
                    };
                    if self.schema_tool.as_deref() == Some(name.as_str()) {
                        self.text.push_str(&args);
                        out.push(StreamEvent::TextDelta(args));
                    } else {
                        message.tool_calls.push(ToolCall::new(id, name, args));
                    }
                }
            }
        }
        message.content = std::mem::take(&mut self.text);
        if !kept.is_empty() {
            message.provider_state = Some(json!({STATE_KEY: {"thinking": kept}}));
        }
        let finish_reason = match self.stop_reason.as_deref() {
            Some("tool_use") if message.tool_calls.is_empty() => FinishReason::Stop,
            Some("tool_use") => FinishReason::ToolCalls,
            Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
            Some("refusal") => FinishReason::ContentFilter,
            Some("end_turn" | "stop_sequence" | "pause_turn") | None => FinishReason::Stop,
            Some(other) => FinishReason::Other(other.to_owned()),
        };
        let u = self.usage;
        let usage = Usage {
            input_tokens: u.input_tokens.unwrap_or(0),
            output_tokens: u.output_tokens.unwrap_or(0),
            cached_input_tokens: u.cache_read_input_tokens.unwrap_or(0),
            cached_write_tokens: u.cache_creation_input_tokens.unwrap_or(0),
            reasoning_tokens: None,
        };
        out.push(StreamEvent::Completed(ModelResponse {
            message,
            usage: Some(usage),
            finish_reason,
        }));
    }
}

impl Decoder for AnthropicDecoder {
    fn event(&mut self, ev: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let e: EventWire = parse_json(&self.provider, &ev.data)?;
        match e.kind.as_str() {
            "message_start" => {
                if let Some(u) = e.message.and_then(|m| m.usage) {
                    self.merge_usage(u);
                }
            }
            "content_block_start" => {
                if let Some(block) = &e.content_block {
                    self.block_start(e.index, block, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = &e.delta {
                    self.block_delta(e.index, delta, out);
                }
            }
            "message_delta" => {
                if let Some(reason) = e.delta.as_ref().and_then(|d| d.get("stop_reason")) {
                    self.stop_reason = reason.as_str().map(str::to_owned);
                }
                if let Some(u) = e.usage {
                    self.merge_usage(u);
                }
            }
            "message_stop" => self.complete(out),
            "error" => {
                let err = e.error.unwrap_or(ErrorWire {
                    kind: "api_error".to_owned(),
                    message: "unknown error".to_owned(),
                });
                return Err(ProviderError::from_stream_error(
                    &self.provider,
                    &err.kind,
                    &err.message,
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn eof(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        Err(ProviderError::protocol(
            &self.provider,
            "stream ended before `message_stop`",
        ))
    }
}

#[cfg(test)]
#[path = "anthropic_tests.rs"]
mod tests;
