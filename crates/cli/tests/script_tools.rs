//! `type: script` toolsets end to end: named commands as tools, their arguments as
//! environment variables (never shell syntax), through the approval chain and the hooks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use tempfile::TempDir;
use tether_test_support::cli::{assert_load_errors, tether};

#[test]
fn script_tools_run_with_their_arguments_and_meet_the_hooks() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        r#"agents:
  root:
    model: script/s.yaml
    toolsets:
      - type: script
        env: {GREETING: hello}
        shell:
          greet:
            cmd: 'echo "$(printenv GREETING) ${who}, from $PWD_NAME"; echo extra >&2'
            description: Greet someone
            args:
              who: {description: Who to greet}
              PWD_NAME: {description: A label}
            required: [who]
          deploy:
            cmd: 'echo deploying ${target}'
            args:
              target: {type: string, enum: [staging, production]}
    hooks:
      # Answers for the user, after pre_tool_use has run.
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
        - matcher: greet
          hooks:
            - type: command
              command: "echo '{\"hook_specific_output\":{\"updated_input\":{\"PWD_NAME\":\"the hook\"}}}'"
"#,
    )
    .unwrap();
    std::fs::write(
        d.join("s.yaml"),
        r#"replies:
  - tool_calls:
      - {name: greet, arguments: {who: "Ada; rm -rf /tmp/x", PWD_NAME: model}}
      - {name: deploy, arguments: {target: production}}
      - {name: deploy, arguments: {target: staging}}
      - {name: greet, arguments: {}}
  - text: done
"#,
    )
    .unwrap();
    let out = tether(d)
        .args(["run", "agent.yaml", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let responses: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect();
    let text = |i: usize| responses[i]["response"].as_str().unwrap().to_owned();
    // The argument is data, not shell syntax; the hook rewrote PWD_NAME; stderr is merged.
    assert_eq!(text(0), "hello Ada; rm -rf /tmp/x, from the hook\nextra\n");
    assert!(text(1).contains("no production deploys"), "{}", text(1));
    assert_eq!(text(2), "deploying staging\n");
    assert!(
        text(3).contains("missing required argument(s) for `greet`: who"),
        "{}",
        text(3)
    );
}

#[test]
fn script_errors_are_caught_at_load() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    assert_load_errors(
        d,
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: script\n        shell:\n          a: {cmd: 'echo $HOME $x', args: {x: {}}}\n          b: {cmd: 'true', required: [y]}\n      - type: shell\n        shell: {c: {cmd: ls}}\n      - type: script\n",
        &[
            "agents.root.toolsets[0].shell.a: script `a` uses undefined args: HOME",
            "agents.root.toolsets[0].shell.b: script `b` has required arg `y` which is not defined in args",
            "agents.root.toolsets[1].shell: `shell` only applies to `type: script` toolsets, not `type: shell`",
            "agents.root.toolsets[2]: a `type: script` toolset needs `shell:`",
        ],
    );
}
