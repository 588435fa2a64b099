//! OpenAI Chat Completions: request body and stream decoder.
//!
//! Tool calls stream as fragments keyed by `index`; the id and name come in the first
//! fragment only, so calls are assembled in a map by index and emitted in index order.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};
use tether_protocol::chat::{ContentPart, Message, Role, ToolCall, Usage};

use super::Flavor;
use crate::http::{Decoder, parse_json};
use crate::{ChatRequest, FinishReason, ModelResponse, ModelSpec, ProviderError, StreamEvent};
use tether_http::SseEvent;

pub(super) fn body(
    spec: &ModelSpec,
    flavor: Flavor,
    req: &ChatRequest,
) -> Result<Value, ProviderError> {
    let mut body = json!({
        "model": spec.model,
        "messages": req.messages.iter().map(message).collect::<Vec<_>>(),
        "stream": true,
    });
    if flavor != Flavor::Mistral && spec.track_usage != Some(false) {
        body["stream_options"] = json!({"include_usage": true});
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
    }
    if let Some(max) = spec.max_tokens {
        // OpenAI's newer models accept only the new name; compatible servers the old one.
        let key = if flavor == Flavor::OpenAi {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[key] = json!(max);
    }
    if let Some(t) = spec.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = spec.top_p {
        body["top_p"] = json!(p);
    }
    if let Some(p) = spec.frequency_penalty {
        body["frequency_penalty"] = json!(p);
    }
    if let Some(p) = spec.presence_penalty {
        body["presence_penalty"] = json!(p);
    }
    if let Some(parallel) = spec.parallel_tool_calls
        && !req.tools.is_empty()
    {
        body["parallel_tool_calls"] = json!(parallel);
    }
    if let Some(choice) = req.tool_choice
        && !req.tools.is_empty()
    {
        body["tool_choice"] = json!(choice.openai());
    }
    if let Some(effort) = spec.thinking().as_ref().and_then(super::reasoning_effort) {
        body["reasoning_effort"] = json!(effort);
    }
    if let Some(schema) = &req.response_schema {
        let mut js = json!({"name": schema.name, "schema": schema.schema, "strict": schema.strict});
        if !schema.description.is_empty() {
            js["description"] = json!(schema.description);
        }
        body["response_format"] = json!({"type": "json_schema", "json_schema": js});
    }
    Ok(body)
}

fn message(m: &Message) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.text()}),
        Role::User => {
            if m.multi_content.is_empty() {
                json!({"role": "user", "content": m.content})
            } else {
                let parts: Vec<Value> = m.multi_content.iter().map(content_part).collect();
                json!({"role": "user", "content": parts})
            }
        }
        Role::Assistant => {
            let mut v = json!({"role": "assistant"});
            let text = m.text();
            if m.tool_calls.is_empty() || !text.is_empty() {
                v["content"] = json!(text);
            } else {
                v["content"] = Value::Null;
            }
            if !m.tool_calls.is_empty() {
                v["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function", "function": {
                            "name": c.function.name, "arguments": c.function.arguments,
                        }})
                    })
                    .collect();
            }
            v
        }
        Role::Tool => json!({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text()}),
    }
}

fn content_part(p: &ContentPart) -> Value {
    match p {
        ContentPart::Text { text } => json!({"type": "text", "text": text}),
        ContentPart::ImageUrl { image_url } => {
            json!({"type": "image_url", "image_url": {"url": image_url.url}})
        }
    }
}

#[derive(Deserialize)]
struct ChunkWire {
    #[serde(default)]
    choices: Vec<ChoiceWire>,
    usage: Option<UsageWire>,
    error: Option<ErrorWire>,
}

#[derive(Deserialize)]
struct ChoiceWire {
    #[serde(default)]
    delta: DeltaWire,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct DeltaWire {
    content: Option<String>,
    /// DeepSeek, vLLM and llama.cpp (dmr) stream reasoning here.
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolDeltaWire>,
}

#[derive(Deserialize)]
struct ToolDeltaWire {
    #[serde(default)]
    index: u32,
    id: Option<String>,
    function: Option<FunctionDeltaWire>,
}

#[derive(Deserialize)]
struct FunctionDeltaWire {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct UsageWire {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    prompt_tokens_details: Option<PromptDetailsWire>,
    completion_tokens_details: Option<CompletionDetailsWire>,
}

#[derive(Deserialize)]
struct PromptDetailsWire {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct CompletionDetailsWire {
    reasoning_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorWire {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    code: Option<Value>,
    #[serde(default)]
    message: String,
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    announced: bool,
}

pub(crate) struct ChatDecoder {
    provider: String,
    text: String,
    reasoning: String,
    calls: BTreeMap<u32, PartialCall>,
    finish: Option<String>,
    usage: Option<Usage>,
}

impl ChatDecoder {
    pub(crate) fn new(provider: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            text: String::new(),
            reasoning: String::new(),
            calls: BTreeMap::new(),
            finish: None,
            usage: None,
        }
    }

    fn complete(&mut self) -> StreamEvent {
        let mut message = Message::assistant(std::mem::take(&mut self.text));
        message.reasoning_content = std::mem::take(&mut self.reasoning);
        message.tool_calls = std::mem::take(&mut self.calls)
            .into_values()
            .map(|c| {
                let args = if c.arguments.is_empty() {
                    "{}".to_owned()
                } else {
                    c.arguments
                };
                ToolCall::new(c.id, c.name, args)
            })
            .collect();
        let finish_reason = match self.finish.as_deref() {
            Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
            Some("length") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            Some("stop") | None if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
            Some("stop") | None => FinishReason::Stop,
            Some(other) => FinishReason::Other(other.to_owned()),
        };
        StreamEvent::Completed(ModelResponse {
            message,
            usage: self.usage,
            finish_reason,
        })
    }
}

impl Decoder for ChatDecoder {
    fn event(&mut self, ev: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if ev.data.trim() == "[DONE]" {
            out.push(self.complete());
            return Ok(());
        }
        let chunk: ChunkWire = parse_json(&self.provider, &ev.data)?;
        if let Some(err) = chunk.error {
            let kind = err
                .code
                .as_ref()
                .and_then(Value::as_str)
                .or(err.kind.as_deref())
                .unwrap_or("server_error")
                .to_owned();
            return Err(ProviderError::from_stream_error(
                &self.provider,
                &kind,
                &err.message,
            ));
        }
        if let Some(u) = chunk.usage {
            self.usage = Some(u.into_usage());
        }
        for choice in chunk.choices {
            let d = choice.delta;
            if let Some(r) = d
                .reasoning_content
                .or(d.reasoning)
                .filter(|r| !r.is_empty())
            {
                self.reasoning.push_str(&r);
                out.push(StreamEvent::ReasoningDelta(r));
            }
            if let Some(t) = d.content.filter(|t| !t.is_empty()) {
                self.text.push_str(&t);
                out.push(StreamEvent::TextDelta(t));
            }
            for tc in d.tool_calls {
                let call = self.calls.entry(tc.index).or_default();
                if let Some(id) = tc.id.filter(|i| !i.is_empty()) {
                    call.id = id;
                }
                if let Some(f) = tc.function {
                    if let Some(n) = f.name.filter(|n| !n.is_empty()) {
                        call.name.push_str(&n);
                    }
                    if let Some(a) = f.arguments {
                        call.arguments.push_str(&a);
                    }
                }
                if !call.announced && !call.name.is_empty() {
                    call.announced = true;
                    out.push(StreamEvent::ToolCallStarted {
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                }
            }
            if let Some(f) = choice.finish_reason {
                self.finish = Some(f);
            }
        }
        Ok(())
    }

    fn eof(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        // Some compatible servers close after the finish chunk without `[DONE]`.
        if self.finish.is_some() {
            out.push(self.complete());
            return Ok(());
        }
        Err(ProviderError::protocol(
            &self.provider,
            "stream ended before `[DONE]`",
        ))
    }
}

impl UsageWire {
    fn into_usage(self) -> Usage {
        let cached = self.prompt_tokens_details.map_or(0, |d| d.cached_tokens);
        Usage {
            input_tokens: self.prompt_tokens.saturating_sub(cached),
            output_tokens: self.completion_tokens,
            cached_input_tokens: cached,
            cached_write_tokens: 0,
            reasoning_tokens: self
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn decode(lines: &[&str]) -> Result<Vec<StreamEvent>, String> {
        let mut d = ChatDecoder::new("p");
        let mut out = Vec::new();
        for l in lines {
            let ev = SseEvent {
                event: String::new(),
                data: (*l).to_owned(),
            };
            d.event(ev, &mut out).map_err(|e| e.to_string())?;
        }
        d.eof(&mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn a_stream_closed_after_the_finish_chunk_completes_and_one_closed_before_is_cut() {
        let finished = decode(&[
            r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"length"}]}"#,
        ]);
        let cut = decode(&[r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}"#]);
        assert_eq!(
            (finished, cut),
            (
                Ok(vec![
                    StreamEvent::TextDelta("hi".into()),
                    StreamEvent::Completed(ModelResponse {
                        message: Message::assistant("hi"),
                        usage: None,
                        finish_reason: FinishReason::Length,
                    }),
                ]),
                Err("bad stream from `p`: stream ended before `[DONE]`".to_owned())
            )
        );
    }

    #[test]
    fn an_error_chunk_is_classified() {
        let got = decode(&[
            r#"{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}"#,
        ]);
        assert_eq!(got, Err("rate limited by `p`: rate limit".to_owned()));
    }

    #[test]
    fn openai_uses_max_completion_tokens_and_others_max_tokens() {
        let mut spec = ModelSpec::parse_inline("openai/gpt-4o").unwrap();
        spec.max_tokens = Some(100);
        let req = ChatRequest::default();
        let a = body(&spec, Flavor::OpenAi, &req).unwrap();
        let b = body(&spec, Flavor::Other, &req).unwrap();
        assert_eq!(
            (
                a.get("max_completion_tokens"),
                a.get("max_tokens"),
                b.get("max_tokens")
            ),
            (Some(&json!(100)), None, Some(&json!(100)))
        );
    }

    #[test]
    fn history_translates_to_chat_messages() {
        let mut assistant = Message::assistant("");
        assistant
            .tool_calls
            .push(ToolCall::new("call_1", "shell", r#"{"cmd":"ls"}"#));
        let req = ChatRequest {
            messages: vec![
                Message::system("be brief"),
                Message::user("list"),
                assistant,
                Message::tool_result("call_1", "shell", "a.txt", false),
            ],
            ..ChatRequest::default()
        };
        let spec = ModelSpec::parse_inline("mistral/mistral-small-latest").unwrap();
        assert_eq!(
            body(&spec, Flavor::Mistral, &req).unwrap(),
            json!({
                "model": "mistral-small-latest",
                "stream": true,
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "list"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"ls\"}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
                ],
            })
        );
    }
}
