//! What follows retrieval and what surrounds indexing, against real SQLite and local fake
//! servers speaking the real dialects: semantic summaries from a chat model are what gets
//! embedded, reranking by a chat model or by DMR's `/rerank`, the query cache, the indexing
//! timeout and indexing in the background.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;
use tether_config::{
    Chunking, Fusion, Prefetch, RagResults, RagSource, RagStrategy, RagStrategyKind, Reranking,
};
use tether_providers::{
    Embedder, MapEnv, ModelSpec, Provider, Reranker, build_embedder, build_provider, build_reranker,
};
use tether_rag::{Hit, Models, Rag, RagError};
use tether_test_support::embeddings::FakeEmbeddings;
use tether_test_support::fake_llm::{Dialect, FakeLlm, Turn};

const DIMS: usize = 64;

fn write(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join("docs").join(name), text).unwrap();
    }
}

fn strategy(kind: RagStrategyKind) -> RagStrategy {
    RagStrategy {
        kind,
        docs: Vec::new(),
        database: format!("{}.db", kind.type_name()).into(),
        limit: 5,
        threshold: 0.0,
        chunking: Chunking {
            size: 400,
            overlap: 40,
            ..Chunking::default()
        },
        respect_vcs: true,
        embedding_model: kind.embeds().then(|| "embedder".to_owned()),
        vector_dimensions: Some(DIMS),
        batch_size: 8,
        concurrency: 1,
        chat_model: (kind == RagStrategyKind::SemanticEmbeddings).then(|| "summariser".to_owned()),
        semantic_prompt: None,
        ast_context: false,
        k1: 1.5,
        b: 0.75,
    }
}

fn source(dir: &Path, strategies: Vec<RagStrategy>, results: RagResults) -> Arc<RagSource> {
    Arc::new(RagSource {
        name: "kb".to_owned(),
        tool_name: "kb".to_owned(),
        description: None,
        instruction: None,
        base_dir: dir.to_path_buf(),
        docs: vec!["docs".to_owned()],
        respect_vcs: true,
        strategies,
        results,
        indexing_timeout: None,
    })
}

fn env() -> MapEnv {
    MapEnv::new([("OPENAI_API_KEY", "test")])
}

/// Embeddings from `emb`, chat and `openai/*` reranking from `llm`, `dmr/*` reranking
/// from `emb`'s `/rerank`.
fn rag(source: Arc<RagSource>, emb: Option<&FakeEmbeddings>, llm: Option<&FakeLlm>) -> Rag {
    let emb_url = emb.map(FakeEmbeddings::base_url);
    let llm_url = llm.map(|l| l.base_url_for(Dialect::OpenAiChat));
    let spec = |inline: &str, url: &Option<String>| {
        let mut spec = ModelSpec::parse_inline(inline).unwrap();
        spec.base_url = url.clone();
        spec
    };
    let embedder = |_: &str| -> Result<Arc<dyn Embedder>, String> {
        build_embedder(&spec("openai/text-embedding-3-small", &emb_url), &env())
            .map_err(|e| e.to_string())
    };
    let chat = |_: &str| -> Result<Arc<dyn Provider>, String> {
        build_provider(&spec("openai/gpt-4o-mini", &llm_url), &env()).map_err(|e| e.to_string())
    };
    let reranker = |m: &str| -> Result<Arc<dyn Reranker>, String> {
        let url = if m.starts_with("dmr/") {
            &emb_url
        } else {
            &llm_url
        };
        build_reranker(&spec(m, url), &env()).map_err(|e| e.to_string())
    };
    Rag::with_models(
        source,
        Models {
            embedder: &embedder,
            chat: &chat,
            reranker: &reranker,
        },
    )
    .unwrap()
}

fn names(hits: &[Hit]) -> Vec<String> {
    hits.iter()
        .map(|h| {
            Path::new(&h.path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn semantic_embeddings_embed_the_models_summary_and_return_the_chunk() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("a.txt", "alpha beta"), ("b.txt", "gamma delta")],
    );
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let llm = FakeLlm::start().await.unwrap();
    llm.push(Turn::text("Describes volcano eruptions and lava."));
    llm.push(Turn::text("   "));
    let mut s = strategy(RagStrategyKind::SemanticEmbeddings);
    s.semantic_prompt = Some("Summarise ${basename} chunk ${chunk_index}: ${content}".to_owned());
    s.threshold = 0.1;
    let rag = rag(
        source(dir.path(), vec![s], RagResults::default()),
        Some(&emb),
        Some(&llm),
    );
    let hits = rag.query("volcano lava").await.unwrap();
    assert_eq!(names(&hits), ["a.txt"]);
    assert_eq!(hits[0].content, "alpha beta");

    let prompts: Vec<String> = llm.requests().iter().map(|r| user_text(&r.body)).collect();
    assert_eq!(
        prompts,
        [
            "Summarise a.txt chunk 0: alpha beta",
            "Summarise b.txt chunk 0: gamma delta"
        ]
    );
    let a = dir.path().join("docs/a.txt").to_string_lossy().into_owned();
    let b = dir.path().join("docs/b.txt").to_string_lossy().into_owned();
    // An empty summary: the chunk itself is embedded.
    assert_eq!(
        emb.texts()[..2],
        [
            format!("File: {a}\n\nDescribes volcano eruptions and lava."),
            "gamma delta".to_owned()
        ]
    );
    assert_eq!(
        rag.embedding_input(&a, 0).await.unwrap().as_deref(),
        Some(format!("File: {a}\n\nDescribes volcano eruptions and lava.").as_str())
    );
    assert_eq!(
        rag.embedding_input(&b, 0).await.unwrap().as_deref(),
        Some("gamma delta")
    );
}

fn two_bees() -> [(&'static str, &'static str); 2] {
    [
        ("first.md", "Bees make honey from nectar."),
        ("second.md", "Honey bees dance to show where nectar is."),
    ]
}

fn bm25_with(reranking: Reranking) -> RagResults {
    RagResults {
        reranking: Some(reranking),
        fusion: Fusion::Rrf { k: 60 },
        ..RagResults::default()
    }
}

#[tokio::test]
async fn a_chat_model_reranks_and_its_threshold_drops_weak_results() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &two_bees());
    let llm = FakeLlm::start().await.unwrap();
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::Bm25)],
            bm25_with(Reranking {
                model: "openai/gpt-4.1-nano".to_owned(),
                top_k: None,
                threshold: 0.5,
                criteria: Some("Prefer dancing.".to_owned()),
            }),
        ),
        None,
        Some(&llm),
    );
    rag.index().await.unwrap();
    llm.push(Turn::text(r#"{"scores": [0.2, 0.9]}"#));
    let hits = rag.query("honey nectar bees").await.unwrap();
    // BM25 put first.md first (shorter); the model's scores reorder and drop it.
    assert_eq!(names(&hits), ["second.md"]);
    assert_eq!(hits[0].score, 0.9);

    let req = &llm.requests()[0];
    assert_eq!(req.body["model"], "gpt-4.1-nano");
    assert_eq!(req.body["temperature"], 0.0);
    assert_eq!(
        req.body["response_format"]["json_schema"]["name"],
        "rerank_scores"
    );
    let system = req.body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\n\nPrefer dancing.\n\n"), "{system}");
    assert!(system.contains("exactly 2 scores"), "{system}");
    let user = user_text(&req.body);
    assert!(
        user.starts_with("Query:\nhoney nectar bees\n\nDocuments:\n[0] (source: "),
        "{user}"
    );
    assert!(
        user.contains("first.md):\nBees make honey from nectar.\n\n[1]"),
        "{user}"
    );
}

#[tokio::test]
async fn dmr_reranks_through_its_rerank_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &two_bees());
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::Bm25)],
            bm25_with(Reranking {
                model: "dmr/qwen3-reranker".to_owned(),
                top_k: None,
                threshold: 0.0,
                criteria: None,
            }),
        ),
        Some(&emb),
        None,
    );
    let hits = rag.query("dance bees").await.unwrap();
    assert_eq!(names(&hits), ["second.md", "first.md"]);
    assert!(hits[0].score > 0.5 && hits[0].score < 1.0, "{hits:?}");
    let sent = emb.reranks();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["model"], "qwen3-reranker");
    assert_eq!(sent[0]["query"], "dance bees");
    assert_eq!(sent[0]["documents"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_reranker_that_cannot_work_keeps_retrieval_order_and_is_not_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &two_bees());
    let llm = FakeLlm::start().await.unwrap();
    llm.push(Turn::error(401, r#"{"error":{"message":"bad key"}}"#));
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::Bm25)],
            bm25_with(Reranking {
                model: "openai/gpt-4.1-nano".to_owned(),
                top_k: None,
                threshold: 0.5,
                criteria: None,
            }),
        ),
        None,
        Some(&llm),
    );
    let first = rag.query("honey nectar bees").await.unwrap();
    assert_eq!(names(&first), ["first.md", "second.md"]);
    let again = rag.query("bees dance").await.unwrap();
    assert_eq!(names(&again)[0], "second.md");
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test]
async fn repeated_queries_come_from_the_cache_until_a_document_changes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &two_bees());
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let results = RagResults {
        prefetch: Some(Prefetch {
            max_entries: 8,
            max_candidates: 0,
            min_similarity: 0.5,
            drift_threshold: 0.8,
            timeout: Duration::from_secs(5),
        }),
        ..RagResults::default()
    };
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::ChunkedEmbeddings)],
            results,
        ),
        Some(&emb),
        None,
    );
    rag.watch().unwrap();
    let first = rag.query("honey dance").await.unwrap();
    let asked = emb.requests();
    let again = rag.query("  Honey   DANCE ").await.unwrap();
    assert_eq!(again, first);
    assert_eq!(
        emb.requests(),
        asked,
        "a repeat must not embed the query again"
    );

    std::fs::write(dir.path().join("docs/third.md"), "Honey dance honey dance.").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let hits = rag.query("honey dance").await.unwrap();
        if names(&hits)[0] == "third.md" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the cache outlived the edit: {hits:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn adaptive_prefetch_warms_a_follow_up_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("blork_diet.md", "Blorks eat moss. Blorks eat lichen."),
            ("weather.md", "Rain falls."),
        ],
    );
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let results = RagResults {
        prefetch: Some(Prefetch {
            max_entries: 8,
            max_candidates: 2,
            min_similarity: 0.1,
            drift_threshold: 0.8,
            timeout: Duration::from_secs(5),
        }),
        ..RagResults::default()
    };
    let mut s = strategy(RagStrategyKind::ChunkedEmbeddings);
    s.threshold = 0.1;
    let rag = rag(source(dir.path(), vec![s], results), Some(&emb), None);
    let hits = rag.query("what do blorks eat").await.unwrap();
    assert_eq!(names(&hits), ["blork_diet.md"]);
    // The follow-up adds the file name's new words and is searched in the background.
    let follow_up = "what do blorks eat blork diet";
    let deadline = Instant::now() + Duration::from_secs(10);
    while !emb.texts().iter().any(|t| t == follow_up) {
        assert!(
            Instant::now() < deadline,
            "no follow-up was fetched: {:?}",
            emb.texts()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Its answer lands in the cache right after its search.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = emb.requests();
    let warmed = rag.query("What do blorks eat  blork diet").await.unwrap();
    assert_eq!(names(&warmed), ["blork_diet.md"]);
    assert_eq!(
        emb.requests(),
        asked,
        "the warmed follow-up must come from the cache"
    );
}

#[tokio::test]
async fn indexing_that_outlasts_its_timeout_fails_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a.txt", "alpha")]);
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let llm = FakeLlm::start().await.unwrap();
    llm.push(Turn::stall());
    let mut src = (*source(
        dir.path(),
        vec![strategy(RagStrategyKind::SemanticEmbeddings)],
        RagResults::default(),
    ))
    .clone();
    src.indexing_timeout = Some(Duration::from_millis(300));
    let rag = rag(Arc::new(src), Some(&emb), Some(&llm));
    let err = rag.query("alpha").await.unwrap_err();
    assert!(matches!(err, RagError::Timeout(_)), "{err:?}");
    assert!(err.to_string().contains("`indexing_timeout`"), "{err}");
    // The next query resumes.
    llm.push(Turn::text("The letter alpha."));
    let hits = rag.query("alpha letter").await.unwrap();
    assert_eq!(names(&hits), ["a.txt"]);
}

#[tokio::test]
async fn indexing_starts_in_the_background_before_any_query() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &two_bees());
    let emb = FakeEmbeddings::start(DIMS).await.unwrap();
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::ChunkedEmbeddings)],
            RagResults::default(),
        ),
        Some(&emb),
        None,
    );
    rag.index_in_background();
    let deadline = Instant::now() + Duration::from_secs(10);
    while emb.texts().len() < 2 {
        assert!(Instant::now() < deadline, "nothing was indexed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let hits = rag.query("honey dance").await.unwrap();
    assert_eq!(names(&hits)[0], "second.md");
    // Only the query was embedded after the background pass.
    assert_eq!(emb.texts().len(), 3);
}
