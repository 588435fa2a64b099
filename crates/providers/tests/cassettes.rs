//! Every recorded transcript replays through the real client code and yields exactly the
//! recorded text, tool calls (name, id, arguments) and usage.

#![cfg(test)]

use std::sync::Arc;

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::chat::{Message, ToolCall, Usage};
use tether_providers::{
    ChatRequest, FinishReason, MapEnv, ModelResponse, ModelSpec, Provider, StreamEvent,
    build_provider, complete,
};
use tether_test_support::cassette::{CassetteServer, cassette_path};

fn env() -> MapEnv {
    MapEnv::new([
        ("OPENAI_API_KEY", "k"),
        ("ANTHROPIC_API_KEY", "k"),
        ("GOOGLE_API_KEY", "k"),
    ])
}

async fn replay(name: &str, model: &str) -> (CassetteServer, Arc<dyn Provider>) {
    let server = CassetteServer::start(cassette_path(name)).await.unwrap();
    let mut spec = ModelSpec::parse_inline(model).unwrap();
    let base = server.base_url();
    spec.base_url = Some(match spec.provider.as_str() {
        "openai" => format!("{base}/v1"),
        _ => base,
    });
    spec.provider_opts.insert("max_retries".into(), json!(0));
    let provider = build_provider(&spec, &env()).unwrap();
    (server, provider)
}

/// The path and query the recording was made against.
fn recorded_paths(server: &CassetteServer) -> Vec<String> {
    server
        .cassette()
        .interactions
        .iter()
        .map(|i| {
            let url = &i.request.url;
            let after_host = url.splitn(4, '/').nth(3).unwrap_or_default();
            format!("/{after_host}")
        })
        .collect()
}

fn usage(input: u64, output: u64, cached: u64, write: u64, reasoning: Option<u64>) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
        cached_write_tokens: write,
        reasoning_tokens: reasoning,
    }
}

fn text_response(text: &str, usage: Usage) -> ModelResponse {
    ModelResponse {
        message: Message::assistant(text),
        usage: Some(usage),
        finish_reason: FinishReason::Stop,
    }
}

fn call_response(call: ToolCall, usage: Usage) -> ModelResponse {
    let mut message = Message::assistant("");
    message.tool_calls.push(call);
    ModelResponse {
        message,
        usage: Some(usage),
        finish_reason: FinishReason::ToolCalls,
    }
}

fn user(prompt: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("You are a knowledgeable assistant."),
            Message::user(prompt),
        ],
        ..ChatRequest::default()
    }
}

/// Runs a two-call tool conversation: the prompt, then the recorded call's result.
async fn tool_conversation(provider: &dyn Provider, result: &str) -> Vec<ModelResponse> {
    let mut req = user("How many files in testdata/working_dir? Only output the number.");
    let first = complete(provider, &req).await.unwrap();
    let call = first.message.tool_calls[0].clone();
    req.messages.push(first.message.clone());
    req.messages.push(Message::tool_result(
        call.id,
        call.function.name,
        result,
        false,
    ));
    let second = complete(provider, &req).await.unwrap();
    vec![first, second]
}

#[tokio::test]
async fn openai_chat_text_replays_exactly() {
    let (server, provider) = replay("TestExec_OpenAI", "openai/gpt-3.5-turbo").await;
    let got = complete(provider.as_ref(), &user("What's 2+2?"))
        .await
        .unwrap();
    assert_eq!(
        (got, server.request_paths()),
        (
            text_response("2 + 2 equals 4.", usage(41, 8, 0, 0, Some(0))),
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn openai_chat_tool_call_replays_exactly() {
    let (server, provider) = replay("TestExec_OpenAI_ToolCall", "openai/gpt-4o").await;
    let got = tool_conversation(provider.as_ref(), "FILE README.me\n").await;
    assert_eq!(
        (got, server.request_paths()),
        (
            vec![
                call_response(
                    ToolCall::new(
                        "call_I1tmAsYKD7bveEpXORJwVFgs",
                        "list_directory",
                        r#"{"path":"testdata/working_dir"}"#
                    ),
                    usage(785, 18, 0, 0, Some(0))
                ),
                text_response("1", usage(815, 2, 0, 0, Some(0))),
            ],
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn anthropic_text_replays_exactly() {
    let (server, provider) = replay("TestExec_Anthropic", "anthropic/claude-sonnet-4-0").await;
    let got = complete(provider.as_ref(), &user("What's 2+2?"))
        .await
        .unwrap();
    assert_eq!(
        (got, server.request_paths()),
        (
            text_response("2 + 2 = 4", usage(42, 13, 0, 0, None)),
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn anthropic_tool_call_replays_exactly() {
    let (server, provider) =
        replay("TestExec_Anthropic_ToolCall", "anthropic/claude-sonnet-4-0").await;
    let got = tool_conversation(provider.as_ref(), "FILE README.me").await;
    assert_eq!(
        (got, server.request_paths()),
        (
            vec![
                call_response(
                    ToolCall::new(
                        "toolu_012gmfqnoTX8c5aV3vMWUnas",
                        "list_directory",
                        r#"{"path": "testdata/working_dir"}"#
                    ),
                    usage(3, 58, 0, 1276, None)
                ),
                text_response("1", usage(6, 4, 1276, 72, None)),
            ],
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn gemini_tool_call_replays_exactly() {
    let (server, provider) = replay("TestExec_Gemini_ToolCall", "google/gemini-2.5-flash").await;
    let got = tool_conversation(provider.as_ref(), "FILE README.me\n").await;
    assert_eq!(
        (got, server.request_paths()),
        (
            vec![
                call_response(
                    ToolCall::new(
                        "call_EhemaamYOKz7nsEP58LA8Qw_0",
                        "list_directory",
                        r#"{"path":"testdata/working_dir"}"#
                    ),
                    usage(868, 20, 0, 0, None)
                ),
                text_response("1", usage(940, 1, 0, 0, None)),
            ],
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn openai_responses_text_replays_exactly() {
    let (server, provider) = replay("TestExec_OpenAI_gpt5", "openai/gpt-5").await;
    let got = complete(provider.as_ref(), &user("What's 2+2?"))
        .await
        .unwrap();
    let mut want = text_response("4", usage(39, 7, 0, 0, Some(0)));
    want.message.provider_state = Some(json!({"openai_responses": {"reasoning": [
        {"id": "rs_019f7c940afca45900696e647a4744819093a8d95a854ddea6", "type": "reasoning", "summary": []}
    ]}}));
    assert_eq!(
        (got, server.request_paths()),
        (want, recorded_paths(&server))
    );
}

#[tokio::test]
async fn openai_responses_tool_call_replays_exactly() {
    let (server, provider) = replay("TestExec_ToolCallsNeedAcceptance", "openai/gpt-5-mini").await;
    let mut req = user("Create a hello.txt file with \"Hello, World!\" content.");
    let mut first = complete(provider.as_ref(), &req).await.unwrap();
    req.messages.push(first.message.clone());
    req.messages.push(Message::tool_result(
        "call_5W18F6XkDh9NllAH9r0P9GuF",
        "write_file",
        "The user rejected the tool call.",
        true,
    ));
    let mut second = complete(provider.as_ref(), &req).await.unwrap();
    // Reasoning items are checked in the text test; here the calls, text and usage matter.
    first.message.provider_state = None;
    second.message.provider_state = None;
    assert_eq!(
        (vec![first, second], server.request_paths()),
        (
            vec![
                call_response(
                    ToolCall::new(
                        "call_5W18F6XkDh9NllAH9r0P9GuF",
                        "write_file",
                        r#"{"content":"Hello, World!","path":"hello.txt"}"#
                    ),
                    usage(248, 348, 0, 0, Some(320))
                ),
                text_response("", usage(289, 390, 0, 0, Some(384))),
            ],
            recorded_paths(&server)
        )
    );
}

#[tokio::test]
async fn a_tool_call_is_announced_before_the_completed_response() {
    let (_server, provider) = replay("TestExec_OpenAI_ToolCall", "openai/gpt-4o").await;
    let req = user("How many files?");
    let events: Vec<StreamEvent> = provider
        .stream(&req)
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            StreamEvent::TextDelta(t) => format!("text:{t}"),
            StreamEvent::ReasoningDelta(t) => format!("reasoning:{t}"),
            StreamEvent::ToolCallStarted { id, name } => format!("call:{id}:{name}"),
            StreamEvent::Completed(r) => format!("completed:{}", r.message.tool_calls.len()),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "call:call_I1tmAsYKD7bveEpXORJwVFgs:list_directory".to_owned(),
            "completed:1".to_owned()
        ]
    );
}

#[test]
fn every_shared_cassette_has_a_replay_test_here() {
    let dir = cassette_path("x").parent().unwrap().to_path_buf();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            "TestExec_Anthropic.yaml",
            "TestExec_Anthropic_ToolCall.yaml",
            "TestExec_Gemini_ToolCall.yaml",
            "TestExec_OpenAI.yaml",
            "TestExec_OpenAI_ToolCall.yaml",
            "TestExec_OpenAI_gpt5.yaml",
            "TestExec_ToolCallsNeedAcceptance.yaml",
        ]
    );
}

#[tokio::test]
async fn a_request_past_the_recording_is_refused_and_counted() {
    let (server, provider) = replay("TestExec_OpenAI", "openai/gpt-3.5-turbo").await;
    complete(provider.as_ref(), &user("What's 2+2?"))
        .await
        .unwrap();
    let err = complete(provider.as_ref(), &user("again"))
        .await
        .unwrap_err();
    assert_eq!(
        (err.to_string(), server.served(), server.len(), server.request_paths().len()),
        (
            "`openai/gpt-3.5-turbo` rejected the request (HTTP 400): cassette exhausted: more requests than recorded interactions".to_owned(),
            1,
            1,
            2
        )
    );
}
