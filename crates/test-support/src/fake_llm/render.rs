//! Turns → SSE frames in each dialect, with the event shapes of the recorded cassettes.
//! Text streams in word-sized deltas and tool-call arguments in fragments of a few bytes, so
//! clients' assembly code is exercised.

use serde_json::{Value, json};

use super::{Dialect, Part, Turn, openai_usage};

pub(super) struct Ctx<'a> {
    pub model: &'a str,
    /// 1-based request number, used in ids.
    pub number: usize,
    /// Tool calls numbered before this turn (ids are `call_fake_{n}`).
    pub first_call: usize,
}

pub(super) fn frames(dialect: Dialect, turn: &Turn, ctx: &Ctx<'_>) -> Vec<String> {
    match dialect {
        Dialect::OpenAiChat => openai_chat(turn, ctx),
        Dialect::OpenAiResponses => responses(turn, ctx),
        Dialect::Anthropic => anthropic(turn, ctx),
        Dialect::Gemini => gemini(turn, ctx),
    }
}

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn event(name: &str, v: &Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// Splits text after each space, keeping every character.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Splits into pieces of at most 4 characters.
fn fragments(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect()).collect()
}

/// Tool calls of the turn as `(id, name, arguments JSON)`.
fn calls(turn: &Turn, ctx: &Ctx<'_>) -> Vec<(String, String, String)> {
    turn.parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall {
                id,
                name,
                arguments,
            } => Some((id.clone(), name.clone(), arguments.to_string())),
            _ => None,
        })
        .enumerate()
        .map(|(i, (id, name, args))| {
            (
                id.unwrap_or_else(|| format!("call_fake_{}", ctx.first_call + i + 1)),
                name,
                args,
            )
        })
        .collect()
}

fn has_calls(turn: &Turn) -> bool {
    turn.parts
        .iter()
        .any(|p| matches!(p, Part::ToolCall { .. }))
}

fn openai_chat(turn: &Turn, ctx: &Ctx<'_>) -> Vec<String> {
    let id = format!("chatcmpl-fake{}", ctx.number);
    let chunk = |delta: Value, finish: Value| {
        data(
            &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": ctx.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            "usage": null}),
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let ids = calls(turn, ctx);
    let mut call_index = 0;
    for part in &turn.parts {
        match part {
            // Only the Gemini dialect carries generated images.
            Part::Image { .. } => {}
            Part::Text(t) => {
                for w in words(t) {
                    out.push(chunk(json!({"content": w}), Value::Null));
                }
            }
            Part::Reasoning(t) => {
                for w in words(t) {
                    out.push(chunk(json!({"reasoning_content": w}), Value::Null));
                }
            }
            Part::ToolCall { .. } => {
                let (cid, name, args) = &ids[call_index];
                out.push(chunk(
                    json!({"tool_calls": [{"index": call_index, "id": cid, "type": "function",
                        "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                ));
                for f in fragments(args) {
                    out.push(chunk(
                        json!({"tool_calls": [{"index": call_index, "function": {"arguments": f}}]}),
                        Value::Null,
                    ));
                }
                call_index += 1;
            }
        }
    }
    let finish = if has_calls(turn) {
        "tool_calls"
    } else {
        "stop"
    };
    out.push(chunk(json!({}), json!(finish)));
    out.push(data(
        &json!({"id": id, "object": "chat.completion.chunk", "created": 0,
        "model": ctx.model, "choices": [], "usage": openai_usage(&turn.usage)}),
    ));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

fn responses(turn: &Turn, ctx: &Ctx<'_>) -> Vec<String> {
    let resp_id = format!("resp_fake{}", ctx.number);
    let base = |status: &str, output: Value, usage: Value| {
        json!({"id": resp_id, "object": "response", "created_at": 0, "status": status,
               "model": ctx.model, "output": output, "usage": usage, "error": null,
               "incomplete_details": null})
    };
    let mut seq = 0;
    let mut ev = |name: &str, mut v: Value| {
        v["type"] = json!(name);
        v["sequence_number"] = json!(seq);
        seq += 1;
        event(name, &v)
    };
    let mut out = vec![
        ev(
            "response.created",
            json!({"response": base("in_progress", json!([]), Value::Null)}),
        ),
        ev(
            "response.in_progress",
            json!({"response": base("in_progress", json!([]), Value::Null)}),
        ),
    ];
    let ids = calls(turn, ctx);
    let mut call_index = 0;
    let mut output = Vec::new();
    for (oi, part) in turn.parts.iter().enumerate() {
        match part {
            // Only the Gemini dialect carries generated images.
            Part::Image { .. } => {}
            Part::Reasoning(t) => {
                let item_id = format!("rs_fake{}_{oi}", ctx.number);
                out.push(ev(
                    "response.output_item.added",
                    json!({"output_index": oi,
                    "item": {"id": item_id, "type": "reasoning", "summary": []}}),
                ));
                for w in words(t) {
                    out.push(ev(
                        "response.reasoning_summary_text.delta",
                        json!({"item_id": item_id,
                        "output_index": oi, "summary_index": 0, "delta": w}),
                    ));
                }
                let item = json!({"id": item_id, "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": t}]});
                out.push(ev(
                    "response.output_item.done",
                    json!({"output_index": oi, "item": item}),
                ));
                output.push(item);
            }
            Part::Text(t) => {
                let item_id = format!("msg_fake{}_{oi}", ctx.number);
                out.push(ev("response.output_item.added", json!({"output_index": oi, "item":
                    {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})));
                out.push(ev("response.content_part.added", json!({"item_id": item_id, "output_index": oi,
                    "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}})));
                for w in words(t) {
                    out.push(ev(
                        "response.output_text.delta",
                        json!({"item_id": item_id,
                        "output_index": oi, "content_index": 0, "delta": w, "logprobs": []}),
                    ));
                }
                out.push(ev(
                    "response.output_text.done",
                    json!({"item_id": item_id, "output_index": oi,
                    "content_index": 0, "text": t, "logprobs": []}),
                ));
                let part =
                    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": t});
                out.push(ev(
                    "response.content_part.done",
                    json!({"item_id": item_id, "output_index": oi,
                    "content_index": 0, "part": part}),
                ));
                let item = json!({"id": item_id, "type": "message", "status": "completed",
                    "content": [part], "role": "assistant"});
                out.push(ev(
                    "response.output_item.done",
                    json!({"output_index": oi, "item": item}),
                ));
                output.push(item);
            }
            Part::ToolCall { .. } => {
                let (cid, name, args) = &ids[call_index];
                call_index += 1;
                let item_id = format!("fc_fake{}_{oi}", ctx.number);
                out.push(ev(
                    "response.output_item.added",
                    json!({"output_index": oi, "item":
                    {"id": item_id, "type": "function_call", "status": "in_progress",
                     "arguments": "", "call_id": cid, "name": name}}),
                ));
                for f in fragments(args) {
                    out.push(ev(
                        "response.function_call_arguments.delta",
                        json!({"item_id": item_id, "output_index": oi, "delta": f}),
                    ));
                }
                out.push(ev(
                    "response.function_call_arguments.done",
                    json!({"item_id": item_id, "output_index": oi, "arguments": args}),
                ));
                let item = json!({"id": item_id, "type": "function_call", "status": "completed",
                    "arguments": args, "call_id": cid, "name": name});
                out.push(ev(
                    "response.output_item.done",
                    json!({"output_index": oi, "item": item}),
                ));
                output.push(item);
            }
        }
    }
    let u = &turn.usage;
    let usage = json!({
        "input_tokens": u.input_tokens + u.cached_input_tokens,
        "input_tokens_details": {"cached_tokens": u.cached_input_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens.unwrap_or(0)},
        "total_tokens": u.input_tokens + u.cached_input_tokens + u.output_tokens,
    });
    out.push(ev(
        "response.completed",
        json!({"response": base("completed", json!(output), usage)}),
    ));
    out
}

fn anthropic(turn: &Turn, ctx: &Ctx<'_>) -> Vec<String> {
    let u = &turn.usage;
    let mut out = vec![event(
        "message_start",
        &json!({"type": "message_start", "message": {"model": ctx.model,
            "id": format!("msg_fake{}", ctx.number), "type": "message", "role": "assistant",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": u.input_tokens, "cache_creation_input_tokens": u.cached_write_tokens,
                      "cache_read_input_tokens": u.cached_input_tokens, "output_tokens": 1}}}),
    )];
    let ids = calls(turn, ctx);
    let mut call_index = 0;
    let delta = |index: usize, d: Value| {
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": d}),
        )
    };
    for (index, part) in turn.parts.iter().enumerate() {
        let start = |block: Value| {
            event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": index, "content_block": block}),
            )
        };
        match part {
            // Only the Gemini dialect carries generated images.
            Part::Image { .. } => {}
            Part::Text(t) => {
                out.push(start(json!({"type": "text", "text": ""})));
                if index == 0 {
                    out.push(event("ping", &json!({"type": "ping"})));
                }
                for w in words(t) {
                    out.push(delta(index, json!({"type": "text_delta", "text": w})));
                }
            }
            Part::Reasoning(t) => {
                out.push(start(
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                ));
                for w in words(t) {
                    out.push(delta(
                        index,
                        json!({"type": "thinking_delta", "thinking": w}),
                    ));
                }
                out.push(delta(
                    index,
                    json!({"type": "signature_delta", "signature": "sig_fake"}),
                ));
            }
            Part::ToolCall { .. } => {
                let (cid, name, args) = &ids[call_index];
                call_index += 1;
                out.push(start(
                    json!({"type": "tool_use", "id": cid, "name": name, "input": {}}),
                ));
                out.push(delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": ""}),
                ));
                for f in fragments(args) {
                    out.push(delta(
                        index,
                        json!({"type": "input_json_delta", "partial_json": f}),
                    ));
                }
            }
        }
        out.push(event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    let stop = if has_calls(turn) {
        "tool_use"
    } else {
        "end_turn"
    };
    out.push(event("message_delta", &json!({"type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"input_tokens": u.input_tokens, "cache_creation_input_tokens": u.cached_write_tokens,
                  "cache_read_input_tokens": u.cached_input_tokens, "output_tokens": u.output_tokens}})));
    out.push(event("message_stop", &json!({"type": "message_stop"})));
    out
}

fn gemini(turn: &Turn, ctx: &Ctx<'_>) -> Vec<String> {
    let mut chunks: Vec<Value> = Vec::new();
    for part in &turn.parts {
        match part {
            Part::Text(t) => chunks.extend(words(t).into_iter().map(|w| json!([{"text": w}]))),
            Part::Reasoning(t) => {
                chunks.extend(
                    words(t)
                        .into_iter()
                        .map(|w| json!([{"text": w, "thought": true}])),
                );
            }
            Part::ToolCall {
                name, arguments, ..
            } => {
                chunks.push(json!([{"functionCall": {"name": name, "args": arguments}}]));
            }
            Part::Image { mime_type, base64 } => {
                chunks.push(json!([{"inlineData": {"mimeType": mime_type, "data": base64}}]));
            }
        }
    }
    if chunks.is_empty() {
        chunks.push(json!([]));
    }
    let u = &turn.usage;
    let last = chunks.len() - 1;
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, parts)| {
            let mut cand = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
            let mut v = json!({"candidates": [], "modelVersion": ctx.model,
                               "responseId": format!("resp-fake{}", ctx.number)});
            if i == last {
                cand["finishReason"] = json!("STOP");
                let mut meta = json!({
                    "promptTokenCount": u.input_tokens + u.cached_input_tokens,
                    "candidatesTokenCount": u.output_tokens - u.reasoning_tokens.unwrap_or(0).min(u.output_tokens),
                    "totalTokenCount": u.input_tokens + u.cached_input_tokens + u.output_tokens,
                });
                if u.cached_input_tokens > 0 {
                    meta["cachedContentTokenCount"] = json!(u.cached_input_tokens);
                }
                if let Some(r) = u.reasoning_tokens {
                    meta["thoughtsTokenCount"] = json!(r);
                }
                v["usageMetadata"] = meta;
            }
            v["candidates"] = json!([cand]);
            format!("data: {v}\r\n\r\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn tool_call_arguments_stream_in_several_fragments_that_join_back() {
        let turn = Turn::tool_call("shell", json!({"cmd": "ls -la /tmp"}));
        let ctx = Ctx {
            model: "m",
            number: 1,
            first_call: 0,
        };
        let frames = frames(Dialect::OpenAiChat, &turn, &ctx);
        let pieces: Vec<String> = frames
            .iter()
            .filter_map(|f| f.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .filter_map(|v| {
                v.pointer("/choices/0/delta/tool_calls/0/function/arguments")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .filter(|p| !p.is_empty())
            .collect();
        assert_eq!(
            (pieces.len() > 1, pieces.concat()),
            (true, json!({"cmd": "ls -la /tmp"}).to_string())
        );
    }

    #[test]
    fn words_keep_every_character() {
        assert_eq!(words("a bc  d"), vec!["a ", "bc ", " ", "d"]);
    }
}
