//! `code_mode_tools: true` end to end: the model calls `run_tools_with_javascript`, whose
//! script calls the agent's tools; each of those calls meets the same hooks, permission rules
//! and approvals as a call the model makes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::tether;

/// Two script tools and a third one the permissions deny; a todo list stays direct. A
/// `permission_request` hook answers for the user, so `pre_tool_use` hooks run (under `--yolo`
/// they would not).
const AGENT: &str = r#"agents:
  root:
    model: script/s.yaml
    code_mode_tools: true
    toolsets:
      - type: script
        shell:
          greet:
            cmd: 'echo "hello ${who}"'
            description: Greet someone
            args:
              who: {description: Who to greet}
            required: [who]
          deploy:
            cmd: 'echo deploying ${target}'
            description: Deploy the app
            args:
              target: {type: string, enum: [staging, production]}
          wipe:
            cmd: 'echo wiped'
            description: Wipe everything
      - type: todo
    hooks:
      permission_request:
        - matcher: '.*'
          hooks:
            - type: command
              command: "echo '{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}'"
      pre_tool_use:
        - matcher: deploy
          hooks:
            - type: command
              command: 'jq -e ".tool_input.target == \"production\"" >/dev/null && { echo "no production deploys" >&2; exit 2; }; exit 0'
      tool_response_transform:
        - matcher: greet
          hooks:
            - type: command
              command: "jq -c '{hook_specific_output: {updated_tool_response: (.tool_response | ascii_upcase)}}'"
      post_tool_use:
        - matcher: '.*'
          hooks:
            - type: command
              command: "jq -c '[.tool_name, .tool_use_id]' >> post.log"
permissions:
  deny: [wipe]
"#;

/// A script model whose first reply runs `script`, then says what the tool returned.
fn script_model(dir: &Path, script: &str) {
    let reply = json!({
        "replies": [{"tool_calls": [{"name": "run_tools_with_javascript", "arguments": {"script": script}}]}],
        "after_tool": {"text": "SAW {{tool_result}}"}
    });
    // JSON is YAML.
    std::fs::write(dir.join("s.yaml"), reply.to_string()).unwrap();
}

/// The `run_tools_with_javascript` result the model saw.
fn seen(stdout: &str) -> Value {
    let text = stdout.split("SAW ").nth(1).expect(stdout);
    serde_json::from_str(text.trim()).expect(text)
}

#[test]
fn a_script_combines_two_tools_and_every_inner_call_meets_the_hooks() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("agent.yaml"), AGENT).unwrap();
    script_model(
        d,
        r#"const a = greet({who: "Ada"});
let b;
try { deploy({target: "production"}); b = "deployed"; } catch (e) { b = "refused: " + e.message; }
let w;
try { wipe(); w = "wiped"; } catch (e) { w = e.message; }
const c = deploy({target: "staging"});
console.log("calls done");
console.error("nothing wrong");
return [a.trim(), b, w, c.trim()].join(" | ");"#,
    );
    let out = tether(d)
        .args([
            "run",
            "agent.yaml",
            "--exec",
            "go",
            "--hook-log",
            "hooks.jsonl",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The transform rewrote greet's output before the script saw it; the hook's exit 2 and
    // the deny rule reached the script as errors it caught.
    assert_eq!(
        seen(&stdout),
        json!({
            "value": "HELLO ADA | refused: Tool call blocked by hook: no production deploys | Tool 'wipe' is denied by permissions configuration. | deploying staging",
            "stdout": "calls done\n",
            "stderr": "nothing wrong\n"
        })
    );
    // Inner calls are shown like the model's.
    assert!(stdout.contains("Calling greet(who: \"Ada\")"), "{stdout}");
    // post_tool_use ran for each inner call that ran, then for the script's own call.
    assert_eq!(
        std::fs::read_to_string(d.join("post.log")).unwrap(),
        "[\"greet\",\"call_1_1\"]\n[\"deploy\",\"call_1_4\"]\n[\"run_tools_with_javascript\",\"call_1\"]\n"
    );
    let log: Vec<Value> = std::fs::read_to_string(d.join("hooks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let runs = |event: &str, status: &str| {
        log.iter()
            .filter(|l| l["event"] == event && l["status"] == status)
            .count()
    };
    // pre_tool_use (matcher deploy): the refused call, then the allowed one.
    assert_eq!(runs("pre_tool_use", "blocked"), 1, "{log:?}");
    assert_eq!(runs("pre_tool_use", "ok"), 1, "{log:?}");
    // The outer call, greet and the staging deploy were approved by the hook; the blocked
    // deploy and the denied wipe never got that far.
    assert_eq!(runs("permission_request", "ok"), 3, "{log:?}");
    assert_eq!(runs("post_tool_use", "ok"), 3, "{log:?}");
}

#[test]
fn a_script_that_never_ends_is_stopped_at_the_time_limit_keeping_what_it_did() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("agent.yaml"), AGENT).unwrap();
    script_model(
        d,
        "console.log('before the loop');\ngreet({who: 'Bob'});\ntry { while (true) {} } catch (e) { return 'caught'; }",
    );
    let started = std::time::Instant::now();
    let out = tether(d)
        .args([
            "run",
            "agent.yaml",
            "--exec",
            "go",
            "--code-mode-timeout",
            "0.5",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        seen(&stdout),
        json!({
            "value": "the script was stopped: it ran for more than 0.5s (time spent in tool calls does not count)",
            "stdout": "before the loop\n",
            "stderr": "",
            "tool_calls": [{"name": "greet", "arguments": {"who": "Bob"}, "result": "HELLO BOB\n"}]
        })
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn the_script_tool_is_approved_like_any_tool() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = AGENT.replace(
        "permissions:\n  deny: [wipe]\n",
        "permissions:\n  deny: [run_tools_with_javascript]\n",
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    script_model(d, "greet({who: 'Eve'}); return 'ran'");
    let out = tether(d)
        .args(["run", "agent.yaml", "--exec", "go"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains(
            "SAW Tool 'run_tools_with_javascript' is denied by permissions configuration."
        ),
        "{stdout}"
    );
    assert!(!d.join("post.log").exists(), "nothing ran");
}

#[test]
fn the_model_sees_one_script_tool_describing_the_others_and_todo_stays_direct() {
    use tether_test_support::fake_llm::{FakeLlm, Turn};
    let fake = FakeLlm::start_blocking().unwrap();
    // A wrapped tool called directly is not available; the script tool is.
    fake.push(Turn::tool_call("greet", json!({"who": "Ada"})))
        .push(Turn::text("done"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = format!(
        "{}models:\n  m: {{provider: openai, model: gpt-4o, base_url: \"{}\"}}\n",
        AGENT.replace("model: script/s.yaml", "model: m"),
        fake.base_url()
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    let out = tether(d)
        .env("OPENAI_API_KEY", "k")
        .args(["run", "agent.yaml", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let requests = fake.requests();
    let tools = requests[0].body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "run_tools_with_javascript");
    assert!(
        names[1..].iter().all(|n| n.contains("todo")),
        "only todo tools stay direct: {names:?}"
    );
    let script_tool = &tools[0]["function"];
    assert_eq!(
        script_tool["parameters"]["required"],
        json!(["script"]),
        "{script_tool}"
    );
    let description = script_tool["description"].as_str().unwrap();
    for f in ["greet", "deploy", "wipe"] {
        assert!(
            description.contains(&format!("function {f}(args: object): string")),
            "{description}"
        );
    }
    assert!(!description.contains("todo"), "{description}");
    let answer = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .to_string();
    // (The greet transform upper-cases every greet result, the runtime's too.)
    assert!(answer.contains("TOOL 'GREET' IS NOT AVAILABLE"), "{answer}");
    assert!(!d.join("post.log").exists(), "greet did not run");
}

#[test]
fn identical_calls_in_a_row_stop_the_script_not_the_run() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = AGENT.replace(
        "code_mode_tools: true\n",
        "code_mode_tools: true\n    max_consecutive_tool_calls: 3\n",
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    script_model(
        d,
        "for (let i = 0; i < 10; i++) { try { greet({who: 'Ann'}); } catch (e) { console.log(e.message); } }\nreturn 'finished';",
    );
    let out = tether(d)
        .args(["run", "agent.yaml", "--exec", "go"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let result = seen(&stdout);
    assert_eq!(
        result["value"],
        "the script was stopped: it made 3 consecutive identical calls to greet"
    );
    // Two ran, the third was refused; the script's catch and later calls came to nothing.
    assert_eq!(
        result["tool_calls"].as_array().unwrap().len(),
        3,
        "{result}"
    );
    assert_eq!(result["stdout"], "", "{result}");
    // Two ran; the third was not made.
    assert_eq!(
        std::fs::read_to_string(d.join("post.log"))
            .unwrap()
            .matches("greet")
            .count(),
        2
    );
}

#[test]
fn a_post_tool_use_stop_on_an_inner_call_ends_the_script_and_the_run() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = AGENT.replace(
        "      post_tool_use:\n",
        "      post_tool_use:\n        - matcher: greet\n          hooks:\n            - {type: command, command: 'echo enough greetings >&2; exit 2'}\n",
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    script_model(
        d,
        "try { greet({who: 'Ann'}); } catch (e) { console.log('caught'); }\ndeploy({target: 'staging'});\nreturn 'finished';",
    );
    let out = tether(d)
        .args(["run", "agent.yaml", "--exec", "go", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let response = events
        .iter()
        .find(|e| e["type"] == "tool_response" && e["name"] == "run_tools_with_javascript")
        .expect(&stdout);
    let result: Value = serde_json::from_str(response["response"].as_str().unwrap()).unwrap();
    assert_eq!(
        result["value"],
        "the script was stopped: a post_tool_use hook ended the run: enough greetings"
    );
    // The script's catch ran after the stop: muted.
    assert_eq!(result["stdout"], "", "{result}");
    // deploy never ran, and the model was not called again.
    assert!(
        !std::fs::read_to_string(d.join("post.log"))
            .unwrap_or_default()
            .contains("deploy")
    );
    assert!(!stdout.contains("SAW"), "{stdout}");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn hooks_decide_knows_the_script_tool_and_the_tools_it_wraps() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("agent.yaml"), AGENT).unwrap();
    script_model(d, "return 1");
    let decide = |tool: &str, input: Value| {
        let out = tether(d)
            .args([
                "hooks",
                "decide",
                "agent.yaml",
                "--tool",
                tool,
                "--input",
                "-",
            ])
            .write_stdin(input.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["decision"].clone(), v["source"].clone())
    };
    assert_eq!(
        decide("run_tools_with_javascript", json!({"script": "return 1"})),
        (json!("allow"), json!("permission_request_hook_allow"))
    );
    assert_eq!(
        decide("deploy", json!({"target": "production"})),
        (json!("deny"), json!("pre_tool_use_hook_deny"))
    );
}
