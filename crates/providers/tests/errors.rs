//! Each error class against the fake server: whether it is retried, how many requests it
//! took, the message wording, and that a cut stream never yields a partial message.

#![cfg(test)]

mod common;

use std::time::Duration;

use common::{ALL, provider};
use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::chat::Message;
use tether_providers::{ChatRequest, ProviderError, StreamEvent, complete};
use tether_test_support::fake_llm::{Dialect, FakeLlm, Turn};

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("hello")],
        ..ChatRequest::default()
    }
}

/// Runs one call with `turns` queued; returns the error text (or the answer) and the
/// number of requests the client made.
async fn run(turns: Vec<Turn>, opts: serde_json::Value) -> (Result<String, String>, usize) {
    let server = FakeLlm::start().await.unwrap();
    for t in turns {
        server.push(t);
    }
    let p = provider(&server, Dialect::OpenAiChat, opts);
    let result = complete(p.as_ref(), &request())
        .await
        .map(|r| r.message.content)
        .map_err(|e| e.to_string());
    (result, server.requests().len())
}

#[tokio::test]
async fn unauthorized_is_not_retried() {
    let got = run(
        vec![
            Turn::error(
                401,
                r#"{"error":{"message":"Incorrect API key provided."}}"#,
            ),
            Turn::text("never"),
        ],
        json!({}),
    )
    .await;
    assert_eq!(
        got,
        (
            Err(
                "authentication failed for `openai/gpt-4o` (HTTP 401): incorrect API key provided"
                    .to_owned()
            ),
            1
        )
    );
}

#[tokio::test]
async fn rate_limits_are_retried_after_the_servers_delay() {
    let got = run(vec![Turn::rate_limited(0), Turn::text("done")], json!({})).await;
    assert_eq!(got, (Ok("done".to_owned()), 2));
}

#[tokio::test]
async fn a_rate_limit_without_retries_left_reports_retry_after() {
    let server = FakeLlm::start().await.unwrap();
    server.push(Turn::rate_limited(7));
    let p = provider(&server, Dialect::OpenAiChat, json!({"max_retries": 0}));
    let err = complete(p.as_ref(), &request()).await.unwrap_err();
    assert_eq!(
        (err.retry_after(), err.is_retryable(), err.to_string()),
        (
            Some(Duration::from_secs(7)),
            true,
            "rate limited by `openai/gpt-4o` (retry after `7s`): rate limit reached".to_owned()
        )
    );
}

#[tokio::test]
async fn server_errors_are_retried_until_the_budget_is_spent() {
    let busy = || Turn::error(500, r#"{"error":{"message":"The server had an error."}}"#);
    let got = run(
        vec![busy(), busy(), busy(), Turn::text("late")],
        json!({"max_retries": 2}),
    )
    .await;
    assert_eq!(
        got,
        (
            Err("`openai/gpt-4o` server error (HTTP 500): the server had an error".to_owned()),
            3
        )
    );
}

#[tokio::test]
async fn context_overflow_is_classified_and_not_retried() {
    let server = FakeLlm::start().await.unwrap();
    server.push(Turn::error(
        400,
        r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}"#,
    ));
    let p = provider(&server, Dialect::OpenAiChat, json!({}));
    let err = complete(p.as_ref(), &request()).await.unwrap_err();
    assert_eq!(
        (err.is_context_overflow(), err.is_retryable(), err.to_string(), server.requests().len()),
        (
            true,
            false,
            "context window of `openai/gpt-4o` exceeded: this model's maximum context length is 128000 tokens".to_owned(),
            1
        )
    );
}

#[tokio::test]
async fn other_client_errors_are_bad_requests() {
    let got = run(
        vec![Turn::error(
            404,
            r#"{"error":{"message":"The model `gpt-9` does not exist."}}"#,
        )],
        json!({}),
    )
    .await;
    assert_eq!(
        got,
        (
            Err(
                "`openai/gpt-4o` rejected the request (HTTP 404): the model `gpt-9` does not exist"
                    .to_owned()
            ),
            1
        )
    );
}

#[tokio::test]
async fn a_cut_before_any_event_is_retried_invisibly() {
    // The first Chat chunk carries only the role, so nothing was yielded before the cut.
    let got = run(
        vec![Turn::text("lost").cut_after(1), Turn::text("again")],
        json!({}),
    )
    .await;
    assert_eq!(got, (Ok("again".to_owned()), 2));
}

/// Collects a stream until it ends: the events before the error, and the error.
async fn drain(
    server: &FakeLlm,
    dialect: Dialect,
    opts: serde_json::Value,
) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let p = provider(server, dialect, opts);
    let req = request();
    let mut stream = p.stream(&req).await.unwrap();
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

#[tokio::test]
async fn a_cut_after_text_is_an_error_without_a_partial_message_in_every_dialect() {
    let mut got = Vec::new();
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        // Enough events for the first words to arrive, not the end.
        let cut = match dialect {
            Dialect::OpenAiChat => 3,
            Dialect::OpenAiResponses => 6,
            Dialect::Anthropic => 5,
            Dialect::Gemini => 2,
        };
        server.push(Turn::text("one two three four five").cut_after(cut));
        server.push(Turn::text("must not be requested"));
        let (events, err) = drain(&server, dialect, json!({})).await;
        let completed = events
            .iter()
            .any(|e| matches!(e, StreamEvent::Completed(_)));
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let err = err.map(|e| {
            (
                e.is_retryable(),
                matches!(e, ProviderError::Protocol { .. }),
            )
        });
        got.push((dialect, text, completed, err, server.requests().len()));
    }
    assert_eq!(
        got,
        vec![
            (
                Dialect::OpenAiChat,
                "one two ".to_owned(),
                false,
                Some((true, true)),
                1
            ),
            (
                Dialect::OpenAiResponses,
                "one two ".to_owned(),
                false,
                Some((true, true)),
                1
            ),
            (
                Dialect::Anthropic,
                "one two ".to_owned(),
                false,
                Some((true, true)),
                1
            ),
            (
                Dialect::Gemini,
                "one two ".to_owned(),
                false,
                Some((true, true)),
                1
            ),
        ]
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let got = run(
        vec![Turn::stall()],
        json!({"idle_timeout_ms": 150, "max_retries": 0}),
    )
    .await;
    assert_eq!(
        got,
        (
            Err("`openai/gpt-4o` did not answer within `150ms`".to_owned()),
            1
        )
    );
}

#[tokio::test]
async fn a_stream_that_stalls_after_text_times_out_instead_of_hanging() {
    let server = FakeLlm::start().await.unwrap();
    server.push(Turn::text("half an answer").stall_after(3));
    let (events, err) = drain(
        &server,
        Dialect::OpenAiChat,
        json!({"idle_timeout_ms": 150}),
    )
    .await;
    assert_eq!(
        (events, err.map(|e| e.to_string()), server.requests().len()),
        (
            vec![
                StreamEvent::TextDelta("half ".into()),
                StreamEvent::TextDelta("an ".into())
            ],
            Some("`openai/gpt-4o` did not answer within `150ms`".to_owned()),
            1
        )
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_network_error() {
    let server = FakeLlm::start().await.unwrap();
    let url = server.base_url_for(Dialect::OpenAiChat);
    drop(server);
    // Give the listener a moment to close; the port stays unused.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut spec = tether_providers::ModelSpec::parse_inline("openai/gpt-4o").unwrap();
    spec.base_url = Some(url);
    spec.provider_opts.insert("max_retries".into(), json!(0));
    let p = tether_providers::build_provider(&spec, &common::env()).unwrap();
    let err = complete(p.as_ref(), &request()).await.unwrap_err();
    assert_eq!(
        (
            matches!(err, ProviderError::Network { .. }),
            err.is_retryable()
        ),
        (true, true),
        "{err}"
    );
}

#[tokio::test]
async fn an_unscripted_request_fails_fast_with_a_clear_message() {
    let got = run(Vec::new(), json!({})).await;
    assert_eq!(
        got,
        (
            Err(
                "`openai/gpt-4o` rejected the request (HTTP 400): fake llm: no scripted turn left"
                    .to_owned()
            ),
            1
        )
    );
}
