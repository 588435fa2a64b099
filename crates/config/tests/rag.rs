//! `rag:` sources, agents' `rag:` lists and `type: rag` toolsets load as docker-agent writes
//! them; what Tether cannot honour is an error naming the field.

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tether_config::{
    ConfigError, Fusion, Prefetch, RagStrategyKind, Reranking, ToolsetKind, TopologyPrior, load_str,
};

fn errors(yaml: &str) -> Vec<String> {
    match load_str(yaml, "agent.yaml", Path::new("/agents")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => {
            d.0.iter()
                .map(|d| d.to_string().lines().next().unwrap_or_default().to_owned())
                .collect()
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

const HYBRID: &str = r#"
agents:
  root:
    model: openai/gpt-5-mini
    rag: [knowledge_base]
  helper:
    model: openai/gpt-5-mini
    toolsets:
      - type: rag
        ref: knowledge_base
rag:
  knowledge_base:
    tool:
      description: to be used to search for information about blorks
    docs: [./blork_field_guide.txt]
    strategies:
      - type: chunked-embeddings
        embedding_model: openai/text-embedding-3-small
        docs: [./docs]
        database: ./chunked_embeddings.db
        similarity_metric: cosine_similarity
        threshold: 0.5
        limit: 20
        batch_size: 100
        max_embedding_concurrency: 5
        vector_dimensions: 1536
        chunking: {size: 1000, overlap: 100, respect_word_boundaries: true}
      - type: bm25
        docs: [./docs]
        database: ./bm25.db
        k1: 1.5
        b: 0.75
        threshold: 0.3
        limit: 15
        chunking: {size: 1000, overlap: 100, respect_word_boundaries: true}
    results:
      fusion: {strategy: rrf, k: 60}
      deduplicate: true
      limit: 5
"#;

#[test]
fn docker_agents_hybrid_example_loads_into_both_agents() {
    let file = load_str(HYBRID, "agent.yaml", Path::new("/agents")).unwrap();
    let root = &file.agents[0].toolsets[0];
    let helper = &file.agents[1].toolsets[0];
    assert_eq!(
        (root.kind, helper.kind),
        (ToolsetKind::Rag, ToolsetKind::Rag)
    );
    assert_eq!(root.rag, helper.rag);
    let source = root.rag.as_deref().unwrap();
    assert_eq!(source.tool_name, "knowledge_base");
    assert_eq!(source.base_dir, Path::new("/agents"));
    let kinds: Vec<RagStrategyKind> = source.strategies.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [RagStrategyKind::ChunkedEmbeddings, RagStrategyKind::Bm25]
    );
    let vector = &source.strategies[0];
    assert_eq!(
        vector.embedding_model.as_deref(),
        Some("openai/text-embedding-3-small")
    );
    assert_eq!(
        (vector.limit, vector.batch_size, vector.vector_dimensions),
        (20, 100, Some(1536))
    );
    assert_eq!((vector.chunking.size, vector.chunking.overlap), (1000, 100));
    assert_eq!(source.strategies[1].threshold, 0.3);
    assert_eq!(source.results.fusion, Fusion::Rrf { k: 60 });
    assert_eq!(source.results.limit, 5);
}

#[test]
fn weighted_fusion_needs_a_weight_per_strategy() {
    let yaml = HYBRID.replace(
        "fusion: {strategy: rrf, k: 60}",
        "fusion: {strategy: weighted, weights: {bm25: 0.3}}",
    );
    assert_eq!(
        errors(&yaml),
        [
            "agent.yaml:13:5: rag.knowledge_base.results.fusion.weights: no weight for strategy `chunked-embeddings`"
        ]
    );
}

const SEMANTIC: &str = r#"
agents:
  root:
    model: openai/gpt-4o
    rag: [codebase]
rag:
  codebase:
    docs: [../../pkg/**/*.go]
    indexing_timeout: 2m
    strategies:
      - type: semantic-embeddings
        embedding_model: openai/text-embedding-3-small
        vector_dimensions: 1536
        chat_model: openai/gpt-4o-mini
        semantic_prompt: "File: ${basename}\n${content}"
        threshold: 0.3
        embedding_batch_size: 50
        max_embedding_concurrency: 4
        ast_context: true
        chunking: {size: 1000, code_aware: true}
    results:
      reranking:
        model: openai/gpt-4o-mini
        criteria: prefer code
      prefetch: {enabled: true, max_entries: 8, max_candidates: 2, timeout: 5s}
      topology_prior: {enabled: true, weight: 0.5}
      limit: 5
"#;

#[test]
fn semantic_embeddings_reranking_and_the_query_cache_load() {
    let file = load_str(SEMANTIC, "agent.yaml", Path::new("/agents")).unwrap();
    let source = file.agents[0].toolsets[0].rag.as_deref().unwrap();
    let s = &source.strategies[0];
    assert_eq!(s.kind, RagStrategyKind::SemanticEmbeddings);
    assert_eq!(s.chat_model.as_deref(), Some("openai/gpt-4o-mini"));
    assert_eq!(
        s.semantic_prompt.as_deref(),
        Some("File: ${basename}\n${content}")
    );
    assert_eq!((s.ast_context, s.concurrency, s.threshold), (true, 4, 0.3));
    assert_eq!(source.indexing_timeout, Some(Duration::from_secs(120)));
    assert_eq!(
        source.results.reranking,
        Some(Reranking {
            model: "openai/gpt-4o-mini".to_owned(),
            top_k: None,
            threshold: 0.5,
            criteria: Some("prefer code".to_owned()),
        })
    );
    assert_eq!(
        source.results.prefetch,
        Some(Prefetch {
            max_entries: 8,
            max_candidates: 2,
            min_similarity: 0.5,
            drift_threshold: 0.8,
            timeout: Duration::from_secs(5),
        })
    );
    // The boost is capped, as docker-agent caps it.
    assert_eq!(
        source.results.topology_prior,
        Some(TopologyPrior {
            weight: 0.2,
            max_source_history: 32
        })
    );
}

#[test]
fn disabled_blocks_and_no_timeout_turn_features_off() {
    let yaml = SEMANTIC
        .replace("indexing_timeout: 2m", "indexing_timeout: 0s")
        .replace(
            "{enabled: true, max_entries: 8",
            "{enabled: false, max_entries: 8",
        )
        .replace("{enabled: true, weight", "{weight");
    let file = load_str(&yaml, "agent.yaml", Path::new("/agents")).unwrap();
    let source = file.agents[0].toolsets[0].rag.as_deref().unwrap();
    assert_eq!(source.indexing_timeout, None);
    assert_eq!(source.results.prefetch, None);
    assert_eq!(source.results.topology_prior, None);
}

#[test]
fn semantic_fields_are_checked() {
    let yaml = SEMANTIC
        .replace("        chat_model: openai/gpt-4o-mini\n", "")
        .replace("indexing_timeout: 2m", "indexing_timeout: soon")
        .replace("criteria: prefer code", "criterion: prefer code")
        .replace("timeout: 5s}", "timeout: 5s, colour: red}");
    assert_eq!(
        errors(&yaml),
        [
            "agent.yaml:8:5: rag.codebase.strategies[0].chat_model: `chat_model` is required",
            "agent.yaml:8:5: rag.codebase.indexing_timeout: invalid duration `soon` (write e.g. `500ms`, `30s`, `2m`, `1h30m`)",
            "agent.yaml:8:5: rag.codebase.results.reranking.criterion: unknown key `criterion`; expected one of model, top_k, threshold, criteria",
            "agent.yaml:8:5: rag.codebase.results.prefetch.colour: unknown key `colour`; expected one of enabled, max_entries, max_candidates, min_similarity, drift_threshold, timeout",
        ]
    );
}

#[test]
fn unknown_sources_keys_and_strategies_are_errors() {
    let yaml = "agents:\n  root:\n    model: openai/gpt-4o\n    rag: [nope]\n    toolsets:\n      - type: rag\nrag:\n  docs:\n    docs: [a]\n    strategies:\n      - type: keyword\n      - type: bm25\n        chunking: {size: 10, overlap: 10}\n        colour: red\n";
    assert_eq!(
        errors(yaml),
        [
            "agent.yaml:9:5: rag.docs.strategies[0].type: unknown RAG strategy `keyword`; expected chunked-embeddings, semantic-embeddings or bm25",
            "agent.yaml:9:5: rag.docs.strategies[1].colour: unknown key `colour`; expected one of type, docs, database, limit, threshold, chunking, respect_vcs, k1, b, max_indexing_concurrency",
            "agent.yaml:9:5: rag.docs.strategies[1].chunking.overlap: `overlap` must be smaller than `size`",
            "agent.yaml:6:9: agents.root.toolsets[0]: a `type: rag` toolset needs `ref`",
            "agent.yaml:4:11: agents.root.rag[0]: unknown RAG source `nope`",
        ]
    );
}
