//! `evaluators:` and `type: evaluator` hooks end to end through `tether run --exec`: a
//! classifier on the offline `script` model guards `pre_tool_use`, and an
//! `on_tool_approval_decision` hook records what the ladder decided. The evaluator allows,
//! asks and denies by its policy, falls back below `min_probability`, and denies when its
//! model stalls past the evaluator's timeout (a server that accepts and never answers).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::net::TcpListener;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli;

const AGENT_SCRIPT: &str = r#"rules:
  - match: '^Run:\s*(?P<cmd>.+?)\s*$'
    reply:
      tool_calls:
        - name: shell
          arguments: {cmd: '${cmd}'}
after_tool:
  text: "result: {{tool_result}}"
"#;

/// The classifier: its latest user message is the hook Input, which holds the command.
const JUDGE_SCRIPT: &str = r#"rules:
  - match: 'rm -rf'
    reply: {text: '{"choice": "destructive", "probability": 0.97}'}
  - match: 'touch '
    reply: {text: '{"choice": "risky", "probability": 0.9}'}
  - match: 'echo unsure'
    reply: {text: '{"choice": "safe", "probability": 0.5}'}
  - match: 'echo '
    reply: {text: '```json\n{"choice": "safe", "probability": 0.95}\n```'}
"#;

fn agent_file(evaluator_model: &str) -> String {
    format!(
        r#"evaluators:
  risk:
    type: choice
{evaluator_model}
    instructions: How risky is the shell command in tool_input?
    choices:
      safe: only reads or prints
      risky: changes files
      destructive: deletes data
models:
  judge:
    provider: script
    model: judge.script.yaml
agents:
  root:
    model: script/agent.script.yaml
    toolsets: [{{type: shell}}]
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: evaluator
              evaluator: risk
              evaluator_policy:
                decisions: {{safe: allow, risky: ask, destructive: deny}}
                min_probability: 0.8
                fallback: deny
      on_tool_approval_decision:
        - type: command
          command: "jq -c '{{d: .approval_decision, s: .approval_source}}' >> decisions.log"
"#
    )
}

fn setup(evaluator_model: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("agent.yaml"), agent_file(evaluator_model)).unwrap();
    std::fs::write(d.join("agent.script.yaml"), AGENT_SCRIPT).unwrap();
    std::fs::write(d.join("judge.script.yaml"), JUDGE_SCRIPT).unwrap();
    dir
}

fn tether(dir: &Path) -> Command {
    let mut cmd = cli::tether(dir);
    cmd.env("HOME", dir.join("home"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL");
    cmd
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    /// (approval_decision, approval_source) of the one tool call.
    decision: (String, String),
}

/// Runs `Run: CMD` with no answer on stdin (a question is answered no).
fn run(dir: &Path, cmd: &str, env: &[(&str, &str)]) -> Ran {
    let _ = std::fs::remove_file(dir.join("decisions.log"));
    let out = tether(dir)
        .envs(env.iter().copied())
        .args(["run", "agent.yaml", "--exec", &format!("Run: {cmd}")])
        .write_stdin("")
        .output()
        .unwrap();
    let log = std::fs::read_to_string(dir.join("decisions.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 1, "{log}\n{out:?}");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        decision: (
            v["d"].as_str().unwrap().to_owned(),
            v["s"].as_str().unwrap().to_owned(),
        ),
    }
}

fn pair(d: &str, s: &str) -> (String, String) {
    (d.to_owned(), s.to_owned())
}

#[test]
fn a_safe_command_is_allowed_by_the_evaluator() {
    let dir = setup("    model: judge");
    let ran = run(dir.path(), "echo hello", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.decision, pair("allow", "pre_tool_use_hook_allow"));
    assert!(ran.stdout.contains("result: hello"), "{}", ran.stdout);
    assert!(
        !ran.stdout.contains("Can I run this tool?"),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_risky_command_makes_the_evaluator_ask() {
    let dir = setup("    model: judge");
    let ran = run(dir.path(), "touch made-by-the-tool", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("Can I run this tool?"),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.decision, pair("deny", "user_rejected"));
    assert!(!dir.path().join("made-by-the-tool").exists());
}

#[test]
fn a_destructive_command_is_denied_with_the_evaluators_reason() {
    let dir = setup("    model: judge");
    std::fs::create_dir(dir.path().join("victim")).unwrap();
    let ran = run(dir.path(), "rm -rf victim", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.decision, pair("deny", "pre_tool_use_hook_deny"));
    assert!(dir.path().join("victim").exists());
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(
        all.contains("evaluator `risk`: `destructive` (probability 0.97)"),
        "{all}"
    );
}

#[test]
fn a_choice_below_min_probability_takes_the_fallback() {
    let dir = setup("    model: judge");
    let ran = run(dir.path(), "echo unsure", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.decision, pair("deny", "pre_tool_use_hook_deny"));
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(
        all.contains("`safe` (probability 0.5) is below min_probability 0.8: fallback"),
        "{all}"
    );
    assert!(!ran.stdout.contains("result: unsure"), "{}", ran.stdout);
}

#[test]
fn an_evaluator_whose_model_stalls_past_its_timeout_denies() {
    // Accepts connections (the kernel's backlog) and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let model = format!(
        "    provider: openai\n    model: gpt-4o-mini\n    base_url: http://127.0.0.1:{port}/v1\n    token_key: EVAL_KEY\n    timeout: 1s"
    );
    let dir = setup(&model);
    let ran = run(dir.path(), "echo hello", &[("EVAL_KEY", "k")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.decision, pair("deny", "pre_tool_use_hook_deny"));
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(all.contains("evaluator `risk` timed out after 1s"), "{all}");
    assert!(!ran.stdout.contains("result: hello"), "{}", ran.stdout);
    drop(listener);
}

#[test]
fn evaluator_errors_name_the_field() {
    let dir = setup("    model: judge\n    endpoint: https://example.com/decide\n    cost: {}");
    let out = tether(dir.path())
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("the evaluator field `endpoint` is not supported yet"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the evaluator field `cost` is not supported yet"),
        "{stderr}"
    );
}
