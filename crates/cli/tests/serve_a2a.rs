//! `tether serve a2a` end to end: the real binary as the server, the official A2A SDKs as
//! clients (a2a-sdk 1.x for protocol 1.0, a2a-sdk 0.3 for 0.3; scripts in `serve/a2a/`),
//! the offline script model, and docker-agent's own A2A cases replayed from its cassettes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cassette::CassetteServer;
use tether_test_support::serve::{self, Server};

const AGENT: &str = r#"permissions:
  ask: ["shell:cmd=touch asked*"]
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
      user_prompt_submit:
        - type: command
          command: |
            if grep -q forbidden; then echo "no forbidden topics" >&2; exit 2; fi
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

fn start(dir: &Path, extra: &[&str]) -> Server {
    let mut args = vec!["a2a", "agent.yaml", "--listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    Server::start(dir, &args, &[])
}

/// The SDK generations: (python, client script).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sdk {
    V10,
    V03,
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/serve/a2a")
        .join(name)
}

/// Runs an SDK client: `mode` is card, send, stream or cancel; `token` `None` sends none.
fn client(sdk: Sdk, url: &str, token: Option<&str>, mode: &str, prompts: &[&str]) -> Value {
    let (python, file) = match sdk {
        Sdk::V10 => (serve::python(), script("client10.py")),
        Sdk::V03 => (serve::python03(), script("client03.py")),
    };
    #[expect(
        clippy::disallowed_methods,
        reason = "tests run the official SDK clients"
    )]
    let out = std::process::Command::new(python)
        .arg(file)
        .args([url, token.unwrap_or("-"), mode])
        .args(prompts)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{sdk:?} client printed no JSON ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The task a send run ended with, whatever the generation.
fn final_task(sdk: Sdk, out: &Value) -> Value {
    assert!(out.get("error").is_none(), "{out:#}");
    let run = out["runs"][0].as_array().unwrap();
    match sdk {
        Sdk::V10 => run.last().unwrap()["task"].clone(),
        Sdk::V03 => run.last().unwrap()[0].clone(),
    }
}

fn state(sdk: Sdk, s: &str) -> String {
    match sdk {
        Sdk::V10 => format!("TASK_STATE_{}", s.to_uppercase()),
        Sdk::V03 => s.to_owned(),
    }
}

/// Every text part of the task's artifacts.
fn artifact_texts(task: &Value) -> Vec<String> {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect()
}

fn sessions(dir: &Path) -> Vec<Value> {
    #[expect(clippy::disallowed_methods, reason = "tests run the real binary")]
    let out = std::process::Command::new(tether_test_support::bins::tether())
        .args(["sessions", "list", "--json"])
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits (up to a minute, for a busy machine) until `path` holds `n` lines.
fn wait_lines(path: &Path, n: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(path).map_or(0, |s| s.lines().count());
        if lines >= n || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn both_sdk_generations_resolve_the_card() {
    let dir = project();
    let server = start(dir.path(), &[]);
    let v10 = client(Sdk::V10, &server.url, None, "card", &[]);
    let card = &v10["card"];
    assert_eq!(card["name"], "agent", "{v10:#}");
    assert_eq!(card["description"], "Answers offline");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
    assert!(
        card["supportedInterfaces"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/invoke")
    );
    assert_eq!(card["skills"][0]["id"], "agent_root");
    assert_eq!(card["skills"][0]["name"], "root");
    assert!(card.get("securitySchemes").is_none());

    let v03 = client(Sdk::V03, &server.url, None, "card", &[]);
    let card = &v03["card"];
    assert_eq!(card["name"], "agent", "{v03:#}");
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert!(card["url"].as_str().unwrap().ends_with("/invoke"));
    assert_eq!(card["defaultInputModes"], json!(["text/plain"]));
}

fn sends_and_gets_the_task(sdk: Sdk) {
    let dir = project();
    let server = start(dir.path(), &[]);
    let out = client(sdk, &server.url, None, "send", &["hello there"]);
    let task = final_task(sdk, &out);
    assert_eq!(task["status"]["state"], state(sdk, "completed"), "{out:#}");
    assert_eq!(artifact_texts(&task), ["You said: hello there"]);
    assert_eq!(task["history"][0]["parts"][0]["text"], "hello there");
    // tasks/get finds the same task; an unknown id is the SDK's task-not-found error.
    assert_eq!(out["got"]["id"], task["id"]);
    assert_eq!(out["got"]["status"]["state"], state(sdk, "completed"));
    let missing = out["missing"].as_str().unwrap();
    assert!(
        missing.contains("no-such-task") && missing.contains("not found"),
        "{missing}"
    );
    // A real, stored Tether session.
    let stored = sessions(dir.path());
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["first_prompt"], "hello there");
    assert_eq!(wait_lines(&dir.path().join("session_end.log"), 1), 1);
}

#[test]
fn a_1_0_client_sends_and_gets_the_task() {
    sends_and_gets_the_task(Sdk::V10);
}

#[test]
fn a_0_3_client_sends_and_gets_the_task() {
    sends_and_gets_the_task(Sdk::V03);
}

#[test]
fn a_1_0_client_streams_submitted_working_the_answer_and_completed() {
    let dir = project();
    let server = start(dir.path(), &[]);
    let out = client(Sdk::V10, &server.url, None, "stream", &["stream please"]);
    assert!(out.get("error").is_none(), "{out:#}");
    let events = out["runs"][0].as_array().unwrap();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            let (k, v) = e.as_object().unwrap().iter().next().unwrap();
            match k.as_str() {
                "task" | "statusUpdate" => {
                    format!("{k}:{}", v["status"]["state"].as_str().unwrap())
                }
                // ProtoJSON leaves out false booleans.
                _ if v["lastChunk"] == true => format!("{k}:whole"),
                _ => format!("{k}:piece"),
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "task:TASK_STATE_SUBMITTED",
            "statusUpdate:TASK_STATE_WORKING",
            "artifactUpdate:piece",
            "artifactUpdate:whole",
            "statusUpdate:TASK_STATE_COMPLETED"
        ],
        "{out:#}"
    );
    // The script model writes its answer in one piece; then the whole answer replaces it.
    for e in &events[2..4] {
        assert_eq!(
            e["artifactUpdate"]["artifact"]["parts"][0]["text"],
            "You said: stream please"
        );
        assert_eq!(
            e["artifactUpdate"]["artifact"]["artifactId"],
            events[2]["artifactUpdate"]["artifact"]["artifactId"]
        );
    }
}

#[test]
fn a_0_3_client_streams_submitted_working_the_answer_and_a_final_completed() {
    let dir = project();
    let server = start(dir.path(), &[]);
    let out = client(Sdk::V03, &server.url, None, "stream", &["stream please"]);
    assert!(out.get("error").is_none(), "{out:#}");
    let events = out["runs"][0].as_array().unwrap();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e[1].as_object() {
            None => format!("task:{}", e[0]["status"]["state"].as_str().unwrap()),
            Some(u) => format!(
                "{}:{}",
                u["kind"].as_str().unwrap(),
                u.get("status").map_or_else(
                    || u["lastChunk"].to_string(),
                    |s| s["state"].as_str().unwrap().to_owned()
                )
            ),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "task:submitted",
            "status-update:working",
            "artifact-update:false",
            "artifact-update:true",
            "status-update:completed"
        ],
        "{out:#}"
    );
    let last = events.last().unwrap();
    assert_eq!(last[1]["final"], true);
    // The SDK's task manager folded the pieces into the task, and the whole answer replaced
    // them (no doubled text).
    assert_eq!(artifact_texts(&last[0]), ["You said: stream please"]);
}

#[test]
fn a_token_guards_everything_but_the_card() {
    let dir = project();
    let server = start(dir.path(), &["--auth-token", "s3cret"]);
    for sdk in [Sdk::V10, Sdk::V03] {
        let none = client(sdk, &server.url, None, "send", &["hi"]);
        assert_eq!(none["card"]["name"], "agent", "{sdk:?}: {none:#}");
        let error = none["error"].as_str().unwrap_or_default();
        assert!(error.contains("401"), "{sdk:?}: {none:#}");
        let wrong = client(sdk, &server.url, Some("s3cre7"), "send", &["hi"]);
        assert!(
            wrong["error"].as_str().unwrap_or_default().contains("401"),
            "{sdk:?}: {wrong:#}"
        );
        let right = client(sdk, &server.url, Some("s3cret"), "send", &["hi"]);
        let task = final_task(sdk, &right);
        assert_eq!(artifact_texts(&task), ["You said: hi"], "{sdk:?}");
    }
    let card = client(Sdk::V03, &server.url, None, "card", &[]);
    assert_eq!(
        card["card"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert_eq!(card["card"]["security"], json!([{"bearer": []}]));
    let card = client(Sdk::V10, &server.url, None, "card", &[]);
    assert_eq!(
        card["card"]["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"], "bearer",
        "{card:#}"
    );
    // Only the runs with the right token reached the agent.
    assert_eq!(sessions(dir.path()).len(), 2);
}

#[test]
fn a_pre_tool_use_hook_that_denies_holds_and_the_client_hears_why() {
    let dir = project();
    // The hook runs ahead of the safety mode (`preempt_yolo`), so it holds even where
    // every other call runs.
    let server = start(dir.path(), &["--safety", "autonomous"]);
    for sdk in [Sdk::V10, Sdk::V03] {
        let out = client(
            sdk,
            &server.url,
            None,
            "send",
            &["Run: touch denied-marker"],
        );
        let task = final_task(sdk, &out);
        let texts = artifact_texts(&task);
        assert_eq!(texts.len(), 1, "{out:#}");
        assert!(texts[0].contains("the guard says no"), "{sdk:?}: {texts:?}");
        assert!(!dir.path().join("denied-marker").exists());
    }
    // The stream also says which tool failed and why, as the working status's message.
    let out = client(
        Sdk::V10,
        &server.url,
        None,
        "stream",
        &["Run: touch denied-marker"],
    );
    let said: Vec<&str> = out["runs"][0]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["statusUpdate"]["status"]["message"]["parts"][0]["text"].as_str())
        .collect();
    assert!(
        said.iter()
            .any(|t| t.starts_with("tool `shell` failed:") && t.contains("the guard says no")),
        "{out:#}"
    );
    assert!(!dir.path().join("denied-marker").exists());
    // The same hook lets other commands through (it can fail: the marker appears).
    let out = client(
        Sdk::V10,
        &server.url,
        None,
        "send",
        &["Run: touch allowed-marker"],
    );
    final_task(Sdk::V10, &out);
    assert!(dir.path().join("allowed-marker").exists(), "{out:#}");
}

#[test]
fn a_prompt_a_hook_blocks_is_a_rejected_task_that_says_why() {
    let dir = project();
    let server = start(dir.path(), &[]);
    for sdk in [Sdk::V10, Sdk::V03] {
        let out = client(sdk, &server.url, None, "send", &["a forbidden topic"]);
        let task = final_task(sdk, &out);
        assert_eq!(task["status"]["state"], state(sdk, "rejected"), "{out:#}");
        let why = task["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(why.contains("no forbidden topics"), "{why}");
        assert!(artifact_texts(&task).is_empty());
    }
}

#[test]
fn an_ask_nobody_can_answer_is_a_denial_with_the_reason() {
    let dir = project();
    // Balanced safety asks; an A2A client cannot answer.
    let server = start(dir.path(), &["--safety", "balanced"]);
    for sdk in [Sdk::V10, Sdk::V03] {
        let out = client(sdk, &server.url, None, "send", &["Run: touch asked-marker"]);
        let task = final_task(sdk, &out);
        let texts = artifact_texts(&task);
        assert!(
            texts.iter().any(|t| t.contains(
                "needs the user's approval, and nobody can answer here (tether serve a2a): denied"
            )),
            "{sdk:?}: {out:#}"
        );
        assert!(!dir.path().join("asked-marker").exists());
    }
}

#[test]
fn cancel_stops_a_running_task_and_its_session_still_ends() {
    let dir = project();
    let server = start(dir.path(), &["--safety", "autonomous"]);
    for (n, sdk) in [Sdk::V10, Sdk::V03].into_iter().enumerate() {
        let out = client(sdk, &server.url, None, "cancel", &["Run: sleep 600"]);
        assert!(out.get("error").is_none(), "{out:#}");
        assert_eq!(
            out["canceled"]["status"]["state"],
            state(sdk, "canceled"),
            "{out:#}"
        );
        assert_eq!(out["got"]["status"]["state"], state(sdk, "canceled"));
        // The turn stopped: session_end ran although `sleep 600` would still be running.
        assert_eq!(
            wait_lines(&dir.path().join("session_end.log"), n + 1),
            n + 1
        );
    }
}

#[test]
fn a_client_that_goes_away_cancels_its_turn_and_a_slow_turn_blocks_no_other() {
    let dir = project();
    let server = start(dir.path(), &["--safety", "autonomous"]);
    let code = r#"
import json, sys, httpx
url = sys.argv[1] + "/invoke"
def body(method, text):
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": {
        "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": text}]}}}
out = {}
with httpx.stream("POST", url, json=body("message/stream", "Run: sleep 600"), timeout=120) as r:
    for line in r.iter_lines():
        if "calling `shell`" in line:
            break
    # The slow turn runs: another message is answered meanwhile.
    out["other"] = httpx.post(url, json=body("message/send", "hello"), timeout=120).json()
# A blocking send whose client gives up.
try:
    httpx.post(url, json=body("message/send", "Run: sleep 601"), timeout=1)
except httpx.TimeoutException:
    out["gave_up"] = True
print(json.dumps(out))
"#;
    #[expect(clippy::disallowed_methods, reason = "tests run python's httpx")]
    let out = std::process::Command::new(serve::python())
        .args(["-c", code, &server.url])
        .output()
        .unwrap();
    let out: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        out["other"]["result"]["status"]["state"], "completed",
        "{out:#}"
    );
    assert_eq!(out["gave_up"], true, "{out:#}");
    // All three sessions ended: the two abandoned turns were cancelled, not left to sleep.
    assert_eq!(wait_lines(&dir.path().join("session_end.log"), 3), 3);
}

/// Plain HTTP requests through Python's httpx (what no SDK would send, and docker-agent's
/// hand-built requests): `(method, url, headers JSON, body)` each; `[{status, body}]` back.
fn http(requests: &[(&str, &str, &str, &str)]) -> Vec<Value> {
    let code = r#"
import json, sys, httpx
out = []
for method, url, headers, body in json.load(sys.stdin):
    headers = json.loads(headers or '{"Content-Type": "application/json"}')
    r = httpx.request(method, url, content=body.encode() or None, headers=headers, timeout=120)
    try:
        payload = r.json()
    except Exception:
        payload = r.text
    out.append({"status": r.status_code, "body": payload})
print(json.dumps(out))
"#;
    #[expect(clippy::disallowed_methods, reason = "tests run python's httpx")]
    let mut child = std::process::Command::new(serve::python())
        .args(["-c", code])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_vec(requests).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn malformed_requests_get_json_rpc_errors_and_the_server_stays_up() {
    let dir = project();
    let server = start(dir.path(), &[]);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"pad":"{}"}}}}"#,
        "x".repeat(5 * 1024 * 1024)
    );
    let send = |method: &str, parts: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{"message":{{"messageId":"m","role":"user","parts":{parts}}}}}}}"#
        )
    };
    let cases = [
        ("", "{\"jsonrpc\": \"2.0\", ".to_owned()),
        ("", "[1, 2]".to_owned()),
        (
            "",
            r#"{"jsonrpc":"1.0","id":1,"method":"message/send"}"#.to_owned(),
        ),
        (
            "",
            r#"{"jsonrpc":"2.0","id":2,"method":"tasks/explode"}"#.to_owned(),
        ),
        (
            "",
            r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"nope":1}}"#.to_owned(),
        ),
        (
            "",
            r#"{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"t-404"}}"#.to_owned(),
        ),
        (
            "",
            r#"{"jsonrpc":"2.0","id":5,"method":"CancelTask","params":{"id":"t-404"}}"#.to_owned(),
        ),
        ("", send("message/send", "[]")),
        (
            r#"{"A2A-Version": "0.3", "Content-Type": "application/json"}"#,
            send("SendMessage", r#"[{"text":"hi"}]"#),
        ),
        // What a web page may post to a local server without asking the browser first.
        (
            r#"{"Content-Type": "text/plain"}"#,
            send("message/send", r#"[{"kind":"text","text":"csrf"}]"#),
        ),
        (
            "",
            r#"{"jsonrpc":"2.0","id":6,"method":"tasks/pushNotificationConfig/set","params":{}}"#
                .to_owned(),
        ),
        ("", big),
        (
            "",
            send("message/send", r#"[{"kind":"text","text":"still here?"}]"#),
        ),
    ];
    let invoke = format!("{}/invoke", server.url);
    let requests: Vec<(&str, &str, &str, &str)> = cases
        .iter()
        .map(|(h, b)| ("POST", invoke.as_str(), *h, b.as_str()))
        .collect();
    let out = http(&requests);
    let codes: Vec<i64> = out
        .iter()
        .map(|r| {
            r["body"]["error"]["code"]
                .as_i64()
                .unwrap_or_else(|| r["status"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(
        codes,
        [
            -32700, -32600, -32600, -32601, -32602, -32001, -32001, -32602, -32009, -32600, -32003,
            413, 200
        ],
        "{out:#?}"
    );
    assert_eq!(out[5]["body"]["id"], 4);
    assert_eq!(out[5]["body"]["error"]["message"], "task `t-404` not found");
    assert_eq!(out[9]["status"], 415);
    let stored = sessions(dir.path());
    assert!(
        stored.iter().all(|s| s["first_prompt"] != "csrf"),
        "{stored:?}"
    );
    assert_eq!(
        out[12]["body"]["result"]["artifacts"][0]["parts"][0]["text"],
        "You said: still here?"
    );
}

#[test]
fn a_non_loopback_listen_needs_a_token_or_insecure_no_auth() {
    let dir = project();
    let out = serve::command(
        dir.path(),
        &["a2a", "agent.yaml", "--listen", "0.0.0.0:0"],
        &[],
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to serve A2A on 0.0.0.0:0 without a token"),
        "{stderr}"
    );
    let server = Server::start(
        dir.path(),
        &[
            "a2a",
            "agent.yaml",
            "--listen",
            "0.0.0.0:0",
            "--insecure-no-auth",
        ],
        &[],
    );
    let port = server.url.rsplit_once(':').unwrap().1;
    let out = client(
        Sdk::V10,
        &format!("http://127.0.0.1:{port}"),
        None,
        "send",
        &["hi"],
    );
    assert_eq!(
        artifact_texts(&final_task(Sdk::V10, &out)),
        ["You said: hi"]
    );
}

// docker-agent's e2e/a2a_test.go, its cassettes replayed through a local provider server.

fn cassette_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve/a2a")
}

/// `tether serve a2a FILE` against the recorded cassette `TestA2AServer_NAME`.
fn docker_agent_server(name: &str, file: &str) -> (TempDir, CassetteServer, Server) {
    let cassette =
        CassetteServer::start_blocking(cassette_dir().join(format!("TestA2AServer_{name}.yaml")))
            .unwrap();
    let dir = TempDir::new().unwrap();
    std::fs::copy(cassette_dir().join(file), dir.path().join(file)).unwrap();
    let base = format!("{}/v1", cassette.base_url());
    let server = Server::start(
        dir.path(),
        &["a2a", file, "--listen", "127.0.0.1:0"],
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "test")],
    );
    (dir, cassette, server)
}

/// The docker-agent test's request: a 0.3 `message/send`, straight to the card's URL.
fn send_a2a_message(card_url: &str, request_id: &str, message_id: &str, text: &str) -> Value {
    let body = json!({
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "message/send",
        "params": {"message": {
            "messageId": message_id,
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
        }},
    });
    let out = http(&[("POST", card_url, "", &body.to_string())]);
    assert_eq!(out[0]["status"], 200, "{out:#?}");
    out[0]["body"].clone()
}

fn agent_card(server: &Server) -> Value {
    let url = format!("{}/.well-known/agent-card.json", server.url);
    let out = http(&[("GET", &url, "", "")]);
    assert_eq!(out[0]["status"], 200, "{out:#?}");
    out[0]["body"].clone()
}

fn text_parts(resp: &Value) -> Vec<String> {
    resp["result"]["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["kind"] == "text")
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn docker_agent_a2a_agent_card() {
    let (_dir, cassette, server) = docker_agent_server("AgentCard", "basic.yaml");
    let card = agent_card(&server);
    assert_eq!(card["name"], "basic");
    assert!(!card["description"].as_str().unwrap().is_empty());
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert!(card["url"].as_str().unwrap().contains("/invoke"));
    assert_eq!(card["capabilities"]["streaming"], true);
    assert!(!card["version"].as_str().unwrap().is_empty());
    assert_eq!(cassette.served(), 0);
}

#[test]
fn docker_agent_a2a_invoke() {
    let (_dir, cassette, server) = docker_agent_server("Invoke", "basic.yaml");
    let card = agent_card(&server);
    let resp = send_a2a_message(
        card["url"].as_str().unwrap(),
        "test-request-1",
        "msg-1",
        "What is 2+2? Answer with just the number.",
    );
    assert_eq!(resp["jsonrpc"], "2.0");
    assert_eq!(resp["id"], "test-request-1");
    assert!(resp.get("error").is_none(), "{resp:#}");
    let texts = text_parts(&resp);
    assert!(!texts.is_empty(), "{resp:#}");
    for text in texts {
        assert_eq!(text, "4");
    }
    assert_eq!(cassette.served(), cassette.len());
}

#[test]
fn docker_agent_a2a_multiple_requests() {
    let (_dir, cassette, server) = docker_agent_server("MultipleRequests", "basic.yaml");
    let card = agent_card(&server);
    let url = card["url"].as_str().unwrap();
    for (i, message) in ["Say 'hello' in one word.", "Say 'goodbye' in one word."]
        .into_iter()
        .enumerate()
    {
        let request_id = format!("test-request-{i}");
        let resp = send_a2a_message(url, &request_id, &format!("msg-{i}"), message);
        assert_eq!(resp["id"], request_id.as_str());
        assert!(resp.get("error").is_none(), "{resp:#}");
        assert!(resp["result"].is_object());
    }
    assert_eq!(cassette.served(), cassette.len());
}

#[test]
fn docker_agent_a2a_multi_agent() {
    let (_dir, cassette, server) = docker_agent_server("MultiAgent", "multi.yaml");
    let card = agent_card(&server);
    let resp = send_a2a_message(
        card["url"].as_str().unwrap(),
        "test-multi-1",
        "msg-multi-1",
        "Say hello.",
    );
    assert_eq!(resp["id"], "test-multi-1");
    assert!(resp.get("error").is_none(), "{resp:#}");
    let texts = text_parts(&resp);
    assert!(texts.last().unwrap().contains("Hello"), "{resp:#}");
    assert_eq!(cassette.served(), cassette.len());
}
