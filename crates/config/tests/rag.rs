//! `rag:` sources, agents' `rag:` lists and `type: rag` toolsets load as docker-agent writes
//! them; what Tether cannot honour is an error naming the field.

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{ConfigError, Fusion, RagStrategyKind, ToolsetKind, load_str};

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

#[test]
fn what_tether_cannot_do_yet_is_named() {
    let yaml = "agents:\n  root:\n    model: openai/gpt-4o\n    rag: [code]\nrag:\n  code:\n    docs: [src]\n    strategies:\n      - type: semantic-embeddings\n        embedding_model: openai/x\n      - type: bm25\n        ast_context: true\n    results:\n      reranking: {model: openai/gpt-4o-mini}\n";
    assert_eq!(
        errors(yaml),
        [
            "agent.yaml:7:5: rag.code.strategies[0].type: RAG strategy `semantic-embeddings` is not supported yet",
            "agent.yaml:7:5: rag.code.strategies[1].ast_context: RAG `ast_context` is not supported yet",
            "agent.yaml:7:5: rag.code.results.reranking: RAG `reranking` is not supported yet",
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
