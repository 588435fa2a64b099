//! The `file`, `tasks`, `plan` and `session_context` toolsets end to end: each tool called by
//! the script model through `tether run --exec`, seen by a `pre_tool_use` hook (which blocks
//! the first call of every tool), then answering as docker-agent's does, with their state
//! where docker-agent keeps it (a JSON file, `$TETHER_HOME/plans`, the session store).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::tether;
use tether_test_support::script_run::{BLOCK_FIRST_CALLS, hook_inputs, script, tool_responses};

struct Run {
    /// `(tool response text, is_error)` of the calls that ran, in call order.
    responses: Vec<(String, bool)>,
    /// How many calls the `pre_tool_use` hook saw.
    hooked: usize,
}

/// Runs `calls` with `toolsets`. Each call is made twice: the hook blocks the first of each
/// tool (checked here), and must have seen every call with its arguments.
fn run(d: &Path, toolsets: &str, calls: &[(&str, Value)]) -> Run {
    let _ = std::fs::remove_file(d.join("hooks.jsonl"));
    for entry in std::fs::read_dir(d).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("seen-")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    let doubled: Vec<(&str, Value)> = calls
        .iter()
        .flat_map(|(n, a)| [(*n, a.clone()), (*n, a.clone())])
        .collect();
    std::fs::write(
        d.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n{toolsets}{BLOCK_FIRST_CALLS}"),
    )
    .unwrap();
    std::fs::write(d.join("s.yaml"), script(&doubled)).unwrap();
    let out = tether(d)
        .args(["run", "agent.yaml", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let responses = tool_responses(&out.stdout);
    let hooked: Vec<(String, Value)> = hook_inputs(d)
        .into_iter()
        .map(|i| {
            (
                i["tool_name"].as_str().unwrap().to_owned(),
                i["tool_input"].clone(),
            )
        })
        .collect();
    assert_eq!(responses.len(), doubled.len(), "{responses:?}");
    let mut blocked = std::collections::HashSet::new();
    for ((name, _), (text, is_error)) in doubled.iter().zip(&responses) {
        // A call refused before the hooks (an unknown tool) is never blocked by them.
        if hooked.iter().any(|(n, _)| n == name) && blocked.insert(*name) {
            assert!(
                text.contains(&format!("first call of {name} blocked")),
                "{name}: {text}"
            );
            assert!(is_error, "{name}: a blocked call is an error");
        }
    }
    // A call without arguments reaches hooks as `null`.
    let want: Vec<(String, Value)> = doubled
        .iter()
        .map(|(n, a)| {
            let a = if *a == json!({}) {
                Value::Null
            } else {
                a.clone()
            };
            ((*n).to_owned(), a)
        })
        .collect();
    // Calls refused before the hooks (unknown tool, bad arguments) are not seen by them.
    let seen_all = hooked == want;
    let hooked_len = hooked.len();
    if !seen_all {
        for h in &hooked {
            assert!(want.contains(h), "the hook saw a call not made: {h:?}");
        }
    }
    Run {
        responses: responses.into_iter().skip(1).step_by(2).collect(),
        hooked: hooked_len,
    }
}

#[test]
fn the_file_toolset_reads_writes_and_edits_inside_its_allow_list_only() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("work")).unwrap();
    std::fs::write(d.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(d.join("secret.txt"), d.join("work/link.txt")).unwrap();
    let toolsets = "      - type: file\n        allow_list: [work]\n        post_edit:\n          - path: '*.txt'\n            cmd: 'echo edited >> post.log'\n";
    let calls = [
        (
            "write_file",
            json!({"path": "work/a.txt", "content": "one\ntwo\n"}),
        ),
        (
            "edit_file",
            json!({"path": "work/a.txt", "edits": [{"oldText": "two", "newText": "three"}]}),
        ),
        ("read_file", json!({"path": "work/a.txt"})),
        ("read_file", json!({"path": "secret.txt"})),
        ("read_file", json!({"path": "work/../secret.txt"})),
        ("read_file", json!({"path": "work/link.txt"})),
    ];
    let r = run(d, toolsets, &calls);
    assert_eq!(r.hooked, 12, "the hook saw every call");
    assert_eq!(
        std::fs::read_to_string(d.join("work/a.txt")).unwrap(),
        "one\nthree\n"
    );
    assert!(
        r.responses[2].0.contains("three") && !r.responses[2].1,
        "{:?}",
        r.responses[2]
    );
    for i in [3, 4, 5] {
        let (text, is_error) = &r.responses[i];
        assert!(
            *is_error && text.contains("outside the allowed directories"),
            "{i}: {text}"
        );
        assert!(
            !text.contains("secret\n") && text != "secret",
            "{i}: {text}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("post.log")).unwrap(),
        "edited\nedited\n",
        "post_edit ran after the write and the edit"
    );
}

#[test]
fn the_file_toolset_has_no_directory_tools_and_refuses_case_tricks() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "a").unwrap();
    let calls = [
        ("list_directory", json!({"path": "."})),
        ("read_file", json!({"path": "a.txt", "PATH": "/etc/passwd"})),
    ];
    let r = run(d, "      - type: file\n", &calls);
    let (text, is_error) = &r.responses[0];
    assert!(*is_error && text.contains("list_directory"), "{text}");
    let (text, is_error) = &r.responses[1];
    assert!(
        *is_error && text.contains("differ only in case") && !text.contains("root:"),
        "{text}"
    );
}

#[test]
fn the_tasks_toolset_keeps_its_list_in_the_json_file_across_runs() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("notes")).unwrap();
    std::fs::write(d.join("notes/spec.md"), "# the spec").unwrap();
    let toolsets = "      - type: tasks\n        path: notes/tasks.json\n";
    let calls = [
        (
            "create_task",
            json!({"title": "write spec", "path": "spec.md", "priority": "high"}),
        ),
        (
            "create_task",
            json!({"title": "escape", "path": "../../etc/passwd"}),
        ),
        ("create_task", json!({"title": "bad", "priority": "urgent"})),
        ("list_tasks", json!({})),
        ("next_task", json!({})),
    ];
    let r = run(d, toolsets, &calls);
    assert_eq!(r.hooked, 10, "the hook saw every call");
    let created: Value = serde_json::from_str(&r.responses[0].0).unwrap();
    assert_eq!(created["description"], "# the spec");
    assert_eq!(created["priority"], "high");
    assert_eq!(created["status"], "pending");
    assert!(
        r.responses[1].1 && r.responses[1].0.contains("invalid file path"),
        "{:?}",
        r.responses[1]
    );
    assert!(
        r.responses[2].1 && r.responses[2].0.ends_with("invalid priority: urgent"),
        "{:?}",
        r.responses[2]
    );
    let list: Value = serde_json::from_str(&r.responses[3].0).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["effectiveStatus"], "pending");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("notes/tasks.json")).unwrap())
            .unwrap();
    let id = created["id"].as_str().unwrap();
    assert_eq!(stored["tasks"][id]["title"], "write spec");

    // A second run finds the task and finishes it.
    let calls = [
        ("update_task", json!({"id": id, "status": "done"})),
        ("next_task", json!({})),
    ];
    let r = run(d, toolsets, &calls);
    let updated: Value = serde_json::from_str(&r.responses[0].0).unwrap();
    assert_eq!(updated["status"], "done");
    assert_eq!(
        r.responses[1],
        (
            "No actionable tasks. Everything is either done or blocked.".to_owned(),
            false
        )
    );
}

#[test]
fn the_plan_is_kept_per_session_under_tether_home_and_read_back() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let calls = [
        ("read_plan", json!({})),
        ("exit_plan_mode", json!({})),
        ("write_plan", json!({"content": "# Plan\n1. read\n2. fix"})),
        ("read_plan", json!({})),
        ("exit_plan_mode", json!({})),
    ];
    let r = run(d, "      - type: plan\n", &calls);
    assert_eq!(r.hooked, 10, "the hook saw every call");
    assert!(
        r.responses[0].1
            && r.responses[0]
                .0
                .contains("no plan written yet for this session; call write_plan first"),
        "{:?}",
        r.responses[0]
    );
    assert!(
        r.responses[1].1
            && r.responses[1]
                .0
                .ends_with("no plan to mark ready; call write_plan before exit_plan_mode"),
        "{:?}",
        r.responses[1]
    );
    let plans: Vec<_> = std::fs::read_dir(d.join(".tether/plans"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert_eq!(
        std::fs::read_to_string(&plans[0]).unwrap(),
        "# Plan\n1. read\n2. fix"
    );
    assert_eq!(
        r.responses[2],
        (format!("Plan saved to {}", plans[0].display()), false)
    );
    assert_eq!(
        r.responses[3],
        ("# Plan\n1. read\n2. fix".to_owned(), false)
    );
    assert_eq!(r.responses[4], ("Plan ready for review.".to_owned(), false));
}

#[test]
fn an_agent_limited_to_read_plan_cannot_write_one() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let calls = [("write_plan", json!({"content": "x"}))];
    let r = run(
        d,
        "      - type: plan\n        tools: [read_plan]\n",
        &calls,
    );
    assert!(r.responses[0].1, "{:?}", r.responses[0]);
    assert!(!d.join(".tether/plans").exists());
}

#[test]
fn session_context_lists_and_reads_earlier_sessions_but_never_the_running_one() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("first.yaml"),
        "agents:\n  root:\n    model: script/first-s.yaml\n",
    )
    .unwrap();
    std::fs::write(
        d.join("first-s.yaml"),
        "replies:\n  - text: the answer is 42\n",
    )
    .unwrap();
    let out = tether(d)
        .args(["run", "first.yaml", "--exec", "what is the answer"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let calls = [
        ("list_sessions", json!({})),
        ("read_session", json!({"session_id": "-1"})),
        ("read_session", json!({"session_id": "no-such-session"})),
    ];
    let r = run(d, "      - type: session_context\n", &calls);
    assert_eq!(r.hooked, 6, "the hook saw every call");
    let list: Value = serde_json::from_str(&r.responses[0].0).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1, "only the earlier session: {list:?}");
    assert_eq!(list[0]["title"], "what is the answer");
    assert_eq!(list[0]["num_messages"], 2);
    let id = list[0]["id"].as_str().unwrap();
    let (text, is_error) = &r.responses[1];
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(&format!("# Session {id} — what is the answer\n")),
        "{text}"
    );
    assert!(
        text.contains("## user\nwhat is the answer")
            && text.contains("## assistant\nthe answer is 42"),
        "{text}"
    );
    assert!(
        r.responses[2].1
            && r.responses[2]
                .0
                .ends_with("session \"no-such-session\" not found"),
        "{:?}",
        r.responses[2]
    );
}

#[test]
fn a_command_with_an_agent_switches_the_session_to_it() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/root.yaml\n    commands:\n      plan:\n        description: Switch to the planner\n        agent: planner\n  planner:\n    model: script/planner.yaml\n    toolsets:\n      - type: plan\n",
    )
    .unwrap();
    std::fs::write(d.join("root.yaml"), "replies:\n  - text: root answered\n").unwrap();
    std::fs::write(
        d.join("planner.yaml"),
        "replies:\n  - tool_calls:\n      - {name: write_plan, arguments: {content: \"# p\"}}\n  - text: planner answered\n",
    )
    .unwrap();
    let out = tether(d)
        .args([
            "run",
            "agent.yaml",
            "--json",
            "--exec",
            "/plan draft it",
            "--yolo",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("planner answered"), "{stdout}");
    assert!(!stdout.contains("root answered"), "{stdout}");
    let plans: Vec<_> = std::fs::read_dir(d.join(".tether/plans"))
        .unwrap()
        .collect();
    assert_eq!(plans.len(), 1);
}
