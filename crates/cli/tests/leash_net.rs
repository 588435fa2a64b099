//! Issue 22, findings 5, 6 and 12, played as the attack: a hostile script model calls the
//! `api`, `fetch` and `openapi` tools with arguments meant to reach a local server, and the
//! server records every request it gets, so each test shows that none arrived.
//!
//! - an extra argument named like an endpoint placeholder does not choose the host, and the
//!   token in the headers is not sent there;
//! - an argument in the endpoint's host is refused when the agent file loads;
//! - an `api` tool with method `DELETE` is not read-only: under `--exec` it is asked, and the
//!   closed input answers no;
//! - with `HTTP_PROXY` / `ALL_PROXY` set, `localhost` is still refused, and the proxy sees
//!   nothing (unless the toolset allows private addresses, which uses the proxy).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::{Arc, Mutex};

use assert_cmd::Command;
use axum::Router;
use axum::http::{HeaderMap, Method, Uri};
use serde_json::Value;
use tempfile::TempDir;

/// A local HTTP server that answers `reply` to anything and records each request as
/// `METHOD URI auth=AUTHORIZATION`.
struct Recorder {
    /// `127.0.0.1:PORT`.
    addr: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn start(reply: &'static str) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let app = Router::new().fallback(move |m: Method, uri: Uri, h: HeaderMap| {
                    let auth = h
                        .get("authorization")
                        .map(|v| v.to_str().unwrap().to_owned())
                        .unwrap_or_default();
                    log.lock().unwrap().push(format!("{m} {uri} auth={auth}"));
                    async move { reply }
                });
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        Self {
            addr: rx.recv().unwrap().to_string(),
            seen,
        }
    }

    fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect()
    }

    /// `(response, is_error)` of each tool call.
    fn responses(&self) -> Vec<(String, bool)> {
        self.events()
            .iter()
            .filter(|e| e["type"] == "tool_response")
            .map(|e| {
                (
                    e["response"].as_str().unwrap_or_default().to_owned(),
                    e["is_error"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    }
}

/// Runs `agent.yaml` (its `toolsets:` entries in `toolsets`) on a script model that makes
/// `calls` (flow-style YAML tool calls), with `--json --exec` and `extra`, `env` set, closed
/// input (a question is answered no) and no proxy variables but those in `env`.
fn run(
    dir: &std::path::Path,
    toolsets: &str,
    calls: &[String],
    extra: &[&str],
    env: &[(&str, &str)],
) -> Run {
    std::fs::write(
        dir.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n{toolsets}"),
    )
    .unwrap();
    let mut replies = String::from("replies:\n  - tool_calls:\n");
    for call in calls {
        replies.push_str(&format!("      - {call}\n"));
    }
    replies.push_str("  - text: done\n");
    std::fs::write(dir.join("s.yaml"), replies).unwrap();
    let mut cmd = Command::cargo_bin("tether").unwrap();
    cmd.current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"));
    for var in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["run", "agent.yaml", "--json"])
        .args(extra)
        .args(["--exec", "go"])
        .write_stdin("")
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn an_extra_argument_does_not_choose_the_api_host_nor_receive_the_token() {
    let target = Recorder::start("internal");
    let dir = TempDir::new().unwrap();
    // `${API_HOST}:${API_PORT}` and `${env.API_HOST}:${env.API_PORT}` are the environment's
    // (`api.example.invalid:80`); the model sends all four names, pointing at the local server. Private addresses are allowed, so
    // only the placeholder rules stand between the model and the local server.
    let toolsets = "      - type: api\n        allow_private_ips: true\n        timeout: 5\n        api_config:\n          name: lookup\n          endpoint: \"http://${API_HOST}:${API_PORT}/v1/${path}\"\n          method: GET\n          headers: {Authorization: \"Bearer ${env.API_TOKEN}\"}\n          args: {path: {type: string}}\n      - type: api\n        allow_private_ips: true\n        timeout: 5\n        api_config:\n          name: lookup2\n          endpoint: \"http://${env.API_HOST}:${env.API_PORT}/v1/${path}\"\n          method: GET\n          headers: {Authorization: \"Bearer ${env.API_TOKEN}\"}\n          args: {path: {type: string}}\n";
    let attack = |tool: &str| {
        format!(
            "{{name: {tool}, arguments: {{path: items, API_HOST: 127.0.0.1, API_PORT: '{0}', env.API_HOST: 127.0.0.1, env.API_PORT: '{0}'}}}}",
            target.port()
        )
    };
    let r = run(
        dir.path(),
        toolsets,
        &[attack("lookup"), attack("lookup2")],
        &["--yolo"],
        &[
            ("API_HOST", "api.example.invalid"),
            ("API_PORT", "80"),
            ("API_TOKEN", "secret-token-42"),
        ],
    );
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let responses = r.responses();
    assert_eq!(responses.len(), 2, "{}", r.stdout);
    for (text, is_error) in &responses {
        assert!(*is_error, "{responses:?}");
        assert!(!text.contains("internal"), "{responses:?}");
    }
    assert!(!r.stdout.contains("internal"), "{}", r.stdout);
    assert_eq!(target.seen(), Vec::<String>::new());
}

#[test]
fn an_argument_in_the_endpoints_host_is_refused_at_load() {
    let dir = TempDir::new().unwrap();
    let toolsets = "      - type: api\n        api_config:\n          name: lookup\n          endpoint: \"https://${host}/v1\"\n          method: GET\n          args: {host: {type: string}}\n";
    let r = run(
        dir.path(),
        toolsets,
        &["{name: lookup, arguments: {host: x}}".to_owned()],
        &["--yolo"],
        &[],
    );
    assert_ne!(r.code, Some(0), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "`${host}` is in the scheme or host of the endpoint `https://${host}/v1`: arguments may only fill its path and query"
        ),
        "{}",
        r.stderr
    );
    assert!(r.responses().is_empty(), "{}", r.stdout);
}

#[test]
fn a_delete_api_tool_is_asked_and_not_run_unasked() {
    let target = Recorder::start("deleted");
    let dir = TempDir::new().unwrap();
    let toolsets = format!(
        "      - type: api\n        allow_private_ips: true\n        api_config:\n          name: drop_item\n          endpoint: \"http://{}/items/${{id}}\"\n          method: DELETE\n          args: {{id: {{type: string}}}}\n      - type: api\n        allow_private_ips: true\n        api_config:\n          name: get_item\n          endpoint: \"http://{}/items/${{id}}\"\n          method: GET\n          args: {{id: {{type: string}}}}\n",
        target.addr, target.addr
    );
    let r = run(
        dir.path(),
        &toolsets,
        &[
            "{name: drop_item, arguments: {id: '7'}}".to_owned(),
            "{name: get_item, arguments: {id: '7'}}".to_owned(),
        ],
        &[],
        &[],
    );
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let responses = r.responses();
    assert_eq!(responses.len(), 2, "{}", r.stdout);
    assert_eq!(
        responses[0],
        ("The user rejected the tool call.".to_owned(), true),
        "the DELETE is asked, and the closed input answers no"
    );
    assert_eq!(
        responses[1],
        ("deleted".to_owned(), false),
        "the GET runs unasked"
    );
    assert_eq!(target.seen(), ["GET /items/7 auth="]);
}

#[test]
fn with_a_proxy_set_localhost_is_still_refused_and_the_proxy_sees_nothing() {
    let target = Recorder::start("internal page");
    let proxy = Recorder::start("internal page via proxy");
    let dir = TempDir::new().unwrap();
    let local = format!("http://localhost:{}", target.port());
    let toolsets = format!(
        "      - type: fetch\n      - type: api\n        api_config: {{name: lookup, endpoint: \"{local}/api\", method: GET}}\n      - type: openapi\n        url: {local}/openapi.json\n"
    );
    let proxy_url = format!("http://{}", proxy.addr);
    let env = [
        ("HTTP_PROXY", proxy_url.as_str()),
        ("http_proxy", proxy_url.as_str()),
        ("ALL_PROXY", proxy_url.as_str()),
    ];
    let calls = [
        format!("{{name: fetch, arguments: {{urls: ['{local}/'], format: text}}}}"),
        "{name: lookup, arguments: {}}".to_owned(),
    ];
    let r = run(dir.path(), &toolsets, &calls, &["--yolo"], &env);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let responses = r.responses();
    assert_eq!(responses.len(), 2, "{}", r.stdout);
    for (text, is_error) in &responses {
        assert!(*is_error, "{responses:?}");
        assert!(
            text.contains("`localhost` resolves to no public address"),
            "{responses:?}"
        );
    }
    let warnings: Vec<Value> = r
        .events()
        .into_iter()
        .filter(|e| e["type"] == "warning")
        .collect();
    assert!(
        warnings.iter().any(|w| {
            let m = w["message"].as_str().unwrap_or_default();
            m.contains("failed to read the OpenAPI document")
                && m.contains("`localhost` resolves to no public address")
        }),
        "{warnings:?}"
    );
    assert_eq!(target.seen(), Vec::<String>::new());
    assert_eq!(proxy.seen(), Vec::<String>::new());

    // The same calls on toolsets that allow private addresses go through the proxy, so the
    // proxy above would have seen the refused requests had they been sent.
    let allowed = toolsets.replace(
        "      - type: fetch\n      - type: api\n",
        "      - type: fetch\n        allow_private_ips: true\n      - type: api\n        allow_private_ips: true\n",
    );
    let r = run(dir.path(), &allowed, &calls, &["--yolo"], &env);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let responses = r.responses();
    assert!(
        responses
            .iter()
            .all(|(text, is_error)| !is_error && text.contains("via proxy")),
        "{responses:?}"
    );
    let seen = proxy.seen();
    assert!(seen.contains(&format!("GET {local}/ auth=")), "{seen:?}");
    assert!(seen.contains(&format!("GET {local}/api auth=")), "{seen:?}");
    assert_eq!(target.seen(), Vec::<String>::new());
}

#[test]
fn ipv6_forms_of_private_addresses_are_refused_even_through_a_proxy() {
    // Each address carries a loopback or private IPv4 address, or is site-local. A proxy that
    // records everything stands in for the route: had a request been sent, it would show here.
    let proxy = Recorder::start("internal page via proxy");
    let dir = TempDir::new().unwrap();
    let proxy_url = format!("http://{}", proxy.addr);
    let env = [
        ("HTTP_PROXY", proxy_url.as_str()),
        ("http_proxy", proxy_url.as_str()),
        ("ALL_PROXY", proxy_url.as_str()),
    ];
    let hosts = [
        "[::127.0.0.1]",
        "[::ffff:127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "[64:ff9b::a00:1]",
        "[2002:7f00:1::1]",
        "[2002:c0a8:101::1]",
        "[fec0::1]",
        "[fd00::1]",
    ];
    let calls: Vec<String> = hosts
        .iter()
        .map(|h| {
            format!("{{name: fetch, arguments: {{urls: ['http://{h}:8080/'], format: text}}}}")
        })
        .collect();
    let r = run(
        dir.path(),
        "      - type: fetch\n",
        &calls,
        &["--yolo"],
        &env,
    );
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let responses = r.responses();
    assert_eq!(responses.len(), hosts.len(), "{}", r.stdout);
    for (text, is_error) in &responses {
        assert!(*is_error, "{responses:?}");
        assert!(text.contains("is not a public address"), "{responses:?}");
    }
    assert_eq!(proxy.seen(), Vec::<String>::new());
}
