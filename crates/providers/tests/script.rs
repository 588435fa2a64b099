//! The `script` model built the way the runtime builds it: from a spec, through
//! `build_provider`, with the agent file's directory as base.

#![cfg(test)]

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_protocol::chat::{Message, ToolCall, Usage};
use tether_providers::{
    ChatRequest, FinishReason, MapEnv, ModelSpec, build_provider, catalogue, complete,
};

#[tokio::test]
async fn the_seed004_script_runs_offline_through_build_provider() {
    let mut spec = ModelSpec::parse_inline("script/seed004.script.yaml").unwrap();
    spec.base_dir = Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"));
    let p = build_provider(&spec, &MapEnv::default()).unwrap();
    let mut req = ChatRequest {
        messages: vec![
            Message::system("You are a helpful assistant."),
            Message::user("Run: echo hello"),
        ],
        ..ChatRequest::default()
    };
    let first = complete(p.as_ref(), &req).await.unwrap();
    req.messages.push(first.message.clone());
    req.messages
        .push(Message::tool_result("call_1", "shell", "hello\n", false));
    let second = complete(p.as_ref(), &req).await.unwrap();
    let usage = first.usage.unwrap_or_default();
    assert_eq!(
        (
            p.id().to_owned(),
            first.message.tool_calls,
            first.finish_reason,
            second.message.content,
            catalogue::cost_for(&spec.provider, &spec.model, &usage),
            spec.context_window(),
        ),
        (
            "script/seed004.script.yaml".to_owned(),
            vec![ToolCall::new("call_1", "shell", r#"{"cmd":"echo hello"}"#)],
            FinishReason::ToolCalls,
            "The `shell` tool returned:\nhello\n".to_owned(),
            Some(0.0),
            Some(128_000),
        )
    );
    assert_ne!(usage, Usage::default(), "usage must be reported");
}

#[test]
fn a_malformed_script_fails_at_build_time_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "default:\n  text: hi\nrules: 3\n",
    )
    .unwrap();
    let mut spec = ModelSpec::parse_inline("script/bad.yaml").unwrap();
    spec.base_dir = Some(dir.path().to_path_buf());
    let err = build_provider(&spec, &MapEnv::default()).unwrap_err();
    let shown = err.to_string();
    let path = dir.path().join("bad.yaml").display().to_string();
    assert_eq!(
        shown.strip_prefix(&path),
        Some(":3:8: expected sequence start (at `rules`)"),
        "{shown}"
    );
}
