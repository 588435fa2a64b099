//! `tether serve mcp` end to end: the real binary as the server (started by the client over
//! stdio, or listening for streamable HTTP), the official `mcp` Python SDK as the client
//! (`serve/mcp/client.py`), the offline script model, and docker-agent's own MCP cases
//! replayed from its cassettes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cassette::CassetteServer;
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
      user_prompt_submit:
        - type: command
          command: |
            if grep -q forbidden; then echo "no forbidden topics" >&2; exit 2; fi
  careful:
    model: script/agent.script.yaml
    description: Asks before it runs anything
    safety: balanced
    toolsets:
      - type: shell
  thinker:
    model: script/agent.script.yaml
    toolsets:
      - type: think
"#;

const SCRIPT: &str = r#"rules:
  - match: '^Run:\s*(?P<cmd>.+?)\s*$'
    reply:
      tool_calls:
        - name: shell
          arguments: {cmd: '${cmd}'}
  - match: '^fail'
    reply:
      error: {kind: bad_request, message: the model refuses}
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

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/serve/mcp")
        .join(name)
}

/// Runs the SDK client with `spec` (see client.py) and returns what it printed.
fn client(spec: &Value) -> Value {
    #[expect(
        clippy::disallowed_methods,
        reason = "tests run the official SDK client"
    )]
    let out = std::process::Command::new(serve::python())
        .arg(testdata("client.py"))
        .arg(spec.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The client starts `tether serve mcp ARGS…` in `dir` itself and makes `calls`.
fn stdio(dir: &Path, args: &[&str], env: &[(&str, &str)], calls: &[(&str, &str)]) -> Value {
    let calls: Vec<Value> = calls.iter().map(|(t, m)| json!([t, m])).collect();
    stdio_calls(dir, args, env, &calls)
}

fn stdio_calls(dir: &Path, args: &[&str], env: &[(&str, &str)], calls: &[Value]) -> Value {
    let mut all = vec!["mcp"];
    all.extend_from_slice(args);
    let (program, args, mut vars) = serve::command_line(dir, &all);
    vars.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    let env: serde_json::Map<String, Value> = vars
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let out = client(&json!({
        "stdio": {"command": program, "args": args, "env": env, "cwd": dir},
        "calls": calls,
    }));
    assert!(out.get("error").is_none(), "{out:#}");
    out
}

fn http(url: &str, token: Option<&str>, calls: &[(&str, &str)]) -> Value {
    client(&json!({"http": format!("{url}/mcp"), "token": token, "calls": calls}))
}

/// docker-agent answers on every path; clients configured with the bare address work too.
fn http_root(url: &str, calls: &[(&str, &str)]) -> Value {
    client(&json!({"http": format!("{url}/"), "token": null, "calls": calls}))
}

fn response(result: &Value) -> &str {
    result["structured"]["response"]
        .as_str()
        .unwrap_or_default()
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
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn stdio_lists_each_agent_as_a_tool_and_a_call_answers_in_a_stored_session() {
    let dir = project();
    let out = stdio(dir.path(), &["agent.yaml"], &[], &[("root", "hello there")]);
    let tools = out["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["root", "careful", "thinker"]);
    let root = &tools[0];
    assert_eq!(root["description"], "Answers offline");
    assert_eq!(root["inputSchema"]["required"], json!(["message"]));
    assert_eq!(
        root["inputSchema"]["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(root["outputSchema"]["required"], json!(["response"]));
    // The shell is not read-only; think is.
    assert_eq!(root["annotations"]["readOnlyHint"], false);
    assert_eq!(tools[2]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools[2]["description"], "Run the thinker agent");

    let r = &out["results"][0];
    assert_eq!(r["is_error"], false);
    assert_eq!(response(r), "You said: hello there");
    let text: Value = serde_json::from_str(r["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(text, json!({"response": "You said: hello there"}));
    assert_eq!(
        sessions(dir.path()).len(),
        1,
        "the call is a stored session"
    );
}

#[test]
fn agent_serves_only_the_named_agent() {
    let dir = project();
    let out = stdio(
        dir.path(),
        &["agent.yaml", "--agent", "thinker"],
        &[],
        &[("thinker", "hi")],
    );
    assert_eq!(out["tools"].as_array().unwrap().len(), 1);
    assert_eq!(out["tools"][0]["name"], "thinker");
    assert_eq!(response(&out["results"][0]), "You said: hi");
}

#[test]
fn a_tool_runs_and_a_pre_tool_use_deny_holds() {
    let dir = project();
    let out = stdio(
        dir.path(),
        &["agent.yaml"],
        &[],
        &[
            ("root", "Run: echo ran"),
            ("root", "Run: touch denied-marker"),
        ],
    );
    assert_eq!(response(&out["results"][0]), "`shell` returned: ran\n");
    let denied = response(&out["results"][1]);
    assert!(
        !dir.path().join("denied-marker").exists(),
        "the denied tool ran"
    );
    assert!(denied.contains("the guard says no"), "{denied}");
}

#[test]
fn an_ask_nobody_can_answer_is_a_denial_with_the_reason() {
    let dir = project();
    let out = stdio(
        dir.path(),
        &["agent.yaml"],
        &[],
        &[("careful", "Run: touch asked-marker")],
    );
    let r = response(&out["results"][0]);
    assert!(!dir.path().join("asked-marker").exists(), "the ask ran");
    assert!(
        r.contains("nobody can answer here (tether serve mcp)"),
        "{r}"
    );
}

#[test]
fn a_failed_run_is_a_tool_error_with_the_reason() {
    let dir = project();
    let out = stdio(
        dir.path(),
        &["agent.yaml"],
        &[],
        &[("root", "fail now"), ("root", "a forbidden topic")],
    );
    for (r, reason) in [
        (&out["results"][0], "the model refuses"),
        (&out["results"][1], "no forbidden topics"),
    ] {
        assert_eq!(r["is_error"], true, "{r}");
        let text = r["text"][0].as_str().unwrap();
        assert!(text.contains(reason), "{text}");
    }
}

#[test]
fn http_needs_the_token_and_answers_with_it() {
    let dir = project();
    let server = Server::start(
        dir.path(),
        &[
            "mcp",
            "agent.yaml",
            "--http",
            "--listen",
            "127.0.0.1:0",
            "--auth-token",
            "s3cret",
        ],
        &[],
    );
    for token in [None, Some("wrong")] {
        let out = http(&server.url, token, &[("root", "hi")]);
        assert_eq!(out["error"]["type"], "MCPError", "{token:?}: {out:#}");
        assert_eq!(out["statuses"], json!([401]), "{token:?}: {out:#}");
    }
    let out = http(&server.url, Some("s3cret"), &[("root", "over http")]);
    assert!(out.get("error").is_none(), "{out:#}");
    assert!(!out["statuses"].as_array().unwrap().contains(&json!(401)));
    assert_eq!(out["tools"].as_array().unwrap().len(), 3);
    assert_eq!(response(&out["results"][0]), "You said: over http");
}

#[test]
fn http_defaults_to_restricted_so_an_unasked_tool_is_denied() {
    let dir = project();
    let server = Server::start(
        dir.path(),
        &["mcp", "agent.yaml", "--http", "--listen", "127.0.0.1:0"],
        &[],
    );
    let out = http_root(&server.url, &[("root", "Run: touch http-marker")]);
    assert!(out.get("error").is_none(), "{out:#}");
    let r = response(&out["results"][0]);
    assert!(!dir.path().join("http-marker").exists(), "{r}");
    assert!(r.contains("denied") || r.contains("restricted"), "{r}");
}

// docker-agent's e2e/mcp_test.go, its cassettes replayed through a local provider server.

/// `tether serve mcp FILE` (over stdio) calling `tool` on `message`, the provider answering
/// from the recorded cassette `TestMCP_NAME`.
fn docker_agent_case(name: &str, file: &str, tool: &str, message: &str) -> String {
    let cassette =
        CassetteServer::start_blocking(testdata(&format!("TestMCP_{name}.yaml"))).unwrap();
    let dir = TempDir::new().unwrap();
    std::fs::copy(testdata(file), dir.path().join(file)).unwrap();
    let base = format!("{}/v1", cassette.base_url());
    let out = stdio(
        dir.path(),
        &[file],
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "test")],
        &[(tool, message)],
    );
    let r = &out["results"][0];
    assert_eq!(r["is_error"], false, "{r}");
    assert_eq!(cassette.served(), cassette.len(), "every recorded response");
    response(r).to_owned()
}

#[test]
fn docker_agent_mcp_single_agent() {
    let answer = docker_agent_case(
        "SingleAgent",
        "basic.yaml",
        "root",
        "What is 2+2? Answer in one sentence.",
    );
    assert_eq!(answer, "2 + 2 equals 4.");
}

#[test]
fn docker_agent_mcp_multi_agent() {
    let answer = docker_agent_case(
        "MultiAgent",
        "multi.yaml",
        "web",
        "Say hello in one sentence.",
    );
    assert!(answer.contains("Hello"), "{answer}");
}

#[test]
fn an_unknown_tool_or_a_bad_message_is_a_protocol_error_and_the_server_stays_up() {
    let dir = project();
    let out = stdio_calls(
        dir.path(),
        &["agent.yaml"],
        &[],
        &[
            json!(["nope", "hi"]),
            json!(["root", 42]),
            json!(["root", "still up"]),
        ],
    );
    let results = out["results"].as_array().unwrap();
    for r in &results[..2] {
        assert_eq!(r["error"]["type"], "MCPError", "{r}");
    }
    let unknown = results[0]["error"]["message"].as_str().unwrap();
    assert!(unknown.contains("nope"), "{unknown}");
    assert_eq!(response(&results[2]), "You said: still up");
}

#[test]
fn a_slow_call_does_not_hold_up_another() {
    let dir = project();
    let (program, args, vars) = serve::command_line(dir.path(), &["mcp", "agent.yaml"]);
    let env: serde_json::Map<String, Value> = vars
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    // The first call waits for `go`, which the client creates once the second answered.
    let out = client(&json!({
        "stdio": {"command": program, "args": args, "env": env, "cwd": dir.path()},
        "calls": [["root", "Run: while [ ! -f go ]; do sleep 0.05; done; echo released"], ["root", "quick"]],
        "release": dir.path().join("go"),
    }));
    assert!(out.get("error").is_none(), "{out:#}");
    assert_eq!(response(&out["results"][1]), "You said: quick");
    assert_eq!(response(&out["results"][0]), "`shell` returned: released\n");
}
