//! Agent `commands:` in `--exec`: `tether run AGENT /NAME ARGS…` expands the command (its
//! arguments, `${env…}` with defaults, tool calls through the approval chain) and sends it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;
use tether_test_support::cli;

const AGENT: &str = r#"agents:
  root:
    model: script/s.yaml
    toolsets: [{type: shell}]
    commands:
      greet: "Hello ${env.WHO || 'world'} and ${args[0]} (${args.length} args)"
      plain: "Summarize"
      disk:
        description: Free space
        instruction: "Disk: ${shell({cmd: 'echo 42G free'})}. Legacy: !shell(cmd='echo legacy')"
    hooks:
      tool_response_transform:
        - matcher: shell
          hooks:
            - type: command
              command: "jq -c '{hook_specific_output: {updated_tool_response: (.tool_response | ascii_upcase)}}'"
"#;

fn run(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)], stdin: &str) -> String {
    let mut cmd = cli::tether(dir);
    cmd.env_remove("WHO")
        .args(["run", "agent.yaml", "--exec"])
        .args(args)
        .write_stdin(stdin);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn commands_expand_arguments_env_and_tool_calls() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s.yaml"),
        "rules:\n  - match: '(?s)^(?P<p>.+)$'\n    reply: {text: 'PROMPT WAS <${p}>'}\n",
    )
    .unwrap();
    std::fs::write(d.join("agent.yaml"), AGENT).unwrap();

    let out = run(d, &["/greet", "Ada", "\"Bob Ross\""], &[], "");
    assert!(
        out.contains("PROMPT WAS <Hello world and Ada (2 args)>"),
        "{out}"
    );
    let out = run(d, &["/greet", "Ada"], &[("WHO", "Zed")], "");
    assert!(
        out.contains("PROMPT WAS <Hello Zed and Ada (1 args)>"),
        "{out}"
    );
    // Arguments a command does not read follow it.
    let out = run(d, &["/plain", "the", "logs"], &[], "");
    assert!(out.contains("PROMPT WAS <Summarize the logs>"), "{out}");
    // Not a command: sent as typed.
    let out = run(d, &["/unknown", "x"], &[], "");
    assert!(out.contains("PROMPT WAS </unknown x>"), "{out}");
    // Tool calls run through the approval chain (here --yolo) and the transform hooks.
    let out = run(d, &["--yolo", "/disk"], &[], "");
    assert!(
        out.contains("PROMPT WAS <Disk: 42G FREE. Legacy: LEGACY>"),
        "{out}"
    );
    // Without approval (end of input answers no), the reason takes the output's place.
    let out = run(d, &["/disk"], &[], "");
    assert!(
        out.contains("PROMPT WAS <Disk: Error: The user rejected the tool call."),
        "{out}"
    );
}

#[test]
fn commands_that_cannot_be_evaluated_are_load_errors() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: openai/gpt-4o\n    commands:\n      - ok: fine\n      - bad: \"${Math.max(1, 2)}\"\n",
    )
    .unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("agent.yaml:5:7: agents.root.commands: command `bad`: the expression `${Math.max(1, 2)}` is not supported yet"),
        "{err}"
    );
}
