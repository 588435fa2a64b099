//! MCP toolsets' options and protocol features end to end (`tether run --exec` on the script
//! model, real servers): `type: mcp` hooks, a changed tool list, progress, elicitation, the
//! toolset options (`tools`, `readonly`, `toon`, `defer`, `model`), the Docker gateway (through
//! a stand-in `docker` program) and the npm filesystem server.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

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

    /// `--json` events of one type.
    fn events(&self, kind: &str) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == kind)
            .collect()
    }

    fn responses(&self) -> Vec<String> {
        self.events("tool_response")
            .iter()
            .map(|e| e["response"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// The stdio test server as toolset fields (6-space list item, 8-space fields).
fn server(dir: &Path) -> String {
    format!(
        "      - type: mcp\n        command: {}\n        args: [{}, --log, {}]",
        mcp::python().display(),
        mcp::test_server().display(),
        dir.join("calls.log").display()
    )
}

fn call(name: &str, args: &str) -> String {
    format!("  - tool_calls:\n      - name: {name}\n        arguments: {args}\n")
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// Writes `agent.yaml` (`extra` goes under the agent, 4-space indented) and `model.yaml`.
fn project(dir: &Path, toolsets: &str, extra: &str, replies: &str) {
    write(
        dir,
        "agent.yaml",
        &format!(
            "agents:\n  root:\n    model: script/model.yaml\n    toolsets:\n{toolsets}\n{extra}\n"
        ),
    );
    write(
        dir,
        "model.yaml",
        &format!("replies:\n{replies}  - text: all done\n"),
    );
}

#[expect(
    clippy::disallowed_methods,
    reason = "the tests drive the real binary with their own environment"
)]
fn run(dir: &Path, extra: &[&str], stdin: &str, env: &[(&str, &str)]) -> Out {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tether"));
    cmd.current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("SHELL", "/bin/bash")
        .args(["run", "agent.yaml", "--exec", "go"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
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

fn calls(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn called(dir: &Path, tool: &str) -> usize {
    calls(dir).iter().filter(|c| c["tool"] == tool).count()
}

#[test]
fn an_mcp_hook_decides_with_a_tool_of_the_agents_server() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // The hook asks the server's echo tool to say "block" for delete_note calls; the fail tool
    // (an isError result) fails the hook, which denies on pre_tool_use.
    let hooks = r#"    hooks:
      pre_tool_use:
        - matcher: 'mcp:.*:delete_note'
          hooks:
            - type: mcp
              server: tether-test
              tool: echo
              input: {text: '{"decision": "block", "reason": "note ${tool_input.name} is kept"}'}
        - matcher: 'mcp:.*:read_note'
          hooks:
            - {type: mcp, server: tether-test, tool: fail}"#;
    let replies = [
        call("delete_note", "{name: a}"),
        call("read_note", "{name: b}"),
        call("echo", "{text: fine}"),
    ]
    .concat();
    project(d, &server(d), hooks, &replies);
    let out = run(d, &["--json"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let r = out.responses();
    assert!(r[0].contains("note a is kept"), "{r:?}");
    assert!(r[1].contains("something went wrong"), "{r:?}");
    assert_eq!(r[2], "fine");
    // The hooks' own calls reached the server; the guarded calls did not.
    assert_eq!(called(d, "delete_note"), 0);
    assert_eq!(called(d, "read_note"), 0);
    assert_eq!(called(d, "fail"), 1);
    assert_eq!(called(d, "echo"), 2);
}

#[test]
fn a_changed_tool_list_is_seen_on_the_next_model_call_and_progress_is_reported() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let replies = [
        call("late_tool", "{}"),
        call("add_tool", "{}"),
        call("late_tool", "{}"),
        call("progress", "{steps: 3}"),
    ]
    .concat();
    project(d, &server(d), "", &replies);
    let out = run(d, &["--json", "--yolo"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let r = out.responses();
    assert!(r[0].contains("not available"), "{r:?}");
    assert_eq!(r[1], "added");
    assert_eq!(r[2], "late");
    let progress = out.events("tool_progress");
    assert_eq!(progress.len(), 3, "{}", out.stdout);
    assert_eq!(progress[2]["progress"], 3.0);
    assert_eq!(progress[2]["total"], 3.0);
    assert_eq!(progress[2]["message"], "step 3");
}

#[test]
fn elicitation_is_answered_from_stdin_and_end_of_input_declines() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let replies = [
        call("elicit", "{question: Who?}"),
        call("elicit", "{question: Again?}"),
    ]
    .concat();
    project(d, &server(d), "", &replies);
    // First form: yes, confirm=y, name=Ada (fields in the schema's order); then end of input.
    let out = run(d, &["--yolo"], "y\ny\nAda\n", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(
        out.stdout.contains("MCP server `tether-test` asks: Who?"),
        "{}",
        out.stdout
    );
    // Fields are asked in the order of the schema's properties as Tether holds them (by
    // name): confirm, then name.
    assert!(
        out.stdout
            .contains("Name (string, required) — Your name: Ada"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(r#"elicit response → "accepted: {\"confirm\": true, \"name\": \"Ada\"}""#),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("elicit response → \"declined\""),
        "{}",
        out.stdout
    );
}

#[test]
fn toolset_options_filter_hide_reencode_and_route() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // tools: an allow-list; readonly: only read-only tools; toon for echo; model for the turn
    // after one of its tools ran; defer: hidden until add_tool.
    let s = server(d);
    let toolsets = format!(
        "{s}\n        name: t\n        tools: [echo, delete_note, read_note]\n        readonly: true\n        toon: 'echo'\n        model: script/second.yaml\n{s}\n        name: late\n        defer: [secret]\n        tools: [secret]"
    );
    write(d, "second.yaml", "default:\n  text: second model here\n");
    let replies = [
        call("late_secret", "{}"),
        call("search_tool", "{query: secret}"),
        call("add_tool", "{name: late_secret}"),
        call("late_secret", "{}"),
        call("t_delete_note", "{name: a}"),
        call("t_lines", "{n: 2}"),
        call("t_echo", r#"{text: '{"name":"Ada","tags":["a","b"]}'}"#),
    ]
    .concat();
    project(d, &toolsets, "", &replies);
    let out = run(d, &["--json", "--yolo"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    let r = out.responses();
    assert!(r[0].contains("not available"), "deferred: {r:?}");
    assert!(
        r[1].contains("Found 1 deferred tool(s)") && r[1].contains("late_secret"),
        "{r:?}"
    );
    assert!(r[2].contains("has been activated"), "{r:?}");
    assert!(r[3].contains("ghp_"), "activated: {r:?}");
    assert!(
        r[4].contains("not available"),
        "readonly hides delete_note: {r:?}"
    );
    assert!(r[5].contains("not available"), "tools hides lines: {r:?}");
    assert_eq!(r[6], "name: Ada\ntags[2]: a,b", "toon");
    // The turn after t_echo ran was the toolset's model's, and only that one.
    let messages = out.events("agent_message");
    assert_eq!(
        messages.last().unwrap()["text"],
        "second model here",
        "{}",
        out.stdout
    );
    let second = out
        .events("model_call_started")
        .iter()
        .filter(|e| e["model"].as_str().unwrap_or_default().contains("second"))
        .count();
    assert_eq!(second, 1, "{}", out.stdout);
}

#[test]
fn a_docker_catalog_server_runs_through_the_gateway_with_its_secrets() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // A stand-in `docker`: `mcp version` answers, `mcp gateway run …` records its arguments
    // and the secrets file, then becomes the test server.
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    write(
        &bin,
        "docker",
        &format!(
            "#!/bin/bash\nif [ \"$1 $2\" = \"mcp version\" ]; then echo v0.1; exit 0; fi\necho \"$@\" > {args}\nwhile [ $# -gt 0 ]; do [ \"$1\" = --secrets ] && cat \"$2\" > {secrets}; shift; done\nexec {py} {server} --name gateway --log {log}\n",
            args = d.join("docker-args").display(),
            secrets = d.join("docker-secrets").display(),
            py = mcp::python().display(),
            server = mcp::test_server().display(),
            log = d.join("calls.log").display(),
        ),
    );
    std::fs::set_permissions(
        bin.join("docker"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    write(
        d,
        "catalog.yaml",
        "registry:\n  notes:\n    type: server\n    secrets:\n      - {name: notes.token, env: NOTES_TOKEN}\n",
    );
    let toolsets = "      - type: mcp\n        ref: docker:notes\n        config: {root: /data}";
    project(d, toolsets, "", &call("echo", "{text: via gateway}"));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let catalog = d.join("catalog.yaml");
    let out = run(
        d,
        &["--json", "--yolo"],
        "",
        &[
            ("PATH", &path),
            ("TETHER_MCP_CATALOG", catalog.to_str().unwrap()),
            ("NOTES_TOKEN", "tok-123"),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert_eq!(out.responses(), ["via gateway"], "{}", out.all());
    let args = std::fs::read_to_string(d.join("docker-args")).unwrap();
    assert!(
        args.starts_with("mcp gateway run --servers notes --catalog "),
        "{args}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("docker-secrets")).unwrap(),
        "notes.token=tok-123\n"
    );
    // Without the secret the server does not start, and says which variable is missing.
    let out = run(
        d,
        &["--json", "--yolo"],
        "",
        &[
            ("PATH", &path),
            ("TETHER_MCP_CATALOG", catalog.to_str().unwrap()),
        ],
    );
    assert!(out.stdout.contains("NOTES_TOKEN"), "{}", out.all());
}

#[test]
fn the_npm_filesystem_server_reads_a_file_through_tether_run() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(d, "hello.txt", "hello from disk\n");
    let toolsets = format!(
        "      - type: mcp\n        name: fs\n        command: {}\n        args: [{}]",
        mcp::npm_bin("mcp-server-filesystem").display(),
        d.display()
    );
    let replies = call(
        "fs_read_text_file",
        &format!("{{path: {}}}", d.join("hello.txt").display()),
    );
    project(d, &toolsets, "", &replies);
    let out = run(d, &["--json"], "", &[]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert_eq!(out.responses(), ["hello from disk\n"], "{}", out.all());
}
