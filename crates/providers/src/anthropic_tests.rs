use super::*;
use pretty_assertions::assert_eq;

#[test]
fn tool_results_become_user_blocks_and_thinking_is_sent_back_first() {
    let mut assistant = Message::assistant("");
    assistant.reasoning_content = "ignored: provider_state wins".into();
    assistant.thinking_signature = "sig-fallback".into();
    assistant.provider_state = Some(json!({"anthropic": {"thinking": [
        {"type": "thinking", "thinking": "step 1", "signature": "sig1"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]}}));
    assistant.tool_calls = vec![
        ToolCall::new("toolu_1", "ls", r#"{"path":"."}"#),
        ToolCall::new("toolu_2", "ls", ""),
    ];
    let req = ChatRequest {
        messages: vec![
            Message::system("one"),
            Message::user("list"),
            Message::system("two"),
            assistant,
            Message::tool_result("toolu_1", "ls", "a", false),
            Message::tool_result("toolu_2", "ls", "boom", true),
        ],
        ..ChatRequest::default()
    };
    let spec = ModelSpec::parse_inline("anthropic/claude-sonnet-4-0").unwrap();
    assert_eq!(
        body(&spec, &req),
        json!({
            "model": "claude-sonnet-4-0",
            "max_tokens": 64000,
            "stream": true,
            "system": [
                {"type": "text", "text": "one"},
                {"type": "text", "text": "two", "cache_control": {"type": "ephemeral"}},
            ],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "list"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "step 1", "signature": "sig1"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
                    {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom",
                     "is_error": true, "cache_control": {"type": "ephemeral"}},
                ]},
            ],
        })
    );
}

#[test]
fn signature_fields_are_the_fallback_for_thinking_blocks() {
    let mut assistant = Message::assistant("4");
    assistant.reasoning_content = "2+2".into();
    assistant.thinking_signature = "sig".into();
    assert_eq!(
        blocks(&assistant),
        (
            "assistant",
            vec![
                json!({"type": "thinking", "thinking": "2+2", "signature": "sig"}),
                json!({"type": "text", "text": "4"}),
            ]
        )
    );
}

#[test]
fn thinking_budget_enables_thinking_and_drops_temperature() {
    let mut spec = ModelSpec::parse_inline("anthropic/claude-3-haiku-20240307").unwrap();
    spec.temperature = Some(0.2);
    spec.provider_opts
        .insert("thinking_budget".into(), json!(1024));
    let req = ChatRequest {
        messages: vec![Message::user("hi")],
        ..ChatRequest::default()
    };
    let b = body(&spec, &req);
    assert_eq!(
        (b.get("thinking"), b.get("temperature"), b.get("max_tokens")),
        (
            Some(&json!({"type": "enabled", "budget_tokens": 1024})),
            None,
            Some(&json!(4096))
        )
    );
}

fn decode(events: &[&str]) -> Result<Vec<StreamEvent>, String> {
    let mut d = AnthropicDecoder::new("anthropic/x", None);
    let mut out = Vec::new();
    for data in events {
        let ev = SseEvent {
            event: String::new(),
            data: (*data).to_owned(),
        };
        d.event(ev, &mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[test]
fn an_overloaded_error_event_mid_stream_is_a_retryable_server_error() {
    let got = decode(&[
        r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ]);
    assert_eq!(
        got,
        Err("`anthropic/x` server error (HTTP 500): overloaded".to_owned())
    );
}

#[test]
fn thinking_deltas_and_signature_are_assembled_and_kept() {
    let got = decode(&[
        r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"2+2"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"4"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
        r#"{"type":"message_stop"}"#,
    ])
    .unwrap();
    let mut message = Message::assistant("4");
    message.reasoning_content = "2+2".into();
    message.thinking_signature = "EqQB".into();
    message.provider_state = Some(json!({"anthropic": {"thinking": [
        {"type": "thinking", "thinking": "2+2", "signature": "EqQB"}
    ]}}));
    assert_eq!(
        got,
        vec![
            StreamEvent::ReasoningDelta("2+2".into()),
            StreamEvent::TextDelta("4".into()),
            StreamEvent::Completed(ModelResponse {
                message,
                usage: Some(Usage {
                    input_tokens: 5,
                    output_tokens: 9,
                    ..Usage::default()
                }),
                finish_reason: FinishReason::Stop,
            }),
        ]
    );
}
