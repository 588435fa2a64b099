//! `tether hooks decide` against real runs: for every cell of a matrix of policies (permissions,
//! the preempt lane, the default lane, read-only tools, `permission_request`, `--yolo`), the
//! dry run and a real `tether run --exec` of the same call (whose decision an
//! `on_tool_approval_decision` hook records) agree on the decision, its source and the
//! arguments the tool gets.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::tether;

struct Cell {
    name: &'static str,
    /// Top-level YAML (permissions), may be empty.
    top: &'static str,
    /// Hook entries under `hooks:` (6-space indented), may be empty.
    hooks: &'static str,
    tool: &'static str,
    args: Value,
    yolo: bool,
    /// What decide must say: decision, source.
    want: (&'static str, &'static str),
}

const RECORD: &str = "      on_tool_approval_decision:
        - type: command
          command: \"jq -c '{d: .approval_decision, s: .approval_source, i: (.tool_input // {})}' >> decisions.log\"";

fn hook(event: &str, lane: &str, command: &str) -> String {
    let preempt = if lane == "preempt" {
        "          preempt_yolo: true\n"
    } else {
        ""
    };
    format!(
        "      {event}:\n        - matcher: '.*'\n{preempt}          hooks:\n            - type: command\n              command: '{command}'\n"
    )
}

const EVALUATOR: &str = "evaluators:\n  risk:\n    type: choice\n    model: script/judge.yaml\n    instructions: Is the call safe?\n    choices: {safe: reads only, unsafe: changes things}\n";

/// An evaluator hook mapping `safe` to `decision` (and `unsafe` to deny).
fn evaluator_hook(event: &str, decision: &str, min_probability: f64) -> String {
    format!(
        "      {event}:\n        - matcher: '.*'\n          hooks:\n            - type: evaluator\n              evaluator: risk\n              evaluator_policy: {{decisions: {{safe: {decision}, unsafe: deny}}, min_probability: {min_probability}, fallback: deny}}\n"
    )
}

fn check(cell: &Cell, hooks: &str) {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "{}agents:\n  root:\n    model: script/model.yaml\n    toolsets: [{{type: shell}}, {{type: think}}]\n    hooks:\n{hooks}{RECORD}\n",
            cell.top
        ),
    )
    .unwrap();
    let args = cell.args.to_string();
    std::fs::write(
        d.join("model.yaml"),
        format!(
            "replies:\n  - tool_calls:\n      - name: {}\n        arguments: {args}\n  - text: done\n",
            cell.tool
        ),
    )
    .unwrap();
    // The classifier evaluator cells use: sure the call is safe.
    std::fs::write(
        d.join("judge.yaml"),
        "default: {text: '{\"choice\": \"safe\", \"probability\": 0.9}'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("call.json"),
        json!({"tool_input": cell.args}).to_string(),
    )
    .unwrap();
    let yolo: &[&str] = if cell.yolo { &["--yolo"] } else { &[] };

    let out = tether(d)
        .args([
            "hooks",
            "decide",
            "agent.yaml",
            "--tool",
            cell.tool,
            "--input",
            "call.json",
        ])
        .args(yolo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}: {out:?}", cell.name);
    let decided: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            decided["decision"].as_str().unwrap(),
            decided["source"].as_str().unwrap()
        ),
        cell.want,
        "{}: {decided:#}",
        cell.name
    );
    assert!(
        !d.join("decisions.log").exists(),
        "{}: decide fired on_tool_approval_decision",
        cell.name
    );

    // The real run; end of input answers a question with no.
    let out = tether(d)
        .args(["run", "agent.yaml", "--exec", "go"])
        .args(yolo)
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}: {out:?}", cell.name);
    let log = std::fs::read_to_string(d.join("decisions.log")).unwrap();
    let ran: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    let asked = String::from_utf8_lossy(&out.stdout).contains("Can I run this tool?");
    match cell.want.0 {
        "ask" => {
            assert!(asked, "{}: the run did not ask", cell.name);
            assert_eq!(
                (ran["d"].as_str().unwrap(), ran["s"].as_str().unwrap()),
                ("deny", "user_rejected"),
                "{}",
                cell.name
            );
        }
        decision => {
            assert!(!asked, "{}: the run asked", cell.name);
            assert_eq!(
                (ran["d"].as_str().unwrap(), ran["s"].as_str().unwrap()),
                (decision, cell.want.1),
                "{}",
                cell.name
            );
        }
    }
    assert_eq!(
        ran["i"], decided["updated_input"],
        "{}: arguments",
        cell.name
    );
}

#[test]
fn decide_and_a_real_run_agree_in_every_cell() {
    let allow = r#"echo "{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}""#;
    let ask = r#"echo "{\"hook_specific_output\":{\"permission_decision\":\"ask\"}}""#;
    let deny = r#"echo "{\"hook_specific_output\":{\"permission_decision\":\"deny\",\"permission_decision_reason\":\"no\"}}""#;
    let block = "echo nope >&2; exit 2";
    let rewrite =
        r#"echo "{\"hook_specific_output\":{\"updated_input\":{\"cmd\":\"echo rewritten\"}}}""#;
    let pr_meta = r#"echo "{\"hook_specific_output\":{\"metadata\":{\"risk\":\"high\"}}}""#;
    let to_rm =
        r#"echo "{\"hook_specific_output\":{\"updated_input\":{\"cmd\":\"rm -rf build\"}}}""#;
    let allow_if_rewritten = r#"grep -q rewritten && echo "{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}"; true"#;
    let cmd = json!({"cmd": "echo hi"});
    let cells: Vec<(Cell, String)> = vec![
        (
            Cell {
                name: "no rule",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("ask", "user_confirmation"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "no rule, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: true,
                want: ("allow", "yolo"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "permissions allow",
                top: "permissions:\n  allow: ['shell']\n",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("allow", "team_permissions_allow"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "permissions deny",
                top: "permissions:\n  deny: ['shell:cmd=echo*']\n",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("deny", "team_permissions_deny"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "permissions deny, yolo",
                top: "permissions:\n  deny: ['shell']\n",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: true,
                want: ("deny", "team_permissions_deny"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "permissions ask",
                top: "permissions:\n  ask: ['shell']\n",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("ask", "team_permissions_ask"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "preempt allow",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("ask", "user_confirmation"),
            },
            hook("pre_tool_use", "preempt", allow),
        ),
        (
            Cell {
                name: "preempt ask, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: true,
                want: ("ask", "preempt_hook_ask"),
            },
            hook("pre_tool_use", "preempt", ask),
        ),
        (
            Cell {
                name: "preempt deny, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: true,
                want: ("deny", "pre_tool_use_hook_deny"),
            },
            hook("pre_tool_use", "preempt", deny),
        ),
        (
            Cell {
                name: "preempt block",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("deny", "pre_tool_use_hook_deny"),
            },
            hook("pre_tool_use", "preempt", block),
        ),
        (
            Cell {
                name: "default allow",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("allow", "pre_tool_use_hook_allow"),
            },
            hook("pre_tool_use", "default", allow),
        ),
        (
            Cell {
                name: "default allow, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: true,
                want: ("allow", "yolo"),
            },
            hook("pre_tool_use", "default", allow),
        ),
        (
            Cell {
                name: "default deny",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("deny", "pre_tool_use_hook_deny"),
            },
            hook("pre_tool_use", "default", block),
        ),
        (
            Cell {
                name: "default ask on a read-only tool",
                top: "",
                hooks: "",
                tool: "think",
                args: json!({"thought": "x"}),
                yolo: false,
                want: ("ask", "pre_tool_use_hook_ask"),
            },
            hook("pre_tool_use", "default", ask),
        ),
        (
            Cell {
                name: "default rewrite",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("ask", "user_confirmation"),
            },
            hook("pre_tool_use", "default", rewrite),
        ),
        (
            Cell {
                name: "read-only tool",
                top: "",
                hooks: "",
                tool: "think",
                args: json!({"thought": "x"}),
                yolo: false,
                want: ("allow", "readonly_hint"),
            },
            String::new(),
        ),
        (
            Cell {
                name: "permission_request allow",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("allow", "permission_request_hook_allow"),
            },
            hook("permission_request", "default", allow),
        ),
        (
            Cell {
                name: "permission_request deny",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("deny", "permission_request_hook_deny"),
            },
            hook("permission_request", "default", block),
        ),
        (
            Cell {
                name: "permission_request metadata",
                top: "",
                hooks: "",
                tool: "shell",
                args: cmd.clone(),
                yolo: false,
                want: ("ask", "user_confirmation"),
            },
            hook("permission_request", "default", pr_meta),
        ),
        (
            Cell {
                name: "permissions ask then permission_request allow",
                top: "permissions:\n  ask: ['shell']\n",
                hooks: "",
                tool: "shell",
                args: cmd,
                yolo: false,
                want: ("allow", "permission_request_hook_allow"),
            },
            hook("permission_request", "default", allow),
        ),
        (
            Cell {
                name: "tool_input_transform rewrite meets a deny rule, yolo",
                top: "permissions:\n  deny: ['shell:cmd=rm*']\n",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: true,
                want: ("deny", "team_permissions_deny"),
            },
            hook("tool_input_transform", "default", to_rm),
        ),
        (
            Cell {
                name: "pre_tool_use sees the tool_input_transform rewrite",
                top: "",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: false,
                want: ("allow", "pre_tool_use_hook_allow"),
            },
            hook("tool_input_transform", "default", rewrite)
                + &hook("pre_tool_use", "default", allow_if_rewritten),
        ),
        (
            Cell {
                name: "tool_guard deny, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: true,
                want: ("deny", "tool_guard_deny"),
            },
            hook("tool_guard", "default", deny),
        ),
        (
            Cell {
                name: "tool_guard ask, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: true,
                want: ("ask", "tool_guard_ask"),
            },
            hook("tool_guard", "default", ask),
        ),
        (
            Cell {
                name: "tool_guard ask over an allow rule",
                top: "permissions:\n  allow: ['shell']\n",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: false,
                want: ("ask", "tool_guard_ask"),
            },
            hook("tool_guard", "default", ask),
        ),
        (
            Cell {
                name: "tool_guard timeout fails closed, yolo",
                top: "",
                hooks: "",
                tool: "think",
                args: json!({"thought": "x"}),
                yolo: true,
                want: ("deny", "tool_guard_deny"),
            },
            "      tool_guard:\n        - hooks:\n            - {type: command, command: 'sleep 5', timeout: 1}\n"
                .to_owned(),
        ),
        (
            Cell {
                name: "tool_guard exit 1 fails closed, yolo",
                top: "",
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: true,
                want: ("deny", "tool_guard_deny"),
            },
            hook("tool_guard", "default", "echo broken >&2; exit 1"),
        ),
        (
            Cell {
                name: "evaluator allows",
                top: EVALUATOR,
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: false,
                want: ("allow", "pre_tool_use_hook_allow"),
            },
            evaluator_hook("pre_tool_use", "allow", 0.8),
        ),
        (
            Cell {
                name: "evaluator below min_probability falls back to deny",
                top: EVALUATOR,
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: false,
                want: ("deny", "pre_tool_use_hook_deny"),
            },
            evaluator_hook("pre_tool_use", "allow", 0.95),
        ),
        (
            Cell {
                name: "evaluator on tool_guard asks, yolo",
                top: EVALUATOR,
                hooks: "",
                tool: "shell",
                args: json!({"cmd": "echo hi"}),
                yolo: true,
                want: ("ask", "tool_guard_ask"),
            },
            evaluator_hook("tool_guard", "ask", 0.8),
        ),
    ];
    for (cell, hooks) in &cells {
        let hooks = if hooks.is_empty() { cell.hooks } else { hooks };
        check(cell, hooks);
    }
}
