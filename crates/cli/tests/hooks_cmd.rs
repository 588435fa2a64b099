//! `tether hooks check` and `tether hooks fire` on the built binary (docs/cli.md contract).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A `tether` command run in `dir`, with a hermetic home and config.
fn tether(dir: &Path) -> Command {
    let mut cmd = cli::tether(dir);
    cmd.env("TETHER_HOME", dir.join(".tether-home"))
        .env_remove("NO_COLOR")
        .env_remove("TETHER_LOG");
    cmd
}

/// Seed 004 with its `/tmp/` logs redirected into `dir`.
fn seed_004_in(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("examples/hooks.yaml")).unwrap();
    let path = dir.join("hooks.yaml");
    std::fs::write(&path, text.replace("/tmp/", &format!("{}/", dir.display()))).unwrap();
    path
}

fn fire(dir: &Path, args: &[&str], input: Value) -> (i32, Value) {
    let out = tether(dir)
        .args(["hooks", "fire"])
        .args(args)
        .args(["--input", "-"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), json)
}

#[test]
fn fire_seed_004_prompts() {
    let dir = TempDir::new().unwrap();
    let cfg = seed_004_in(dir.path());
    let cfg = cfg.to_str().unwrap();
    let call = |cmd: &str| json!({"tool_input": {"cmd": cmd}});

    let (code, out) = fire(
        dir.path(),
        &["pre_tool_use", "--config", cfg, "--tool", "shell"],
        call("echo hello"),
    );
    assert_eq!(code, 0);
    assert_eq!(out["allowed"], json!(true));
    assert_eq!(out["decision"], Value::Null);
    assert_eq!(out["modified_input"], Value::Null);
    assert_eq!(out["hooks"].as_array().unwrap().len(), 2);

    let (code, out) = fire(
        dir.path(),
        &["pre_tool_use", "--config", cfg, "--tool", "shell"],
        call("rm -rf /tmp/test"),
    );
    assert_eq!(code, 2);
    assert_eq!(out["allowed"], json!(false));
    assert_eq!(out["decision"], json!("deny"));
    let reason = "🚫 HOOK BLOCKED: dangerous command pattern detected. rm -rf, sudo, mkfs, dd are not allowed.";
    assert_eq!(out["decision_reason"], json!(reason));
    assert_eq!(out["message"], json!(reason));
    assert_eq!(out["exit_code"], json!(0));

    let (code, out) = fire(
        dir.path(),
        &["pre_tool_use", "--config", cfg, "--tool", "shell"],
        json!({"tool_input": {"cmd": "ls", "timeout": 5}}),
    );
    assert_eq!(code, 0);
    assert_eq!(out["decision"], json!("allow"));
    assert_eq!(out["modified_input"], json!({"cmd": "ls -h", "timeout": 5}));
    assert_eq!(
        out["system_message"],
        json!("📝 Hook modified command: added -h for human-readable output")
    );
}

#[test]
fn fire_prints_every_field_of_the_contract() {
    let dir = TempDir::new().unwrap();
    let (code, out) = fire(
        dir.path(),
        &["stop", "--hook-stop", "echo done", "--hook-stop", "  "],
        json!({}),
    );
    assert_eq!(code, 0);
    let hook = &out["hooks"][0];
    assert!(hook["duration_ms"].as_f64().unwrap() > 0.0);
    let mut out = out;
    out["hooks"][0]["duration_ms"] = json!(0);
    assert_eq!(
        out,
        json!({
            "event": "stop", "allowed": true, "decision": null, "decision_reason": null,
            "permission_allowed": false, "message": "", "additional_context": "done",
            "system_message": "", "modified_input": null, "summary": null,
            "updated_tool_response": null, "updated_messages": null, "metadata": null,
            "exit_code": 0, "stderr": "",
            "hooks": [{"index": 0, "name": "echo done", "type": "command", "status": "ok",
                       "exit_code": 0, "duration_ms": 0, "error": null}]
        })
    );
}

#[test]
fn fire_sets_input_defaults_and_the_hook_environment() {
    let dir = TempDir::new().unwrap();
    let cmd = "echo \"$(cat) $TETHER_SESSION_ID $TETHER_HOOK_EVENT $TETHER_PROJECT_DIR\" > seen";
    let (code, _) = fire(
        dir.path(),
        &["session_start", "--hook-session-start", cmd],
        json!({"source": "startup"}),
    );
    assert_eq!(code, 0);
    let seen = std::fs::read_to_string(dir.path().join("seen")).unwrap();
    let (json_part, rest) = seen.trim().split_once("} ").unwrap();
    let input: Value = serde_json::from_str(&format!("{json_part}}}")).unwrap();
    let cwd = std::fs::canonicalize(dir.path())
        .unwrap()
        .display()
        .to_string();
    assert_eq!(
        input,
        json!({"session_id": "hooks-fire", "cwd": cwd, "hook_event_name": "session_start", "source": "startup"})
    );
    assert_eq!(rest, format!("hooks-fire session_start {cwd}"));
}

#[test]
fn fire_exit_2_on_events_that_cannot_block_still_reports_not_allowed() {
    let dir = TempDir::new().unwrap();
    let (code, out) = fire(
        dir.path(),
        &[
            "session_start",
            "--hook-session-start",
            "echo nope >&2; exit 2",
        ],
        json!({}),
    );
    assert_eq!(code, 2);
    assert_eq!(out["allowed"], json!(false));
    assert_eq!(out["exit_code"], json!(2));
    assert_eq!(out["stderr"], json!("nope\n"));
    assert_eq!(out["hooks"][0]["status"], json!("blocked"));
}

#[test]
fn fire_runs_the_preempt_lane_first_and_reports_both_lanes() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("a.yaml"),
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - {type: command, name: default-lane, command: 'echo {}'}\n        - matcher: '*'\n          preempt_yolo: true\n          hooks:\n            - {type: command, name: preempt, command: 'echo \"{\\\"hook_specific_output\\\":{\\\"permission_decision\\\":\\\"allow\\\",\\\"metadata\\\":{\\\"k\\\":\\\"v\\\"}}}\"'}\n",
    )
    .unwrap();
    let (code, out) = fire(
        dir.path(),
        &["pre_tool_use", "--config", "a.yaml", "--tool", "shell"],
        json!({}),
    );
    assert_eq!(code, 0);
    let names: Vec<_> = out["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["index"].clone(), h["name"].clone()))
        .collect();
    assert_eq!(
        names,
        [
            (json!(0), json!("preempt")),
            (json!(1), json!("default-lane"))
        ]
    );
    assert_eq!(out["metadata"], json!({"k": "v"}));
    assert_eq!(out["decision"], json!("allow"));
}

#[test]
fn fire_writes_the_hook_log() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("hooks.jsonl");
    let (code, _) = fire(
        dir.path(),
        &[
            "pre_tool_use",
            "--tool",
            "shell",
            "--hook-pre-tool-use",
            "exit 2",
            "--hook-pre-tool-use",
            "true",
            "--hook-log",
            log.to_str().unwrap(),
        ],
        json!({}),
    );
    assert_eq!(code, 2);
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let mut summary: Vec<(Value, Value, Value, Value)> = lines
        .iter()
        .map(|l| {
            (
                l["event"].clone(),
                l["hook"].clone(),
                l["status"].clone(),
                l["exit_code"].clone(),
            )
        })
        .collect();
    summary.sort_by_key(|s| s.1.to_string());
    assert_eq!(
        summary,
        [
            (
                json!("pre_tool_use"),
                json!("exit 2"),
                json!("blocked"),
                json!(2)
            ),
            (json!("pre_tool_use"), json!("true"), json!("ok"), json!(0)),
        ]
    );
    assert!(
        lines
            .iter()
            .all(|l| l["duration_ms"].is_number() && l["session_id"] == json!("hooks-fire"))
    );
}

#[test]
fn an_undelivered_http_post_is_an_error_in_the_hook_log_but_the_run_is_ok() {
    let dir = TempDir::new().unwrap();
    let log = dir.path().join("hooks.jsonl");
    let agent = dir.path().join("agent.yaml");
    std::fs::write(
        &agent,
        "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      stop:\n        - type: builtin\n          command: http_post\n          args: [\"http://127.0.0.1:9/notify\", \"{}\"]\n",
    )
    .unwrap();
    let (code, out) = fire(
        dir.path(),
        &[
            "stop",
            "--config",
            agent.to_str().unwrap(),
            "--hook-log",
            log.to_str().unwrap(),
        ],
        json!({}),
    );
    assert_eq!((code, &out["allowed"]), (0, &json!(true)));
    let line: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!(
        (&line["status"], &out["hooks"][0]["error"]),
        (&json!("ok"), &line["error"])
    );
    let error = line["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("http_post: `http://127.0.0.1:9/notify`: refusing"),
        "{error}"
    );
}

/// `tether hooks fire EVENT --config AGENT --input -` with `TETHER_LOG` set to `log` (unset when
/// `None`): the exit code and stderr.
fn fire_logged(
    dir: &Path,
    event: &str,
    agent: &str,
    input: Value,
    log: Option<&str>,
) -> (i32, String) {
    let agent_path = dir.join("agent.yaml");
    std::fs::write(&agent_path, agent).unwrap();
    let mut cmd = tether(dir);
    if let Some(log) = log {
        cmd.env("TETHER_LOG", log);
    }
    let out = cmd
        .args([
            "hooks",
            "fire",
            event,
            "--config",
            agent_path.to_str().unwrap(),
            "--input",
            "-",
        ])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The stderr lines that mention `needle`.
fn lines_with<'a>(stderr: &'a str, needle: &str) -> Vec<&'a str> {
    stderr.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn an_undelivered_http_post_is_logged_at_debug_level() {
    let dir = TempDir::new().unwrap();
    let agent = "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      stop:\n        - type: builtin\n          command: http_post\n          args: [\"http://127.0.0.1:9/notify\", \"{}\"]\n";
    let needle = "http_post: `http://127.0.0.1:9/notify`: refusing";
    let (code, quiet) = fire_logged(dir.path(), "stop", agent, json!({}), None);
    let (_, info) = fire_logged(dir.path(), "stop", agent, json!({}), Some("info"));
    let (_, debug) = fire_logged(dir.path(), "stop", agent, json!({}), Some("debug"));
    let logged = lines_with(&debug, needle);
    assert_eq!(
        (
            code,
            lines_with(&quiet, needle),
            lines_with(&info, needle),
            logged.len()
        ),
        (0, vec![], vec![], 1),
        "{debug}"
    );
    assert!(
        logged[0].contains(" DEBUG ")
            && logged[0].contains("event=\"stop\"")
            && logged[0].contains("hook=\"http_post\"")
            && logged[0].contains("status=\"ok\""),
        "{debug}"
    );
}

#[test]
fn an_unload_that_fails_is_logged_at_debug_level() {
    let dir = TempDir::new().unwrap();
    let agent = "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      on_agent_switch:\n        - type: builtin\n          command: unload\n";
    let input = json!({
        "from_agent": "a",
        "to_agent": "b",
        "from_agent_models": [{"provider": "dmr", "model": "local", "base_url": "not a url"}],
    });
    let needle = "unload `local`: invalid base_url `not a url`";
    let (code, quiet) = fire_logged(dir.path(), "on_agent_switch", agent, input.clone(), None);
    let (_, debug) = fire_logged(
        dir.path(),
        "on_agent_switch",
        agent,
        input,
        Some("warn,tether_hooks=debug"),
    );
    assert_eq!(
        (
            code,
            lines_with(&quiet, needle),
            lines_with(&debug, needle).len()
        ),
        (0, vec![], 1),
        "{debug}"
    );
}

#[test]
fn a_log_filter_that_does_not_parse_is_a_warning() {
    let dir = TempDir::new().unwrap();
    let agent = "agents:\n  root:\n    model: openai/gpt-4o\n";
    let (code, stderr) = fire_logged(
        dir.path(),
        "stop",
        agent,
        json!({}),
        Some("tether_hooks=loud"),
    );
    assert_eq!(
        (
            code,
            lines_with(&stderr, "warning: `TETHER_LOG` is not a log filter").len()
        ),
        (0, 1),
        "{stderr}"
    );
}

#[test]
fn fire_rejects_unknown_events_and_bad_input() {
    let dir = TempDir::new().unwrap();
    tether(dir.path())
        .args(["hooks", "fire", "pre_tool"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "error: unknown event `pre_tool` (events: pre_tool_use,",
        ));
    tether(dir.path())
        .args(["hooks", "fire", "stop", "--input", "-"])
        .write_stdin("[1, 2]")
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "the input is not a hook Input JSON object",
        ));
}

#[test]
fn check_lists_effective_hooks_with_their_sources() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("a.yaml"),
        "agents:\n  root:\n    add_date: true\n    hooks:\n      stop:\n        - {type: command, command: echo yaml}\n",
    )
    .unwrap();
    let out = tether(dir.path())
        .args([
            "hooks",
            "check",
            "a.yaml",
            "--json",
            "--hook-stop",
            "echo flag",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listing: Vec<(String, String, String)> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| {
            e["hooks"].as_array().unwrap().iter().map(|h| {
                (
                    e["event"].as_str().unwrap().to_owned(),
                    h["target"].as_str().unwrap().to_owned(),
                    h["source"].as_str().unwrap().to_owned(),
                )
            })
        })
        .collect();
    let own = |e: &str, t: &str, s: &str| (e.to_owned(), t.to_owned(), s.to_owned());
    assert_eq!(
        listing,
        [
            own("turn_start", "add_date", "shorthand"),
            own("session_end", "limit_large_tool_results", "always"),
            own("stop", "echo yaml", "yaml"),
            own("stop", "echo flag", "cli"),
            own(
                "tool_response_transform",
                "limit_large_tool_results",
                "always"
            ),
        ]
    );
}

#[test]
fn check_text_output_and_path_warnings_on_seed_004() {
    let dir = TempDir::new().unwrap();
    let cfg = seed_004_in(dir.path());
    let out = tether(dir.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["hooks", "check", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("valid; agent `root` (agents: root)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nturn_start\n  1. builtin add_date\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\ntool_response_transform\n  1. builtin limit_large_tool_results\n     [always]  matcher=*"), "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("on_user_input hook runs `osascript`, which is not on PATH"),
        "{stderr}"
    );
}

#[test]
fn check_reports_invalid_files_with_location_and_exit_1() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "agents:\n  root:\n    hooks:\n      stop:\n        - type: builtin\n          command: no_such_builtin\n",
    )
    .unwrap();
    tether(dir.path())
        .args(["hooks", "check", "bad.yaml"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "bad.yaml:5:11: agents.root.hooks.stop[0]: unknown builtin `no_such_builtin`",
        ));
    std::fs::write(
        dir.path().join("bad2.yaml"),
        "agents:\n  root:\n    hoks: {}\n",
    )
    .unwrap();
    tether(dir.path())
        .args(["hooks", "check", "bad2.yaml"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "bad2.yaml:3:5: agents.root: unknown field `hoks`",
        ))
        .stderr(predicates::str::contains("hint: did you mean `hooks`?"));
    tether(dir.path())
        .args(["hooks", "check", "missing.yaml"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("cannot read `missing.yaml`"));
    // An unknown agent in a valid file (in `bad2.yaml` the file alone would exit 1).
    std::fs::write(
        dir.path().join("good.yaml"),
        "agents:\n  root:\n    hooks: {}\n",
    )
    .unwrap();
    tether(dir.path())
        .args(["hooks", "check", "good.yaml", "--agent", "x"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "error: no agent `x` in `good.yaml` (agents: root)",
        ));
}

#[test]
fn a_claude_code_hook_script_runs_unchanged_under_dialect_claude() {
    let dir = TempDir::new().unwrap();
    let hooks_dir = dir.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks_dir).unwrap();
    // As Claude Code's documentation writes a Bash guard.
    std::fs::write(
        hooks_dir.join("block-rm.sh"),
        "#!/bin/bash\nCOMMAND=$(jq -r '.tool_input.command')\nif echo \"$COMMAND\" | grep -q 'rm -rf'; then\n  echo \"Blocked: $COMMAND\" >&2\n  exit 2\nfi\n",
    )
    .unwrap();
    let cfg = dir.path().join("agent.yaml");
    std::fs::write(
        &cfg,
        "agents:\n  root:\n    model: script/x.yaml\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - type: command\n              command: bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh\n              dialect: claude\n",
    )
    .unwrap();

    let out = tether(dir.path())
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("[yaml]  matcher=shell  dialect=claude  agent.yaml:8:15"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("not on PATH"), "{stderr}");

    let call = |cmd: &str| json!({"tool_input": {"cmd": cmd}});
    let args = ["pre_tool_use", "--config", "agent.yaml", "--tool", "shell"];
    let (code, out) = fire(dir.path(), &args, call("rm -rf /srv"));
    assert_eq!((code, &out["message"]), (2, &json!("Blocked: rm -rf /srv")));
    let (code, _) = fire(dir.path(), &args, call("ls"));
    assert_eq!(code, 0);
}

#[test]
fn check_does_not_warn_of_a_shell_guard_since_it_also_guards_a_background_job() {
    let dir = TempDir::new().unwrap();
    let agent = |matcher: &str| {
        format!(
            "agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - type: shell\n      - type: background_jobs\n    hooks:\n      pre_tool_use:\n        - matcher: '{matcher}'\n          hooks:\n            - type: command\n              command: exit 0\n"
        )
    };
    // A matcher that names `shell` fires for `run_background_job` too (tests/leash_jobs.rs).
    for matcher in ["shell", "shell|run_background_job", "*", ".*"] {
        std::fs::write(dir.path().join("agent.yaml"), agent(matcher)).unwrap();
        let out = tether(dir.path())
            .args(["hooks", "check", "agent.yaml"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            !stderr.contains("run_background_job"),
            "{matcher}: {stderr}"
        );
    }
}
