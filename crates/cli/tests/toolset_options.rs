//! `todo` with `shared: true` (one list for every agent of the run), filesystem `post_edit`
//! (real commands after a write or an edit), filesystem `allow_list` / `deny_list` (paths
//! outside refused, symlinks included) and `type: model_picker` (the next model call goes to
//! the chosen model), each through `tether run`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli;

fn tether(dir: &std::path::Path, extra: &[&str]) -> Vec<Value> {
    let out = cli::tether(dir)
        .args(["run", "agent.yaml", "--json", "--yolo"])
        .args(extra)
        .args(["--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn responses(events: &[Value], tool: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_response" && e["name"] == tool)
        .map(|e| e["response"].as_str().unwrap().to_owned())
        .collect()
}

fn write(dir: &std::path::Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// `first` creates a todo, `second` lists them: with `shared` it sees `first`'s.
fn todos_seen_by_the_second_agent(shared: bool) -> String {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "agent.yaml",
        &format!(
            "agents:\n  root:\n    model: script/root.yaml\n    sub_agents: [first, second]\n  first:\n    model: script/first.yaml\n    toolsets: [{{type: todo, shared: {shared}}}]\n  second:\n    model: script/second.yaml\n    toolsets: [{{type: todo, shared: {shared}}}]\n"
        ),
    );
    write(
        d,
        "root.yaml",
        "replies:\n  - tool_calls: [{name: transfer_task, arguments: {agent: first, task: create a todo, expected_output: ok}}]\n  - tool_calls: [{name: transfer_task, arguments: {agent: second, task: list todos, expected_output: ok}}]\n  - text: done\n",
    );
    write(
        d,
        "first.yaml",
        "replies:\n  - tool_calls: [{name: create_todo, arguments: {description: buy milk}}]\n  - text: created\n",
    );
    write(
        d,
        "second.yaml",
        "replies:\n  - tool_calls: [{name: list_todos, arguments: {}}]\n  - text: listed\n",
    );
    let events = tether(d, &[]);
    responses(&events, "list_todos").remove(0)
}

#[test]
fn a_shared_todo_list_is_one_list_for_every_agent() {
    let shared = todos_seen_by_the_second_agent(true);
    assert!(shared.contains("buy milk"), "{shared}");
    let own = todos_seen_by_the_second_agent(false);
    assert!(!own.contains("buy milk"), "{own}");
}

#[test]
fn post_edit_commands_run_after_writes_and_edits_of_matching_files() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "agent.yaml",
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - type: filesystem\n        post_edit:\n          - {path: \"*.txt\", cmd: 'echo \"formatted $(basename $path)\" >> \"$file\"'}\n          - {path: \"src/**/*.rs\", cmd: 'echo \"$path\" >> rs.log'}\n          - {path: \"*.bad\", cmd: 'echo broken; exit 3'}\n",
    );
    write(
        d,
        "s.yaml",
        "replies:\n  - tool_calls:\n      - {name: write_file, arguments: {path: notes.txt, content: \"hello\\n\"}}\n      - {name: edit_file, arguments: {path: notes.txt, edits: [{oldText: hello, newText: bye}]}}\n      - {name: write_file, arguments: {path: other.md, content: x}}\n      - {name: write_file, arguments: {path: src/a/b.rs, content: x}}\n      - {name: write_file, arguments: {path: x.bad, content: x}}\n  - text: done\n",
    );
    let events = tether(d, &[]);
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "bye\nformatted notes.txt\nformatted notes.txt\n"
    );
    assert_eq!(std::fs::read_to_string(d.join("other.md")).unwrap(), "x");
    let logged = std::fs::read_to_string(d.join("rs.log")).unwrap();
    assert!(logged.trim_end().ends_with("src/a/b.rs"), "{logged}");
    let writes = responses(&events, "write_file");
    assert_eq!(
        writes[3],
        format!(
            "File written successfully but post-edit command failed: post-edit command failed for {}: exit status 3\nbroken",
            d.join("x.bad").display()
        )
    );
}

#[test]
fn filesystem_allow_and_deny_lists_confine_the_tools() {
    let dir = TempDir::new().unwrap();
    let d = &std::fs::canonicalize(dir.path()).unwrap();
    let home = d.join("home");
    std::fs::create_dir_all(d.join("src/vendor")).unwrap();
    std::fs::create_dir_all(d.join("outside")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    write(d, "src/main.rs", "fn main() {}\n");
    write(d, "src/vendor/lib.rs", "vendored\n");
    write(d, "outside/secret.txt", "outside secret\n");
    write(&home, ".ssh/id", "key\n");
    std::os::unix::fs::symlink(d.join("outside"), d.join("src/link")).unwrap();
    write(
        d,
        "agent.yaml",
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - type: filesystem\n        allow_list: [src, \"~\"]\n        deny_list: [src/vendor, \"~/.ssh\"]\n",
    );
    write(
        d,
        "s.yaml",
        "replies:\n  - tool_calls:\n      - {name: read_file, arguments: {path: src/main.rs}}\n      - {name: read_file, arguments: {path: outside/secret.txt}}\n      - {name: read_file, arguments: {path: src/link/secret.txt}}\n      - {name: read_file, arguments: {path: src/vendor/lib.rs}}\n      - {name: read_file, arguments: {path: ~/.ssh/id}}\n      - {name: write_file, arguments: {path: src/link/planted.txt, content: x}}\n  - text: done\n",
    );
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .env("HOME", &home)
        .env("TETHER_HOME", d.join(".tether"))
        .env("XDG_CONFIG_HOME", d.join(".config"))
        .args(["run", "agent.yaml", "--json", "--yolo", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let outside = "is outside the allowed directories (`allow_list`: `src`, `~`)";
    assert_eq!(
        responses(&events, "read_file"),
        [
            "fn main() {}\n".to_owned(),
            format!("`outside/secret.txt` {outside}"),
            format!("`src/link/secret.txt` {outside}"),
            "`src/vendor/lib.rs` is inside a denied directory (`deny_list`: `src/vendor`)"
                .to_owned(),
            "`~/.ssh/id` is inside a denied directory (`deny_list`: `~/.ssh`)".to_owned(),
        ]
    );
    assert_eq!(
        responses(&events, "write_file"),
        [format!("`src/link/planted.txt` {outside}")]
    );
    assert!(!d.join("outside/planted.txt").exists());
    let refused: Vec<bool> = events
        .iter()
        .filter(|e| e["type"] == "tool_response")
        .map(|e| e["is_error"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(refused, [false, true, true, true, true, true]);
}

#[test]
fn model_picker_switches_the_model_until_reverted() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "agent.yaml",
        "agents:\n  root:\n    model: script/a.yaml\n    toolsets:\n      - type: model_picker\n        models: [script/b.yaml, other]\nmodels:\n  other: {provider: script, model: a.yaml}\n",
    );
    // Each script answers by the number of assistant messages so far.
    write(
        d,
        "a.yaml",
        "replies:\n  - tool_calls: [{name: change_model, arguments: {model: script/nope.yaml}}]\n  - tool_calls: [{name: change_model, arguments: {model: script/b.yaml}}]\n  - text: a should not answer here\n  - text: a answered after the revert\n",
    );
    write(
        d,
        "b.yaml",
        "replies:\n  - text: unused\n  - text: unused\n  - tool_calls: [{name: revert_model, arguments: {}}]\n",
    );
    let events = tether(d, &[]);
    assert_eq!(
        responses(&events, "change_model"),
        [
            "model \"script/nope.yaml\" is not in the allowed list. Available models: script/b.yaml, other",
            "Model changed to script/b.yaml",
        ]
    );
    assert_eq!(
        responses(&events, "revert_model"),
        ["Model reverted to the agent's default model"]
    );
    let models: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "model_call_started")
        .filter_map(|e| e["model"].as_str())
        .collect();
    assert_eq!(
        models,
        [
            "script/a.yaml",
            "script/a.yaml",
            "script/b.yaml",
            "script/a.yaml"
        ]
    );
    let last = events
        .iter()
        .rev()
        .find(|e| e["type"] == "agent_message" || e["type"] == "assistant_message")
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(last.contains("a answered after the revert"), "{last}");
}
