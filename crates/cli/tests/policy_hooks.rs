//! `type: policy` hooks end to end: a Cedar forbid's `@reason` reaches the model in a real
//! `tether run --exec`, a forbid beats a permit, a call no policy covers goes on down the
//! ladder, `hooks decide` names the deciding policy and `hooks check` counts the set; a policy
//! whose condition errors shows in `hooks decide`, the hook log and the warn log, and `hooks
//! check` warns of a shell forbid that a background job goes round.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli::{self, tether};

const POLICIES: &str = r#"@id("shell-ok")
permit(principal == Agent::"root", action == Action::"pre_tool_use", resource == Tool::"shell");

@id("no-rm")
@reason("deleting files is forbidden by team policy")
forbid(principal, action == Action::"pre_tool_use", resource == Tool::"shell")
when { context.tool_input has cmd && context.tool_input.cmd like "*rm *" };
"#;

fn setup() -> TempDir {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("tools.cedar"), POLICIES).unwrap();
    std::fs::write(
        d.join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: 'SAW {{tool_result}}'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: shell}, {type: think}]\n    hooks:\n      pre_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: policy\n              policy: tools.cedar\n",
    )
    .unwrap();
    std::fs::write(d.join("victim"), "keep me").unwrap();
    dir
}

fn run(d: &std::path::Path, prompt: &str) -> String {
    // No --yolo: only the policy can let the shell call run without asking.
    let out = cli::succeeds(tether(d).args(["run", "agent.yaml", "--exec", prompt]));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_forbid_beats_a_permit_and_its_reason_reaches_the_model() {
    let dir = setup();
    let d = dir.path();
    let stdout = run(d, "Run: rm -f victim");
    let saw = stdout.split("SAW ").nth(1).expect(&stdout);
    assert!(
        saw.contains("deleting files is forbidden by team policy"),
        "the model saw: {saw}"
    );
    assert!(d.join("victim").exists(), "the denied command ran");
}

#[test]
fn a_permit_runs_the_call_without_asking() {
    let dir = setup();
    let stdout = run(dir.path(), "Run: echo permitted-output");
    assert!(!stdout.contains("Can I run this tool?"), "{stdout}");
    let saw = stdout.split("SAW ").nth(1).expect(&stdout);
    assert!(saw.contains("permitted-output"), "{saw}");
}

fn decide(d: &std::path::Path, tool: &str, input: &str) -> Value {
    std::fs::write(d.join("call.json"), input).unwrap();
    let out = tether(d)
        .args([
            "hooks",
            "decide",
            "agent.yaml",
            "--tool",
            tool,
            "--input",
            "call.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn hooks_decide_names_the_deciding_policy() {
    let dir = setup();
    let d = dir.path();
    let denied = decide(d, "shell", r#"{"cmd": "rm -rf /"}"#);
    assert_eq!(
        (&denied["decision"], &denied["policies"]),
        (&Value::from("deny"), &serde_json::json!(["no-rm"])),
        "{denied:#}"
    );
    assert_eq!(denied["hooks"][0]["policies"], serde_json::json!(["no-rm"]));
    let allowed = decide(d, "shell", r#"{"cmd": "ls"}"#);
    assert_eq!(
        (&allowed["decision"], &allowed["policies"]),
        (&Value::from("allow"), &serde_json::json!(["shell-ok"])),
        "{allowed:#}"
    );
}

#[test]
fn a_call_no_policy_covers_goes_on_down_the_ladder() {
    let dir = setup();
    let passed = decide(dir.path(), "think", r#"{"thought": "hm"}"#);
    // think is read-only: the ladder's read-only hint decides, not the policy hook.
    assert_eq!(passed["decision"], "allow", "{passed:#}");
    assert_eq!(passed["source"], "readonly_hint", "{passed:#}");
    assert!(passed.get("policies").is_none(), "{passed:#}");
    assert_eq!(passed["hooks"][0]["verdict"], "none", "{passed:#}");
}

#[test]
fn hooks_check_lists_the_policy_set_with_its_count() {
    let dir = setup();
    let out = tether(dir.path())
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("cedar tools.cedar (2 policies)"),
        "{stdout}"
    );
    let out = tether(dir.path())
        .args(["hooks", "check", "agent.yaml", "--json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hook = &json["events"][0]["hooks"][0];
    assert_eq!(
        (&hook["type"], &hook["policies"]),
        (&Value::from("policy"), &Value::from(2))
    );
}

/// A forbid that reads `cwd` without `has`: on a call without `cwd` its condition errors.
const UNGUARDED: &str = r#"@id("shell-ok")
permit(principal, action == Action::"pre_tool_use", resource == Tool::"shell");

@id("no-etc-unguarded")
forbid(principal, action == Action::"pre_tool_use", resource == Tool::"shell")
when { context.tool_input.cwd like "/etc*" };
"#;

#[test]
fn an_erroring_forbid_shows_in_hooks_decide_the_hook_log_and_the_warn_log() {
    let dir = setup();
    let d = dir.path();
    std::fs::write(d.join("tools.cedar"), UNGUARDED).unwrap();
    std::fs::write(d.join("call.json"), r#"{"cmd": "ls"}"#).unwrap();
    let out = tether(d)
        .env("TETHER_LOG", "warn")
        .args([
            "hooks",
            "decide",
            "agent.yaml",
            "--tool",
            "shell",
            "--input",
            "call.json",
            "--hook-log",
            "hooks.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let decided: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The decision is Cedar's: the forbid did not apply, the permit did.
    assert_eq!(decided["decision"], "allow", "{decided:#}");
    let errors = decided["policy_errors"].as_array().expect("policy_errors");
    assert_eq!(errors.len(), 1, "{decided:#}");
    assert_eq!(errors[0]["policy"], "no-etc-unguarded", "{decided:#}");
    let message = errors[0]["error"].as_str().unwrap();
    assert!(message.contains("`cwd`"), "{message}");
    assert_eq!(
        decided["hooks"][0]["policy_errors"],
        decided["policy_errors"]
    );
    let hook_error = decided["hooks"][0]["error"].as_str().unwrap();
    assert!(hook_error.contains("no-etc-unguarded"), "{hook_error}");

    let log = std::fs::read_to_string(d.join("hooks.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&line["type"], &line["status"]),
        (&Value::from("policy"), &Value::from("ok"))
    );
    let logged = line["error"].as_str().unwrap();
    assert!(
        logged.contains("policy `no-etc-unguarded` errored, so did not apply")
            && logged.contains(message),
        "{logged}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("WARN") && stderr.contains("no-etc-unguarded"),
        "{stderr}"
    );

    // A call the condition can read errors nowhere.
    let denied = decide(d, "shell", r#"{"cmd": "ls", "cwd": "/etc"}"#);
    assert_eq!(denied["decision"], "deny", "{denied:#}");
    assert!(denied.get("policy_errors").is_none(), "{denied:#}");
}

fn check_stderr(d: &std::path::Path, toolsets: &str) -> String {
    std::fs::write(
        d.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{toolsets}]\n    hooks:\n      pre_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: policy\n              policy: tools.cedar\n"),
    )
    .unwrap();
    let out = tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn check_warns_of_a_shell_forbid_that_a_background_job_goes_round() {
    let dir = setup();
    let d = dir.path();
    let jobs = "{type: shell}, {type: background_jobs}";
    let stderr = check_stderr(d, jobs);
    // POLICIES' `no-rm` starts on line 4.
    assert!(
        stderr.contains("tools.cedar:4:1: Cedar policy `no-rm` forbids on `Tool::\"shell\"` but not on `Tool::\"run_background_job\"`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("shell-ok"),
        "a permit is no guard: {stderr}"
    );
    // Without background jobs there is nothing to go round.
    let stderr = check_stderr(d, "{type: shell}");
    assert!(!stderr.contains("run_background_job"), "{stderr}");
    // A forbid on both tools covers the job.
    std::fs::write(
        d.join("tools.cedar"),
        r#"@id("no-rm") forbid(principal, action, resource)
           when { resource in [Tool::"shell", Tool::"run_background_job"] && context.tool_input has cmd && context.tool_input.cmd like "*rm *" };"#,
    )
    .unwrap();
    let stderr = check_stderr(d, jobs);
    assert!(!stderr.contains("run_background_job"), "{stderr}");
}
