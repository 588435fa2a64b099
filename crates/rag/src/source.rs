//! A RAG source at run time: its strategies, each with its database and in-memory index,
//! brought up to date before a query whenever a document may have changed (first use, the
//! watcher saw a change, or a pass started in the background at agent start), then queried,
//! fused, reranked and cut. One indexing pass runs at a time, bounded by `indexing_timeout`;
//! a query waits for a pass in flight rather than read a half-built index.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tether_config::{RagSource, RagStrategy, RagStrategyKind};
use tether_providers::{Embedder, Provider, Reranker};

use crate::bm25::Bm25Index;
use crate::prefetch::Cache;
use crate::rerank::Rerank;
use crate::semantic::{DEFAULT_PROMPT, Piece, Summariser};
use crate::store::Store;
use crate::topology::Prior;
use crate::vectors::VectorIndex;
use crate::{Hit, RagError, chunk, docs, fusion};

/// One strategy: its configuration, database and the index loaded from it.
#[derive(Debug)]
struct Strategy {
    cfg: RagStrategy,
    db: PathBuf,
    embedder: Option<Arc<dyn Embedder>>,
    summariser: Option<Summariser>,
    state: tokio::sync::Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    store: Option<Store>,
    chunks: Vec<(Arc<str>, usize, String)>,
    vectors: VectorIndex,
    bm25: Bm25Index,
    /// The database changed since the in-memory index was loaded (a pass was cut short).
    stale: bool,
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
/// Resolves a `chat_model` reference.
pub type ChatFor<'a> = dyn Fn(&str) -> Result<Arc<dyn Provider>, String> + 'a;
/// Resolves a `reranking.model` reference.
pub type RerankerFor<'a> = dyn Fn(&str) -> Result<Arc<dyn Reranker>, String> + 'a;

/// How a source reaches the models its file names.
#[derive(Clone, Copy)]
pub struct Models<'a> {
    pub embedder: &'a EmbedderFor<'a>,
    pub chat: &'a ChatFor<'a>,
    pub reranker: &'a RerankerFor<'a>,
}

impl std::fmt::Debug for Models<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Models")
    }
}

/// A RAG source ready to search.
#[derive(Debug)]
pub struct Rag {
    inner: Arc<Inner>,
    watcher: std::sync::Mutex<Option<notify::RecommendedWatcher>>,
}

#[derive(Debug)]
struct Inner {
    source: Arc<RagSource>,
    strategies: Vec<Strategy>,
    dirty: Arc<AtomicBool>,
    /// Held for a whole indexing pass.
    indexing: tokio::sync::Mutex<()>,
    rerank: Option<Rerank>,
    cache: Option<Cache>,
    prior: Option<Prior>,
}

fn model_err(model: &str) -> impl Fn(String) -> RagError + '_ {
    move |message| RagError::Model {
        model: model.to_owned(),
        message,
    }
}

impl Rag {
    /// A source whose strategies need only embedding models.
    pub fn new(source: Arc<RagSource>, embedder: &EmbedderFor<'_>) -> Result<Self, RagError> {
        let chat = |m: &str| -> Result<Arc<dyn Provider>, String> {
            Err(format!("no chat model can be built for `{m}` here"))
        };
        let reranker = |m: &str| -> Result<Arc<dyn Reranker>, String> {
            Err(format!("no reranking model can be built for `{m}` here"))
        };
        Self::with_models(
            source,
            Models {
                embedder,
                chat: &chat,
                reranker: &reranker,
            },
        )
    }

    /// `models` resolves the file's model references (embeddings, summaries, reranking).
    pub fn with_models(source: Arc<RagSource>, models: Models<'_>) -> Result<Self, RagError> {
        let mut strategies = Vec::new();
        for cfg in &source.strategies {
            let embedder = match &cfg.embedding_model {
                Some(m) if cfg.kind.embeds() => Some((models.embedder)(m).map_err(model_err(m))?),
                _ => None,
            };
            let summariser = match &cfg.chat_model {
                Some(m) if cfg.kind == RagStrategyKind::SemanticEmbeddings => Some(Summariser {
                    model: (models.chat)(m).map_err(model_err(m))?,
                    prompt: cfg
                        .semantic_prompt
                        .clone()
                        .unwrap_or_else(|| DEFAULT_PROMPT.to_owned()),
                    ast_context: cfg.ast_context,
                    concurrency: cfg.concurrency,
                }),
                _ => None,
            };
            strategies.push(Strategy {
                db: source.base_dir.join(&cfg.database),
                cfg: cfg.clone(),
                embedder,
                summariser,
                state: tokio::sync::Mutex::default(),
            });
        }
        let results = &source.results;
        let rerank = match &results.reranking {
            Some(r) => Some(Rerank::new(
                r.clone(),
                (models.reranker)(&r.model).map_err(model_err(&r.model))?,
            )),
            None => None,
        };
        let inner = Inner {
            cache: results.prefetch.clone().map(Cache::new),
            prior: results.topology_prior.clone().map(Prior::new),
            rerank,
            source,
            strategies,
            dirty: Arc::new(AtomicBool::new(true)),
            indexing: tokio::sync::Mutex::new(()),
        };
        Ok(Self {
            inner: Arc::new(inner),
            watcher: std::sync::Mutex::new(None),
        })
    }

    pub fn source(&self) -> &RagSource {
        &self.inner.source
    }

    /// Watches the documents' directories: any change there makes the next query re-index
    /// (only files whose content changed are chunked and embedded again).
    pub fn watch(&self) -> Result<(), RagError> {
        use notify::Watcher;
        let dirty = Arc::clone(&self.inner.dirty);
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
        let source = &self.inner.source;
        let mut entries = source.docs.clone();
        for s in &self.inner.strategies {
            entries.extend(s.cfg.docs.iter().cloned());
        }
        for root in docs::watch_roots(&source.base_dir, &entries) {
            watcher
                .watch(&root, notify::RecursiveMode::Recursive)
                .map_err(|e| RagError::Watch(format!("{}: {e}", root.display())))?;
        }
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = Some(watcher);
        }
        Ok(())
    }

    /// Starts an indexing pass in the background (when called inside a tokio runtime), so
    /// the first query finds the index built. A failure is logged and left for the first
    /// query to retry and report.
    pub fn index_in_background(&self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let inner = Arc::clone(&self.inner);
        rt.spawn(async move {
            if let Err(e) = inner.index().await {
                tracing::warn!(source = inner.source.name, "RAG indexing failed: {e}");
            }
        });
    }

    /// Brings every strategy's database and index up to date with the documents.
    pub async fn index(&self) -> Result<IndexReport, RagError> {
        self.inner.index().await
    }

    /// The source's results for `query`: each strategy's best, fused, reranked,
    /// de-duplicated and cut to `results.limit`; served from the query cache when
    /// `results.prefetch` keeps one.
    pub async fn query(&self, query: &str) -> Result<Vec<Hit>, RagError> {
        let inner = &self.inner;
        if inner.dirty.load(Ordering::SeqCst) {
            inner.index().await?;
        } else {
            // A pass in flight (started in the background) finishes first.
            drop(inner.indexing.lock().await);
        }
        if let Some(hits) = inner.cache.as_ref().and_then(|c| c.get(query)) {
            return Ok(hits);
        }
        let hits = inner.search(query).await?;
        if let Some(cache) = &inner.cache {
            cache.put(query, &hits, true);
            for candidate in cache.candidates(query, &hits) {
                let inner = Arc::clone(&self.inner);
                tokio::spawn(async move {
                    let Some(cache) = &inner.cache else { return };
                    let fetched = tokio::time::timeout(cache.timeout(), inner.search(&candidate));
                    if let Ok(Ok(hits)) = fetched.await {
                        cache.put(&candidate, &hits, false);
                    }
                    cache.done(&candidate);
                });
            }
        }
        if let Some(prior) = &inner.prior {
            prior.observe(&hits);
        }
        Ok(hits)
    }

    /// The text embedded for a chunk when it was not the chunk itself (semantic summaries),
    /// from the first strategy that has one.
    pub async fn embedding_input(
        &self,
        path: &str,
        index: usize,
    ) -> Result<Option<String>, RagError> {
        for s in &self.inner.strategies {
            let state = s.state.lock().await;
            if let Some(store) = &state.store
                && let Some(text) = store.embedding_input(path, index)?
            {
                return Ok(Some(text));
            }
        }
        Ok(None)
    }
}

impl Inner {
    async fn index(&self) -> Result<IndexReport, RagError> {
        let _pass = self.indexing.lock().await;
        self.dirty.store(false, Ordering::SeqCst);
        let pass = async {
            let mut report = IndexReport::default();
            for s in &self.strategies {
                let r = s.sync(&self.source).await?;
                report.reindexed += r.reindexed;
                report.removed += r.removed;
                report.chunks += r.chunks;
            }
            Ok::<_, RagError>(report)
        };
        let result = match self.source.indexing_timeout {
            Some(limit) => tokio::time::timeout(limit, pass)
                .await
                .unwrap_or(Err(RagError::Timeout(limit))),
            None => pass.await,
        };
        match &result {
            Err(_) => self.dirty.store(true, Ordering::SeqCst),
            Ok(r) if r.reindexed > 0 || r.removed > 0 => {
                if let Some(c) = &self.cache {
                    c.clear();
                }
                if let Some(p) = &self.prior {
                    p.clear();
                }
            }
            Ok(_) => {}
        }
        result
    }

    async fn search(&self, query: &str) -> Result<Vec<Hit>, RagError> {
        let mut per = Vec::new();
        for s in &self.strategies {
            per.push((s.cfg.kind.type_name(), s.search(query).await?));
        }
        let results = &self.source.results;
        let mut hits = fusion::fuse(&results.fusion, per);
        if let Some(rerank) = &self.rerank {
            hits = rerank.apply(query, hits, results.limit).await;
        }
        if let Some(prior) = &self.prior {
            hits = prior.apply(query, hits);
        }
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
        let Some(e) = &self.embedder else {
            return self.cfg.kind.type_name().to_owned();
        };
        let mut sig = format!(
            "{}:{}:{}",
            self.cfg.kind.type_name(),
            e.id(),
            self.cfg.vector_dimensions.unwrap_or(0)
        );
        if let Some(s) = &self.summariser {
            // Another summary model, prompt or context means other vectors.
            let prompt = ring::digest::digest(&ring::digest::SHA256, s.prompt.as_bytes());
            sig.push_str(&format!(
                ":{}:{}:{}",
                s.model.id(),
                hex(&prompt.as_ref()[..8]),
                s.ast_context
            ));
        }
        sig
    }

    async fn sync(&self, source: &RagSource) -> Result<IndexReport, RagError> {
        let mut state = self.state.lock().await;
        if state.store.is_none() {
            state.store = Some(Store::open(&self.db, &self.signature())?);
            state.stale = true;
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
            let pieces = chunk::chunks_with_symbols(&text, file, &self.cfg.chunking);
            let inputs = match &self.summariser {
                Some(s) => {
                    let list: Vec<Piece<'_>> = pieces
                        .iter()
                        .enumerate()
                        .map(|(index, (content, symbols))| Piece {
                            index,
                            content,
                            symbols,
                        })
                        .collect();
                    Some(s.inputs(file, &list).await?)
                }
                None => None,
            };
            let vectors = match &inputs {
                Some(inputs) => self.embed(inputs).await?,
                None => {
                    let texts: Vec<String> = pieces.iter().map(|(c, _)| c.clone()).collect();
                    self.embed(&texts).await?
                }
            };
            let mut inputs = inputs.map(Vec::into_iter);
            let rows: Vec<(String, Vec<f32>, Option<String>)> = pieces
                .into_iter()
                .zip(vectors)
                .map(|((content, _), v)| (content, v, inputs.as_mut().and_then(Iterator::next)))
                .collect();
            state.stale = true;
            if let Some(store) = &mut state.store {
                store.replace(&key, &hash, &rows)?;
            }
            report.reindexed += 1;
        }
        for gone in known.keys().filter(|k| !present.contains(*k)) {
            state.stale = true;
            if let Some(store) = &mut state.store {
                store.remove(gone)?;
            }
            report.removed += 1;
        }
        if state.stale {
            self.load(&mut state)?;
        }
        report.chunks = state.chunks.len();
        Ok(report)
    }

    /// The vectors of `texts` (empty ones for BM25), `batch_size` texts per request.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, RagError> {
        let Some(embedder) = &self.embedder else {
            return Ok(vec![Vec::new(); texts.len()]);
        };
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.cfg.batch_size.max(1)) {
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
                RagStrategyKind::ChunkedEmbeddings | RagStrategyKind::SemanticEmbeddings => {
                    vectors.push(&row.vector)
                }
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
        state.stale = false;
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
            RagStrategyKind::ChunkedEmbeddings | RagStrategyKind::SemanticEmbeddings => state
                .vectors
                .top_k(&query_vector, self.cfg.limit, threshold),
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
