//! MCP toolsets end to end: `tether run --exec` on the script model against real servers (the
//! Python SDK test server over stdio and Streamable HTTP), with hooks, approvals, builtins,
//! restarts, timeouts and signals; each server's `--log` shows what it really received.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};
use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::mcp;

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Out {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// A temp project with the agent file and its script model.
struct Project {
    dir: TempDir,
}

impl Project {
    /// `toolsets` and `hooks` are YAML blocks indented for the agent (4 spaces); `replies`
    /// the script model's replies. `SERVER` in `toolsets` stands for the stdio test server
    /// (logging to `calls.log`).
    fn new(toolsets: &str, hooks: &str, replies: &str) -> Self {
        let dir = TempDir::new().unwrap();
        let server = format!(
            "command: {}\n        args: [{}, --log, {}]",
            mcp::python().display(),
            mcp::test_server().display(),
            dir.path().join("calls.log").display()
        );
        let toolsets = toolsets.replace("SERVER", &server);
        std::fs::write(
            dir.path().join("agent.yaml"),
            format!(
                "agents:\n  root:\n    model: script/model.yaml\n    toolsets:\n{toolsets}\n    hooks:\n{hooks}\n"
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("model.yaml"),
            format!("replies:\n{replies}\n  - text: all done\n"),
        )
        .unwrap();
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn run(&self, extra: &[&str], stdin: &str, env: &[(&str, &str)]) -> Out {
        let mut cmd = self.command(extra, env);
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        Out {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "the tests drive the real binary and need its pid"
    )]
    fn command(&self, extra: &[&str], env: &[(&str, &str)]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tether"));
        cmd.current_dir(self.path())
            .env("TETHER_HOME", self.path().join(".tether"))
            .env("XDG_CONFIG_HOME", self.path().join(".config"))
            .env("SHELL", "/bin/bash")
            .args(["run", "agent.yaml", "--exec", "go"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// The test server's call log: one JSON object per call (and per cancellation).
    fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn called(&self, tool: &str) -> Vec<Value> {
        self.calls()
            .into_iter()
            .filter(|c| c["tool"] == tool)
            .collect()
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.path().join(name)).unwrap_or_default()
    }
}

fn call(name: &str, args: &str) -> String {
    format!("  - tool_calls:\n      - name: {name}\n        arguments: {args}\n")
}

fn alive(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Every pid that answered a call is gone (the run stopped its servers).
fn assert_servers_gone(p: &Project) {
    let pids: Vec<i64> = p.calls().iter().filter_map(|c| c["pid"].as_i64()).collect();
    assert!(!pids.is_empty(), "no call reached a server");
    for pid in pids {
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid), "server {pid} outlived the run");
    }
}

const STDIO: &str = "      - type: mcp\n        SERVER";

#[test]
fn a_mcp_matcher_guards_mcp_tools_only_and_a_blocked_call_never_reaches_the_server() {
    let hooks = "      pre_tool_use:
        - matcher: 'mcp:.*'
          hooks:
            - {type: command, command: 'jq -r .tool_name >> mcp-seen.log'}
        - matcher: 'mcp:tether-test:delete_note'
          hooks:
            - {type: command, command: 'echo notes stay >&2; exit 2'}";
    let toolsets = format!("{STDIO}\n      - type: think");
    let replies = [
        call("delete_note", "{name: a}"),
        call("echo", "{text: hi}"),
        call("think", "{thought: hmm}"),
    ]
    .concat();
    let p = Project::new(&toolsets, hooks, &replies);
    let out = p.run(&[], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(
        out.all().contains("blocked by pre_tool_use hook"),
        "{}",
        out.all()
    );
    assert!(out.stdout.contains("notes stay"), "{}", out.stdout);
    // The hook saw both MCP calls and not the built-in tool; the server only got echo.
    assert_eq!(p.file("mcp-seen.log"), "delete_note\necho\n");
    assert!(p.called("delete_note").is_empty(), "{:?}", p.calls());
    assert_eq!(p.called("echo").len(), 1);
    assert_servers_gone(&p);
}

#[test]
fn permission_patterns_match_the_qualified_name() {
    let replies = [
        call("delete_note", "{name: a}"),
        call("read_note", "{name: b}"),
    ]
    .concat();
    let p = Project::new(STDIO, "      {}", &replies);
    let yaml = p.file("agent.yaml");
    std::fs::write(
        p.path().join("agent.yaml"),
        format!("permissions:\n  deny: ['mcp:tether-test:delete_*']\n{yaml}"),
    )
    .unwrap();
    let out = p.run(&[], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(
        out.stdout
            .contains("Tool 'delete_note' is denied by permissions configuration."),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("Can I run this tool?"),
        "{}",
        out.stdout
    );
    assert!(p.called("delete_note").is_empty());
    assert_eq!(p.called("read_note").len(), 1);
}

#[test]
fn updated_input_changes_what_the_server_receives() {
    let hooks = r#"      pre_tool_use:
        - matcher: 'mcp:.*:echo'
          hooks:
            - type: command
              command: 'echo ''{"hook_specific_output":{"hook_event_name":"PreToolUse","updated_input":{"text":"rewritten"}}}'''"#;
    let p = Project::new(STDIO, hooks, &call("echo", "{text: original}"));
    let out = p.run(&[], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let echo = p.called("echo");
    assert_eq!(echo.len(), 1, "{:?}", p.calls());
    assert_eq!(echo[0]["arguments"]["text"], "rewritten");
    assert!(
        out.stdout.contains("echo response → \"rewritten\""),
        "{}",
        out.stdout
    );
}

#[test]
fn redact_secrets_scrubs_an_mcp_result_and_large_results_are_cut() {
    let toolsets = STDIO;
    let replies = [call("secret", "{}"), call("lines", "{n: 5000}")].concat();
    let p = Project::new(toolsets, "      {}", &replies);
    // redact_secrets is an agent flag.
    let yaml = p.file("agent.yaml").replace(
        "    model: script/model.yaml\n",
        "    model: script/model.yaml\n    redact_secrets: true\n",
    );
    std::fs::write(p.path().join("agent.yaml"), yaml).unwrap();
    let out = p.run(&["--yolo", "--json"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let responses: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect();
    assert_eq!(responses.len(), 2, "{}", out.stdout);
    let secret = responses[0]["response"].as_str().unwrap();
    assert!(!secret.contains("ghp_0123456789"), "{secret}");
    assert!(secret.contains("REDACTED"), "{secret}");
    let lines = responses[1]["response"].as_str().unwrap();
    assert!(
        lines.starts_with("Tool call result was too large"),
        "{}",
        &lines[..200]
    );
    assert!(
        lines.lines().count() < 2_010,
        "not cut: {} lines",
        lines.lines().count()
    );
    assert!(lines.ends_with("line 5000"), "the tail is kept");
    assert!(!lines.contains("\nline 1\n"), "the head is cut");
    assert_eq!(p.called("lines").len(), 1);
}

#[test]
fn a_read_only_tool_runs_unasked_and_a_destructive_one_is_asked() {
    let replies = [
        call("read_note", "{name: a}"),
        call("delete_note", "{name: a}"),
    ]
    .concat();
    let p = Project::new(STDIO, "      {}", &replies);
    // End of input: the question is answered "no".
    let out = p.run(&[], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert_eq!(
        out.stdout.matches("Can I run this tool?").count(),
        1,
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("delete_note(name: \"a\")\nCan I run this tool?"),
        "{}",
        out.stdout
    );
    assert_eq!(p.called("read_note").len(), 1);
    assert!(p.called("delete_note").is_empty());
    // Answered "yes": it runs.
    std::fs::remove_file(p.path().join("calls.log")).unwrap();
    let out = p.run(&[], "y\n", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert_eq!(p.called("delete_note").len(), 1, "{}", out.all());
}

#[test]
fn a_crashed_server_is_restarted_and_the_next_call_works() {
    let replies = [
        call("whoami", "{}"),
        call("crash", "{}"),
        call("whoami", "{}"),
    ]
    .concat();
    let p = Project::new(STDIO, "      {}", &replies);
    let out = p.run(&["--yolo", "--json"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let whoami = p.called("whoami");
    assert_eq!(whoami.len(), 2, "{:?}", p.calls());
    assert_ne!(whoami[0]["pid"], whoami[1]["pid"], "a new process answers");
    let responses: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect();
    assert_eq!(responses[1]["is_error"], true, "{}", out.stdout);
    assert_eq!(responses[2]["is_error"], false, "{}", out.stdout);
    assert_eq!(responses[2]["response"], whoami[1]["pid"].to_string());
    assert_servers_gone(&p);
}

#[test]
fn a_stalled_server_is_cut_by_the_call_timeout_and_told_so() {
    let toolsets = format!("{STDIO}\n        lifecycle: {{call_timeout: 1s}}");
    let p = Project::new(&toolsets, "      {}", &call("stall", "{seconds: 60}"));
    let started = Instant::now();
    let out = p.run(&["--yolo", "--json"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the timeout did not cut the call"
    );
    assert!(out.stdout.contains("timed out"), "{}", out.stdout);
    // The server got notifications/cancelled for the call.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !p.calls().iter().any(|c| c.get("cancelled").is_some()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        p.calls().iter().any(|c| c.get("cancelled").is_some()),
        "{:?}",
        p.calls()
    );
}

#[test]
fn remote_headers_carry_an_env_value() {
    let log = TempDir::new().unwrap();
    let calls = log.path().join("calls.log");
    let server = mcp::spawn_test_server_http(
        "streamable-http",
        &[
            "--require-bearer",
            "s3cret",
            "--log",
            calls.to_str().unwrap(),
        ],
    );
    let toolsets = format!(
        "      - type: mcp\n        remote:\n          url: {}/mcp\n          headers:\n            Authorization: 'Bearer ${{env.MCP_TEST_TOKEN}}'",
        server.base
    );
    let p = Project::new(&toolsets, "      {}", &call("echo", "{text: over http}"));
    let out = p.run(&["--json"], "", &[("MCP_TEST_TOKEN", "s3cret")]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(
        out.stdout.contains("\"response\":\"over http\""),
        "{}",
        out.stdout
    );
    let text = std::fs::read_to_string(&calls).unwrap();
    let call: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(call["headers"]["authorization"], "Bearer s3cret");
}

#[test]
fn ctrl_c_mid_call_stops_the_server_and_exits_130() {
    let p = Project::new(STDIO, "      {}", &call("stall", "{seconds: 60}"));
    let mut child = p
        .command(&["--yolo"], &[])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while p.called("stall").is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !p.called("stall").is_empty(),
        "the call never reached the server"
    );
    kill_process(
        Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap(),
        Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_servers_gone(&p);
}

#[test]
fn a_docker_server_without_docker_says_what_is_missing() {
    let p = Project::new(
        "      - type: mcp\n        ref: docker:duckduckgo",
        "      {}",
        &call("search", "{query: x}"),
    );
    // A PATH with bash and jq but no docker.
    let bin = p.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for tool in ["bash", "sh", "jq"] {
        if let Some(found) = which(tool) {
            std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
        }
    }
    let out = p.run(&["--yolo"], "", &[("PATH", bin.to_str().unwrap())]);
    assert!(
        out.stderr.contains("runs through the Docker MCP Gateway, but `docker` is not on PATH: install Docker Desktop"),
        "{}",
        out.all()
    );
    // Docker without its `mcp` plugin answers as the real one does.
    std::fs::write(
        bin.join("docker"),
        "#!/bin/bash\necho 'docker: unknown command: docker mcp' >&2\necho >&2\necho \"Run 'docker --help' for more information\" >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("docker"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = p.run(&["--yolo"], "", &[("PATH", bin.to_str().unwrap())]);
    assert!(
        out.stderr.contains("the `docker mcp` CLI plugin is missing (`docker mcp version`: docker: unknown command: docker mcp): install Docker Desktop"),
        "{}",
        out.all()
    );
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
    })
}
