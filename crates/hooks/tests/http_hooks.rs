//! `type: http` hooks against a local server: verdicts from a 2xx body, failures that fail
//! closed on `pre_tool_use`, the timeout, and `${VAR}` headers from `allowed_env` only.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_config::{ConfigError, HooksConfig, load_str};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookResult, RunStatus};
use tether_protocol::{Decision, HookEvent, HookInput, Lane};
use tokio_util::sync::CancellationToken;

#[derive(Debug, Default)]
struct Seen {
    bodies: Vec<Value>,
    auth: Vec<String>,
}

type Shared = Arc<Mutex<Seen>>;

fn record(seen: &Shared, headers: &HeaderMap, body: &str) {
    let mut s = seen.lock().unwrap();
    s.bodies
        .push(serde_json::from_str(body).unwrap_or(Value::Null));
    if let Some(a) = headers.get("authorization") {
        s.auth.push(a.to_str().unwrap_or_default().to_owned());
    }
}

async fn server() -> (String, Shared) {
    let seen = Shared::default();
    let app = Router::new()
        .route(
            "/allow",
            post(|State(s): State<Shared>, h: HeaderMap, body: String| async move {
                record(&s, &h, &body);
                r#"{"hook_specific_output":{"permission_decision":"allow","permission_decision_reason":"known command"}}"#
            }),
        )
        .route(
            "/deny",
            post(|State(s): State<Shared>, h: HeaderMap, body: String| async move {
                record(&s, &h, &body);
                r#"{"hook_specific_output":{"permission_decision":"deny","permission_decision_reason":"not on the allow list"}}"#
            }),
        )
        .route(
            "/broken",
            post(|State(s): State<Shared>, h: HeaderMap, body: String| async move {
                record(&s, &h, &body);
                (StatusCode::INTERNAL_SERVER_ERROR, "database is down")
            }),
        )
        .route(
            "/slow",
            post(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "{}"
            }),
        )
        .route(
            "/context",
            post(|State(s): State<Shared>, h: HeaderMap, body: String| async move {
                record(&s, &h, &body);
                "remember: the build uses make"
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), seen)
}

fn hooks(yaml: &str) -> HooksConfig {
    let file = load_str(yaml, "agent.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    file.agents[0].hooks.clone()
}

fn executor(config: &HooksConfig) -> Executor {
    let registry = Arc::new(tether_hooks::default_registry(Shell::detect(None, None)));
    Executor::new(config, registry, ExecutorOptions::new("/tmp")).unwrap()
}

fn pre_tool_use(url: &str, extra: &str) -> HooksConfig {
    hooks(&format!(
        "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - type: http\n              url: {url}\n              timeout: 1\n{extra}"
    ))
}

fn shell_call() -> HookInput {
    let mut input = HookInput {
        session_id: "s1".into(),
        tool_name: "shell".into(),
        ..HookInput::default()
    };
    input.set_tool_arguments(r#"{"cmd":"make test"}"#);
    input
}

async fn fire(config: &HooksConfig) -> HookResult {
    executor(config)
        .dispatch_pre_tool_use(shell_call(), &CancellationToken::new())
        .await
}

#[tokio::test]
async fn a_2xx_json_body_is_the_hooks_answer() {
    let (base, seen) = server().await;
    let allow = fire(&pre_tool_use(&format!("{base}/allow"), "")).await;
    let deny = fire(&pre_tool_use(&format!("{base}/deny"), "")).await;
    assert_eq!(
        (
            allow.allowed,
            allow.decision,
            deny.allowed,
            deny.decision,
            deny.message.as_str()
        ),
        (
            true,
            Some(Decision::Allow),
            false,
            Some(Decision::Deny),
            "not on the allow list"
        )
    );
    // The body POSTed is the Input JSON.
    let body = seen.lock().unwrap().bodies[0].clone();
    assert_eq!(
        (
            body["hook_event_name"].clone(),
            body["tool_name"].clone(),
            body["tool_input"].clone()
        ),
        (
            json!("pre_tool_use"),
            json!("shell"),
            json!({"cmd": "make test"})
        )
    );
}

#[tokio::test]
async fn a_server_error_denies_on_pre_tool_use() {
    let (base, _) = server().await;
    let r = fire(&pre_tool_use(&format!("{base}/broken"), "")).await;
    assert_eq!(
        (r.allowed, r.runs[0].status, r.message.clone()),
        (
            false,
            RunStatus::Failed,
            format!(
                "pre_tool_use hook failed to execute: http hook {base}/broken: {base}/broken answered 500 Internal Server Error: database is down"
            )
        )
    );
}

#[tokio::test]
async fn an_unreachable_server_denies_on_pre_tool_use() {
    // A port nobody listens on: bind one, then drop the listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let r = fire(&pre_tool_use(&format!("http://127.0.0.1:{port}/x"), "")).await;
    assert_eq!((r.allowed, r.runs[0].status), (false, RunStatus::Failed));
    assert!(r.message.contains("cannot reach"), "{}", r.message);
}

#[tokio::test]
async fn a_slow_server_times_out_and_denies() {
    let (base, _) = server().await;
    let url = format!("{base}/slow");
    let r = fire(&pre_tool_use(&url, "")).await;
    assert_eq!(
        (r.allowed, r.runs[0].status, r.message.clone()),
        (
            false,
            RunStatus::TimedOut,
            format!("pre_tool_use hook failed to execute: hook \"{url}\" timed out after 1s")
        )
    );
}

#[tokio::test]
async fn headers_expand_only_the_variables_listed_in_allowed_env() {
    let (base, seen) = server().await;
    let config = pre_tool_use(
        &format!("{base}/allow"),
        "              headers:\n                Authorization: Bearer ${HOOK_TOKEN}\n              allowed_env: [HOOK_TOKEN]\n              env:\n                HOOK_TOKEN: s3cr3t\n",
    );
    let r = fire(&config).await;
    assert!(r.allowed);
    assert_eq!(seen.lock().unwrap().auth, ["Bearer s3cr3t"]);
    // A variable not listed is refused at load.
    let err = load_str(
        &format!(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: http\n          url: {base}/allow\n          headers:\n            Authorization: Bearer ${{HOME}}\n"
        ),
        "agent.yaml",
        Path::new("."),
    )
    .err()
    .unwrap();
    let ConfigError::Invalid(d) = err else {
        panic!("{err}")
    };
    assert_eq!(
        d.0[0].to_string().lines().next().unwrap(),
        "agent.yaml:8:28: agents.root.hooks.stop[0].headers.Authorization: header `Authorization` uses `${HOME}`, which is not in `allowed_env`"
    );
}

#[tokio::test]
async fn an_unset_allowed_variable_fails_the_hook() {
    let (base, seen) = server().await;
    let config = pre_tool_use(
        &format!("{base}/allow"),
        "              headers:\n                Authorization: Bearer ${TETHER_TEST_SURELY_UNSET_VAR}\n              allowed_env: [TETHER_TEST_SURELY_UNSET_VAR]\n",
    );
    let r = fire(&config).await;
    assert_eq!(
        (r.allowed, seen.lock().unwrap().bodies.len()),
        (false, 0),
        "{}",
        r.message
    );
    assert!(
        r.message.ends_with(
            "header `Authorization`: environment variable `TETHER_TEST_SURELY_UNSET_VAR` is not set"
        ),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn plain_text_bodies_are_context_on_context_events() {
    let (base, _) = server().await;
    let config = hooks(&format!(
        "agents:\n  root:\n    hooks:\n      post_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: http\n              url: {base}/context\n"
    ));
    let r = executor(&config)
        .dispatch(
            HookEvent::PostToolUse,
            Lane::Default,
            shell_call(),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(r.additional_context, "remember: the build uses make");
}
