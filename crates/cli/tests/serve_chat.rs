//! `tether serve chat` end to end: the real binary as the server, the official `openai`
//! Python SDK as the client (`serve/chat/client.py`), the offline script model.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::serve::{self, Server};

const AGENT: &str = r#"agents:
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
  careful:
    model: script/agent.script.yaml
    safety: balanced
    toolsets:
      - type: shell
  counter:
    model: script/counter.script.yaml
    hooks:
      # What each model call saw: the number of user messages in it.
      before_llm_call:
        - type: command
          command: grep -o '"role":"user"' | wc -l | tr -d ' ' >> user-messages.log
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

/// Answers by how many answers the conversation already has; `fail` fails once there are two.
const COUNTER: &str = r#"replies:
  - text: "answer 1"
  - text: "answer 2"
rules:
  - match: '^fail'
    reply:
      error: {kind: bad_request, message: the model refuses}
default:
  text: "answer 3+ to {{prompt}}"
"#;

fn project() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("agent.yaml"), AGENT).unwrap();
    std::fs::write(dir.path().join("agent.script.yaml"), SCRIPT).unwrap();
    std::fs::write(dir.path().join("counter.script.yaml"), COUNTER).unwrap();
    dir
}

fn start(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args = vec!["chat", "agent.yaml", "--listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    Server::start(dir, &args, env)
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve/chat/client.py")
}

/// Runs the SDK client's `calls` against `server` with `key`; one result per call.
fn client(server: &Server, key: &str, calls: &[Value]) -> Vec<Value> {
    let spec = json!({"base_url": format!("{}/v1", server.url), "api_key": key, "calls": calls});
    #[expect(
        clippy::disallowed_methods,
        reason = "tests run the official SDK client"
    )]
    let out = std::process::Command::new(serve::python())
        .arg(script())
        .arg(spec.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}):\n{stdout}\n{}\nserver:\n{}",
            String::from_utf8_lossy(&out.stderr),
            server.stderr()
        )
    })
}

fn complete(model: &str, prompt: &str) -> Value {
    json!({"kind": "complete", "model": model, "messages": [{"role": "user", "content": prompt}]})
}

fn in_conversation(id: &str, prompt: &str) -> Value {
    let mut c = complete("counter", prompt);
    c["conversation"] = json!(id);
    c
}

fn tether(dir: &Path, args: &[&str]) -> String {
    #[expect(clippy::disallowed_methods, reason = "tests run the real binary")]
    let out = std::process::Command::new(tether_test_support::bins::tether())
        .args(args)
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sessions(dir: &Path) -> Vec<Value> {
    tether(dir, &["sessions", "list", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn models_list_and_a_plain_completion_in_a_stored_session() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[json!({"kind": "models"}), complete("root", "hello there")],
    );
    assert_eq!(out[0]["models"], json!(["root", "careful", "counter"]));
    let r = &out[1];
    assert_eq!(r["content"], "You said: hello there", "{r}");
    assert_eq!(r["role"], "assistant");
    assert_eq!(r["object"], "chat.completion");
    assert_eq!(r["finish_reason"], "stop");
    assert!(r["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert!(r["usage"]["completion_tokens"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(
        sessions(dir.path()).len(),
        1,
        "the request is a stored session"
    );
}

#[test]
fn streaming_sends_openais_chunks() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[
            json!({"kind": "stream", "model": "root",
            "messages": [{"role": "user", "content": "a streamed hello"}]}),
            json!({"kind": "stream", "model": "root", "usage": true,
            "messages": [{"role": "user", "content": "with usage"}]}),
        ],
    );
    let r = &out[0];
    assert_eq!(r["content"], "You said: a streamed hello", "{r}");
    assert!(!r["deltas"].as_array().unwrap().is_empty());
    assert_eq!(r["finish"], json!(["stop"]));
    assert_eq!(r["objects"], json!(["chat.completion.chunk"]));
    assert!(r["usage"].is_null(), "usage only when asked: {r}");
    let r = &out[1];
    assert_eq!(r["content"], "You said: with usage", "{r}");
    assert!(r["usage"]["completion_tokens"].as_u64().unwrap() > 0, "{r}");
}

#[test]
fn earlier_messages_are_the_history() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[
            json!({"kind": "complete", "model": "counter", "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "one"},
                {"role": "assistant", "content": "answer 1"},
                {"role": "user", "content": "two"}]}),
            complete("counter", "alone"),
        ],
    );
    assert_eq!(out[0]["content"], "answer 2", "{}", out[0]);
    assert_eq!(out[1]["content"], "answer 1", "stateless: {}", out[1]);
}

#[test]
fn a_wrong_or_missing_key_is_401_and_the_right_one_works() {
    let dir = project();
    let server = start(
        dir.path(),
        &["--api-key-env", "CHAT_KEY"],
        &[("CHAT_KEY", "s3cret")],
    );
    let out = client(
        &server,
        "wrong",
        &[complete("root", "hi"), json!({"kind": "models"})],
    );
    for r in &out {
        assert_eq!(r["error"]["type"], "AuthenticationError", "{r}");
        assert_eq!(r["error"]["status"], 401);
        assert_eq!(r["error"]["code"], "invalid_api_key");
    }
    let out = client(&server, "s3cret", &[complete("root", "hi")]);
    assert_eq!(out[0]["content"], "You said: hi", "{}", out[0]);
}

#[test]
fn an_unknown_model_and_a_malformed_body_get_openais_errors() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[
            complete("nope", "hi"),
            json!({"kind": "raw", "body": "{not json"}),
            json!({"kind": "raw", "body": r#"{"model":"root","messages":[{"role":"assistant","content":"x"}]}"#}),
            json!({"kind": "raw", "size": 5 * 1024 * 1024}),
            complete("root", "still up"),
        ],
    );
    assert_eq!(out[0]["error"]["type"], "NotFoundError", "{}", out[0]);
    assert_eq!(out[0]["error"]["status"], 404);
    assert_eq!(out[0]["error"]["code"], "model_not_found");
    for r in &out[1..3] {
        assert_eq!(r["status"], 400, "{r}");
        assert_eq!(r["json"]["error"]["type"], "invalid_request_error", "{r}");
    }
    assert_eq!(out[3]["status"], 413, "bodies are bounded");
    assert_eq!(out[4]["content"], "You said: still up");
}

#[test]
fn a_pre_tool_use_deny_holds_and_the_answer_says_so() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[complete("root", "Run: touch denied-marker")],
    );
    let text = out[0]["content"].as_str().unwrap_or_default();
    assert!(
        !dir.path().join("denied-marker").exists(),
        "the denied tool ran"
    );
    assert!(text.contains("the guard says no"), "{}", out[0]);
}

#[test]
fn an_ask_nobody_can_answer_is_a_denial_with_the_reason() {
    let dir = project();
    let server = start(dir.path(), &[], &[]);
    let out = client(
        &server,
        "unused",
        &[json!({"kind": "stream", "model": "careful",
            "messages": [{"role": "user", "content": "Run: touch asked-marker"}]})],
    );
    let text = out[0]["content"].as_str().unwrap_or_default();
    assert!(!dir.path().join("asked-marker").exists(), "the ask ran");
    assert!(
        text.contains("nobody can answer here (tether serve chat)"),
        "{}",
        out[0]
    );
}

#[test]
fn a_conversation_is_kept_and_a_failed_turn_leaves_it_unchanged() {
    let dir = project();
    let server = start(dir.path(), &["--conversations-max", "2"], &[]);
    let out = client(
        &server,
        "unused",
        &[
            in_conversation("x", "hello"),
            in_conversation("x", "again"),
            in_conversation("y", "elsewhere"),
            in_conversation("x", "fail now"),
            in_conversation("x", "after"),
            complete("counter", "no conversation"),
        ],
    );
    let content = |i: usize| out[i]["content"].as_str().unwrap_or_default().to_owned();
    assert_eq!(content(0), "answer 1", "{}", out[0]);
    assert_eq!(content(1), "answer 2", "the second turn saw the first");
    assert_eq!(content(2), "answer 1", "another conversation");
    assert_eq!(out[3]["error"]["status"], 500, "{}", out[3]);
    assert!(
        out[3]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("the model refuses"),
        "{}",
        out[3]
    );
    assert_eq!(content(4), "answer 3+ to after", "{}", out[4]);
    assert_eq!(content(5), "answer 1", "without the header: stateless");

    // What the model saw: the failed turn's prompt is not in the conversation after it.
    let seen = std::fs::read_to_string(dir.path().join("user-messages.log")).unwrap();
    assert_eq!(
        seen.lines().collect::<Vec<_>>(),
        ["1", "2", "1", "3", "3", "1"],
        "user messages per model call"
    );
    let kept = sessions(dir.path());
    assert_eq!(kept.len(), 3, "x, y and the stateless request: {kept:?}");
}

#[test]
fn a_client_that_hangs_up_mid_stream_cancels_its_turn_and_session_end_runs() {
    let dir = project();
    let server = start(dir.path(), &["--safety", "autonomous"], &[]);
    let out = client(
        &server,
        "unused",
        &[
            json!({"kind": "hangup", "model": "root", "prompt": "Run: sleep 30 && touch late-marker"}),
        ],
    );
    assert!(
        out[0]["first"]
            .as_str()
            .unwrap_or_default()
            .contains("chat.completion.chunk"),
        "{}",
        out[0]
    );
    // session_end comes only once the turn is over: cancelled, the tool never finished.
    let log = dir.path().join("session_end.log");
    while !log.exists() {
        assert!(
            !dir.path().join("late-marker").exists(),
            "the turn ran on after the client left"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!dir.path().join("late-marker").exists(), "the turn ran on");
    let out = client(&server, "unused", &[complete("root", "still serving")]);
    assert_eq!(out[0]["content"], "You said: still serving");
}

#[test]
fn a_slow_turn_does_not_hold_up_another() {
    let dir = project();
    let server = start(dir.path(), &["--safety", "autonomous"], &[]);
    std::thread::scope(|scope| {
        let slow = scope.spawn(|| {
            client(
                &server,
                "unused",
                &[complete(
                    "root",
                    "Run: while [ ! -f go ]; do sleep 0.05; done; echo released",
                )],
            )
        });
        // Answered while the slow turn still waits for `go`.
        let out = client(&server, "unused", &[complete("root", "quick")]);
        assert_eq!(out[0]["content"], "You said: quick", "{}", out[0]);
        std::fs::write(dir.path().join("go"), "").unwrap();
        let out = slow.join().unwrap();
        assert_eq!(
            out[0]["content"], "`shell` returned: released\n",
            "{}",
            out[0]
        );
    });
}

#[test]
fn agent_serves_only_the_named_agent() {
    let dir = project();
    let server = start(dir.path(), &["--agent", "counter"], &[]);
    let out = client(
        &server,
        "unused",
        &[
            json!({"kind": "models"}),
            complete("root", "hi"),
            complete("counter", "hi"),
        ],
    );
    assert_eq!(out[0]["models"], json!(["counter"]));
    assert_eq!(out[1]["error"]["status"], 404, "{}", out[1]);
    assert_eq!(out[2]["content"], "answer 1");
}
