//! `inject_memories`: memories stored by one run reach the model of the next as a system
//! message at every turn start, the relevant ones only, at most `max_inject_memories`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use serde_json::Value;
use tempfile::TempDir;
use tether_test_support::cli;
use tether_test_support::fake_llm::{FakeLlm, Turn};

/// Stores three memories through the memory tools, on the script model.
fn store_memories(d: &std::path::Path) {
    std::fs::write(
        d.join("s.yaml"),
        "replies:\n  - tool_calls:\n      - {name: add_memory, arguments: {memory: The user prefers tabs for indentation, category: preference}}\n      - {name: add_memory, arguments: {memory: Deploys happen on Fridays}}\n      - {name: add_memory, arguments: {memory: 'Indentation <b>matters</b> in Python'}}\n  - text: stored\n",
    )
    .unwrap();
    std::fs::write(
        d.join("store.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: memory, path: ./mem.db}]\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["run", "store.yaml", "--yolo", "--exec", "remember"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn system_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn agent(d: &std::path::Path, fake: &FakeLlm, extra: &str) {
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: m\n    toolsets: [{{type: memory, path: ./mem.db}}]\n    inject_memories: true\n{extra}models:\n  m: {{provider: openai, model: gpt-4o, base_url: \"{}\"}}\n",
            fake.base_url()
        ),
    )
    .unwrap();
}

#[test]
fn the_memories_relevant_to_the_prompt_reach_the_model_at_every_turn() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    store_memories(d);
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::tool_call("get_memories", serde_json::json!({})))
        .push(Turn::text("done"));
    agent(d, &fake, "    max_inject_memories: 1\n");
    let out = cli::tether(d)
        .env("OPENAI_API_KEY", "k")
        .args([
            "run",
            "agent.yaml",
            "--yolo",
            "--exec",
            "Which indentation do I prefer: tabs?",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        let blocks: Vec<String> = system_texts(&r.body)
            .into_iter()
            .filter(|s| s.contains("<memories>"))
            .collect();
        assert_eq!(blocks.len(), 1, "{:?}", r.body);
        let block = &blocks[0];
        assert!(
            block.contains(
                "  <memory category=\"preference\">The user prefers tabs for indentation</memory>\n"
            ),
            "{block}"
        );
        // The limit keeps the weaker match out; the unrelated one never matches.
        assert!(!block.contains("Python"), "{block}");
        assert!(!block.contains("Fridays"), "{block}");
    }
}

#[test]
fn markup_in_a_memory_is_escaped_and_an_unrelated_prompt_injects_nothing() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    store_memories(d);
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("one")).push(Turn::text("two"));
    agent(d, &fake, "");
    for prompt in ["python indentation", "hello there"] {
        let out = cli::tether(d)
            .env("OPENAI_API_KEY", "k")
            .args(["run", "agent.yaml", "--yolo", "--exec", prompt])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let requests = fake.requests();
    let first = system_texts(&requests[0].body).join("\n");
    assert!(
        first.contains("Indentation &lt;b&gt;matters&lt;/b&gt; in Python"),
        "{first}"
    );
    assert!(!first.contains("<b>"), "{first}");
    let second = system_texts(&requests[1].body).join("\n");
    assert!(!second.contains("<memories>"), "{second}");
}

#[test]
fn inject_memories_without_a_memory_toolset_is_a_load_error() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: openai/gpt-4o\n    inject_memories: true\n    inject_memories_strategy: local\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("`inject_memories` needs a `type: memory` toolset"),
        "{stderr}"
    );
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets: [{type: memory}]\n    inject_memories: true\n    inject_memories_strategy: llm\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("inject_memories_strategy `llm` is invalid"),
        "{stderr}"
    );
}
