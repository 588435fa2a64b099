//! `tether run --exec` with a RAG source: the script model calls the source's search tool,
//! `pre_tool_use` hooks see the call (and can block it), and the answer lists the matching
//! file's chunk.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

fn run(dir: &Path) -> Vec<Value> {
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .args(["run", "agent.yaml", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

#[test]
fn the_script_model_searches_a_rag_source_through_the_hooks() {
    let dir = TempDir::new().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rag/tests/corpus");
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    for e in std::fs::read_dir(corpus).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join("docs").join(e.file_name())).unwrap();
    }
    std::fs::write(
        dir.path().join("agent.yaml"),
        r#"agents:
  root:
    model: script/s.yaml
    rag: [notes]
    hooks:
      pre_tool_use:
        - matcher: notes
          hooks:
            - type: command
              command: 'input=$(cat); echo "$input" >> hook.log; case "$input" in *forbidden*) echo "not that" >&2; exit 2;; esac'
rag:
  notes:
    tool: {description: "field notes on bees, tides and databases"}
    docs: [./docs]
    strategies:
      - type: bm25
        database: ./notes.db
        chunking: {size: 500, overlap: 50}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "replies:\n  - tool_calls:\n      - {name: notes, arguments: {query: waggle dance of worker bees}}\n      - {name: notes, arguments: {query: forbidden}}\n  - text: done\n",
    )
    .unwrap();
    let events = run(dir.path());
    let responses: Vec<(&str, bool)> = events
        .iter()
        .filter(|e| e["type"] == "tool_response")
        .map(|e| {
            (
                e["response"].as_str().unwrap(),
                e["is_error"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(responses.len(), 2, "{events:?}");
    let found: Vec<Value> = serde_json::from_str(responses[0].0).unwrap();
    assert!(
        found[0]["source_path"]
            .as_str()
            .unwrap()
            .ends_with("docs/bees.md"),
        "{found:?}"
    );
    assert_eq!(found[0]["chunk_index"], 0);
    assert!(
        found[0]["content"]
            .as_str()
            .unwrap()
            .contains("waggle dance")
    );
    assert!(
        responses[1].1,
        "the hook blocked the second call: {responses:?}"
    );
    assert!(responses[1].0.contains("not that"), "{responses:?}");

    let log = std::fs::read_to_string(dir.path().join("hook.log")).unwrap();
    let inputs: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["tool_name"], "notes");
    assert_eq!(inputs[0]["tool_category"], "knowledge");
    assert_eq!(
        inputs[0]["tool_input"]["query"],
        "waggle dance of worker bees"
    );
    assert!(dir.path().join("notes.db").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_summaries_reranking_and_the_query_cache_work_in_a_run() {
    use tether_test_support::embeddings::FakeEmbeddings;
    use tether_test_support::fake_llm::{Dialect, FakeLlm, Turn};

    let emb = FakeEmbeddings::start(64).await.unwrap();
    let llm = FakeLlm::start().await.unwrap();
    llm.push(Turn::text("Explains how volcanoes erupt lava."));
    llm.push(Turn::text("Lists the tide tables of the harbour."));
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/a.txt"), "alpha beta").unwrap();
    std::fs::write(dir.path().join("docs/b.txt"), "gamma delta").unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!(
            r#"agents:
  root:
    model: script/s.yaml
    rag: [kb]
models:
  embedder: {{provider: openai, model: text-embedding-3-small, base_url: "{emb}"}}
  summariser: {{provider: openai, model: gpt-4o-mini, base_url: "{llm}"}}
  reranker: {{provider: dmr, model: qwen3-reranker, base_url: "{emb}"}}
rag:
  kb:
    docs: [./docs]
    indexing_timeout: 1m
    strategies:
      - type: semantic-embeddings
        embedding_model: embedder
        chat_model: summariser
        vector_dimensions: 64
        database: ./kb.db
        threshold: 0.1
        max_embedding_concurrency: 1
    results:
      reranking: {{model: reranker, threshold: 0}}
      prefetch: {{enabled: true}}
"#,
            emb = emb.base_url(),
            llm = llm.base_url_for(Dialect::OpenAiChat),
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "replies:\n  - tool_calls:\n      - {name: kb, arguments: {query: volcano lava}}\n  - tool_calls:\n      - {name: kb, arguments: {query: Volcano  LAVA}}\n  - text: done\n",
    )
    .unwrap();
    let path = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        Command::cargo_bin("tether")
            .unwrap()
            .current_dir(&path)
            .env("TETHER_HOME", path.join(".tether"))
            .env("XDG_CONFIG_HOME", path.join(".config"))
            .env("OPENAI_API_KEY", "test")
            .args(["run", "agent.yaml", "--json", "--exec", "go"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let responses: Vec<Vec<Value>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .map(|e| serde_json::from_str(e["response"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(responses.len(), 2);
    assert!(
        responses[0][0]["source_path"]
            .as_str()
            .unwrap()
            .ends_with("docs/a.txt"),
        "{responses:?}"
    );
    assert_eq!(responses[0][0]["content"], "alpha beta");
    assert_eq!(
        responses[1], responses[0],
        "the repeat comes from the cache"
    );
    // Two summaries, one reranking: the repeat asked no model.
    assert_eq!(llm.requests().len(), 2);
    assert_eq!(emb.reranks().len(), 1);
    assert!(dir.path().join("kb.db").is_file());
}
