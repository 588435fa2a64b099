//! `background_agents` end to end (`tether run --exec` on script models): two sub-agents run
//! at the same time (each waits for the other's file), with their own hooks deciding their
//! calls, and `wait_background_agents` joins them; a call that would need the user is denied;
//! a task is stopped; a task still running when the session ends is stopped with it, its
//! processes gone.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli;

fn run(dir: &Path) -> (i32, String, String) {
    let out = cli::tether(dir)
        .args(["run", "agent.yaml", "--exec", "go"])
        .write_stdin("")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A child that marks itself ready, waits up to 20 s for `other`, and says whether it saw it.
fn waiter(dir: &Path, me: &str, other: &str) {
    write(
        dir,
        &format!("{me}.yaml"),
        &format!(
            r#"replies:
  - tool_calls:
      - name: shell
        arguments: {{cmd: "touch {me}.ready; for i in $(seq 200); do [ -e {other}.ready ] && break; sleep 0.1; done; [ -e {other}.ready ] && echo saw-{other}"}}
  - text: "{me}: {{{{tool_result}}}}"
"#
        ),
    );
}

#[test]
fn sub_agents_run_concurrently_with_their_own_hooks_and_their_results_come_back() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    waiter(d, "alpha", "beta");
    waiter(d, "beta", "alpha");
    write(
        d,
        "root.yaml",
        r#"replies:
  - tool_calls:
      - {name: run_background_agent, arguments: {agent: alpha, task: wait for beta}}
      - {name: run_background_agent, arguments: {agent: beta, task: wait for alpha, expected_output: a word}}
  - tool_calls:
      - {name: wait_background_agents, arguments: {task_ids: [agent_task_1, agent_task_2], timeout: 60}}
  - tool_calls:
      - {name: list_background_agents, arguments: {}}
  - text: "{{tool_result}}"
"#,
    );
    write(
        d,
        "agent.yaml",
        r#"permissions:
  allow: [run_background_agent]
agents:
  root:
    model: script/root.yaml
    sub_agents: [alpha, beta]
    toolsets: [{type: background_agents}]
    hooks:
      subagent_stop:
        - type: command
          command: "jq -c '{agent: .agent_name, answer: .stop_response, parent: .parent_session_id, session: .session_id}' >> stops.jsonl"
  alpha:
    model: script/alpha.yaml
    toolsets: [{type: shell}]
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: command
              command: "echo '{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}'"
      post_tool_use:
        - matcher: shell
          hooks:
            - type: command
              command: "jq -c '{agent: .agent_name, output: .tool_response}' >> post.jsonl"
  beta:
    model: script/beta.yaml
    toolsets: [{type: shell}]
    hooks:
      pre_tool_use:
        - matcher: shell
          hooks:
            - type: command
              command: "jq -c '{agent: .agent_name, cmd: .tool_input.cmd}' >> pre.jsonl; echo '{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}'"
"#,
    );
    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    // Each saw the other's file: they ran at the same time.
    let mut stops = lines(&d.join("stops.jsonl"));
    stops.sort_by_key(|s| s["agent"].as_str().unwrap().to_owned());
    assert_eq!(stops.len(), 2, "{stops:?}");
    assert_eq!(stops[0]["agent"], "alpha");
    assert_eq!(stops[0]["answer"], "alpha: saw-beta\n");
    assert_eq!(stops[1]["agent"], "beta");
    assert_eq!(stops[1]["answer"], "beta: saw-alpha\n");
    assert_eq!(stops[0]["parent"], stops[1]["parent"]);
    assert_ne!(stops[0]["session"], stops[1]["session"]);

    // The children's own hooks ran and decided their calls.
    let pre = lines(&d.join("pre.jsonl"));
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(pre[0]["agent"], "beta");
    assert!(
        pre[0]["cmd"]
            .as_str()
            .unwrap()
            .starts_with("touch beta.ready")
    );
    let post = lines(&d.join("post.jsonl"));
    assert_eq!(post.len(), 1, "{post:?}");
    assert_eq!(post[0]["agent"], "alpha");

    // The wait joined both; list shows both completed; the final answer is the list.
    let joined = stdout
        .split("wait_background_agents response → ")
        .nth(1)
        .and_then(|r| r.lines().next())
        .unwrap();
    let joined: Value =
        serde_json::from_str(&serde_json::from_str::<String>(joined).unwrap()).unwrap();
    assert_eq!(joined["all_done"], true, "{joined}");
    assert_eq!(
        joined["tasks"][0]["output"], "alpha: saw-beta\n",
        "{joined}"
    );
    assert_eq!(joined["tasks"][1]["status"], "completed", "{joined}");
    let answer = stdout
        .rsplit("list_background_agents response")
        .next()
        .unwrap();
    assert_eq!(answer.matches("Status:  completed").count(), 4, "{stdout}");
    assert!(
        answer.contains("ID: agent_task_1\n  Agent:   alpha\n"),
        "{stdout}"
    );
    // The children's streamed text stays out of the caller's output.
    assert!(!stdout.contains("\nalpha: saw-beta"), "{stdout}");
    assert!(
        !stdout.contains("--- Agent: alpha") && !stdout.contains("Calling shell"),
        "{stdout}"
    );
}

/// A sub-agent whose shell records its pid and sleeps; its session_end is recorded.
fn sleeper_file(d: &Path, root_replies: &str) {
    write(
        d,
        "sleeper.yaml",
        "replies:\n  - tool_calls:\n      - {name: shell, arguments: {cmd: 'echo $$$$ > sleeper.pid; sleep 300'}}\n  - text: woke\n",
    );
    write(d, "root.yaml", root_replies);
    write(
        d,
        "agent.yaml",
        r#"permissions:
  allow: [run_background_agent, stop_background_agent, shell]
agents:
  root:
    model: script/root.yaml
    sub_agents: [sleeper]
    toolsets: [{type: background_agents}, {type: shell}]
  sleeper:
    model: script/sleeper.yaml
    toolsets: [{type: shell}]
    hooks:
      session_end:
        - type: command
          command: "jq -c '{agent: .agent_name, reason: .reason}' >> ends.jsonl"
"#,
    );
}

const WAIT_FOR_PID: &str =
    "for i in $(seq 300); do [ -s sleeper.pid ] && break; sleep 0.1; done; cat sleeper.pid";

fn gone(d: &Path) {
    let pid = std::fs::read_to_string(d.join("sleeper.pid")).unwrap();
    // Alive: a /proc entry that is not a zombie.
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let alive = stat
        .rsplit(')')
        .next()
        .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.is_empty());
    assert!(!alive, "the sleeper's shell {pid} is still running");
    let ends = lines(&d.join("ends.jsonl"));
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["agent"], "sleeper");
}

#[test]
fn a_stopped_task_ends_its_processes_and_its_session() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    sleeper_file(
        d,
        &format!(
            r#"replies:
  - tool_calls: [{{name: run_background_agent, arguments: {{agent: sleeper, task: sleep}}}}]
  - tool_calls: [{{name: shell, arguments: {{cmd: "{WAIT_FOR_PID}"}}}}]
  - tool_calls: [{{name: stop_background_agent, arguments: {{task_id: agent_task_1}}}}]
  - tool_calls: [{{name: wait_background_agents, arguments: {{task_ids: [agent_task_1], timeout: 30}}}}]
  - tool_calls: [{{name: view_background_agent, arguments: {{task_id: agent_task_1}}}}]
  - text: "{{{{tool_result}}}}"
"#
        ),
    );
    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Background agent task agent_task_1 stopped."),
        "{stdout}"
    );
    assert!(
        stdout.contains("Status:  stopped") && stdout.contains("<task was stopped>"),
        "{stdout}"
    );
    gone(d);
}

#[test]
fn tasks_still_running_end_with_the_session() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    sleeper_file(
        d,
        &format!(
            r#"replies:
  - tool_calls: [{{name: run_background_agent, arguments: {{agent: sleeper, task: sleep}}}}]
  - tool_calls: [{{name: shell, arguments: {{cmd: "{WAIT_FOR_PID}"}}}}]
  - tool_calls: [{{name: view_background_agent, arguments: {{task_id: agent_task_1}}}}]
  - text: done
"#
        ),
    );
    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Status:  running"), "{stdout}");
    gone(d);
}

#[test]
fn a_call_that_needs_the_user_is_denied_in_a_background_task() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "asker.yaml",
        "replies:\n  - tool_calls: [{name: shell, arguments: {cmd: touch made-it}}]\n  - text: '{{tool_result}}'\n",
    );
    write(
        d,
        "root.yaml",
        "replies:\n  - tool_calls: [{name: run_background_agent, arguments: {agent: asker, task: touch}}]\n  - tool_calls: [{name: wait_background_agents, arguments: {task_ids: [agent_task_1]}}]\n  - text: done\n",
    );
    write(
        d,
        "agent.yaml",
        "permissions:\n  allow: [run_background_agent]\nagents:\n  root:\n    model: script/root.yaml\n    sub_agents: [asker]\n    toolsets: [{type: background_agents}]\n  asker:\n    model: script/asker.yaml\n    toolsets: [{type: shell}]\n",
    );
    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("needs the user's confirmation, which a background task cannot ask for"),
        "{stdout}"
    );
    assert!(!d.join("made-it").exists());
}
