//! Google Gemini (`models/{model}:streamGenerateContent?alt=sse`).
//!
//! Gemini's quirks drive the shape: roles are `user` and `model`, system prompts go in
//! `systemInstruction`, tool results are `functionResponse` parts matched by *name*, function
//! calls arrive whole (no argument fragments) and usually without an id, and schemas are an
//! OpenAPI subset (no `additionalProperties`, no type unions), so JSON schemas are narrowed
//! before they are sent. Calls without an id get `call_{responseId}_{n}`, stable across
//! replays. A call's `thoughtSignature` is kept in `provider_state` and sent back with it.
//! The stream has no terminal event: it completes when the body ends after a `finishReason`.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_protocol::chat::{ContentPart, ImageUrl, Message, Role, ToolCall, Usage};

use crate::http::{Decoder, HttpCall, HttpOptions, build_client, join_url, parse_json};
use crate::openai::arguments_object;
use crate::{
    ChatRequest, FinishReason, ModelResponse, ModelSpec, Provider, ProviderError, ResponseStream,
    StreamEvent, Thinking, ToolChoice,
};
use tether_http::SseEvent;

const STATE_KEY: &str = "gemini";

/// A client for one Gemini model.
#[derive(Debug)]
pub struct GeminiProvider {
    id: String,
    client: reqwest::Client,
    base_url: String,
    api_key: String,
    spec: ModelSpec,
    opts: HttpOptions,
}

impl GeminiProvider {
    /// `base_url` has no version (`https://generativelanguage.googleapis.com`).
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

impl Provider for GeminiProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        let path = format!(
            "v1beta/models/{}:streamGenerateContent?alt=sse",
            self.spec.model
        );
        let id = self.id.clone();
        let call = HttpCall::new(
            &self.client,
            &self.id,
            join_url(&self.base_url, &path),
            &[("x-goog-api-key", self.api_key.clone())],
            &body(&self.spec, req),
            self.opts,
        );
        match call {
            Ok(call) => call.stream(move || GeminiDecoder::new(&id)),
            Err(e) => Box::pin(futures::future::ready(Err(e))),
        }
    }
}

/// Asked of a model with `output_capabilities.image`, so each image arrives with a file name
/// (the runtime takes these lines out of the answer and names the saved files after them).
pub(crate) const IMAGE_OUTPUT_INSTRUCTION: &str = "When you generate images, name each one with a marker line, placed alone on its own line, in this exact format:
[media-file: relative/path.ext]
Rules:
- Emit exactly one marker line per generated image, in the same order as the images.
- If the user asked for a specific file name or path, echo it in the marker exactly as requested.
- Otherwise choose a short, meaningful, kebab-case file name.
- Generate a single image unless the user explicitly asks for multiple images or variations.
- Never emit a marker line for an image you did not generate.";

pub(crate) fn body(spec: &ModelSpec, req: &ChatRequest) -> Value {
    // Structured output and images exclude each other: a schema-bound call stays text.
    let images = spec.output_image && req.response_schema.is_none();
    let mut system: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| json!({"text": m.text()}))
        .collect();
    if images {
        system.push(json!({"text": IMAGE_OUTPUT_INSTRUCTION}));
    }
    let mut contents: Vec<Value> = Vec::new();
    for (i, m) in req.messages.iter().enumerate() {
        let (role, parts) = match m.role {
            Role::System => continue,
            Role::User => ("user", user_parts(m)),
            Role::Assistant => ("model", model_parts(m)),
            Role::Tool => ("user", vec![function_response(m, &req.messages[..i])]),
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(p) = last["parts"].as_array_mut() {
                    p.extend(parts);
                }
            }
            _ => contents.push(json!({"role": role, "parts": parts})),
        }
    }
    let mut body = json!({"contents": contents});
    if !system.is_empty() {
        body["systemInstruction"] = json!({"parts": system});
    }
    if !req.tools.is_empty() {
        let decls: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"name": t.name, "description": t.description,
                            "parameters": narrow_schema(&t.parameters)})
            })
            .collect();
        body["tools"] = json!([{"functionDeclarations": decls}]);
        if let Some(choice) = req.tool_choice {
            let mode = match choice {
                ToolChoice::Auto => "AUTO",
                ToolChoice::Required => "ANY",
                ToolChoice::None => "NONE",
            };
            body["toolConfig"] = json!({"functionCallingConfig": {"mode": mode}});
        }
    }
    let mut config = Map::new();
    if let Some(max) = spec.max_tokens {
        config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(t) = spec.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(p) = spec.top_p {
        config.insert("topP".into(), json!(p));
    }
    if let Some(p) = spec.frequency_penalty {
        config.insert("frequencyPenalty".into(), json!(p));
    }
    if let Some(p) = spec.presence_penalty {
        config.insert("presencePenalty".into(), json!(p));
    }
    match spec.thinking() {
        Some(Thinking::Disabled) => {
            config.insert("thinkingConfig".into(), json!({"thinkingBudget": 0}));
        }
        Some(Thinking::Dynamic) => {
            config.insert("thinkingConfig".into(), json!({"thinkingBudget": -1}));
        }
        Some(Thinking::Tokens(t)) => {
            config.insert("thinkingConfig".into(), json!({"thinkingBudget": t}));
        }
        Some(t @ Thinking::Effort(_)) => {
            let level = t.effort().unwrap_or("high");
            config.insert("thinkingConfig".into(), json!({"thinkingLevel": level}));
        }
        None => {}
    }
    if let Some(schema) = &req.response_schema {
        config.insert("responseMimeType".into(), json!("application/json"));
        config.insert("responseSchema".into(), narrow_schema(&schema.schema));
    }
    if images {
        config.insert("responseModalities".into(), json!(["TEXT", "IMAGE"]));
    }
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    body
}

fn user_parts(m: &Message) -> Vec<Value> {
    if m.multi_content.is_empty() {
        return text_part(&m.content).into_iter().collect();
    }
    m.multi_content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => text_part(text),
            ContentPart::ImageUrl { image_url } => {
                let url = &image_url.url;
                Some(
                    match url
                        .strip_prefix("data:")
                        .and_then(|r| r.split_once(";base64,"))
                    {
                        Some((mime, data)) => {
                            json!({"inlineData": {"mimeType": mime, "data": data}})
                        }
                        None => json!({"fileData": {"fileUri": url}}),
                    },
                )
            }
        })
        .collect()
}

fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

fn model_parts(m: &Message) -> Vec<Value> {
    let mut parts: Vec<Value> = text_part(&m.text()).into_iter().collect();
    let signatures = m
        .provider_state
        .as_ref()
        .and_then(|s| s.pointer(&format!("/{STATE_KEY}/thought_signatures")));
    for c in &m.tool_calls {
        let mut part = json!({"functionCall": {"name": c.function.name,
                                               "args": arguments_object(&c.function.arguments)}});
        if let Some(sig) = signatures.and_then(|s| s.get(&c.id)) {
            part["thoughtSignature"] = sig.clone();
        }
        parts.push(part);
    }
    parts
}

/// A tool result; the function name comes from the message, else from the call it answers.
fn function_response(m: &Message, before: &[Message]) -> Value {
    let name = if m.name.is_empty() {
        before
            .iter()
            .flat_map(|b| &b.tool_calls)
            .find(|c| c.id == m.tool_call_id)
            .map(|c| c.function.name.clone())
            .unwrap_or_default()
    } else {
        m.name.clone()
    };
    let key = if m.is_error { "error" } else { "result" };
    json!({"functionResponse": {"name": name, "response": {key: m.text()}}})
}

/// Narrows a JSON schema to the OpenAPI subset Gemini accepts.
pub(crate) fn narrow_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                match k.as_str() {
                    "additionalProperties" | "$schema" | "$id" | "strict" => {}
                    "type" => match v {
                        Value::Array(types) => {
                            let real: Vec<&Value> = types
                                .iter()
                                .filter(|t| t.as_str() != Some("null"))
                                .collect();
                            if let Some(first) = real.first() {
                                out.insert(k.clone(), (*first).clone());
                            }
                            if real.len() < types.len() {
                                out.insert("nullable".into(), json!(true));
                            }
                        }
                        _ => {
                            out.insert(k.clone(), v.clone());
                        }
                    },
                    "properties" => {
                        let props: Map<String, Value> = v
                            .as_object()
                            .map(|p| {
                                p.iter()
                                    .map(|(n, s)| (n.clone(), narrow_schema(s)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    _ => {
                        out.insert(k.clone(), narrow_schema(v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(narrow_schema).collect()),
        other => other.clone(),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkWire {
    #[serde(default)]
    candidates: Vec<CandidateWire>,
    usage_metadata: Option<UsageWire>,
    #[serde(default)]
    response_id: String,
    error: Option<ErrorWire>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CandidateWire {
    content: Option<ContentWire>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ContentWire {
    #[serde(default)]
    parts: Vec<PartWire>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartWire {
    text: Option<String>,
    #[serde(default)]
    thought: bool,
    function_call: Option<FunctionCallWire>,
    thought_signature: Option<String>,
    inline_data: Option<InlineDataWire>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InlineDataWire {
    #[serde(default)]
    mime_type: String,
    #[serde(default)]
    data: String,
}

#[derive(Deserialize)]
struct FunctionCallWire {
    #[serde(default)]
    id: String,
    name: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct UsageWire {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    cached_content_token_count: u64,
    thoughts_token_count: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorWire {
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
}

pub(crate) struct GeminiDecoder {
    provider: String,
    text: String,
    reasoning: String,
    calls: Vec<ToolCall>,
    signatures: Map<String, Value>,
    finish: Option<String>,
    usage: Option<UsageWire>,
    /// Generated images, as `data:` URLs.
    images: Vec<ContentPart>,
}

impl GeminiDecoder {
    pub(crate) fn new(provider: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            signatures: Map::new(),
            finish: None,
            usage: None,
            images: Vec::new(),
        }
    }

    fn part(&mut self, part: PartWire, response_id: &str, out: &mut Vec<StreamEvent>) {
        if let Some(img) = part.inline_data.filter(|d| !d.data.is_empty()) {
            let mime = if img.mime_type.is_empty() {
                "application/octet-stream".to_owned()
            } else {
                img.mime_type
            };
            self.images.push(ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: format!("data:{mime};base64,{}", img.data),
                },
            });
        } else if let Some(fc) = part.function_call {
            let id = if fc.id.is_empty() {
                format!("call_{response_id}_{}", self.calls.len())
            } else {
                fc.id
            };
            if let Some(sig) = part.thought_signature {
                self.signatures.insert(id.clone(), json!(sig));
            }
            out.push(StreamEvent::ToolCallStarted {
                id: id.clone(),
                name: fc.name.clone(),
            });
            let args = if fc.args.is_null() {
                json!({})
            } else {
                fc.args
            };
            self.calls
                .push(ToolCall::new(id, fc.name, args.to_string()));
        } else if let Some(text) = part.text.filter(|t| !t.is_empty()) {
            if part.thought {
                self.reasoning.push_str(&text);
                out.push(StreamEvent::ReasoningDelta(text));
            } else {
                self.text.push_str(&text);
                out.push(StreamEvent::TextDelta(text));
            }
        }
    }
}

impl Decoder for GeminiDecoder {
    fn event(&mut self, ev: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let chunk: ChunkWire = parse_json(&self.provider, &ev.data)?;
        if let Some(err) = chunk.error {
            return Err(ProviderError::from_stream_error(
                &self.provider,
                &err.status,
                &err.message,
            ));
        }
        if let Some(u) = chunk.usage_metadata {
            self.usage = Some(u);
        }
        for cand in chunk.candidates.into_iter().take(1) {
            for part in cand.content.map(|c| c.parts).unwrap_or_default() {
                self.part(part, &chunk.response_id, out);
            }
            if let Some(f) = cand.finish_reason {
                self.finish = Some(f);
            }
        }
        Ok(())
    }

    fn eof(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let Some(finish) = self.finish.take() else {
            return Err(ProviderError::protocol(
                &self.provider,
                "stream ended before a `finishReason`",
            ));
        };
        let mut message = Message::assistant(std::mem::take(&mut self.text));
        message.reasoning_content = std::mem::take(&mut self.reasoning);
        message.tool_calls = std::mem::take(&mut self.calls);
        message.multi_content = std::mem::take(&mut self.images);
        if !self.signatures.is_empty() {
            message.provider_state = Some(json!({STATE_KEY: {
                "thought_signatures": std::mem::take(&mut self.signatures)
            }}));
        }
        let finish_reason = match finish.as_str() {
            "STOP" if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
                FinishReason::ContentFilter
            }
            other => FinishReason::Other(other.to_owned()),
        };
        let usage = self.usage.map(|u| {
            let thoughts = u.thoughts_token_count.unwrap_or(0);
            Usage {
                input_tokens: u
                    .prompt_token_count
                    .saturating_sub(u.cached_content_token_count),
                output_tokens: u.candidates_token_count + thoughts,
                cached_input_tokens: u.cached_content_token_count,
                cached_write_tokens: 0,
                reasoning_tokens: u.thoughts_token_count,
            }
        });
        out.push(StreamEvent::Completed(ModelResponse {
            message,
            usage,
            finish_reason,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn history_uses_model_role_function_responses_and_system_instruction() {
        let mut assistant = Message::assistant("");
        assistant.tool_calls = vec![
            ToolCall::new("c1", "ls", r#"{"path":"."}"#),
            ToolCall::new("c2", "cat", r#"{"f":"a"}"#),
        ];
        assistant.provider_state = Some(json!({"gemini": {"thought_signatures": {"c1": "sig"}}}));
        let req = ChatRequest {
            messages: vec![
                Message::system("sys"),
                Message::user("go"),
                assistant,
                Message::tool_result("c1", "ls", "a", false),
                Message::tool_result("c2", "", "nope", true),
            ],
            ..ChatRequest::default()
        };
        let spec = ModelSpec::parse_inline("google/gemini-2.5-flash").unwrap();
        assert_eq!(
            body(&spec, &req),
            json!({
                "systemInstruction": {"parts": [{"text": "sys"}]},
                "contents": [
                    {"role": "user", "parts": [{"text": "go"}]},
                    {"role": "model", "parts": [
                        {"functionCall": {"name": "ls", "args": {"path": "."}}, "thoughtSignature": "sig"},
                        {"functionCall": {"name": "cat", "args": {"f": "a"}}},
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"name": "ls", "response": {"result": "a"}}},
                        {"functionResponse": {"name": "cat", "response": {"error": "nope"}}},
                    ]},
                ],
            })
        );
    }

    #[test]
    fn schemas_are_narrowed_to_the_openapi_subset() {
        let schema = json!({"type": "object", "additionalProperties": false,
            "properties": {"edits": {"type": ["null", "array"], "items": {"type": "object",
                "additionalProperties": false, "properties": {"a": {"type": "string"}}}}}});
        assert_eq!(
            narrow_schema(&schema),
            json!({"type": "object", "properties": {"edits": {"type": "array", "nullable": true,
                "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}})
        );
    }
}
