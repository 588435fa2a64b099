//! `type: fetch` against a local HTTP server: HTML as text, a redirect, robots.txt, a huge
//! page cut, a slow page cut by the timeout, and private addresses refused unless allowed.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use assert_cmd::Command;
use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use tempfile::TempDir;

async fn page() -> impl IntoResponse {
    (
        [(CONTENT_TYPE, "text/html; charset=utf-8")],
        "<html><head><style>x{}</style></head><body><h1>Hi &amp; welcome</h1><p>Some <a href=\"/docs\">docs</a>.</p><script>evil()</script></body></html>",
    )
}

async fn big() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/plain")], "x".repeat(3 << 20))
}

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(20)).await;
    "late"
}

/// Serves on 127.0.0.1 from a thread of its own; returns the base URL.
fn server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = Router::new()
                .route("/", get(page))
                .route("/redir", get(|| async { Redirect::temporary("/") }))
                .route("/big", get(big))
                .route("/slow", get(slow))
                .route("/secret", get(|| async { "secret" }))
                .route(
                    "/robots.txt",
                    get(|| async { "User-agent: *\nDisallow: /secret\n" }),
                );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

fn responses(dir: &std::path::Path, toolset: &str, calls: &[(&str, &str)]) -> Vec<String> {
    run_fetch(dir, toolset, calls, true)
}

/// `ok`: the run must end normally. (A 1 MiB result fills the script model's context, and
/// the compaction that follows replays its script: that run may stop on the loop detector.)
fn run_fetch(
    dir: &std::path::Path,
    toolset: &str,
    calls: &[(&str, &str)],
    ok: bool,
) -> Vec<String> {
    std::fs::write(
        dir.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - {toolset}\n"),
    )
    .unwrap();
    let mut replies = String::from("replies:\n  - tool_calls:\n");
    for (url, format) in calls {
        replies.push_str(&format!(
            "      - {{name: fetch, arguments: {{urls: ['{url}'], format: {format}}}}}\n"
        ));
    }
    replies.push_str("  - text: done\n");
    std::fs::write(dir.join("s.yaml"), replies).unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .args(["run", "agent.yaml", "--yolo", "--json", "--exec", "go"])
        .output()
        .unwrap();
    if ok {
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .map(|e| e["response"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn fetch_reads_pages_within_its_limits() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let toolset = "{type: fetch, allow_private_ips: true, timeout: 2}";
    let r = responses(
        dir.path(),
        toolset,
        &[
            (&base, "text"),
            (&format!("{base}/redir"), "markdown"),
            (&format!("{base}/secret"), "text"),
        ],
    );
    let text = "Hi & welcome\n\nSome docs (/docs).";
    assert_eq!(
        r[0],
        format!(
            "Successfully fetched {base} (Status: 200, Length: {} bytes):\n\n{text}",
            text.len()
        )
    );
    assert!(
        r[1].ends_with("# Hi & welcome\n\nSome [docs](/docs)."),
        "{}",
        r[1]
    );
    assert_eq!(
        r[2],
        format!("Error fetching {base}/secret: URL blocked by robots.txt")
    );
    let slow = responses(dir.path(), toolset, &[(&format!("{base}/slow"), "text")]);
    let big = run_fetch(
        dir.path(),
        toolset,
        &[(&format!("{base}/big"), "text")],
        false,
    );
    let r = [big[0].clone(), slow[0].clone()];
    let cut = "\n[cut at 1048576 bytes]";
    assert!(
        r[0].starts_with(&format!(
            "Successfully fetched {base}/big (Status: 200, Length: {} bytes)",
            (1 << 20) + cut.len()
        )),
        "{}",
        &r[0][..200]
    );
    assert!(r[0].ends_with(cut));
    assert!(
        r[1].starts_with(&format!("Error fetching {base}/slow: request failed"))
            && r[1].contains("timed out"),
        "{}",
        r[1]
    );
}

#[test]
fn private_addresses_are_refused_by_default() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let r = responses(
        dir.path(),
        "{type: fetch}",
        &[
            (&base, "text"),
            ("http://localhost:9/", "text"),
            ("file:///etc/passwd", "text"),
        ],
    );
    assert!(
        r[0].contains("`127.0.0.1` is not a public address; private addresses are refused"),
        "{}",
        r[0]
    );
    assert!(r[1].contains("resolves to no public address"), "{}", r[1]);
    assert!(
        r[2].ends_with("only HTTP and HTTPS URLs are supported"),
        "{}",
        r[2]
    );
}
