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
