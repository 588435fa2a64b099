//! OpenAI Responses API: request body and stream decoder.
//!
//! The conversation is a flat list of input items: messages, `function_call` and
//! `function_call_output`. Reasoning items the model produced are kept in the assistant
//! message's `provider_state` (`{"openai_responses": {"reasoning": [...]}}`) and sent back
//! verbatim when they carry `encrypted_content` (requested with `provider_opts.store: false`,
//! when the server keeps nothing between calls).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};
use tether_protocol::chat::{ContentPart, Message, Role, ToolCall, Usage};

use crate::http::{Decoder, parse_json};
use crate::{ChatRequest, FinishReason, ModelResponse, ModelSpec, ProviderError, StreamEvent};
use tether_http::SseEvent;

const STATE_KEY: &str = "openai_responses";

pub(super) fn body(spec: &ModelSpec, req: &ChatRequest) -> Result<Value, ProviderError> {
    let mut input = Vec::new();
    for m in &req.messages {
        push_items(m, &mut input);
    }
    let mut body = json!({"model": spec.model, "input": input, "stream": true});
    if let Some(store) = spec.provider_opts.get("store").and_then(Value::as_bool) {
        body["store"] = json!(store);
        if !store {
            body["include"] = json!(["reasoning.encrypted_content"]);
        }
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "name": t.name, "description": t.description,
                       "parameters": t.parameters, "strict": false})
            })
            .collect();
    }
    if let Some(max) = spec.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(t) = spec.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = spec.top_p {
        body["top_p"] = json!(p);
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
    let effort = spec
        .thinking()
        .as_ref()
        .and_then(super::reasoning_effort)
        .or_else(|| spec.opt_str("reasoning_effort").map(str::to_owned));
    if let Some(effort) = effort {
        body["reasoning"] = json!({"effort": effort});
    }
    if let Some(schema) = &req.response_schema {
        let mut format = json!({"type": "json_schema", "name": schema.name,
                                "schema": schema.schema, "strict": schema.strict});
        if !schema.description.is_empty() {
            format["description"] = json!(schema.description);
        }
        body["text"] = json!({"format": format});
    }
    Ok(body)
}

fn push_items(m: &Message, input: &mut Vec<Value>) {
    match m.role {
        Role::System => input.push(json!({"role": "system", "content": [
            {"type": "input_text", "text": m.text()}
        ]})),
        Role::User => {
            if m.multi_content.is_empty() {
                input.push(json!({"role": "user", "content": m.content}));
            } else {
                let parts: Vec<Value> = m
                    .multi_content
                    .iter()
                    .map(|p| match p {
                        ContentPart::Text { text } => json!({"type": "input_text", "text": text}),
                        ContentPart::ImageUrl { image_url } => {
                            json!({"type": "input_image", "image_url": image_url.url})
                        }
                    })
                    .collect();
                input.push(json!({"role": "user", "content": parts}));
            }
        }
        Role::Assistant => {
            let reasoning = m
                .provider_state
                .as_ref()
                .and_then(|s| s.pointer(&format!("/{STATE_KEY}/reasoning")))
                .and_then(Value::as_array);
            for item in reasoning.into_iter().flatten() {
                if item.get("encrypted_content").is_some_and(Value::is_string) {
                    input.push(item.clone());
                }
            }
            let text = m.text();
            if !text.is_empty() {
                input.push(json!({"type": "message", "role": "assistant", "content": [
                    {"type": "output_text", "text": text}
                ]}));
            }
            for c in &m.tool_calls {
                input.push(json!({"type": "function_call", "call_id": c.id,
                                  "name": c.function.name, "arguments": c.function.arguments}));
            }
        }
        Role::Tool => input.push(json!({"type": "function_call_output",
                                        "call_id": m.tool_call_id, "output": m.text()})),
    }
}

#[derive(Deserialize)]
struct EventWire {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    delta: String,
    item: Option<Value>,
    #[serde(default)]
    item_id: String,
    arguments: Option<String>,
    response: Option<ResponseWire>,
    /// `error` events carry these at the top level.
    code: Option<String>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct ResponseWire {
    #[serde(default)]
    status: String,
    usage: Option<UsageWire>,
    incomplete_details: Option<IncompleteWire>,
    error: Option<ErrorWire>,
}

#[derive(Deserialize)]
struct IncompleteWire {
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
struct ErrorWire {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct UsageWire {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    input_tokens_details: Option<InputDetailsWire>,
    output_tokens_details: Option<OutputDetailsWire>,
}

#[derive(Deserialize)]
struct InputDetailsWire {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct OutputDetailsWire {
    reasoning_tokens: Option<u64>,
}

struct PartialCall {
    call_id: String,
    name: String,
    arguments: String,
}

pub(crate) struct ResponsesDecoder {
    provider: String,
    text: String,
    reasoning: String,
    /// Function calls by item id, in the order they were added.
    calls: BTreeMap<usize, PartialCall>,
    item_order: Vec<String>,
    reasoning_items: Vec<Value>,
}

impl ResponsesDecoder {
    pub(crate) fn new(provider: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            text: String::new(),
            reasoning: String::new(),
            calls: BTreeMap::new(),
            item_order: Vec::new(),
            reasoning_items: Vec::new(),
        }
    }

    fn call_mut(&mut self, item_id: &str) -> Option<&mut PartialCall> {
        let pos = self.item_order.iter().position(|i| i == item_id)?;
        self.calls.get_mut(&pos)
    }

    fn item_added(&mut self, item: &Value, out: &mut Vec<StreamEvent>) {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return;
        }
        let s = |k: &str| {
            item.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let call = PartialCall {
            call_id: s("call_id"),
            name: s("name"),
            arguments: s("arguments"),
        };
        out.push(StreamEvent::ToolCallStarted {
            id: call.call_id.clone(),
            name: call.name.clone(),
        });
        self.item_order.push(s("id"));
        self.calls.insert(self.item_order.len() - 1, call);
    }

    fn item_done(&mut self, item: Value) {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
                let args = item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let (Some(call), Some(args)) = (self.call_mut(id), args) {
                    call.arguments = args;
                }
            }
            Some("reasoning") => self.reasoning_items.push(item),
            _ => {}
        }
    }

    fn complete(&mut self, resp: ResponseWire) -> StreamEvent {
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
                ToolCall::new(c.call_id, c.name, args)
            })
            .collect();
        if !self.reasoning_items.is_empty() {
            message.provider_state = Some(json!({
                STATE_KEY: {"reasoning": std::mem::take(&mut self.reasoning_items)}
            }));
        }
        let reason = resp
            .incomplete_details
            .map(|d| d.reason)
            .unwrap_or_default();
        let finish_reason = if !message.tool_calls.is_empty() {
            FinishReason::ToolCalls
        } else if resp.status == "incomplete" {
            match reason.as_str() {
                "max_output_tokens" => FinishReason::Length,
                "content_filter" => FinishReason::ContentFilter,
                other => FinishReason::Other(other.to_owned()),
            }
        } else {
            FinishReason::Stop
        };
        let usage = resp.usage.map(|u| {
            let cached = u.input_tokens_details.map_or(0, |d| d.cached_tokens);
            Usage {
                input_tokens: u.input_tokens.saturating_sub(cached),
                output_tokens: u.output_tokens,
                cached_input_tokens: cached,
                cached_write_tokens: 0,
                reasoning_tokens: u.output_tokens_details.and_then(|d| d.reasoning_tokens),
            }
        });
        StreamEvent::Completed(ModelResponse {
            message,
            usage,
            finish_reason,
        })
    }
}

impl Decoder for ResponsesDecoder {
    fn event(&mut self, ev: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let e: EventWire = parse_json(&self.provider, &ev.data)?;
        match e.kind.as_str() {
            "response.output_text.delta" | "response.refusal.delta" if !e.delta.is_empty() => {
                self.text.push_str(&e.delta);
                out.push(StreamEvent::TextDelta(e.delta));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta"
                if !e.delta.is_empty() =>
            {
                self.reasoning.push_str(&e.delta);
                out.push(StreamEvent::ReasoningDelta(e.delta));
            }
            "response.output_item.added" => {
                if let Some(item) = &e.item {
                    self.item_added(item, out);
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(call) = self.call_mut(&e.item_id) {
                    call.arguments.push_str(&e.delta);
                }
            }
            "response.function_call_arguments.done" => {
                if let (Some(args), Some(call)) = (e.arguments, self.call_mut(&e.item_id)) {
                    call.arguments = args;
                }
            }
            "response.output_item.done" => {
                if let Some(item) = e.item {
                    self.item_done(item);
                }
            }
            "response.completed" | "response.incomplete" => {
                let resp = e.response.ok_or_else(|| {
                    ProviderError::protocol(
                        &self.provider,
                        "`response.completed` without a response",
                    )
                })?;
                out.push(self.complete(resp));
            }
            "response.failed" => {
                let err = e.response.and_then(|r| r.error);
                let (code, message) = err.map_or_else(
                    || ("server_error".to_owned(), "response failed".to_owned()),
                    |er| (er.code, er.message),
                );
                return Err(ProviderError::from_stream_error(
                    &self.provider,
                    &code,
                    &message,
                ));
            }
            "error" => {
                return Err(ProviderError::from_stream_error(
                    &self.provider,
                    e.code.as_deref().unwrap_or("server_error"),
                    e.message.as_deref().unwrap_or("unknown error"),
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn eof(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        Err(ProviderError::protocol(
            &self.provider,
            "stream ended before `response.completed`",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn tool_history_becomes_function_call_items_and_encrypted_reasoning_is_replayed() {
        let mut assistant = Message::assistant("");
        assistant
            .tool_calls
            .push(ToolCall::new("call_9", "write_file", "{}"));
        assistant.provider_state = Some(json!({STATE_KEY: {"reasoning": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
        ]}}));
        let req = ChatRequest {
            messages: vec![
                Message::system("sys"),
                Message::user("hi"),
                assistant,
                Message::tool_result("call_9", "write_file", "done", false),
            ],
            ..ChatRequest::default()
        };
        let spec = ModelSpec::parse_inline("openai/gpt-5").unwrap();
        assert_eq!(
            body(&spec, &req).unwrap(),
            json!({"model": "gpt-5", "stream": true, "input": [
                {"role": "system", "content": [{"type": "input_text", "text": "sys"}]},
                {"role": "user", "content": "hi"},
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"},
                {"type": "function_call", "call_id": "call_9", "name": "write_file", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_9", "output": "done"},
            ]})
        );
    }
}
