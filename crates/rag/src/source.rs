//! A RAG source at run time: its strategies, each with its database and in-memory index,
//! brought up to date before a query whenever a document may have changed (first use, or
//! the watcher saw a change), then queried and fused.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tether_config::{RagSource, RagStrategy, RagStrategyKind};
use tether_providers::Embedder;

use crate::bm25::Bm25Index;
use crate::store::Store;
use crate::vectors::VectorIndex;
use crate::{Hit, RagError, chunk, docs, fusion};

/// One strategy: its configuration, database and the index loaded from it.
#[derive(Debug)]
struct Strategy {
    cfg: RagStrategy,
    db: PathBuf,
    embedder: Option<Arc<dyn Embedder>>,
    state: tokio::sync::Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    store: Option<Store>,
    chunks: Vec<(Arc<str>, usize, String)>,
    vectors: VectorIndex,
    bm25: Bm25Index,
}

/// What an indexing pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexReport {
    /// Files chunked (and embedded) again because they are new or their content changed.
    pub reindexed: usize,
    /// Files forgotten because they are gone.
    pub removed: usize,
    /// Chunks indexed in all.
    pub chunks: usize,
}

/// Resolves an `embedding_model` reference to a client (an error message when it cannot).
pub type EmbedderFor<'a> = dyn Fn(&str) -> Result<Arc<dyn Embedder>, String> + 'a;

/// A RAG source ready to search.
#[derive(Debug)]
pub struct Rag {
    source: Arc<RagSource>,
    strategies: Vec<Strategy>,
    dirty: Arc<AtomicBool>,
    watcher: std::sync::Mutex<Option<notify::RecommendedWatcher>>,
}

impl Rag {
    /// `embedder` resolves a strategy's `embedding_model` reference to a client.
    pub fn new(source: Arc<RagSource>, embedder: &EmbedderFor<'_>) -> Result<Self, RagError> {
        let mut strategies = Vec::new();
        for cfg in &source.strategies {
            let embedder = match (&cfg.kind, &cfg.embedding_model) {
                (RagStrategyKind::ChunkedEmbeddings, Some(m)) => {
                    Some(embedder(m).map_err(|message| RagError::Model {
                        model: m.clone(),
                        message,
                    })?)
                }
                _ => None,
            };
            strategies.push(Strategy {
                db: source.base_dir.join(&cfg.database),
                cfg: cfg.clone(),
                embedder,
                state: tokio::sync::Mutex::default(),
            });
        }
        Ok(Self {
            source,
            strategies,
            dirty: Arc::new(AtomicBool::new(true)),
            watcher: std::sync::Mutex::new(None),
        })
    }

    pub fn source(&self) -> &RagSource {
        &self.source
    }

    /// Watches the documents' directories: any change there makes the next query re-index
    /// (only files whose content changed are chunked and embedded again).
    pub fn watch(&self) -> Result<(), RagError> {
        use notify::Watcher;
        let dirty = Arc::clone(&self.dirty);
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            // The strategies' own databases may sit beside the documents: their writes are
            // not document changes.
            let ours = |p: &std::path::Path| {
                let s = p.to_string_lossy();
                [".db", ".db-wal", ".db-shm", ".db-journal"]
                    .iter()
                    .any(|x| s.ends_with(x))
            };
            if let Ok(ev) = res
                && (ev.paths.is_empty() || !ev.paths.iter().all(|p| ours(p)))
                && !ev.kind.is_access()
            {
                dirty.store(true, Ordering::SeqCst);
            }
        })
        .map_err(|e| RagError::Watch(e.to_string()))?;
        let mut entries = self.source.docs.clone();
        for s in &self.strategies {
            entries.extend(s.cfg.docs.iter().cloned());
        }
        for root in docs::watch_roots(&self.source.base_dir, &entries) {
            watcher
                .watch(&root, notify::RecursiveMode::Recursive)
                .map_err(|e| RagError::Watch(format!("{}: {e}", root.display())))?;
        }
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = Some(watcher);
        }
        Ok(())
    }

    /// Brings every strategy's database and index up to date with the documents.
    pub async fn index(&self) -> Result<IndexReport, RagError> {
        self.dirty.store(false, Ordering::SeqCst);
        let mut report = IndexReport::default();
        for s in &self.strategies {
            let r = s.sync(&self.source).await;
            if r.is_err() {
                self.dirty.store(true, Ordering::SeqCst);
            }
            let r = r?;
            report.reindexed += r.reindexed;
            report.removed += r.removed;
            report.chunks += r.chunks;
        }
        Ok(report)
    }

    /// The source's results for `query`: each strategy's best, fused, de-duplicated and cut
    /// to `results.limit`.
    pub async fn query(&self, query: &str) -> Result<Vec<Hit>, RagError> {
        if self.dirty.load(Ordering::SeqCst) {
            self.index().await?;
        }
        let mut per = Vec::new();
        for s in &self.strategies {
            per.push((s.cfg.kind.type_name(), s.search(query).await?));
        }
        let results = &self.source.results;
        let mut hits = fusion::fuse(&results.fusion, per);
        if results.return_full_content {
            let mut seen = std::collections::HashSet::new();
            hits.retain(|h| seen.insert(h.path.clone()));
            for h in &mut hits {
                if let Ok(text) = std::fs::read_to_string(&h.path) {
                    h.content = text;
                }
            }
        }
        if results.deduplicate {
            let mut seen = std::collections::HashSet::new();
            hits.retain(|h| seen.insert(h.content.clone()));
        }
        hits.truncate(results.limit);
        Ok(hits)
    }
}

impl Strategy {
    fn signature(&self) -> String {
        match &self.embedder {
            Some(e) => format!(
                "{}:{}:{}",
                self.cfg.kind.type_name(),
                e.id(),
                self.cfg.vector_dimensions.unwrap_or(0)
            ),
            None => self.cfg.kind.type_name().to_owned(),
        }
    }

    async fn sync(&self, source: &RagSource) -> Result<IndexReport, RagError> {
        let mut state = self.state.lock().await;
        if state.store.is_none() {
            state.store = Some(Store::open(&self.db, &self.signature())?);
        }
        let mut entries = source.docs.clone();
        entries.extend(self.cfg.docs.iter().cloned());
        let files = docs::collect(&source.base_dir, &entries, self.cfg.respect_vcs);
        let mut report = IndexReport::default();
        let known: std::collections::HashMap<String, String> = match &state.store {
            Some(store) => store.files()?.into_iter().collect(),
            None => Default::default(),
        };
        let mut present = std::collections::HashSet::new();
        for file in &files {
            let key = file.to_string_lossy().into_owned();
            present.insert(key.clone());
            // Not text (or unreadable): not a document.
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let hash = hex(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref());
            if known.get(&key) == Some(&hash) {
                continue;
            }
            let pieces = chunk::chunk(&text, file, &self.cfg.chunking);
            let vectors = self.embed(&pieces).await?;
            let rows: Vec<(String, Vec<f32>)> = pieces.into_iter().zip(vectors).collect();
            if let Some(store) = &mut state.store {
                store.replace(&key, &hash, &rows)?;
            }
            report.reindexed += 1;
        }
        for gone in known.keys().filter(|k| !present.contains(*k)) {
            if let Some(store) = &mut state.store {
                store.remove(gone)?;
            }
            report.removed += 1;
        }
        if report.reindexed > 0 || report.removed > 0 || state.chunks.is_empty() {
            self.load(&mut state)?;
        }
        report.chunks = state.chunks.len();
        Ok(report)
    }

    /// The vectors of `pieces` (empty ones for BM25), `batch_size` texts per request.
    async fn embed(&self, pieces: &[String]) -> Result<Vec<Vec<f32>>, RagError> {
        let Some(embedder) = &self.embedder else {
            return Ok(vec![Vec::new(); pieces.len()]);
        };
        let mut out = Vec::with_capacity(pieces.len());
        for batch in pieces.chunks(self.cfg.batch_size.max(1)) {
            let vectors = embedder.embed(batch).await.map_err(|e| RagError::Model {
                model: embedder.id().to_owned(),
                message: e.to_string(),
            })?;
            for v in &vectors {
                self.check_dims(embedder.id(), v.len())?;
            }
            out.extend(vectors);
        }
        Ok(out)
    }

    fn check_dims(&self, model: &str, got: usize) -> Result<(), RagError> {
        match self.cfg.vector_dimensions {
            Some(want) if want != got => Err(RagError::Model {
                model: model.to_owned(),
                message: format!(
                    "returned vectors of {got} dimensions, `vector_dimensions` is {want}"
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Rebuilds the in-memory index from the database (after a change, not per query).
    fn load(&self, state: &mut State) -> Result<(), RagError> {
        let rows = match &state.store {
            Some(store) => store.chunks()?,
            None => Vec::new(),
        };
        let dims = rows
            .iter()
            .map(|r| r.vector.len())
            .find(|n| *n > 0)
            .unwrap_or(0);
        let mut vectors = VectorIndex::new(dims);
        let mut bm25 = Bm25Index::default();
        let mut chunks = Vec::with_capacity(rows.len());
        let mut path: Arc<str> = Arc::from("");
        for row in rows {
            let keep = match self.cfg.kind {
                RagStrategyKind::ChunkedEmbeddings => vectors.push(&row.vector),
                RagStrategyKind::Bm25 => {
                    bm25.push(&row.content);
                    true
                }
            };
            if !keep {
                continue;
            }
            if *path != *row.path {
                path = Arc::from(row.path.as_str());
            }
            chunks.push((Arc::clone(&path), row.index, row.content));
        }
        state.chunks = chunks;
        state.vectors = vectors;
        state.bm25 = bm25;
        Ok(())
    }

    async fn search(&self, query: &str) -> Result<Vec<Hit>, RagError> {
        let query_vector = match &self.embedder {
            Some(e) => {
                let mut v = e
                    .embed(&[query.to_owned()])
                    .await
                    .map_err(|err| RagError::Model {
                        model: e.id().to_owned(),
                        message: err.to_string(),
                    })?;
                v.pop().unwrap_or_default()
            }
            None => Vec::new(),
        };
        let state = self.state.lock().await;
        let threshold = self.cfg.threshold as f32;
        let ranked = match self.cfg.kind {
            RagStrategyKind::ChunkedEmbeddings => {
                state
                    .vectors
                    .top_k(&query_vector, self.cfg.limit, threshold)
            }
            RagStrategyKind::Bm25 => state.bm25.top_k(
                query,
                self.cfg.limit,
                self.cfg.k1 as f32,
                self.cfg.b as f32,
                threshold,
            ),
        };
        Ok(ranked
            .into_iter()
            .filter_map(|(i, score)| {
                state.chunks.get(i).map(|(path, index, content)| Hit {
                    path: path.to_string(),
                    index: *index,
                    content: content.clone(),
                    score: f64::from(score),
                })
            })
            .collect())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
