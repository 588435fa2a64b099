//! `type: a2a` toolsets end to end: a `tether serve a2a` process is the remote agent, and the
//! official A2A Python SDK serves another; each skill of the card is a tool whose streamed
//! answer reaches the model; a `pre_tool_use` hook sees and can block the call; a private
//! address is refused unless the toolset allows it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use tempfile::TempDir;
use tether_test_support::cli;
use tether_test_support::serve::Server;

/// A remote agent served by `tether serve a2a` that echoes what it is told.
fn remote() -> (TempDir, Server) {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        "agents:\n  root:\n    model: script/agent.script.yaml\n    description: Answers offline\n    instruction: You help.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.script.yaml"),
        "default:\n  text: \"remote says: {{prompt}}\"\n",
    )
    .unwrap();
    let server = Server::start(
        dir.path(),
        &["a2a", "agent.yaml", "--listen", "127.0.0.1:0"],
        &[],
    );
    (dir, server)
}

/// A client project whose root calls `tool` twice (the second message mentions a secret).
fn client(url: &str, extra: &str, tool: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!(
            r#"agents:
  root:
    model: script/root.yaml
    toolsets:
      - type: a2a
        name: helper
        url: {url}
{extra}    hooks:
      pre_tool_use:
        - matcher: "helper_.*"
          preempt_yolo: true
          hooks:
            - type: command
              command: |
                input=$(cat)
                echo "$input" | jq -c '{{tool_name, tool_input}}' >> seen.log
                if echo "$input" | grep -q secret; then echo "no secrets to remote agents" >&2; exit 2; fi
"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("root.yaml"),
        format!(
            "replies:\n  - tool_calls: [{{name: {tool}, arguments: {{message: hello there}}}}]\n  - tool_calls: [{{name: {tool}, arguments: {{message: the secret is 42}}}}]\n  - text: done\n"
        ),
    )
    .unwrap();
    dir
}

fn run(dir: &Path) -> (i32, String, String) {
    let out = cli::tether(dir)
        .args(["run", "agent.yaml", "--exec", "go", "--yolo"])
        .write_stdin("")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_skill_of_a_tether_a2a_server_is_a_tool_that_a_pre_tool_use_hook_sees_and_can_block() {
    let (_remote_dir, server) = remote();
    let dir = client(
        &server.url,
        "        allow_private_ips: true\n",
        "helper_agent_root",
    );
    let (code, stdout, stderr) = run(dir.path());
    assert_eq!(code, 0, "{stdout}\n{stderr}\n{}", server.stderr());
    assert!(
        stdout.contains(r#"helper_agent_root response → "remote says: hello there""#),
        "{stdout}"
    );
    assert!(stdout.contains("no secrets to remote agents"), "{stdout}");
    assert!(!stdout.contains("remote says: the secret"), "{stdout}");
    let seen = std::fs::read_to_string(dir.path().join("seen.log")).unwrap();
    assert_eq!(
        seen,
        "{\"tool_name\":\"helper_agent_root\",\"tool_input\":{\"message\":\"hello there\"}}\n{\"tool_name\":\"helper_agent_root\",\"tool_input\":{\"message\":\"the secret is 42\"}}\n"
    );
}

#[test]
fn a_private_address_is_refused_unless_the_toolset_allows_it() {
    let (_remote_dir, server) = remote();
    let dir = client(&server.url, "", "helper_agent_root");
    let (_code, stdout, stderr) = run(dir.path());
    assert!(
        stderr.contains("failed to fetch the A2A agent card")
            && stderr.contains("private addresses are refused"),
        "{stderr}"
    );
    assert!(!stdout.contains("remote says"), "{stdout}");
    // Nothing reached the remote agent, and the hook never saw an a2a tool run.
    assert!(
        !dir.path().join("seen.log").exists() || {
            let seen = std::fs::read_to_string(dir.path().join("seen.log")).unwrap();
            !seen.contains("remote says")
        }
    );
}
