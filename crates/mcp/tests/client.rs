//! The client against real servers: the Python SDK test server (stdio, Streamable HTTP and
//! legacy SSE) and the npm reference servers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests panic on purpose"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tether_config::{Lifecycle, McpServer as ServerConfig, McpTransport, RemoteTransport, Restart};
use tether_mcp::{
    Elicitation, ElicitationAnswer, McpContext, McpEvent, McpHost, McpServer, ProcessEnv, Status,
};
use tether_test_support::mcp as servers;
use tether_tools::{ProgressSink, Tool, ToolContext, ToolResult};
use tokio_util::sync::CancellationToken;

/// Records events; answers elicitations with `answer`.
#[derive(Debug, Default)]
struct Host {
    events: Mutex<Vec<McpEvent>>,
    asked: Mutex<Vec<Elicitation>>,
    answer: Mutex<Option<ElicitationAnswer>>,
}

impl McpHost for Host {
    fn elicit<'a>(&'a self, request: &'a Elicitation) -> BoxFuture<'a, ElicitationAnswer> {
        self.asked.lock().unwrap().push(request.clone());
        let answer = self
            .answer
            .lock()
            .unwrap()
            .clone()
            .unwrap_or(ElicitationAnswer::Decline);
        Box::pin(async move { answer })
    }

    fn event(&self, event: McpEvent) {
        self.events.lock().unwrap().push(event);
    }
}

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    host: Arc<Host>,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self {
            root: dir.path().to_path_buf(),
            _dir: dir,
            host: Arc::new(Host::default()),
        }
    }

    fn ctx(&self) -> McpContext {
        McpContext {
            working_dir: self.root.clone(),
            log_dir: Some(self.root.join("logs")),
            cache_dir: None,
            host: self.host.clone(),
            lookup: Arc::new(ProcessEnv),
        }
    }

    fn server(&self, cfg: ServerConfig, prefix: Option<&str>) -> McpServer {
        McpServer::new(cfg, prefix.map(str::to_owned), self.ctx())
    }

    /// The calls the test server logged (`--log`).
    fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(self.root.join("calls.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn log_arg(&self) -> String {
        self.root.join("calls.jsonl").display().to_string()
    }
}

fn stdio(args: &[&str]) -> ServerConfig {
    let mut all = vec![servers::test_server().display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    ServerConfig {
        label: None,
        transport: McpTransport::Stdio {
            command: servers::python().display().to_string(),
            args: all,
            env: Vec::new(),
            working_dir: None,
            version: None,
        },
        lifecycle: Lifecycle::default(),
    }
}

fn remote(url: String, transport: RemoteTransport, headers: &[(&str, &str)]) -> ServerConfig {
    ServerConfig {
        label: Some("web".into()),
        transport: McpTransport::Remote {
            url,
            transport,
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        },
        lifecycle: Lifecycle::default(),
    }
}

fn tool(server: &McpServer, name: &str) -> Arc<dyn Tool> {
    server
        .tools()
        .iter()
        .find(|t| t.definition().name == name)
        .cloned()
        .unwrap_or_else(|| {
            let names: Vec<_> = server
                .tools()
                .iter()
                .map(|t| t.definition().name.clone())
                .collect();
            panic!("no tool `{name}` in {names:?}")
        })
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// One progress notification: progress, total, message.
type Step = (f64, Option<f64>, Option<String>);

#[derive(Default)]
struct Progress(Mutex<Vec<Step>>);

impl ProgressSink for Progress {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.0
            .lock()
            .unwrap()
            .push((progress, total, message.map(str::to_owned)));
    }
}

async fn call_with(
    t: &dyn Tool,
    args: Value,
    cancel: &CancellationToken,
    progress: Option<&dyn ProgressSink>,
) -> ToolResult {
    let args = obj(args);
    let ctx = ToolContext {
        working_dir: Path::new("/"),
        cancel,
        env: &[],
        progress,
    };
    t.call(&args, ctx).await
}

async fn call(server: &McpServer, name: &str, args: Value) -> ToolResult {
    let t = tool(server, name);
    call_with(t.as_ref(), args, &CancellationToken::new(), None).await
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

#[tokio::test]
async fn a_stdio_server_lists_its_tools_with_their_hints_and_answers_calls() {
    let env = Env::new();
    let log = env.log_arg();
    let server = env.server(
        stdio(&[
            "--name",
            "notes-srv",
            "--instructions",
            "Prefer echo.",
            "--log",
            &log,
        ]),
        None,
    );
    server.start().await.unwrap();
    assert_eq!(
        server.name(),
        "notes-srv",
        "the reported name, no label given"
    );
    assert_eq!(server.instructions().as_deref(), Some("Prefer echo."));
    let hints: BTreeMap<String, (bool, &str)> = server
        .tools()
        .iter()
        .map(|t| {
            let d = t.definition();
            (d.name.clone(), (d.read_only, d.category))
        })
        .collect();
    assert_eq!(hints["echo"], (true, "mcp"));
    assert_eq!(hints["read_note"], (true, "mcp"));
    assert_eq!(hints["delete_note"], (false, "mcp"));
    assert_eq!(
        tool(&server, "delete_note").qualified_name(),
        Some("mcp:notes-srv:delete_note")
    );
    let r = call(&server, "echo", json!({"text": "héllo", "unused": null})).await;
    assert_eq!((r.content.as_str(), r.is_error), ("héllo", false));
    let r = call(&server, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!(r.content, "5");
    assert_eq!(r.structured, Some(json!({"sum": 5})));
    let r = call(&server, "fail", json!({})).await;
    assert_eq!(
        (r.content.as_str(), r.is_error),
        ("something went wrong", true)
    );
    let r = call(&server, "resource_link", json!({})).await;
    assert_eq!(r.content, "[readme](file:///README.md)");
    let r = call(&server, "embedded", json!({})).await;
    assert_eq!(r.content, "embedded text");
    let r = call(&server, "image", json!({})).await;
    assert!(
        r.content.starts_with("[image (image/png, "),
        "{}",
        r.content
    );
    assert!(r.content.ends_with("an image"), "{}", r.content);
    // The null argument never reached the server.
    let calls = env.calls();
    assert_eq!(calls[0]["tool"], "echo");
    assert_eq!(calls[0]["arguments"], json!({"text": "héllo"}));
    server.stop().await;
}

#[tokio::test]
async fn a_named_toolset_prefixes_its_tools_and_keeps_raw_names_on_the_wire() {
    let env = Env::new();
    let log = env.log_arg();
    let mut cfg = stdio(&["--log", &log]);
    cfg.label = Some("gh".into());
    let server = env.server(cfg, Some("gh"));
    server.start().await.unwrap();
    let t = tool(&server, "gh_echo");
    assert_eq!(t.qualified_name(), Some("mcp:gh:echo"));
    let r = call_with(
        t.as_ref(),
        json!({"text": "x"}),
        &CancellationToken::new(),
        None,
    )
    .await;
    assert_eq!(r.content, "x");
    assert_eq!(env.calls()[0]["tool"], "echo");
    server.stop().await;
}

#[tokio::test]
async fn progress_logs_sampling_and_elicitation_reach_the_host() {
    let env = Env::new();
    let server = env.server(stdio(&[]), None);
    server.start().await.unwrap();
    let sink = Progress::default();
    let t = tool(&server, "progress");
    let r = call_with(
        t.as_ref(),
        json!({"steps": 3}),
        &CancellationToken::new(),
        Some(&sink),
    )
    .await;
    assert_eq!(r.content, "done");
    assert_eq!(
        sink.0.lock().unwrap().clone(),
        [
            (1.0, Some(3.0), Some("step 1".to_owned())),
            (2.0, Some(3.0), Some("step 2".to_owned())),
            (3.0, Some(3.0), Some("step 3".to_owned())),
        ]
    );

    let r = call(
        &server,
        "log",
        json!({"level": "warning", "text": "disk almost full"}),
    )
    .await;
    assert_eq!(r.content, "logged");
    let logged = env.host.events.lock().unwrap().iter().any(|e| {
        matches!(e, McpEvent::Log { level, text, .. } if level == "warning" && text == "disk almost full")
    });
    assert!(logged, "{:?}", env.host.events.lock().unwrap());
    let log = std::fs::read_to_string(server.log_file().unwrap()).unwrap();
    assert!(log.contains("[warning] disk almost full"), "{log}");

    let r = call(&server, "sample", json!({})).await;
    assert!(
        r.content.starts_with("sampling failed:")
            && r.content.contains("sampling is not supported"),
        "{}",
        r.content
    );

    *env.host.answer.lock().unwrap() = Some(ElicitationAnswer::Accept(obj(
        json!({"name": "Ada", "confirm": true}),
    )));
    let r = call(&server, "elicit", json!({"question": "Who are you?"})).await;
    assert_eq!(r.content, r#"accepted: {"confirm": true, "name": "Ada"}"#);
    let asked = env.host.asked.lock().unwrap().clone();
    assert_eq!(asked[0].message, "Who are you?");
    assert_eq!(asked[0].schema["properties"]["name"]["type"], "string");
    *env.host.answer.lock().unwrap() = Some(ElicitationAnswer::Decline);
    assert_eq!(
        call(&server, "elicit", json!({"question": "Again?"}))
            .await
            .content,
        "declined"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_changed_tool_list_is_listed_again_on_refresh() {
    let env = Env::new();
    let server = env.server(stdio(&[]), None);
    server.start().await.unwrap();
    let before = server.generation();
    assert!(
        server
            .tools()
            .iter()
            .all(|t| t.definition().name != "late_tool")
    );
    assert_eq!(call(&server, "add_tool", json!({})).await.content, "added");
    // The notification may trail the result a little.
    for _ in 0..50 {
        if server.tools_changed() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(server.tools_changed());
    server.refresh().await.unwrap();
    assert!(server.generation() > before);
    assert_eq!(call(&server, "late_tool", json!({})).await.content, "late");
    server.stop().await;
}

#[tokio::test]
async fn a_crashed_server_fails_the_call_in_flight_and_is_restarted_on_the_next() {
    let env = Env::new();
    let server = env.server(stdio(&[]), None);
    server.start().await.unwrap();
    let first: u32 = call(&server, "whoami", json!({}))
        .await
        .content
        .parse()
        .unwrap();
    let r = call(&server, "crash", json!({})).await;
    assert!(r.is_error);
    assert!(
        r.content.contains("stopped during the call") && r.content.contains("exited with status 3"),
        "{}",
        r.content
    );
    let second: u32 = call(&server, "whoami", json!({}))
        .await
        .content
        .parse()
        .unwrap();
    assert_ne!(first, second);
    assert!(!alive(first));
    server.stop().await;
    assert!(!alive(second));
    assert_eq!(server.status().await, Status::Stopped);
}

#[tokio::test]
async fn restarts_stop_when_the_lifecycle_says_so() {
    let env = Env::new();
    let mut cfg = stdio(&[]);
    cfg.lifecycle.restart = Restart::Never;
    let server = env.server(cfg, None);
    server.start().await.unwrap();
    assert!(call(&server, "crash", json!({})).await.is_error);
    let r = call(&server, "echo", json!({"text": "x"})).await;
    assert!(
        r.content.contains("is unavailable") && r.content.contains("restart never"),
        "{}",
        r.content
    );
    server.stop().await;
}

#[tokio::test]
async fn a_stalled_call_is_cut_by_the_call_timeout_and_cancelled_on_the_server() {
    let env = Env::new();
    let log = env.log_arg();
    let mut cfg = stdio(&["--log", &log]);
    cfg.lifecycle.call_timeout = Some(Duration::from_millis(800));
    let server = env.server(cfg, None);
    server.start().await.unwrap();
    let r = call(&server, "stall", json!({"seconds": 30})).await;
    assert!(r.is_error);
    assert!(r.content.contains("timed out after 0.8s"), "{}", r.content);
    // The server heard about it, and still answers.
    assert_eq!(
        call(&server, "echo", json!({"text": "still here"}))
            .await
            .content,
        "still here"
    );
    let cancelled = env.calls().iter().any(|c| c.get("cancelled").is_some());
    assert!(cancelled, "{:?}", env.calls());
    server.stop().await;
}

#[tokio::test]
async fn cancelling_a_call_tells_the_server() {
    let env = Env::new();
    let log = env.log_arg();
    let server = env.server(stdio(&["--log", &log]), None);
    server.start().await.unwrap();
    let cancel = CancellationToken::new();
    let t = tool(&server, "stall");
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        trigger.cancel();
    });
    let r = call_with(t.as_ref(), json!({"seconds": 30}), &cancel, None).await;
    assert!(r.is_error);
    for _ in 0..50 {
        if env.calls().iter().any(|c| c.get("cancelled").is_some()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        env.calls().iter().any(|c| c.get("cancelled").is_some()),
        "{:?}",
        env.calls()
    );
    server.stop().await;
}

#[tokio::test]
async fn an_oversized_message_closes_the_connection_and_stderr_is_capped_in_the_log() {
    let env = Env::new();
    let server = env.server(stdio(&[]), None);
    server.start().await.unwrap();
    let r = call(&server, "flood", json!({"stream": "stderr", "mib": 12})).await;
    assert_eq!(r.content, "flooded");
    let r = call(&server, "flood", json!({"stream": "stdout", "mib": 20})).await;
    assert!(r.is_error);
    assert!(r.content.contains("larger than 16 MiB"), "{}", r.content);
    server.stop().await;
    let size = std::fs::metadata(server.log_file().unwrap()).unwrap().len();
    assert!(size < 10 * 1024 * 1024 + 4096, "log is {size} bytes");
    assert!(size > 10 * 1024 * 1024, "log is {size} bytes");
}

#[tokio::test]
async fn start_failures_name_the_server_and_show_its_stderr() {
    let env = Env::new();
    let mut cfg = stdio(&["--fail-start", "no config file found"]);
    cfg.label = Some("broken".into());
    let server = env.server(cfg, None);
    let e = server.start().await.unwrap_err();
    assert!(
        e.starts_with("MCP server `broken` could not start: the server exited with status 1"),
        "{e}"
    );
    assert!(
        e.contains("no config file found\nfatal: cannot start"),
        "{e}"
    );
    assert!(matches!(server.status().await, Status::Down { .. }));

    let mut cfg = stdio(&["--slow-start", "30"]);
    cfg.lifecycle.startup_timeout = Some(Duration::from_millis(700));
    let e = env.server(cfg, None).start().await.unwrap_err();
    assert!(e.contains("no answer to `initialize` within 0.7s"), "{e}");

    let cfg = ServerConfig {
        label: None,
        transport: McpTransport::Stdio {
            command: "tether-no-such-server".into(),
            args: vec![],
            env: vec![],
            working_dir: None,
            version: Some("astral-sh/uv".into()),
        },
        lifecycle: Lifecycle::default(),
    };
    let e = env.server(cfg, None).start().await.unwrap_err();
    assert!(
        e.contains("`tether-no-such-server` not found on PATH; docker-agent would install the `astral-sh/uv` package"),
        "{e}"
    );
}

#[tokio::test]
async fn env_and_working_dir_reach_a_stdio_server() {
    let env = Env::new();
    std::fs::create_dir(env.root.join("srv")).unwrap();
    let mut cfg = stdio(&[]);
    if let McpTransport::Stdio {
        env: vars,
        working_dir,
        ..
    } = &mut cfg.transport
    {
        vars.push(("GREETING".into(), "hi from ${env.HOME}".into()));
        *working_dir = Some("srv".into());
    }
    let server = env.server(cfg, None);
    server.start().await.unwrap();
    let r = call(&server, "env", json!({"name": "GREETING"})).await;
    let home = std::env::var("HOME").unwrap();
    let cwd = std::fs::canonicalize(env.root.join("srv")).unwrap();
    assert_eq!(r.content, format!("hi from {home}\ncwd={}", cwd.display()));
    server.stop().await;
}

#[tokio::test]
async fn streamable_http_carries_expanded_headers() {
    let env = Env::new();
    let http = servers::spawn_test_server_http(
        "streamable-http",
        &["--require-bearer", "s3cret", "--log", &env.log_arg()],
    );
    let lookup = |name: &str| (name == "MCP_TOKEN").then(|| "s3cret".to_owned());
    let mut ctx = env.ctx();
    ctx.lookup = Arc::new(lookup);
    let server = McpServer::new(
        remote(
            format!("{}/mcp", http.base),
            RemoteTransport::Streamable,
            &[
                ("Authorization", "Bearer ${env.MCP_TOKEN}"),
                ("X-Team", "core"),
            ],
        ),
        None,
        ctx,
    );
    server.start().await.unwrap();
    assert_eq!(server.name(), "web");
    let sink = Progress::default();
    let t = tool(&server, "progress");
    let r = call_with(
        t.as_ref(),
        json!({"steps": 2}),
        &CancellationToken::new(),
        Some(&sink),
    )
    .await;
    assert_eq!(r.content, "done");
    assert_eq!(sink.0.lock().unwrap().len(), 2);
    let logged = &env.calls()[0]["headers"];
    assert_eq!(logged["authorization"], "Bearer s3cret");
    assert_eq!(logged["x-team"], "core");
    server.stop().await;

    // Without the token: a clear error, no OAuth flow attempted.
    let server = env.server(
        remote(
            format!("{}/mcp", http.base),
            RemoteTransport::Streamable,
            &[],
        ),
        None,
    );
    let e = server.start().await.unwrap_err();
    assert!(e.contains("requires authorization (HTTP 401)"), "{e}");
    // An unset variable is named before any request.
    let server = env.server(
        remote(
            format!("{}/mcp", http.base),
            RemoteTransport::Streamable,
            &[("Authorization", "Bearer ${env.TETHER_TEST_UNSET_TOKEN}")],
        ),
        None,
    );
    let e = server.start().await.unwrap_err();
    assert!(
        e.contains(
            "header `Authorization`: environment variable `TETHER_TEST_UNSET_TOKEN` is not set"
        ),
        "{e}"
    );
}

#[tokio::test]
async fn the_legacy_sse_transport_works_end_to_end() {
    let env = Env::new();
    let http = servers::spawn_test_server_http("sse", &["--require-bearer", "tok"]);
    let server = env.server(
        remote(
            format!("{}/sse", http.base),
            RemoteTransport::Sse,
            &[("Authorization", "Bearer tok")],
        ),
        None,
    );
    server.start().await.unwrap();
    assert_eq!(
        call(&server, "echo", json!({"text": "over sse"}))
            .await
            .content,
        "over sse"
    );
    let sink = Progress::default();
    let t = tool(&server, "progress");
    let r = call_with(
        t.as_ref(),
        json!({"steps": 2}),
        &CancellationToken::new(),
        Some(&sink),
    )
    .await;
    assert_eq!(r.content, "done");
    assert_eq!(sink.0.lock().unwrap().len(), 2);
    *env.host.answer.lock().unwrap() = Some(ElicitationAnswer::Accept(obj(json!({"name": "Bo"}))));
    assert_eq!(
        call(&server, "elicit", json!({"question": "Name?"}))
            .await
            .content,
        r#"accepted: {"name": "Bo"}"#
    );
    server.stop().await;
    let e = env
        .server(
            remote(format!("{}/sse", http.base), RemoteTransport::Sse, &[]),
            None,
        )
        .start()
        .await
        .unwrap_err();
    assert!(e.contains("HTTP 401"), "{e}");
}

#[tokio::test]
async fn the_npm_reference_servers_work_over_stdio_and_streamable_http() {
    let env = Env::new();
    let everything = ServerConfig {
        label: Some("everything".into()),
        transport: McpTransport::Stdio {
            command: servers::npm_bin("mcp-server-everything")
                .display()
                .to_string(),
            args: vec![],
            env: vec![],
            working_dir: None,
            version: None,
        },
        lifecycle: Lifecycle::default(),
    };
    let server = env.server(everything, None);
    server.start().await.unwrap();
    let r = call(&server, "echo", json!({"message": "hi"})).await;
    assert!(r.content.contains("hi"), "{}", r.content);
    server.stop().await;

    let http = servers::spawn_everything_http();
    let server = env.server(
        remote(
            format!("{}/mcp", http.base),
            RemoteTransport::Streamable,
            &[],
        ),
        None,
    );
    server.start().await.unwrap();
    let r = call(&server, "echo", json!({"message": "over http"})).await;
    assert!(r.content.contains("over http"), "{}", r.content);
    server.stop().await;

    std::fs::write(env.root.join("hello.txt"), "file contents\n").unwrap();
    let fs = ServerConfig {
        label: Some("fs".into()),
        transport: McpTransport::Stdio {
            command: servers::npm_bin("mcp-server-filesystem")
                .display()
                .to_string(),
            args: vec![env.root.display().to_string()],
            env: vec![],
            working_dir: None,
            version: None,
        },
        lifecycle: Lifecycle::default(),
    };
    let server = env.server(fs, None);
    server.start().await.unwrap();
    let path = env.root.join("hello.txt").display().to_string();
    let read = if server
        .tools()
        .iter()
        .any(|t| t.definition().name == "read_text_file")
    {
        "read_text_file"
    } else {
        "read_file"
    };
    let r = call(&server, read, json!({"path": path})).await;
    assert!(r.content.contains("file contents"), "{}", r.content);
    assert!(tool(&server, read).definition().read_only);
    let r = call(&server, read, json!({"path": "/etc/hostname"})).await;
    assert!(r.is_error, "{}", r.content);
    server.stop().await;
}
