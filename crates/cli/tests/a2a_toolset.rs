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

/// A remote agent served by the official A2A Python SDK (`serve/a2a/sdk_server.py`), killed
/// when dropped.
struct SdkServer {
    child: std::process::Child,
    url: String,
}

impl SdkServer {
    fn start(streaming: bool) -> Self {
        use std::io::BufRead;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve/a2a/sdk_server.py");
        #[expect(
            clippy::disallowed_methods,
            reason = "tests run the official SDK's server"
        )]
        let mut child = std::process::Command::new(tether_test_support::serve::python())
            .arg(script)
            .arg(if streaming { "stream" } else { "nostream" })
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("LISTENING ")
            .unwrap_or_else(|| panic!("the SDK server said {line:?}"))
            .to_owned();
        Self { child, url }
    }
}

impl Drop for SdkServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sdk_server_skills_are_tools(streaming: bool) {
    let server = SdkServer::start(streaming);
    let dir = client(
        &server.url,
        "        allow_private_ips: true\n",
        "helper_shout",
    );
    let (code, stdout, stderr) = run(dir.path());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The answer's artifact, sent in two chunks, is one text.
    assert!(
        stdout.contains(r#"helper_shout response → "echo: hello there""#),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("no secrets to remote agents"), "{stdout}");
    assert!(!stdout.contains("echo: the secret"), "{stdout}");
    let seen = std::fs::read_to_string(dir.path().join("seen.log")).unwrap();
    assert!(
        seen.starts_with(
            "{\"tool_name\":\"helper_shout\",\"tool_input\":{\"message\":\"hello there\"}}\n"
        ),
        "{seen}"
    );
}

#[test]
fn a_skill_of_an_a2a_sdk_server_that_streams_is_a_tool_with_the_joined_answer() {
    sdk_server_skills_are_tools(true);
}

#[test]
fn a_skill_of_an_a2a_sdk_server_that_does_not_stream_is_a_tool_with_the_task_answer() {
    sdk_server_skills_are_tools(false);
}
