//! `type: memory`: what one `tether run` stores, the next one finds (a SQLite file at `path`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;

fn run(dir: &std::path::Path, replies: &str) -> Vec<serde_json::Value> {
    std::fs::write(
        dir.join("s.yaml"),
        format!("replies:\n{replies}  - text: done\n"),
    )
    .unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .args(["run", "agent.yaml", "--yolo", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect()
}

#[test]
fn memories_persist_across_runs() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: memory, path: ./state/mem.db}]\n",
    )
    .unwrap();
    let first = run(
        d,
        "  - tool_calls:\n      - {name: add_memory, arguments: {memory: The user prefers tabs, category: preference}}\n      - {name: add_memory, arguments: {memory: Deploys happen on Fridays}}\n",
    );
    assert!(
        first[0]["response"]
            .as_str()
            .unwrap()
            .starts_with("Memory added successfully with ID: ")
    );
    assert!(d.join("state/mem.db").is_file());

    let second = run(
        d,
        "  - tool_calls:\n      - {name: search_memories, arguments: {query: prefers TABS}}\n      - {name: search_memories, arguments: {category: preference}}\n      - {name: get_memories, arguments: {}}\n      - {name: delete_memory, arguments: {id: nope}}\n",
    );
    let found: serde_json::Value =
        serde_json::from_str(second[0]["response"].as_str().unwrap()).unwrap();
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["memory"], "The user prefers tabs");
    assert_eq!(found[0]["category"], "preference");
    let by_category: serde_json::Value =
        serde_json::from_str(second[1]["response"].as_str().unwrap()).unwrap();
    assert_eq!(by_category.as_array().unwrap().len(), 1);
    let all: serde_json::Value =
        serde_json::from_str(second[2]["response"].as_str().unwrap()).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert_eq!(second[3]["is_error"], true);
    assert_eq!(second[3]["response"], "memory not found: nope");
}
