//! Stored sessions through the binary: resume across processes, `tether sessions`, and a
//! session killed with SIGKILL mid-tool-call resuming with a transcript a provider accepts.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::fake_llm::{FakeLlm, Turn};

struct Env {
    dir: TempDir,
    fake: FakeLlm,
}

impl Env {
    fn new(agents: &str) -> Self {
        let dir = TempDir::new().unwrap();
        let fake = FakeLlm::start_blocking().unwrap();
        let yaml = format!(
            "models:\n  fake:\n    provider: openai\n    model: gpt-4o\n    base_url: {}/v1\n    provider_opts: {{max_retries: 0}}\nagents:\n{agents}",
            fake.base_url()
        );
        std::fs::write(dir.path().join("agent.yaml"), yaml).unwrap();
        Self { dir, fake }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn tether(&self) -> Command {
        let mut cmd = Command::cargo_bin("tether").unwrap();
        cmd.current_dir(self.dir.path())
            .env("TETHER_HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("OPENAI_API_KEY", "test")
            .env("SHELL", "/bin/bash");
        cmd
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.tether().args(args).write_stdin("").output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn list(&self) -> Vec<Value> {
        let (code, out, err) = self.run(&["sessions", "list", "--json"]);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The messages of request `i` (roles and ids), checked to be a valid transcript.
    fn checked_messages(&self, i: usize) -> Vec<Value> {
        let messages = self.fake.requests()[i].body["messages"]
            .as_array()
            .unwrap()
            .clone();
        assert_valid_transcript(&messages);
        messages
    }
}

/// Every tool result answers a call of the assistant message right before the results, and
/// every call is answered.
fn assert_valid_transcript(messages: &[Value]) {
    let mut open: Vec<String> = Vec::new();
    for m in messages {
        match m["role"].as_str().unwrap() {
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap().to_owned();
                assert!(open.contains(&id), "orphan tool result {id}: {messages:#?}");
                open.retain(|o| *o != id);
            }
            role => {
                assert!(
                    open.is_empty(),
                    "unanswered calls {open:?} before a {role} message: {messages:#?}"
                );
                if let Some(calls) = m["tool_calls"].as_array() {
                    open = calls
                        .iter()
                        .map(|c| c["id"].as_str().unwrap().to_owned())
                        .collect();
                }
            }
        }
    }
    assert!(open.is_empty(), "unanswered calls {open:?}");
}

fn log_inputs(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn logging(event: &str, log: &Path) -> String {
    format!(
        "      {event}:\n        - {{type: command, command: 'cat >> {}; echo >> {}'}}\n",
        log.display(),
        log.display()
    )
}

#[test]
fn a_transfer_then_a_resume_in_a_new_process_sends_a_valid_transcript() {
    let dir = TempDir::new().unwrap();
    let (stop, start) = (
        dir.path().join("stop.jsonl"),
        dir.path().join("start.jsonl"),
    );
    let env = Env::new(&format!(
        "  root:\n    model: fake\n    sub_agents: [helper]\n    hooks:\n{}{}  helper:\n    model: fake\n    instruction: You help.\n",
        logging("subagent_stop", &stop),
        logging("session_start", &start)
    ));
    env.fake.push(Turn::tool_call(
        "transfer_task",
        json!({"agent": "helper", "task": "say hi", "expected_output": "a greeting"}),
    ));
    env.fake.push(Turn::text("hi from helper"));
    env.fake.push(Turn::text("the helper said hi"));
    let (code, out, err) = env.run(&["run", "agent.yaml", "--exec", "delegate please"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\n--- Agent: helper ---\n") && out.ends_with("the helper said hi"),
        "{out}"
    );

    let sessions = env.list();
    assert_eq!(sessions.len(), 1, "sub-sessions are not listed");
    let root_id = sessions[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(sessions[0]["first_prompt"], json!("delegate please"));

    env.fake.push(Turn::text("and again"));
    let (code, out, err) = env.run(&["run", "agent.yaml", "--resume", "--exec", "one more thing"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("and again"), "{out}");
    let messages = env.checked_messages(3);
    let users: Vec<_> = messages
        .iter()
        .filter(|m| m["role"] == json!("user"))
        .map(|m| m["content"].clone())
        .collect();
    assert_eq!(users, [json!("delegate please"), json!("one more thing")]);
    let tool = messages
        .iter()
        .find(|m| m["role"] == json!("tool"))
        .unwrap();
    assert_eq!(tool["content"], json!("hi from helper"));

    let stops = log_inputs(&stop);
    assert_eq!(stops.len(), 1);
    assert_eq!(stops[0]["parent_session_id"], json!(root_id));
    assert_ne!(stops[0]["session_id"], json!(root_id));
    let starts: Vec<_> = log_inputs(&start)
        .iter()
        .map(|s| (s["session_id"].clone(), s["source"].clone()))
        .collect();
    assert_eq!(
        starts,
        [
            (json!(root_id), json!("startup")),
            (json!(root_id), json!("resume"))
        ]
    );

    let (code, shown, _) = env.run(&["sessions", "show", &root_id]);
    assert_eq!(code, 0);
    assert!(
        shown.contains("> delegate please") && shown.contains("> one more thing"),
        "{shown}"
    );
    assert!(shown.contains("[sub-session "), "{shown}");
}

#[test]
fn sessions_list_show_and_rm() {
    let env = Env::new("  root:\n    model: fake\n");
    env.fake.push(Turn::text("one"));
    env.fake.push(Turn::text("two"));
    assert_eq!(env.run(&["run", "agent.yaml", "--exec", "first"]).0, 0);
    assert_eq!(
        env.run(&["run", "agent.yaml", "--exec", "second line\nmore"])
            .0,
        0
    );
    let (code, out, _) = env.run(&["sessions", "list"]);
    assert_eq!(code, 0);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0][2..], ["root", "second line…"], "most recent first");
    assert_eq!(lines[1][2..], ["root", "first"]);
    assert!(
        lines[0][1].ends_with('Z') && lines[0][1].contains('T'),
        "{}",
        lines[0][1]
    );
    let id = lines[1][0];
    assert_eq!(env.run(&["sessions", "rm", id]).0, 0);
    assert_eq!(env.list().len(), 1);
    let (code, _, err) = env.run(&["sessions", "show", id]);
    assert_eq!(code, 1);
    assert!(err.contains(&format!("no session `{id}`")), "{err}");
    assert_eq!(env.run(&["sessions", "rm", id]).0, 1);
    let (code, _, err) = env.run(&["run", "agent.yaml", "--session", "nope", "--exec", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("no session `nope`"), "{err}");
}

fn wait_for(path: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if let Ok(t) = std::fs::read_to_string(path)
            && !t.trim().is_empty()
        {
            return t;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn a_session_killed_mid_tool_call_resumes_with_an_interrupted_result() {
    let env = Env::new("  root:\n    model: fake\n    toolsets: [{type: shell}]\n");
    let pidfile = env.path("tool.pid");
    env.fake.push(
        Turn::tool_call(
            "shell",
            json!({"cmd": format!("echo $$ > {}; sleep 30", pidfile.display())}),
        )
        .with_id("call_long"),
    );
    let bin = assert_cmd::cargo::cargo_bin("tether");
    #[expect(
        clippy::disallowed_methods,
        reason = "the test kills the child with SIGKILL"
    )]
    let mut child = std::process::Command::new(bin)
        .current_dir(env.dir.path())
        .env("TETHER_HOME", env.path("home"))
        .env("OPENAI_API_KEY", "test")
        .env("SHELL", "/bin/bash")
        .args([
            "run",
            "agent.yaml",
            "--yolo",
            "--exec",
            "run the long thing",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let tool_pid: i32 = wait_for(&pidfile).trim().parse().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    // The tool's group outlives a SIGKILLed runtime; clean it up.
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_raw(tool_pid).unwrap(),
        rustix::process::Signal::KILL,
    );

    env.fake.push(Turn::text("recovered"));
    let (code, out, err) = env.run(&["run", "agent.yaml", "--resume", "--exec", "what happened?"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("recovered"), "{out}");
    let messages = env.checked_messages(1);
    let messages: Vec<_> = messages
        .into_iter()
        .filter(|m| m["role"] != json!("system"))
        .collect();
    let roles: Vec<_> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert_eq!(messages[2]["tool_call_id"], json!("call_long"));
    assert_eq!(messages[2]["content"], json!(tether_core::INTERRUPTED));
}
