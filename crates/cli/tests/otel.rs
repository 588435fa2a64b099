//! OpenTelemetry export (feature `otel`): a real `tether run --exec` on the script model sends
//! its spans to a local OTLP/HTTP receiver, which decodes the protobuf
//! `ExportTraceServiceRequest`s; the tests check span names, kinds, parent links and attributes
//! (Tether's `tether.*` and the GenAI conventions' `gen_ai.*`), the flush after Ctrl-C, and a
//! bounded exit when the collector stalls. Names start with `otel`
//! for CI's `-E 'test(otel)'`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Uri, header::CONTENT_TYPE};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::{Span, status::StatusCode};
use pretty_assertions::assert_eq;
use prost::Message;
use serde_json::{Value, json};
use tempfile::TempDir;

/// One request the receiver got.
#[derive(Debug)]
struct Export {
    path: String,
    content_type: String,
    request: Result<ExportTraceServiceRequest, String>,
}

#[derive(Debug, Clone, Default)]
struct Received(Arc<Mutex<Vec<Export>>>);

async fn collect(
    State(received): State<Received>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> ([(axum::http::HeaderName, &'static str); 1], Vec<u8>) {
    let export = Export {
        path: uri.path().to_owned(),
        content_type: headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        request: ExportTraceServiceRequest::decode(body).map_err(|e| e.to_string()),
    };
    received.0.lock().unwrap().push(export);
    // An empty `ExportTraceServiceResponse`: everything accepted.
    ([(CONTENT_TYPE, "application/x-protobuf")], Vec::new())
}

/// A receiver on 127.0.0.1:0: its base URL and what it got.
async fn receiver() -> (String, Received) {
    let received = Received::default();
    let app = Router::new().fallback(collect).with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), received)
}

/// Writes the agent and its script into `dir`. Its `pre_tool_use` hook saves its Input to
/// `pre.json`; `on_user_input` (interactive sessions) appends a line to `waiting`.
fn agent(dir: &Path, script: &str) {
    std::fs::write(dir.join("s.yaml"), script).unwrap();
    let pre = dir.join("pre.json");
    let waiting = dir.join("waiting");
    std::fs::write(
        dir.join("agent.yaml"),
        format!(
            r#"agents:
  root:
    model: script/s.yaml
    toolsets: [{{type: shell}}]
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: command
              name: guard
              command: 'cat > {pre}; echo "{{\"hook_specific_output\":{{\"permission_decision\":\"allow\"}}}}"'
      post_tool_use:
        - matcher: shell
          hooks:
            - {{type: command, name: audit, command: 'cat > /dev/null; exit 1'}}
      on_user_input:
        - {{type: command, name: waiting, command: 'cat > /dev/null; echo x >> {waiting}'}}
"#,
            pre = pre.display(),
            waiting = waiting.display()
        ),
    )
    .unwrap();
}

/// `tether run agent.yaml --exec PROMPT` in `dir` with `env` (every other `OTEL_*` removed).
fn tether(dir: &Path, env: &[(&str, &str)], prompt: &str) -> std::process::Command {
    tether_with(dir, env, &["run", "agent.yaml", "--exec", prompt])
}

/// `tether ARGS…` in `dir` with `env` (every other `OTEL_*` removed).
fn tether_with(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> std::process::Command {
    #[expect(
        clippy::disallowed_methods,
        reason = "the Ctrl-C test needs the child's pid to signal it"
    )]
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tether"));
    cmd.current_dir(dir)
        .stdin(std::process::Stdio::null())
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("SHELL", "/bin/bash")
        // No `--yolo`: it would skip the default-lane `pre_tool_use` hook, whose `allow` runs
        // the call.
        .args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("OTEL_") {
            cmd.env_remove(key);
        }
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd
}

fn value(kv: &KeyValue) -> Value {
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => json!(s),
        Some(any_value::Value::IntValue(i)) => json!(i),
        Some(any_value::Value::BoolValue(b)) => json!(b),
        Some(any_value::Value::DoubleValue(d)) => json!(d),
        Some(any_value::Value::ArrayValue(a)) => a
            .values
            .iter()
            .map(|v| match &v.value {
                Some(any_value::Value::StringValue(s)) => json!(s),
                other => json!(format!("{other:?}")),
            })
            .collect(),
        other => json!(format!("{other:?}")),
    }
}

fn attrs(list: &[KeyValue]) -> BTreeMap<String, Value> {
    list.iter().map(|kv| (kv.key.clone(), value(kv))).collect()
}

/// Every span received, and the resources' `service.name`s.
fn spans(received: &Received, path: &str) -> (Vec<Span>, Vec<Value>) {
    let exports = received.0.lock().unwrap();
    assert!(!exports.is_empty(), "nothing reached the receiver");
    let mut spans = Vec::new();
    let mut services = Vec::new();
    for e in exports.iter() {
        assert_eq!(
            (e.path.as_str(), e.content_type.as_str()),
            (path, "application/x-protobuf")
        );
        let request = e.request.as_ref().unwrap();
        for rs in &request.resource_spans {
            let resource = attrs(&rs.resource.as_ref().unwrap().attributes);
            services.push(resource["service.name"].clone());
            for ss in &rs.scope_spans {
                assert_eq!(ss.scope.as_ref().map(|s| s.name.as_str()), Some("tether"));
                spans.extend(ss.spans.iter().cloned());
            }
        }
    }
    // A tool call starts with its first hook: on a tie the longer span (the parent) comes first.
    spans.sort_by_key(|s| {
        (
            s.start_time_unix_nano,
            std::cmp::Reverse(s.end_time_unix_nano),
        )
    });
    (spans, services)
}

/// The only span named `name`.
fn one<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "spans named `{name}`");
    found[0]
}

fn parent_name(spans: &[Span], span: &Span) -> String {
    if span.parent_span_id.is_empty() {
        return "(root)".to_owned();
    }
    spans
        .iter()
        .find(|s| s.span_id == span.parent_span_id)
        .map_or_else(|| "(missing)".to_owned(), |s| s.name.clone())
}

fn status(span: &Span) -> StatusCode {
    span.status.as_ref().map_or(StatusCode::Unset, |s| s.code())
}

/// A hook span's attributes without the duration, which is checked to be a positive number.
fn hook_attrs(span: &Span) -> BTreeMap<String, Value> {
    let mut a = attrs(&span.attributes);
    let ms = a.remove("tether.hook.duration_ms").unwrap();
    assert!(ms.as_f64().unwrap() > 0.0, "duration {ms}");
    a
}

const TWO_TURNS: &str = "replies:
  - tool_calls:
      - name: shell
        arguments: {cmd: 'echo hi'}
    usage: {input_tokens: 40, output_tokens: 7}
  - text: done
    usage: {input_tokens: 60, output_tokens: 3}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otel_spans_of_a_run_reach_the_collector_with_their_links_and_hook_attributes() {
    let (base, received) = receiver().await;
    let dir = TempDir::new().unwrap();
    agent(dir.path(), TWO_TURNS);
    let cwd = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        tether(&cwd, &[("OTEL_EXPORTER_OTLP_ENDPOINT", &base)], "go")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("telemetry"), "{stderr}");

    let (all, services) = spans(&received, "/v1/traces");
    assert!(
        services.iter().all(|s| *s == json!("tether")),
        "{services:?}"
    );
    // Builtins injected by default (e.g. `limit_large_tool_results`) are checked by rule below;
    // the shape is that of the agent file's hooks.
    let spans: Vec<Span> = all
        .iter()
        .filter(|s| {
            attrs(&s.attributes)
                .get("tether.hook.source")
                .is_none_or(|v| *v == json!("yaml"))
        })
        .cloned()
        .collect();
    let shape: Vec<(String, String)> = spans
        .iter()
        .map(|s| (s.name.clone(), parent_name(&spans, s)))
        .collect();
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(
        shape,
        [
            pair("invoke_agent root", "(root)"),
            pair("turn", "invoke_agent root"),
            pair("chat s.yaml", "turn"),
            pair("execute_tool shell", "turn"),
            pair("hook pre_tool_use", "execute_tool shell"),
            pair("hook post_tool_use", "execute_tool shell"),
            pair("turn", "invoke_agent root"),
            pair("chat s.yaml", "turn"),
        ]
    );
    // Parents are the right instances (the tool call is in the first turn), all in one trace.
    let first_turn = &spans[1];
    assert_eq!(spans[3].parent_span_id, first_turn.span_id);
    assert_eq!(spans[2].parent_span_id, first_turn.span_id);
    assert_eq!(spans[7].parent_span_id, spans[6].span_id);
    assert!(spans.iter().all(|s| s.trace_id == spans[0].trace_id));

    // What the pre_tool_use hook received names the same session and call as the spans.
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("pre.json")).unwrap())
            .unwrap();
    let session_id = input["session_id"].clone();
    assert!(session_id.is_string(), "{input}");
    let internal = SpanKind::Internal as i32;
    let session = one(&spans, "invoke_agent root");
    assert_eq!(
        (attrs(&session.attributes), session.kind),
        (
            BTreeMap::from([
                ("gen_ai.agent.name".to_owned(), json!("root")),
                ("gen_ai.conversation.id".to_owned(), session_id.clone()),
                ("gen_ai.operation.name".to_owned(), json!("invoke_agent")),
                ("gen_ai.provider.name".to_owned(), json!("script")),
                ("gen_ai.request.model".to_owned(), json!("s.yaml")),
                ("tether.agent".to_owned(), json!("root")),
                ("tether.session.end_reason".to_owned(), json!("other")),
                ("tether.session.id".to_owned(), session_id.clone()),
                ("tether.session.resumed".to_owned(), json!(false)),
            ]),
            internal
        )
    );
    let turns: Vec<BTreeMap<String, Value>> = spans
        .iter()
        .filter(|s| s.name == "turn")
        .map(|s| attrs(&s.attributes))
        .collect();
    assert_eq!(
        turns,
        [
            BTreeMap::from([
                ("tether.turn.iteration".to_owned(), json!(1)),
                ("tether.turn.reason".to_owned(), json!("continue")),
            ]),
            BTreeMap::from([
                ("tether.turn.iteration".to_owned(), json!(2)),
                ("tether.turn.reason".to_owned(), json!("normal")),
            ]),
        ]
    );
    let models: Vec<(BTreeMap<String, Value>, i32)> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .map(|s| (attrs(&s.attributes), s.kind))
        .collect();
    let model = |input: i64, output: i64, finish: &str| {
        BTreeMap::from([
            ("gen_ai.conversation.id".to_owned(), session_id.clone()),
            ("gen_ai.operation.name".to_owned(), json!("chat")),
            ("gen_ai.provider.name".to_owned(), json!("script")),
            ("gen_ai.request.model".to_owned(), json!("s.yaml")),
            ("gen_ai.response.finish_reasons".to_owned(), json!([finish])),
            // Nothing was cached: the conventions' count is Tether's.
            ("gen_ai.usage.input_tokens".to_owned(), json!(input)),
            ("gen_ai.usage.output_tokens".to_owned(), json!(output)),
            // The script model is free.
            ("tether.cost_usd".to_owned(), json!(0.0)),
            ("tether.model.id".to_owned(), json!("script/s.yaml")),
            ("tether.usage.cached_input_tokens".to_owned(), json!(0)),
            ("tether.usage.cached_write_tokens".to_owned(), json!(0)),
            ("tether.usage.input_tokens".to_owned(), json!(input)),
            ("tether.usage.output_tokens".to_owned(), json!(output)),
        ])
    };
    let client = SpanKind::Client as i32;
    assert_eq!(
        models,
        [
            (model(40, 7, "tool_calls"), client),
            (model(60, 3, "stop"), client)
        ]
    );

    let call = one(&spans, "execute_tool shell");
    let call_id = input["tool_use_id"].clone();
    assert!(call_id.is_string(), "{input}");
    assert_eq!(
        (attrs(&call.attributes), status(call), call.kind),
        (
            BTreeMap::from([
                ("gen_ai.operation.name".to_owned(), json!("execute_tool")),
                ("gen_ai.tool.call.id".to_owned(), call_id.clone()),
                ("gen_ai.tool.name".to_owned(), json!("shell")),
                ("gen_ai.tool.type".to_owned(), json!("function")),
                ("tether.tool.id".to_owned(), call_id),
                ("tether.tool.is_error".to_owned(), json!(false)),
                ("tether.tool.name".to_owned(), json!("shell")),
            ]),
            StatusCode::Unset,
            internal
        )
    );
    let hook = |event: &str, name: &str, status: &str, code: i64, verdict: &str| {
        BTreeMap::from([
            ("tether.hook.event".to_owned(), json!(event)),
            ("tether.hook.exit_code".to_owned(), json!(code)),
            ("tether.hook.lane".to_owned(), json!("default")),
            ("tether.hook.name".to_owned(), json!(name)),
            ("tether.hook.source".to_owned(), json!("yaml")),
            ("tether.hook.status".to_owned(), json!(status)),
            ("tether.hook.type".to_owned(), json!("command")),
            ("tether.hook.verdict".to_owned(), json!(verdict)),
        ])
    };
    let pre = one(&spans, "hook pre_tool_use");
    let post = one(&spans, "hook post_tool_use");
    assert_eq!(
        [
            (hook_attrs(pre), status(pre)),
            (hook_attrs(post), status(post))
        ],
        [
            (
                hook("pre_tool_use", "guard", "ok", 0, "allow"),
                StatusCode::Unset
            ),
            (
                hook("post_tool_use", "audit", "error", 1, "none"),
                StatusCode::Error
            ),
        ]
    );
    // Every hook span, builtins included, sits under the span its event belongs to.
    for s in all.iter().filter(|s| s.name.starts_with("hook ")) {
        let expected = match s.name.as_str() {
            "hook pre_tool_use" | "hook tool_response_transform" | "hook post_tool_use" => {
                "execute_tool shell"
            }
            "hook session_start" | "hook session_end" | "hook user_prompt_submit" => {
                "invoke_agent root"
            }
            _ => "turn",
        };
        assert_eq!(
            (s.name.as_str(), parent_name(&all, s).as_str()),
            (s.name.as_str(), expected)
        );
    }
    // No message text in any attribute: not the prompt, the tool's arguments or output, nor
    // the model's reply.
    for s in &all {
        for (key, v) in attrs(&s.attributes) {
            let text = v.as_str().unwrap_or_default();
            assert!(
                !["go", "echo hi", "hi", "done"].contains(&text) && !text.contains("echo hi"),
                "{}: {key}={v}",
                s.name
            );
        }
    }
    // Children lie within their parents.
    for s in &all[1..] {
        let p = all.iter().find(|p| p.span_id == s.parent_span_id).unwrap();
        assert!(
            p.start_time_unix_nano <= s.start_time_unix_nano
                && s.end_time_unix_nano <= p.end_time_unix_nano,
            "{} outside {}",
            s.name,
            p.name
        );
    }
}

/// The spans `keep` picks, in order: name, parent's name, and the value of the first of
/// `details` the span has (else null).
fn summary(
    spans: &[Span],
    keep: impl Fn(&Span) -> bool,
    details: &[&str],
) -> Vec<(String, String, Value)> {
    spans
        .iter()
        .filter(|s| keep(s))
        .map(|s| {
            let a = attrs(&s.attributes);
            let detail = details
                .iter()
                .find_map(|k| a.get(*k).cloned())
                .unwrap_or(Value::Null);
            (s.name.clone(), parent_name(spans, s), detail)
        })
        .collect()
}

/// An expected `summary` row.
fn row(name: &str, parent: &str, detail: Value) -> (String, String, Value) {
    (name.to_owned(), parent.to_owned(), detail)
}

/// Waits until `path` has at least `lines` lines.
fn wait_for(path: &Path, lines: usize) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if std::fs::read_to_string(path).is_ok_and(|t| t.lines().count() >= lines) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never had {lines} lines", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otel_spans_are_flushed_after_ctrl_c_to_the_traces_endpoint() {
    use rustix::process::{Pid, Signal, kill_process};

    let (base, received) = receiver().await;
    let dir = TempDir::new().unwrap();
    let started = dir.path().join("started");
    agent(
        dir.path(),
        &format!(
            "replies:\n  - tool_calls:\n      - name: shell\n        arguments: {{cmd: 'echo go > {}; sleep 30'}}\n  - text: unreachable\n",
            started.display()
        ),
    );
    let endpoint = format!("{base}/custom/traces");
    let cwd = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        let child = tether(
            &cwd,
            &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &endpoint)],
            "go",
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
        wait_for(&started, 1);
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
        kill_process(pid, Signal::INT).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (spans, _) = spans(&received, "/custom/traces");
    let summary = summary(
        &spans,
        |s| !s.name.starts_with("hook"),
        &[
            "tether.session.end_reason",
            "tether.turn.reason",
            "tether.tool.is_error",
        ],
    );
    assert_eq!(
        summary,
        [
            row("invoke_agent root", "(root)", json!("other")),
            row("turn", "invoke_agent root", json!("canceled")),
            row("chat s.yaml", "turn", Value::Null),
            row("execute_tool shell", "turn", json!(true)),
        ]
    );
}

/// Accepts the request and never answers.
async fn stall() -> &'static str {
    std::future::pending::<()>().await;
    ""
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otel_exit_waits_a_bounded_time_for_a_stalled_collector() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, Router::new().fallback(stall)).await });
    let dir = TempDir::new().unwrap();
    agent(dir.path(), TWO_TURNS);
    let cwd = dir.path().to_owned();
    let endpoint = base.clone();
    let out = tokio::task::spawn_blocking(move || {
        assert_cmd::Command::from_std(tether(
            &cwd,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "500"),
            ],
            "go",
        ))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning: telemetry: "))
        .unwrap_or_default();
    assert!(
        warning.contains(&format!("`{base}/v1/traces`")),
        "no telemetry warning naming the endpoint in {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otel_interactive_session_exports_its_turns_at_exit() {
    use std::io::Write;

    let (base, received) = receiver().await;
    let dir = TempDir::new().unwrap();
    agent(dir.path(), TWO_TURNS);
    let cwd = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = tether_with(
            &cwd,
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", &base)],
            &["run", "agent.yaml"],
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // A line typed while the agent works steers or cancels it: type only when it waits.
        let waiting = cwd.join("waiting");
        wait_for(&waiting, 1);
        stdin.write_all(b"go\n").unwrap();
        wait_for(&waiting, 2);
        stdin.write_all(b"/exit\n").unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (spans, _) = spans(&received, "/v1/traces");
    let summary = summary(
        &spans,
        |s| !s.name.starts_with("hook") || s.name == "hook on_user_input",
        &[
            "tether.session.end_reason",
            "tether.turn.reason",
            "tether.hook.name",
        ],
    );
    assert_eq!(
        summary,
        [
            row("invoke_agent root", "(root)", json!("prompt_input_exit")),
            row("hook on_user_input", "invoke_agent root", json!("waiting")),
            row("turn", "invoke_agent root", json!("continue")),
            row("chat s.yaml", "turn", Value::Null),
            row("execute_tool shell", "turn", Value::Null),
            row("turn", "invoke_agent root", json!("normal")),
            row("chat s.yaml", "turn", Value::Null),
            row("hook on_user_input", "invoke_agent root", json!("waiting")),
        ]
    );
}
