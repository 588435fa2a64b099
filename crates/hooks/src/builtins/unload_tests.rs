//! `unload` URL rules (docs/hooks.md, Builtins) and the requests a DMR-style server receives.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::IntoResponse;
use pretty_assertions::assert_eq;
use tether_protocol::{AgentModelRef, HookEvent, HookInput, HookOutput};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

/// What the server received: `(path, content type, body)`.
type Seen = Arc<Mutex<Vec<(String, String, serde_json::Value)>>>;

/// A DMR stand-in on 127.0.0.1: records POSTs; `/slow/…` never answers in time, `/fail/…`
/// answers 500.
async fn dmr() -> (SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: String| {
        let seen = record.clone();
        async move {
            let path = uri.path().to_owned();
            let kind = headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let json = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
            seen.lock().unwrap().push((path.clone(), kind, json));
            if path.starts_with("/slow/") {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            if path.starts_with("/fail/") {
                return StatusCode::INTERNAL_SERVER_ERROR.into_response();
            }
            StatusCode::OK.into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

fn model(provider: &str, name: &str, base_url: &str, unload_api: &str) -> AgentModelRef {
    AgentModelRef {
        provider: provider.into(),
        model: name.into(),
        base_url: base_url.into(),
        unload_api: unload_api.into(),
    }
}

fn switch(from: &str, to: &str, models: Vec<AgentModelRef>) -> HookInput {
    HookInput {
        session_id: "s1".into(),
        from_agent: from.into(),
        to_agent: to.into(),
        from_agent_models: models,
        ..HookInput::default()
    }
}

async fn fire(input: HookInput) -> Result<Option<HookOutput>, String> {
    let cancel = CancellationToken::new();
    Unload
        .call(BuiltinCall {
            event: HookEvent::OnAgentSwitch,
            input: &input,
            args: &[],
            cwd: std::path::Path::new("/"),
            env: &HookEnv::default(),
            cancel: &cancel,
            notes: &crate::registry::Notes::default(),
        })
        .await
}

fn url(base_url: &str, unload_api: &str) -> Result<Option<String>, String> {
    unload_url(&model("dmr", "m", base_url, unload_api)).map(|u| u.map(String::from))
}

#[test]
fn unload_urls_follow_the_spec_rules() {
    /// `(base_url, unload_api, expected URL or error)`.
    type Case<'a> = (&'a str, &'a str, Result<Option<&'a str>, &'a str>);
    let cases: [Case<'_>; 10] = [
        (
            "http://h:12434/engines/llama.cpp/v1",
            "",
            Ok(Some("http://h:12434/engines/llama.cpp/_unload")),
        ),
        (
            "http://h:12434/engines/llama.cpp/v1/",
            "",
            Ok(Some("http://h:12434/engines/llama.cpp/_unload")),
        ),
        (
            "http://h:12434/engines",
            "",
            Ok(Some("http://h:12434/engines/_unload")),
        ),
        ("http://h:12434", "", Ok(Some("http://h:12434/_unload"))),
        (
            "http://h:12434/v1/v1",
            "",
            Ok(Some("http://h:12434/v1/_unload")),
        ),
        (
            "http://h/x/v1",
            "/custom/unload",
            Ok(Some("http://h/custom/unload")),
        ),
        ("http://h/x/v1", "custom", Ok(Some("http://h/custom"))),
        ("", "https://other:1/free", Ok(Some("https://other:1/free"))),
        ("", "", Ok(None)),
        (
            "",
            "relative",
            Err("invalid base_url ``: relative URL without a base"),
        ),
    ];
    for (base, api, expected) in cases {
        let expected = expected
            .map(|o| o.map(str::to_owned))
            .map_err(str::to_owned);
        assert_eq!(url(base, api), expected, "{base:?} {api:?}");
    }
    assert_eq!(
        url("localhost:12434", ""),
        Err("base_url `localhost:12434` is not absolute".to_owned())
    );
}

#[tokio::test]
async fn each_dmr_model_of_the_departing_agent_is_unloaded() {
    let (addr, seen) = dmr().await;
    let base = format!("http://{addr}/engines/llama.cpp/v1");
    let models = vec![
        model("dmr", "ai/smollm2", &base, ""),
        model("openai", "gpt-4o", "https://api.openai.com/v1", ""),
        model("dmr", "ai/qwen3", &base, "/models/unload"),
        model(
            "dmr",
            "ai/gemma3",
            "",
            &format!("http://{addr}/fail/unload"),
        ),
        model("dmr", "ai/none", "", ""),
        model("dmr", "ai/llama", &format!("http://{addr}/v1"), ""),
    ];
    assert_eq!(fire(switch("coder", "reviewer", models)).await, Ok(None));
    let kind = "application/json".to_owned();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (
                "/engines/llama.cpp/_unload".to_owned(),
                kind.clone(),
                serde_json::json!({"model": "ai/smollm2"})
            ),
            (
                "/models/unload".to_owned(),
                kind.clone(),
                serde_json::json!({"model": "ai/qwen3"})
            ),
            (
                "/fail/unload".to_owned(),
                kind.clone(),
                serde_json::json!({"model": "ai/gemma3"})
            ),
            (
                "/_unload".to_owned(),
                kind,
                serde_json::json!({"model": "ai/llama"})
            ),
        ]
    );
}

#[tokio::test]
async fn failures_are_noted_not_returned() {
    let (addr, _seen) = dmr().await;
    let input = switch(
        "a",
        "b",
        vec![
            model("dmr", "broken", "not a url", ""),
            model("dmr", "failing", &format!("http://{addr}/fail/v1"), ""),
        ],
    );
    let (cancel, notes) = (CancellationToken::new(), crate::registry::Notes::default());
    let out = Unload
        .call(BuiltinCall {
            event: HookEvent::OnAgentSwitch,
            input: &input,
            args: &[],
            cwd: std::path::Path::new("/"),
            env: &HookEnv::default(),
            cancel: &cancel,
            notes: &notes,
        })
        .await;
    assert_eq!(out, Ok(None));
    assert_eq!(
        notes.take(),
        Some(format!(
            "unload `broken`: invalid base_url `not a url`: relative URL without a base; \
             unload `failing`: `http://{addr}/fail/_unload` answered 500 Internal Server Error"
        ))
    );
}

#[tokio::test]
async fn no_switch_means_no_requests() {
    let (addr, seen) = dmr().await;
    let models = || vec![model("dmr", "m", &format!("http://{addr}/v1"), "")];
    assert_eq!(fire(switch("", "b", models())).await, Ok(None));
    assert_eq!(fire(switch("a", "a", models())).await, Ok(None));
    assert_eq!(*seen.lock().unwrap(), Vec::new());
}

#[tokio::test]
async fn a_stuck_engine_is_given_up_at_the_timeout() {
    assert_eq!(TIMEOUT, Duration::from_secs(10));
    let (addr, seen) = dmr().await;
    let client = client_builder().build().unwrap();
    let slow = Url::parse(&format!("http://{addr}/slow/_unload")).unwrap();
    let err = unload(&client, slow, "m", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(err.contains("timed out"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}
