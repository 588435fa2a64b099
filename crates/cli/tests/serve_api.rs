//! `tether serve api` end to end: the real binary as the server, a real HTTP client
//! (reqwest) reading the SSE stream as it comes, the offline script model.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::serve::Server;

const AGENT: &str = r#"permissions:
  ask: ["shell:cmd=touch asked*"]
  allow: ["shell:cmd=touch free*"]
agents:
  root:
    model: script/agent.script.yaml
    description: Answers offline
    instruction: You help.
    toolsets:
      - type: shell
    hooks:
      pre_tool_use:
        - matcher: shell
          preempt_yolo: true
          hooks:
            - type: command
              command: |
                if grep -q denied-marker; then echo "the guard says no" >&2; exit 2; fi
      session_end:
        - type: command
          command: echo ended >> session_end.log
"#;

const SCRIPT: &str = r#"rules:
  - match: '^Run:\s*(?P<cmd>.+?)\s*$'
    reply:
      tool_calls:
        - name: shell
          arguments: {cmd: '${cmd}'}
after_tool:
  text: "`{{tool_name}}` returned: {{tool_result}}"
default:
  text: "You said: {{prompt}}"
"#;

fn project() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("agent.yaml"), AGENT).unwrap();
    std::fs::write(dir.path().join("agent.script.yaml"), SCRIPT).unwrap();
    dir
}

fn start(dir: &Path, source: &str) -> Server {
    Server::start(
        dir,
        &[
            "api",
            source,
            "--listen",
            "127.0.0.1:0",
            "--session-db",
            "shared.db",
        ],
        &[],
    )
}

fn client() -> reqwest::Client {
    tether_http::client_builder().build().unwrap()
}

async fn get(url: &str) -> (u16, Value) {
    let r = client().get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

async fn send(method: reqwest::Method, url: &str, body: &str) -> (u16, Value) {
    let r = client()
        .request(method, url)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, v)
}

async fn post(url: &str, body: Value) -> (u16, Value) {
    send(reqwest::Method::POST, url, &body.to_string()).await
}

async fn new_session(server: &Server) -> String {
    let (status, s) = post(&format!("{}/api/sessions", server.url), json!({})).await;
    assert_eq!(status, 200, "{s}");
    s["id"].as_str().unwrap().to_owned()
}

/// An SSE stream read frame by frame.
struct Sse {
    body: futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buf: String,
}

impl Sse {
    async fn open(server: &Server, session: &str, prompt: &str) -> Self {
        let r = client()
            .post(format!("{}/api/sessions/{session}/agent/agent", server.url))
            .json(&json!([{"role": "user", "content": prompt}]))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["content-type"], "text/event-stream");
        Self {
            body: r.bytes_stream().boxed(),
            buf: String::new(),
        }
    }

    /// The next event; `None` when the stream ends.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let frame: String = self.buf.drain(..end + 2).collect();
                let data = frame.trim_end().strip_prefix("data: ").expect(&frame);
                return Some(serde_json::from_str(data).unwrap());
            }
            let chunk = self.body.next().await?.unwrap();
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Events up to and including the first of type `kind`.
    async fn until(&mut self, kind: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(e) = self.next().await {
            let done = e["type"] == kind;
            seen.push(e);
            if done {
                return seen;
            }
        }
        panic!("the stream ended without `{kind}`: {seen:#?}");
    }

    async fn rest(mut self) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(e) = self.next().await {
            seen.push(e);
        }
        seen
    }
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

async fn turn(server: &Server, session: &str, prompt: &str) -> Vec<Value> {
    Sse::open(server, session, prompt).await.rest().await
}

/// Waits (without a deadline the test asserts on) for `path` to have `n` lines.
fn wait_lines(path: &Path, n: usize) -> usize {
    for _ in 0..600 {
        let lines = std::fs::read_to_string(path).map_or(0, |s| s.lines().count());
        if lines >= n {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} never had {n} lines", path.display());
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_of_a_directory_are_listed_and_an_empty_one_lists_none() {
    let dir = project();
    let agents = dir.path().join("agents");
    std::fs::create_dir(&agents).unwrap();
    std::fs::write(agents.join("agent.script.yaml"), SCRIPT).unwrap();
    for (name, text) in [
        (
            "one",
            "agents:\n  root:\n    model: script/agent.script.yaml\n    description: First\n",
        ),
        (
            "two",
            "agents:\n  root:\n    model: script/agent.script.yaml\n    description: Lead\n    sub_agents: [helper]\n  helper:\n    model: script/agent.script.yaml\n    description: Helps\n",
        ),
        (
            "three",
            "agents:\n  root:\n    model: script/agent.script.yaml\n    description: Third\n",
        ),
    ] {
        std::fs::write(agents.join(format!("{name}.yaml")), text).unwrap();
    }
    let server = start(dir.path(), "agents");
    let (status, list) = get(&format!("{}/api/agents", server.url)).await;
    assert_eq!(status, 200);
    assert_eq!(
        list,
        json!([
            {"name": "one", "description": "First", "multi": false},
            {"name": "three", "description": "Third", "multi": false},
            {"name": "two", "description": "Lead", "multi": true},
        ])
    );
    let (status, two) = get(&format!("{}/api/agents/two", server.url)).await;
    assert_eq!(status, 200);
    assert_eq!(two["agents"]["helper"]["description"], "Helps");
    let (status, err) = get(&format!("{}/api/agents/nope", server.url)).await;
    assert_eq!(status, 404, "{err}");
    let (status, ping) = get(&format!("{}/api/ping", server.url)).await;
    assert_eq!((status, ping), (200, json!({"status": "ok"})));

    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let empty = start(dir.path(), "empty");
    assert_eq!(
        get(&format!("{}/api/agents", empty.url)).await,
        (200, json!([]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_streams_docker_agents_events_in_order_and_is_stored() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let events = turn(&server, &id, "hello there").await;
    let kinds = kinds(&events);
    assert_eq!(kinds.first(), Some(&"stream_started"), "{events:#?}");
    assert_eq!(kinds.last(), Some(&"stream_stopped"), "{events:#?}");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "agent_choice")
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(text, "You said: hello there");
    let choice = kinds.iter().position(|k| *k == "agent_choice").unwrap();
    let usage = kinds.iter().position(|k| *k == "token_usage").unwrap();
    assert!(choice < usage, "{kinds:?}");
    assert_eq!(events[0]["session_id"], id.as_str());
    assert!(
        events.iter().all(|e| e["timestamp"].is_string()),
        "{events:#?}"
    );
    let info = events.iter().find(|e| e["type"] == "agent_info").unwrap();
    assert_eq!(
        (&info["agent_name"], &info["description"]),
        (&json!("root"), &json!("Answers offline"))
    );

    let (status, session) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    assert_eq!(status, 200);
    let messages = session["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{session:#}");
    assert_eq!(messages[1]["message"]["content"], "You said: hello there");
    let (_, list) = get(&format!("{}/api/sessions", server.url)).await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id.as_str());
    assert_eq!(listed.unwrap()["num_messages"], 2);
    assert_eq!(wait_lines(&dir.path().join("session_end.log"), 1), 1);
    let out = tether_test_support::cli::tether(dir.path())
        .args(["sessions", "list", "--json", "--session-db", "shared.db"])
        .output()
        .unwrap();
    let stored: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let stored = stored
        .iter()
        .find(|s| s["id"] == id.as_str())
        .expect("stored");
    assert_eq!(
        (&stored["agent"], &stored["first_prompt"]),
        (&json!("root"), &json!("hello there")),
        "{stored}"
    );

    // Title, yolo and permissions stay with the session.
    let (status, t) = send(
        reqwest::Method::PATCH,
        &format!("{}/api/sessions/{id}/title", server.url),
        r#"{"title": "Greetings"}"#,
    )
    .await;
    assert_eq!((status, t), (200, json!({"id": id, "title": "Greetings"})));
    let (status, _) = post(
        &format!("{}/api/sessions/{id}/tools/toggle", server.url),
        json!(null),
    )
    .await;
    assert_eq!(status, 200);
    let (status, err) = send(
        reqwest::Method::PATCH,
        &format!("{}/api/sessions/{id}/permissions", server.url),
        r#"{"permissions": {"deny": ["shell"]}}"#,
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        err["error"].as_str().unwrap().contains("permissions.deny"),
        "{err}"
    );
    let (_, session) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    assert_eq!(
        (&session["title"], &session["tools_approved"]),
        (&json!("Greetings"), &json!(true))
    );

    let (status, _) = send(
        reqwest::Method::DELETE,
        &format!("{}/api/sessions/{id}", server.url),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_asked_tool_waits_for_resume_approve_and_then_runs() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let mut sse = Sse::open(&server, &id, "Run: touch asked-marker").await;
    let before = sse.until("tool_call_confirmation").await;
    let ask = before.last().unwrap();
    assert_eq!(ask["tool_call"]["function"]["name"], "shell");
    assert_eq!(
        ask["tool_call"]["function"]["arguments"],
        json!({"cmd": "touch asked-marker"}).to_string()
    );
    // Nothing runs while the question waits; a second turn is refused meanwhile.
    assert!(!dir.path().join("asked-marker").exists());
    let busy = client()
        .post(format!("{}/api/sessions/{id}/agent/agent", server.url))
        .json(&json!([{"content": "again"}]))
        .send()
        .await
        .unwrap();
    assert_eq!(busy.status().as_u16(), 409);
    assert!(
        busy.json::<Value>().await.unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("already running")
    );

    // Another session runs a whole turn meanwhile.
    let other = new_session(&server).await;
    let events = turn(&server, &other, "meanwhile").await;
    assert_eq!(kinds(&events).last(), Some(&"stream_stopped"));
    let (status, r) = post(
        &format!("{}/api/sessions/{id}/resume", server.url),
        json!({"confirmation": "approve"}),
    )
    .await;
    assert_eq!((status, r), (200, json!({"message": "session resumed"})));
    let after = sse.rest().await;
    assert!(dir.path().join("asked-marker").exists(), "{after:#?}");
    let k = kinds(&after);
    assert!(k.contains(&"tool_call_response"), "{k:?}");
    assert_eq!(k.last(), Some(&"stream_stopped"));
    // Nothing waits any more.
    let (status, _) = post(
        &format!("{}/api/sessions/{id}/resume", server.url),
        json!({"confirmation": "approve"}),
    )
    .await;
    assert_eq!(status, 409);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_tool_never_runs_and_the_model_hears_why() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let mut sse = Sse::open(&server, &id, "Run: touch asked-marker").await;
    sse.until("tool_call_confirmation").await;
    let (status, _) = post(
        &format!("{}/api/sessions/{id}/resume", server.url),
        json!({"confirmation": "reject", "reason": "not on a Friday"}),
    )
    .await;
    assert_eq!(status, 200);
    let after = sse.rest().await;
    assert!(!dir.path().join("asked-marker").exists());
    let response = after
        .iter()
        .find(|e| e["type"] == "tool_call_response")
        .unwrap();
    let text = response["response"].as_str().unwrap();
    assert!(
        text.contains("rejected") && text.contains("not on a Friday"),
        "{text}"
    );
    assert_eq!(kinds(&after).last(), Some(&"stream_stopped"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_tool_use_hook_denial_holds_even_in_yolo() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let (status, s) = post(
        &format!("{}/api/sessions", server.url),
        json!({"tools_approved": true}),
    )
    .await;
    assert_eq!(status, 200);
    let id = s["id"].as_str().unwrap();
    let events = turn(&server, id, "Run: touch denied-marker").await;
    assert!(!dir.path().join("denied-marker").exists());
    assert!(!kinds(&events).contains(&"tool_call_confirmation"));
    let response = events
        .iter()
        .find(|e| e["type"] == "tool_call_response")
        .unwrap();
    assert!(
        response["response"]
            .as_str()
            .unwrap()
            .contains("the guard says no"),
        "{events:#?}"
    );
    // The same hook lets other commands through (this can fail: the marker appears).
    turn(&server, id, "Run: touch free-marker").await;
    assert!(dir.path().join("free-marker").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_created_on_one_server_continues_on_another() {
    let dir = project();
    let a = start(dir.path(), "agent.yaml");
    let b = start(dir.path(), "agent.yaml");
    let id = new_session(&a).await;
    turn(&a, &id, "first").await;
    let (_, list) = get(&format!("{}/api/sessions", b.url)).await;
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == id.as_str()),
        "{list:#}"
    );
    let (status, on_b) = get(&format!("{}/api/sessions/{id}", b.url)).await;
    assert_eq!(status, 200);
    assert_eq!(on_b["messages"].as_array().unwrap().len(), 2);
    let events = turn(&b, &id, "second").await;
    assert!(kinds(&events).contains(&"agent_choice"), "{events:#?}");
    // And back on the first, which held the session in memory: it sees the second turn.
    let (_, on_a) = get(&format!("{}/api/sessions/{id}", a.url)).await;
    let contents: Vec<&str> = on_a["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        ["first", "You said: first", "second", "You said: second"]
    );
    turn(&a, &id, "third").await;
    let (status, _) = send(
        reqwest::Method::PATCH,
        &format!("{}/api/sessions/{id}/title", a.url),
        r#"{"title": "Shared"}"#,
    )
    .await;
    assert_eq!(status, 200);
    let (_, on_b) = get(&format!("{}/api/sessions/{id}", b.url)).await;
    assert_eq!(on_b["messages"].as_array().unwrap().len(), 6);
    assert_eq!(on_b["title"], "Shared");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_json_errors_and_the_server_stays_up() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let url = &server.url;
    let (status, e) = send(
        reqwest::Method::POST,
        &format!("{url}/api/sessions"),
        "{not json",
    )
    .await;
    assert_eq!(status, 400, "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("invalid request body")
    );
    let id = new_session(&server).await;
    let (status, e) = send(
        reqwest::Method::POST,
        &format!("{url}/api/sessions/{id}/agent/agent"),
        "[{",
    )
    .await;
    assert_eq!(status, 400, "{e}");
    let (status, e) = post(&format!("{url}/api/sessions"), json!({"max_iterations": 3})).await;
    assert_eq!(status, 400);
    assert!(
        e["error"].as_str().unwrap().contains("max_iterations"),
        "{e}"
    );
    let (status, e) = get(&format!("{url}/api/sessions/no-such-session")).await;
    assert_eq!(status, 404, "{e}");
    let (status, _) = post(
        &format!("{url}/api/sessions/no-such-session/agent/agent"),
        json!([{"content": "hi"}]),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = post(
        &format!("{url}/api/sessions/{id}/agent/nope"),
        json!([{"content": "hi"}]),
    )
    .await;
    assert_eq!(status, 404);
    let (status, e) = send(reqwest::Method::DELETE, &format!("{url}/api/ping"), "").await;
    assert_eq!(status, 405, "{e}");
    let big = format!("[{{\"content\": \"{}\"}}]", "x".repeat(5 * 1024 * 1024));
    let (status, e) = send(
        reqwest::Method::POST,
        &format!("{url}/api/sessions/{id}/agent/agent"),
        &big,
    )
    .await;
    assert_eq!(status, 413, "{e}");
    let (status, e) = post(
        &format!("{url}/api/sessions/{id}/elicitation"),
        json!({"action": "accept"}),
    )
    .await;
    assert_eq!(status, 501);
    assert!(e["error"].as_str().unwrap().contains("elicitation"));
    // Still serving.
    let events = turn(&server, &id, "still there?").await;
    assert!(kinds(&events).contains(&"agent_choice"), "{events:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_disconnects_cancels_its_turn() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let mut sse = Sse::open(&server, &id, "Run: touch asked-marker").await;
    sse.until("tool_call_confirmation").await;
    drop(sse);
    // session_end ran, the tool did not, and the session takes a new turn.
    assert_eq!(wait_lines(&dir.path().join("session_end.log"), 1), 1);
    let events = turn(&server, &id, "back again").await;
    assert!(kinds(&events).contains(&"agent_choice"), "{events:#?}");
    assert!(!dir.path().join("asked-marker").exists());
    let (_, session) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    let last = session["messages"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["message"]["content"], "You said: back again");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_cancels_a_turn_waiting_for_an_answer_and_the_server_exits() {
    let dir = project();
    let mut server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let mut sse = Sse::open(&server, &id, "Run: touch asked-marker").await;
    sse.until("tool_call_confirmation").await;
    let status = server.terminate(Duration::from_secs(60));
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}\n{}",
        server.stderr()
    );
    // The stream ended with the turn, which never ran the tool and ran session_end.
    let rest = sse.rest().await;
    assert_eq!(kinds(&rest).last(), Some(&"stream_stopped"), "{rest:#?}");
    assert!(!dir.path().join("asked-marker").exists());
    assert_eq!(wait_lines(&dir.path().join("session_end.log"), 1), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn session_permissions_allow_what_the_agent_file_would_ask() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let (status, r) = send(
        reqwest::Method::PATCH,
        &format!("{}/api/sessions/{id}/permissions", server.url),
        r#"{"permissions": {"allow": ["shell:cmd=touch asked*"]}}"#,
    )
    .await;
    assert_eq!(
        (status, r),
        (200, json!({"message": "session permissions updated"}))
    );
    let (_, session) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    assert_eq!(
        session["permissions"],
        json!({"allow": ["shell:cmd=touch asked*"]})
    );
    let events = turn(&server, &id, "Run: touch asked-marker").await;
    assert!(
        !kinds(&events).contains(&"tool_call_confirmation"),
        "{events:#?}"
    );
    assert!(dir.path().join("asked-marker").exists());
    // Cleared again: the agent file's ask is back.
    let (status, _) = send(
        reqwest::Method::PATCH,
        &format!("{}/api/sessions/{id}/permissions", server.url),
        r#"{"permissions": null}"#,
    )
    .await;
    assert_eq!(status, 200);
    let mut sse = Sse::open(&server, &id, "Run: touch asked-again").await;
    sse.until("tool_call_confirmation").await;
    let (status, _) = post(
        &format!("{}/api/sessions/{id}/resume", server.url),
        json!({"confirmation": "reject"}),
    )
    .await;
    assert_eq!(status, 200);
    sse.rest().await;
    assert!(!dir.path().join("asked-again").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_session_approves_the_rest_of_the_session() {
    let dir = project();
    let server = start(dir.path(), "agent.yaml");
    let id = new_session(&server).await;
    let mut sse = Sse::open(&server, &id, "Run: touch plain-one").await;
    sse.until("tool_call_confirmation").await;
    let (status, _) = post(
        &format!("{}/api/sessions/{id}/resume", server.url),
        json!({"confirmation": "approve-session"}),
    )
    .await;
    assert_eq!(status, 200);
    sse.rest().await;
    assert!(dir.path().join("plain-one").exists());
    let (_, session) = get(&format!("{}/api/sessions/{id}", server.url)).await;
    assert_eq!(session["tools_approved"], true);
    // (An ask rule of the agent file still asks: it holds under yolo, as in `tether run`.)
    let events = turn(&server, &id, "Run: touch plain-two").await;
    assert!(
        !kinds(&events).contains(&"tool_call_confirmation"),
        "{events:#?}"
    );
    assert!(dir.path().join("plain-two").exists());
}

/// Two replicas on one real PostgreSQL: a session started on one is listed, read and continued
/// on the other, and killing one (`kill -9`) mid-turn loses no message stored before it died.
#[tokio::test(flavor = "multi_thread")]
async fn replicas_on_postgresql_share_sessions_and_a_killed_one_loses_nothing_stored() {
    let Some(pg) = tether_test_support::pg::PgServer::start() else {
        return;
    };
    let url = pg.url("postgres");
    let dir = project();
    let replica = || {
        Server::start(
            dir.path(),
            &[
                "api",
                "agent.yaml",
                "--listen",
                "127.0.0.1:0",
                "--session-db",
                &url,
            ],
            &[],
        )
    };
    let a = replica();
    let b = replica();
    let id = new_session(&a).await;
    turn(&a, &id, "first").await;
    let (_, list) = get(&format!("{}/api/sessions", b.url)).await;
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == id.as_str()),
        "{list:#}"
    );
    turn(&b, &id, "second").await;
    let (_, on_a) = get(&format!("{}/api/sessions/{id}", a.url)).await;
    assert_eq!(on_a["messages"].as_array().unwrap().len(), 4, "{on_a:#}");

    // Mid-turn on `a`: the tool call waits for an answer when `a` is killed.
    let mut sse = Sse::open(&a, &id, "Run: touch asked-after-kill").await;
    sse.until("tool_call_confirmation").await;
    drop(sse);
    drop(a); // SIGKILL to the whole process group
    let (status, on_b) = get(&format!("{}/api/sessions/{id}", b.url)).await;
    assert_eq!(status, 200);
    let contents: Vec<String> = on_b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["message"]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(
        contents[..5],
        [
            "first",
            "You said: first",
            "second",
            "You said: second",
            "Run: touch asked-after-kill"
        ],
        "{on_b:#}"
    );
    // The other replica carries on with the session.
    let events = turn(&b, &id, "after the crash").await;
    assert!(kinds(&events).contains(&"agent_choice"), "{events:#?}");
    assert!(!dir.path().join("asked-after-kill").exists());
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) FROM sessions WHERE parent_id IS NULL"
        ),
        "1"
    );
}
