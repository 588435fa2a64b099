//! `tether serve acp` end to end: the real binary as the agent, started over stdio by the
//! official `agent-client-protocol` Python SDK acting as the editor (`serve/acp/client.py`),
//! with the offline script model. Protocol errors are checked on a raw pipe.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::serve;

const AGENT: &str = r#"agents:
  root:
    model: script/agent.script.yaml
    description: Answers offline
    instruction: You help.
    commands:
      greet:
        description: Say hello
        instruction: "Greet ${args[0]} warmly"
    toolsets:
      - type: shell
      - type: todo
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: command
              command: |
                if grep -q denied-marker; then echo "the guard says no" >&2; exit 2; fi
      session_end:
        - type: command
          command: "cat >> session-end.jsonl; echo >> session-end.jsonl"
"#;

const SCRIPT: &str = r#"rules:
  - match: '^Run:\s*(?P<cmd>.+?)\s*$'
    reply:
      tool_calls:
        - name: shell
          arguments: {cmd: '${cmd}'}
  - match: '^Plan'
    reply:
      tool_calls:
        - name: create_todos
          arguments: {descriptions: [read the code, fix the bug]}
  - match: '^Ponder'
    reply:
      reasoning: thinking it over
      text: I pondered.
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

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve/acp/client.py")
}

/// Runs the SDK editor: it starts `tether serve acp agent.yaml ARGS…` in `dir` and plays
/// `steps`, answering every permission request with `permission`.
fn editor(dir: &Path, args: &[&str], permission: &str, steps: &Value) -> Value {
    let mut all = vec!["acp", "agent.yaml"];
    all.extend_from_slice(args);
    let (program, args, vars) = serve::command_line(dir, &all);
    let env: serde_json::Map<String, Value> = vars
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let spec = json!({
        "command": program, "args": args, "env": env, "cwd": dir,
        "permission": permission, "steps": steps,
    });
    #[expect(
        clippy::disallowed_methods,
        reason = "tests run the official SDK client"
    )]
    let out = std::process::Command::new(serve::python())
        .arg(client_script())
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

/// The `sessionUpdate` kinds a session received, in order.
fn kinds(out: &Value, session: &str) -> Vec<String> {
    updates(out, session)
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap().to_owned())
        .collect()
}

fn updates<'a>(out: &'a Value, session: &str) -> &'a Vec<Value> {
    let id = out["sessions"][session].as_str().unwrap();
    out["updates"][id]
        .as_array()
        .unwrap_or_else(|| panic!("no updates for {session}: {out:#}"))
}

/// The text of every chunk of `kind` a session received.
fn text(out: &Value, session: &str, kind: &str) -> String {
    updates(out, session)
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect()
}

fn tool_update<'a>(out: &'a Value, session: &str) -> &'a Value {
    updates(out, session)
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap_or_else(|| panic!("no tool_call_update: {out:#}"))
}

fn ends(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("session-end.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_prompt_streams_chunks_and_a_shell_call_with_its_result() {
    let dir = project();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "reject_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Ponder this"},
            {"op": "prompt", "session": "a", "text": "Run: echo hello-from-shell"},
        ]),
    );
    let init = &out["results"][0];
    assert_eq!(init["protocolVersion"], 1, "{out:#}");
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(init["agentInfo"]["name"], "tether");
    assert_eq!(out["results"][2]["stopReason"], "end_turn", "{out:#}");
    assert_eq!(out["results"][3]["stopReason"], "end_turn", "{out:#}");
    assert_eq!(text(&out, "a", "agent_thought_chunk"), "thinking it over");
    let said = text(&out, "a", "agent_message_chunk");
    assert!(said.starts_with("I pondered."), "{said}");
    assert!(
        said.contains("`shell` returned: hello-from-shell"),
        "{said}"
    );
    let call = updates(&out, "a")
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call")
        .unwrap();
    assert_eq!(call["kind"], "execute");
    assert_eq!(call["status"], "in_progress");
    assert_eq!(call["rawInput"]["cmd"], "echo hello-from-shell");
    let result = tool_update(&out, "a");
    assert_eq!(result["toolCallId"], call["toolCallId"]);
    assert_eq!(result["status"], "completed");
    assert!(
        result["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("hello-from-shell")
    );
    // Autonomous: nobody was asked; each prompt was one submission with its session_end.
    assert_eq!(out["permissions"], json!([]));
    assert_eq!(ends(dir.path()).len(), 2);
    assert_eq!(out["exit_code"], 0, "{out:#}");
}

#[test]
fn a_permission_answered_allow_runs_the_tool() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: touch allowed-marker"},
        ]),
    );
    let asked = out["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{out:#}");
    assert_eq!(asked[0]["tool_call"]["title"], "shell");
    assert_eq!(
        asked[0]["tool_call"]["rawInput"]["cmd"],
        "touch allowed-marker"
    );
    let options: Vec<&str> = asked[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        options,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    assert!(dir.path().join("allowed-marker").exists(), "{out:#}");
    assert_eq!(tool_update(&out, "a")["status"], "completed");
}

#[test]
fn a_permission_answered_reject_never_runs_the_tool_and_the_model_is_told() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "reject_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: touch rejected-marker"},
        ]),
    );
    assert_eq!(out["permissions"].as_array().unwrap().len(), 1, "{out:#}");
    assert!(!dir.path().join("rejected-marker").exists());
    let said = text(&out, "a", "agent_message_chunk");
    assert!(said.contains("rejected"), "{said}");
    assert_eq!(out["results"][2]["stopReason"], "end_turn");
}

#[test]
fn a_pre_tool_use_hook_that_denies_holds_and_the_failed_call_reaches_the_editor() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: touch denied-marker"},
        ]),
    );
    assert!(!dir.path().join("denied-marker").exists(), "{out:#}");
    let result = tool_update(&out, "a");
    assert_eq!(result["status"], "failed", "{out:#}");
    assert!(
        result["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("the guard says no"),
        "{result:#}"
    );
}

#[test]
fn loading_a_stored_session_replays_its_history() {
    let dir = project();
    let first = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: echo remembered"},
        ]),
    );
    let id = first["sessions"]["a"].as_str().unwrap();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "load", "session_id": id, "as": "b"},
            {"op": "prompt", "session": "b", "text": "and now?"},
            {"op": "load", "session_id": "no-such-session", "as": "c"},
        ]),
    );
    assert_eq!(
        kinds(&out, "b")[..4],
        [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk"
        ],
        "{out:#}"
    );
    assert_eq!(
        text(&out, "b", "user_message_chunk"),
        "Run: echo remembered"
    );
    let said = text(&out, "b", "agent_message_chunk");
    assert!(said.contains("`shell` returned: remembered"), "{said}");
    assert!(said.ends_with("You said: and now?"), "{said}");
    assert_eq!(out["results"][3]["error"]["code"], -32002, "{out:#}");
}

#[test]
fn cancelling_during_a_slow_tool_ends_the_prompt_cancelled_and_session_end_still_runs() {
    let dir = project();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt_cancel", "session": "a", "text": "Run: sleep 30 && touch slept-marker"},
        ]),
    );
    assert_eq!(out["results"][2]["stopReason"], "cancelled", "{out:#}");
    let ended = ends(dir.path());
    assert_eq!(ended.len(), 1, "{out:#}");
    assert_eq!(ended[0]["hook_event_name"], "session_end");
    assert!(!dir.path().join("slept-marker").exists());
}

#[test]
fn unknown_sessions_and_editor_mcp_servers_get_errors_not_a_crash() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "prompt_raw", "session_id": "nope", "text": "hi"},
            {"op": "new", "as": "a", "mcp_servers": [
                {"name": "docs", "command": "/bin/true", "args": [], "env": []}
            ]},
            {"op": "new", "as": "b"},
            {"op": "prompt", "session": "b", "text": "still here"},
        ]),
    );
    assert_eq!(out["results"][1]["error"]["code"], -32002, "{out:#}");
    let refused = &out["results"][2]["error"];
    assert_eq!(refused["code"], -32602, "{out:#}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("not supported yet"),
        "{refused:#}"
    );
    assert_eq!(out["results"][4]["stopReason"], "end_turn", "{out:#}");
}

/// Raw lines, for what no SDK would send: stdout must stay pure JSON-RPC throughout.
#[test]
fn malformed_lines_and_unknown_methods_get_json_rpc_errors_on_a_pure_stdout() {
    let dir = project();
    let mut cmd = serve::command(
        dir.path(),
        &[
            "acp",
            "agent.yaml",
            "--safety",
            "autonomous",
            "--hook-post-tool-use",
            "echo HOOK-LEAKED; echo HOOK-LEAKED >&2",
        ],
        &[],
    );
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value {
        let line = lines.next().unwrap().unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"))
    };
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send("{this is not json");
    let e = next();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    send(r#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#);
    assert_eq!(next()["error"]["code"], -32601);
    send(r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":7}}"#);
    assert_eq!(next()["error"]["code"], -32602);
    let cwd = dir.path().display().to_string();
    send(&json!({"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd": cwd, "mcpServers": []}}).to_string());
    let created = next();
    let sid = created["result"]["sessionId"].as_str().unwrap().to_owned();
    // A tool and a hook that both write to their stdout: none of it may reach ours.
    send(&json!({"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{
        "sessionId": sid, "prompt": [{"type": "text", "text": "Run: echo LEAKED; echo LEAKED >&2"}]}}).to_string());
    let mut answered = None;
    while answered.is_none() {
        let msg = next();
        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
        if msg["id"] == 4 {
            answered = Some(msg);
        }
    }
    assert_eq!(answered.unwrap()["result"]["stopReason"], "end_turn");
    drop(stdin);
    // stdin closed: the server exits cleanly, writing nothing more but whole messages.
    for rest in lines {
        let rest = rest.unwrap();
        assert!(serde_json::from_str::<Value>(&rest).is_ok(), "{rest}");
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn allow_always_approves_the_rest_of_the_session_without_asking_again() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_always",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: touch first-marker"},
            {"op": "prompt", "session": "a", "text": "Run: touch second-marker"},
        ]),
    );
    assert_eq!(out["permissions"].as_array().unwrap().len(), 1, "{out:#}");
    assert!(dir.path().join("first-marker").exists());
    assert!(dir.path().join("second-marker").exists());
}

#[test]
fn a_cancelled_permission_dialog_never_runs_the_tool_and_the_model_is_told() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "cancelled",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Run: touch cancelled-marker"},
        ]),
    );
    assert_eq!(out["permissions"].as_array().unwrap().len(), 1, "{out:#}");
    assert!(!dir.path().join("cancelled-marker").exists());
    // The call is cancelled, not the turn: the model hears it and answers.
    let said = text(&out, "a", "agent_message_chunk");
    assert!(said.contains("canceled by the user"), "{said}");
}

#[test]
fn tools_and_hooks_run_in_the_session_cwd_the_editor_names() {
    let dir = project();
    let sub = dir.path().join("checkout");
    std::fs::create_dir(&sub).unwrap();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a", "cwd": sub},
            {"op": "prompt", "session": "a", "text": "Run: touch here-marker"},
            {"op": "new", "as": "b", "cwd": "relative/dir"},
        ]),
    );
    assert!(sub.join("here-marker").exists(), "{out:#}");
    assert!(!dir.path().join("here-marker").exists());
    assert!(sub.join("session-end.jsonl").exists());
    assert_eq!(out["results"][3]["error"]["code"], -32602, "{out:#}");
}

#[test]
fn one_sessions_slow_turn_never_blocks_another() {
    let dir = project();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "slow"},
            {"op": "new", "as": "fast"},
            {"op": "slow_and_fast", "slow": "slow", "slow_text": "Run: sleep 30",
             "fast": "fast", "fast_text": "quick one"},
        ]),
    );
    // The fast prompt finished while the slow tool ran, and the slow one was then cancelled.
    assert_eq!(out["results"][3]["stopReason"], "end_turn", "{out:#}");
    assert_eq!(out["results"][4]["stopReason"], "cancelled", "{out:#}");
    assert_eq!(
        text(&out, "fast", "agent_message_chunk"),
        "You said: quick one"
    );
}

#[test]
fn closing_the_connection_cancels_running_turns_and_session_end_still_runs() {
    let dir = project();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt_then_close", "session": "a", "text": "Run: sleep 30 && touch slept-marker"},
        ]),
    );
    assert_eq!(out["exit_code"], 0, "{out:#}");
    let ended = ends(dir.path());
    assert_eq!(ended.len(), 1, "{out:#}");
    assert!(!dir.path().join("slept-marker").exists());
}

#[test]
fn a_todo_list_reaches_the_editor_as_the_plan() {
    let dir = project();
    let out = editor(
        dir.path(),
        &["--safety", "autonomous"],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "Plan the work"},
        ]),
    );
    let plan = updates(&out, "a")
        .iter()
        .find(|u| u["sessionUpdate"] == "plan")
        .unwrap_or_else(|| panic!("no plan: {out:#}"));
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "read the code", "priority": "medium", "status": "pending"},
            {"content": "fix the bug", "priority": "medium", "status": "pending"},
        ])
    );
}

#[test]
fn the_agents_commands_are_offered_and_a_slash_prompt_runs_one() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "prompt", "session": "a", "text": "/greet Ada"},
        ]),
    );
    let offered = updates(&out, "a")
        .iter()
        .find(|u| u["sessionUpdate"] == "available_commands_update")
        .unwrap_or_else(|| panic!("no commands: {out:#}"));
    assert_eq!(
        offered["availableCommands"],
        json!([{"name": "greet", "description": "Say hello"}])
    );
    assert_eq!(
        text(&out, "a", "agent_message_chunk"),
        "You said: Greet Ada warmly"
    );
}

#[test]
fn the_auto_mode_allows_without_asking_and_ask_asks_again() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "reject_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "set_mode", "session": "a", "mode": "auto"},
            {"op": "prompt", "session": "a", "text": "Run: touch auto-marker"},
            {"op": "set_mode", "session": "a", "mode": "ask"},
            {"op": "prompt", "session": "a", "text": "Run: touch asked-marker"},
            {"op": "set_mode", "session": "a", "mode": "reckless"},
        ]),
    );
    assert_eq!(
        out["results"][1]["modes"]["currentModeId"], "ask",
        "{out:#}"
    );
    assert!(dir.path().join("auto-marker").exists(), "{out:#}");
    // Back in `ask`: the editor is asked (and rejects).
    assert_eq!(out["permissions"].as_array().unwrap().len(), 1, "{out:#}");
    assert!(!dir.path().join("asked-marker").exists());
    assert_eq!(out["results"][6]["error"]["code"], -32602, "{out:#}");
}

#[test]
fn the_pre_tool_use_hook_still_denies_in_auto_mode() {
    let dir = project();
    let out = editor(
        dir.path(),
        &[],
        "allow_once",
        &json!([
            {"op": "initialize"},
            {"op": "new", "as": "a"},
            {"op": "set_mode", "session": "a", "mode": "auto"},
            {"op": "prompt", "session": "a", "text": "Run: touch denied-marker"},
        ]),
    );
    assert!(!dir.path().join("denied-marker").exists(), "{out:#}");
    assert_eq!(tool_update(&out, "a")["status"], "failed", "{out:#}");
}
