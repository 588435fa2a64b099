//! `type: fetch` with `allowed_domains` / `blocked_domains` and `escape_html`, against a local
//! server reachable as `127.0.0.1` and as `localhost`: the lists are checked on the URL and on
//! every redirect (the server counts what reached it, so a refused hop is seen not to have
//! been requested).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use assert_cmd::Command;
use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use tempfile::TempDir;

struct Server {
    /// `http://127.0.0.1:PORT`.
    base: String,
    port: u16,
    /// Requests for `/landing`, the target of the redirect to `localhost`.
    landed: Arc<AtomicUsize>,
}

/// Serves on 127.0.0.1 from a thread of its own. `/to-localhost` redirects to
/// `http://localhost:PORT/landing`, `/same` to `/` on the same host.
fn server() -> Server {
    let landed = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = std::sync::mpsc::channel();
    let count = Arc::clone(&landed);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let app = Router::new()
                .route(
                    "/",
                    get(|| async { ([(CONTENT_TYPE, "text/html")], "<b>hi</b> & bye") }),
                )
                .route("/same", get(|| async { Redirect::temporary("/") }))
                .route(
                    "/to-localhost",
                    get(move || async move {
                        Redirect::temporary(&format!("http://localhost:{port}/landing"))
                    }),
                )
                .route(
                    "/landing",
                    get(move || {
                        count.fetch_add(1, Ordering::SeqCst);
                        async { "landed".into_response() }
                    }),
                );
            tx.send(port).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    let port = rx.recv().unwrap();
    Server {
        base: format!("http://127.0.0.1:{port}"),
        port,
        landed,
    }
}

/// Runs one agent whose script makes one fetch call per entry of `calls` (each a list of
/// URLs, format `html`); the tool responses in order.
fn fetches(toolset: &str, calls: &[&[&str]]) -> Vec<(String, bool)> {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - {toolset}\n"),
    )
    .unwrap();
    let mut replies = String::from("replies:\n  - tool_calls:\n");
    for urls in calls {
        let list: Vec<String> = urls.iter().map(|u| format!("'{u}'")).collect();
        replies.push_str(&format!(
            "      - {{name: fetch, arguments: {{urls: [{}], format: html}}}}\n",
            list.join(", ")
        ));
    }
    replies.push_str("  - text: done\n");
    std::fs::write(d.join("s.yaml"), replies).unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .env("TETHER_HOME", d.join(".tether"))
        .env("XDG_CONFIG_HOME", d.join(".config"))
        .args(["run", "agent.yaml", "--yolo", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .map(|e| {
            (
                e["response"].as_str().unwrap().to_owned(),
                e["is_error"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn allowed_domains_admit_listed_hosts_and_refuse_others_and_redirects_to_them() {
    let s = server();
    let base = &s.base;
    let local = format!("http://localhost:{}/", s.port);
    let to_local = format!("{base}/to-localhost");
    let same = format!("{base}/same");
    let r = fetches(
        "{type: fetch, allow_private_ips: true, allowed_domains: [127.0.0.0/8]}",
        &[&[base], &[&same], &[&local], &[&to_local]],
    );
    let ok = "Status: 200, Length: 15 bytes):\n\n<b>hi</b> & bye";
    assert_eq!(r[0], (format!("Successfully fetched {base} ({ok}"), false));
    // A redirect within the list is followed.
    assert_eq!(r[1], (format!("Successfully fetched {same} ({ok}"), false));
    let refused = "host `localhost` is not in `allowed_domains` (`127.0.0.0/8`)";
    assert_eq!(r[2], (format!("Error fetching {local}: {refused}"), true));
    let (text, is_error) = &r[3];
    assert!(
        *is_error
            && text.starts_with(&format!("Error fetching {to_local}: request failed"))
            && text.contains(&format!(
                "redirected to http://localhost:{}/landing: {refused}",
                s.port
            )),
        "{text}"
    );
    assert_eq!(s.landed.load(Ordering::SeqCst), 0);
}

#[test]
fn blocked_domains_refuse_listed_hosts_on_every_hop_and_escape_html_escapes_json() {
    let s = server();
    let base = &s.base;
    let local = format!("http://LocalHost:{}/", s.port);
    let to_local = format!("{base}/to-localhost");
    let r = fetches(
        "{type: fetch, allow_private_ips: true, blocked_domains: [localhost], escape_html: true}",
        &[&[base], &[&local], &[&to_local], &[base, &local]],
    );
    assert!(!r[0].1 && r[0].0.ends_with("<b>hi</b> & bye"), "{:?}", r[0]);
    let blocked = "host `localhost` is blocked by `blocked_domains` (`localhost`)";
    assert_eq!(r[1], (format!("Error fetching {local}: {blocked}"), true));
    assert!(
        r[2].1 && r[2].0.contains(&format!("landing: {blocked}")),
        "{:?}",
        r[2]
    );
    assert_eq!(s.landed.load(Ordering::SeqCst), 0);
    // Two URLs: one JSON result, its `<`, `>` and `&` escaped, the refusal per URL.
    let want = format!(
        r#"[{{"url":"{base}","statusCode":200,"status":"200 OK","contentType":"text/html","contentLength":15,"body":"\u003cb\u003ehi\u003c/b\u003e \u0026 bye"}},{{"url":"{local}","statusCode":0,"status":"","contentLength":0,"error":"{blocked}"}}]"#
    );
    assert_eq!(r[3], (want, false));
}

#[test]
fn without_escape_html_multi_url_json_keeps_markup_as_is() {
    let s = server();
    let base = &s.base;
    let r = fetches(
        "{type: fetch, allow_private_ips: true}",
        &[&[base, &format!("{base}/same")]],
    );
    assert!(
        r[0].0.contains(r#""body":"<b>hi</b> & bye""#) && !r[0].0.contains("\\u003c"),
        "{}",
        r[0].0
    );
}
