//! A RAG source over real files: BM25 and embeddings (from the fake `/v1/embeddings`)
//! retrieve the right file, results fuse, an edit re-embeds only the edited file, and the
//! watcher sees a new file.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use tether_config::{Chunking, Fusion, RagResults, RagSource, RagStrategy, RagStrategyKind};
use tether_providers::{Embedder, MapEnv, ModelSpec, build_embedder};
use tether_rag::{Hit, Rag};
use tether_test_support::embeddings::FakeEmbeddings;

const DIMS: usize = 64;

fn corpus(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join("docs").join(e.file_name())).unwrap();
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
        embedding_model: (kind == RagStrategyKind::ChunkedEmbeddings)
            .then(|| "embedder".to_owned()),
        vector_dimensions: Some(DIMS),
        batch_size: 2,
        concurrency: 1,
        chat_model: None,
        semantic_prompt: None,
        ast_context: false,
        k1: 1.5,
        b: 0.75,
    }
}

fn source(dir: &Path, strategies: Vec<RagStrategy>, fusion: Fusion) -> Arc<RagSource> {
    Arc::new(RagSource {
        name: "knowledge".to_owned(),
        tool_name: "knowledge".to_owned(),
        description: None,
        instruction: None,
        base_dir: dir.to_path_buf(),
        docs: vec!["docs".to_owned()],
        respect_vcs: true,
        strategies,
        results: RagResults {
            fusion,
            ..RagResults::default()
        },
        indexing_timeout: None,
    })
}

fn rag(source: Arc<RagSource>, server: Option<&FakeEmbeddings>) -> Rag {
    let base = server.map(FakeEmbeddings::base_url);
    let embedder = move |_: &str| -> Result<Arc<dyn Embedder>, String> {
        let mut spec = ModelSpec::parse_inline("openai/text-embedding-3-small").unwrap();
        spec.base_url = base.clone();
        build_embedder(&spec, &MapEnv::new([("OPENAI_API_KEY", "test")])).map_err(|e| e.to_string())
    };
    Rag::new(source, &embedder).unwrap()
}

fn files(hits: &[Hit]) -> Vec<String> {
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

#[tokio::test]
async fn bm25_retrieves_the_file_holding_the_query_terms() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::Bm25)],
            Fusion::Rrf { k: 60 },
        ),
        None,
    );
    let hits = rag.query("waggle dance of the worker bees").await.unwrap();
    assert_eq!(files(&hits)[0], "bees.md");
    let hits = rag.query("checkpoint write-ahead log").await.unwrap();
    assert_eq!(files(&hits), ["sqlite.md"]);
    assert!(dir.path().join("bm25.db").is_file());
}

#[tokio::test]
async fn embeddings_retrieve_the_file_closest_to_the_query() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let server = FakeEmbeddings::start(DIMS).await.unwrap();
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::ChunkedEmbeddings)],
            Fusion::Rrf { k: 60 },
        ),
        Some(&server),
    );
    let hits = rag
        .query("when is the moon making spring tides")
        .await
        .unwrap();
    assert_eq!(files(&hits)[0], "tides.md");
    let hits = rag
        .query("interference graph colouring registers")
        .await
        .unwrap();
    assert_eq!(files(&hits)[0], "compilers.md");
    assert!(hits[0].score > 0.3, "{hits:?}");
}

#[tokio::test]
async fn an_edit_reembeds_only_the_edited_file() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let server = FakeEmbeddings::start(DIMS).await.unwrap();
    let src = source(
        dir.path(),
        vec![strategy(RagStrategyKind::ChunkedEmbeddings)],
        Fusion::Max,
    );
    let first = rag(Arc::clone(&src), Some(&server)).index().await.unwrap();
    assert_eq!((first.reindexed, first.removed), (4, 0));
    let embedded = server.texts().len();

    std::fs::write(
        dir.path().join("docs/bees.md"),
        "Bumblebees nest in the ground.",
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("docs/tides.md")).unwrap();
    // A fresh process: the database remembers what was indexed.
    let again = rag(src, Some(&server));
    let report = again.index().await.unwrap();
    assert_eq!((report.reindexed, report.removed), (1, 1));
    assert_eq!(
        server.texts()[embedded..],
        ["Bumblebees nest in the ground."]
    );
    let hits = again.query("bumblebees nest").await.unwrap();
    assert_eq!(files(&hits)[0], "bees.md");
    assert!(!files(&hits).contains(&"tides.md".to_owned()));
}

#[tokio::test]
async fn hybrid_search_fuses_both_strategies() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let server = FakeEmbeddings::start(DIMS).await.unwrap();
    let rag = rag(
        source(
            dir.path(),
            vec![
                strategy(RagStrategyKind::ChunkedEmbeddings),
                strategy(RagStrategyKind::Bm25),
            ],
            Fusion::Rrf { k: 60 },
        ),
        Some(&server),
    );
    let hits = rag.query("honey comb nectar").await.unwrap();
    assert_eq!(files(&hits)[0], "bees.md");
    // Found by both: 1/61 + 1/61.
    assert!((hits[0].score - 2.0 / 61.0).abs() < 1e-9, "{hits:?}");
}

#[tokio::test]
async fn the_watcher_sees_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let rag = rag(
        source(
            dir.path(),
            vec![strategy(RagStrategyKind::Bm25)],
            Fusion::Rrf { k: 60 },
        ),
        None,
    );
    rag.watch().unwrap();
    assert!(rag.query("volcano magma").await.unwrap().is_empty());
    std::fs::write(
        dir.path().join("docs/volcano.md"),
        "Magma rises through the volcano's vent and erupts as lava.",
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let hits = rag.query("volcano magma").await.unwrap();
        if !hits.is_empty() {
            assert_eq!(files(&hits), ["volcano.md"]);
            break;
        }
        assert!(Instant::now() < deadline, "the new file was never indexed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
