//! Round trips through the fake server in every dialect: text, reasoning, tool calls whose
//! arguments arrive in fragments, usage; request capture (paths, auth headers); structured
//! output in each dialect's own form.

#![cfg(test)]

mod common;

use common::{ALL, provider};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_protocol::chat::{Message, ToolCall, Usage};
use tether_providers::{
    ChatRequest, FinishReason, ModelResponse, ResponseSchema, ToolDefinition, complete,
};
use tether_test_support::fake_llm::{Dialect, FakeLlm, Turn};

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("be brief"), Message::user("run it")],
        tools: vec![ToolDefinition {
            name: "shell".into(),
            description: "Runs a command".into(),
            parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}),
        }],
        response_schema: None,
        tool_choice: None,
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 120,
        output_tokens: 40,
        cached_input_tokens: 30,
        cached_write_tokens: 0,
        reasoning_tokens: Some(12),
    }
}

/// What each dialect can express of `usage()`, and the ids and state it produces.
fn expected(dialect: Dialect) -> ModelResponse {
    let args = r#"{"cmd":"echo \"hi there\" && ls"}"#;
    let (id, usage, state) = match dialect {
        Dialect::OpenAiChat => ("call_fake_1", usage(), None),
        Dialect::OpenAiResponses => (
            "call_fake_1",
            usage(),
            Some(
                json!({"openai_responses": {"reasoning": [{"id": "rs_fake1_0", "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "Let me think."}]}]}}),
            ),
        ),
        Dialect::Anthropic => (
            "call_fake_1",
            Usage {
                reasoning_tokens: None,
                ..usage()
            },
            Some(json!({"anthropic": {"thinking": [
                {"type": "thinking", "thinking": "Let me think.", "signature": "sig_fake"}
            ]}})),
        ),
        Dialect::Gemini => ("call_resp-fake1_0", usage(), None),
    };
    let mut message = Message::assistant("Running it now.");
    message.reasoning_content = "Let me think.".into();
    if dialect == Dialect::Anthropic {
        message.thinking_signature = "sig_fake".into();
    }
    message.tool_calls = vec![ToolCall::new(id, "shell", args)];
    message.provider_state = state;
    ModelResponse {
        message,
        usage: Some(usage),
        finish_reason: FinishReason::ToolCalls,
    }
}

#[tokio::test]
async fn every_dialect_assembles_reasoning_text_fragmented_tool_calls_and_usage() {
    let mut got = Vec::new();
    let mut want = Vec::new();
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(
            Turn::reasoning("Let me think.")
                .and_text("Running it now.")
                .and_tool_call("shell", json!({"cmd": "echo \"hi there\" && ls"}))
                .with_usage(usage()),
        );
        let p = provider(&server, dialect, json!({}));
        got.push((dialect, complete(p.as_ref(), &request()).await.unwrap()));
        want.push((dialect, expected(dialect)));
    }
    assert_eq!(got, want);
}

#[tokio::test]
async fn requests_reach_each_vendor_endpoint_with_its_auth_header() {
    let mut got = Vec::new();
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(Turn::text("ok"));
        let p = provider(&server, dialect, json!({}));
        complete(p.as_ref(), &request()).await.unwrap();
        let r = &server.requests()[0];
        let auth = [
            "authorization",
            "x-api-key",
            "anthropic-version",
            "x-goog-api-key",
        ]
        .iter()
        .filter_map(|h| r.header(h).map(|v| format!("{h}: {v}")))
        .collect::<Vec<_>>();
        got.push((
            r.method.clone(),
            r.path.clone(),
            auth,
            r.body.get("stream").cloned(),
        ));
    }
    assert_eq!(
        got,
        vec![
            (
                "POST".into(),
                "/v1/chat/completions".into(),
                vec!["authorization: Bearer sk-openai".to_owned()],
                Some(json!(true))
            ),
            (
                "POST".into(),
                "/v1/responses".into(),
                vec!["authorization: Bearer sk-openai".to_owned()],
                Some(json!(true))
            ),
            (
                "POST".into(),
                "/v1/messages".into(),
                vec![
                    "x-api-key: sk-ant".to_owned(),
                    "anthropic-version: 2023-06-01".to_owned()
                ],
                Some(json!(true))
            ),
            (
                "POST".into(),
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".into(),
                vec!["x-goog-api-key: g-key".to_owned()],
                None
            ),
        ]
    );
}

fn verdict_schema() -> ResponseSchema {
    ResponseSchema {
        name: "verdict".into(),
        description: "The judge's decision".into(),
        schema: json!({"type": "object", "additionalProperties": false,
            "properties": {"ok": {"type": "boolean"}, "reason": {"type": ["string", "null"]}},
            "required": ["ok", "reason"]}),
        strict: true,
    }
}

/// The part of each dialect's request body that carries the schema.
fn schema_part(dialect: Dialect, body: &Value) -> Value {
    match dialect {
        Dialect::OpenAiChat => body["response_format"].clone(),
        Dialect::OpenAiResponses => body["text"].clone(),
        Dialect::Anthropic => json!({"tools": body["tools"], "tool_choice": body["tool_choice"]}),
        Dialect::Gemini => body["generationConfig"].clone(),
    }
}

#[tokio::test]
async fn structured_output_requests_carry_the_schema_in_each_dialects_form() {
    let schema = verdict_schema();
    let mut got = Vec::new();
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(match dialect {
            // Claude answers a forced tool with that tool's input.
            Dialect::Anthropic => Turn::tool_call("verdict", json!({"ok": true, "reason": null})),
            _ => Turn::text(r#"{"ok":true,"reason":null}"#),
        });
        let p = provider(&server, dialect, json!({}));
        let req = ChatRequest {
            messages: vec![Message::user("judge this")],
            tools: Vec::new(),
            response_schema: Some(schema.clone()),
            tool_choice: None,
        };
        let resp = complete(p.as_ref(), &req).await.unwrap();
        let body = &server.requests()[0].body;
        got.push((
            schema_part(dialect, body),
            resp.message.content,
            resp.message.tool_calls,
            resp.finish_reason,
        ));
    }
    let s = &schema.schema;
    let answer = r#"{"ok":true,"reason":null}"#.to_owned();
    assert_eq!(
        got,
        vec![
            (
                json!({"type": "json_schema", "json_schema": {"name": "verdict", "description": "The judge's decision", "schema": s, "strict": true}}),
                answer.clone(),
                vec![],
                FinishReason::Stop
            ),
            (
                json!({"format": {"type": "json_schema", "name": "verdict", "description": "The judge's decision", "schema": s, "strict": true}}),
                answer.clone(),
                vec![],
                FinishReason::Stop
            ),
            (
                json!({"tools": [{"name": "verdict", "description": "The judge's decision", "input_schema": s}],
                       "tool_choice": {"type": "tool", "name": "verdict"}}),
                answer.clone(),
                vec![],
                FinishReason::Stop
            ),
            (
                json!({"responseMimeType": "application/json", "responseSchema": {"type": "object",
                    "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string", "nullable": true}},
                    "required": ["ok", "reason"]}}),
                answer,
                vec![],
                FinishReason::Stop
            ),
        ]
    );
}

#[tokio::test]
async fn a_tool_conversation_sends_results_back_in_each_dialect() {
    let mut got = Vec::new();
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(Turn::tool_call("shell", json!({"cmd": "ls"})));
        server.push(Turn::text("two files"));
        let p = provider(&server, dialect, json!({}));
        let mut req = request();
        let first = complete(p.as_ref(), &req).await.unwrap();
        let call = first.message.tool_calls[0].clone();
        req.messages.push(first.message);
        req.messages.push(Message::tool_result(
            call.id.clone(),
            "shell",
            "a\nb",
            false,
        ));
        let second = complete(p.as_ref(), &req).await.unwrap();
        let body = &server.requests()[1].body;
        let sent = match dialect {
            Dialect::OpenAiChat => body["messages"][3].clone(),
            Dialect::OpenAiResponses => body["input"][3].clone(),
            Dialect::Anthropic => body["messages"][2].clone(),
            Dialect::Gemini => body["contents"][2].clone(),
        };
        got.push((sent, second.message.content));
    }
    assert_eq!(
        got,
        vec![
            (
                json!({"role": "tool", "tool_call_id": "call_fake_1", "content": "a\nb"}),
                "two files".to_owned()
            ),
            (
                json!({"type": "function_call_output", "call_id": "call_fake_1", "output": "a\nb"}),
                "two files".to_owned()
            ),
            (
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_fake_1", "content": "a\nb",
                    "cache_control": {"type": "ephemeral"}}]}),
                "two files".to_owned()
            ),
            (
                json!({"role": "user", "parts": [{"functionResponse": {"name": "shell", "response": {"result": "a\nb"}}}]}),
                "two files".to_owned()
            ),
        ]
    );
}

#[test]
fn the_fake_server_also_runs_on_its_own_thread() {
    let server = FakeLlm::start_blocking().unwrap();
    server.push(Turn::text("from a thread"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let p = provider(&server, Dialect::OpenAiChat, json!({}));
    let resp = rt.block_on(complete(p.as_ref(), &request())).unwrap();
    assert_eq!(
        (resp.message.content.as_str(), server.remaining_turns()),
        ("from a thread", 0)
    );
}
