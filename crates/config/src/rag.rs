//! Validated RAG sources (top-level `rag:`): the documents, the retrieval strategies that
//! index them, and how their results combine. An agent reaches a source through its `rag:`
//! list or a `type: rag` toolset with `ref:`; both become a toolset holding the source.

use std::path::PathBuf;
use std::time::Duration;

/// One `rag:` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct RagSource {
    /// The entry's key.
    pub name: String,
    /// The tool's name (`tool.name`, else the source's name).
    pub tool_name: String,
    /// `tool.description`: what the model is told the tool searches.
    pub description: Option<String>,
    /// `tool.instruction`: system-prompt text on how to use the tool.
    pub instruction: Option<String>,
    /// The directory relative `docs` and `database` paths resolve against (the agent file's).
    pub base_dir: PathBuf,
    /// Shared documents: files, directories or globs (`pkg/**/*.go`).
    pub docs: Vec<String>,
    /// Honour `.gitignore` files when walking directories (default true).
    pub respect_vcs: bool,
    pub strategies: Vec<RagStrategy>,
    pub results: RagResults,
    /// `indexing_timeout`: the longest one indexing pass may take (default 30 minutes);
    /// `None` for `0s`, no bound.
    pub indexing_timeout: Option<Duration>,
}

/// How a strategy retrieves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RagStrategyKind {
    /// Chunks embedded by a model, ranked by cosine similarity.
    ChunkedEmbeddings,
    /// Keyword ranking (Okapi BM25).
    Bm25,
    /// Each chunk summarised by a chat model; the summaries are embedded and ranked by
    /// cosine similarity (the chunk itself is what a result returns).
    SemanticEmbeddings,
}

impl RagStrategyKind {
    /// The `type:` of each.
    pub const fn type_name(self) -> &'static str {
        match self {
            Self::ChunkedEmbeddings => "chunked-embeddings",
            Self::Bm25 => "bm25",
            Self::SemanticEmbeddings => "semantic-embeddings",
        }
    }

    /// Whether the strategy ranks by embeddings (and so needs an `embedding_model`).
    pub const fn embeds(self) -> bool {
        match self {
            Self::ChunkedEmbeddings | Self::SemanticEmbeddings => true,
            Self::Bm25 => false,
        }
    }
}

/// One `strategies:` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct RagStrategy {
    pub kind: RagStrategyKind,
    /// Documents of this strategy only, added to the source's.
    pub docs: Vec<String>,
    /// The SQLite file (resolved against the agent file's directory).
    pub database: PathBuf,
    /// Candidates this strategy returns (default 5).
    pub limit: usize,
    /// Scores below this are dropped (cosine 0–1 default 0.5; BM25 default 0).
    pub threshold: f64,
    pub chunking: Chunking,
    pub respect_vcs: bool,
    /// Embedding strategies: the model reference (`models:` name or `provider/model`).
    pub embedding_model: Option<String>,
    /// Embedding strategies: the length every vector must have.
    pub vector_dimensions: Option<usize>,
    /// Embedding strategies: texts per embedding request (default 50).
    pub batch_size: usize,
    /// `max_embedding_concurrency`: summaries (semantic-embeddings) requested at once
    /// (default 3).
    pub concurrency: usize,
    /// `semantic-embeddings`: the chat model that summarises each chunk.
    pub chat_model: Option<String>,
    /// `semantic-embeddings`: the summary prompt, with `${path}`, `${basename}`,
    /// `${chunk_index}`, `${content}` and `${ast_context}` placeholders (default: docker-agent's).
    pub semantic_prompt: Option<String>,
    /// `semantic-embeddings`: fill `${ast_context}` with the definitions a code-aware chunk
    /// holds.
    pub ast_context: bool,
    /// BM25 term-frequency saturation (default 1.5).
    pub k1: f64,
    /// BM25 length normalisation (default 0.75).
    pub b: f64,
}

/// `chunking:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    /// Characters per chunk (default 1000).
    pub size: usize,
    /// Characters shared by consecutive chunks (default 75).
    pub overlap: usize,
    /// Cut at whitespace rather than inside a word (default true).
    pub respect_word_boundaries: bool,
    /// Cut source files between top-level definitions where a grammar is known.
    pub code_aware: bool,
}

impl Default for Chunking {
    fn default() -> Self {
        Self {
            size: 1000,
            overlap: 75,
            respect_word_boundaries: true,
            code_aware: false,
        }
    }
}

/// `results:`.
#[derive(Debug, Clone, PartialEq)]
pub struct RagResults {
    /// Results returned after fusion (default 15).
    pub limit: usize,
    pub fusion: Fusion,
    /// Drop results with the same content (default true).
    pub deduplicate: bool,
    /// Each result carries its score (the tool always reports `similarity`).
    pub include_score: bool,
    /// A result carries its whole file rather than the matched chunk.
    pub return_full_content: bool,
    /// Re-score fused results with a model before the limit.
    pub reranking: Option<Reranking>,
    /// Cache of final results per query (and adaptive prefetch of follow-ups).
    pub prefetch: Option<Prefetch>,
    /// A small boost for results whose paths share words with the query and recent results.
    pub topology_prior: Option<TopologyPrior>,
}

/// `results.reranking`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reranking {
    /// A `models:` name or `provider/model`: a chat model scores the documents, DMR's
    /// `/rerank` endpoint for `provider: dmr`.
    pub model: String,
    /// Only the first `top_k` results are re-scored (default: `results.limit`); the rest
    /// follow unchanged.
    pub top_k: Option<usize>,
    /// Re-scored results below this are dropped (default 0.5; 0 keeps all).
    pub threshold: f64,
    /// Domain criteria added to the scoring prompt (chat models only).
    pub criteria: Option<String>,
}

/// `results.prefetch`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefetch {
    /// Queries whose results are kept (default 32), oldest dropped first.
    pub max_entries: usize,
    /// Follow-up queries fetched in the background after a query (default 0: cache only).
    pub max_candidates: usize,
    /// Only results scoring at least this suggest a follow-up (default 0.5).
    pub min_similarity: f64,
    /// Follow-ups stop while queries drift more than this from the recent ones (default 0.8).
    pub drift_threshold: f64,
    /// The longest a background follow-up may take (default 10s).
    pub timeout: Duration,
}

/// `results.topology_prior`.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyPrior {
    /// The largest boost (default 0.05, at most 0.2).
    pub weight: f64,
    /// Result paths remembered (default 32).
    pub max_source_history: usize,
}

impl Default for RagResults {
    fn default() -> Self {
        Self {
            limit: 15,
            fusion: Fusion::Rrf { k: 60 },
            deduplicate: true,
            include_score: false,
            return_full_content: false,
            reranking: None,
            prefetch: None,
            topology_prior: None,
        }
    }
}

/// How results of several strategies combine.
#[derive(Debug, Clone, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion: `sum 1/(k + rank)`.
    Rrf { k: u32 },
    /// `sum weight * score`, a weight per strategy type.
    Weighted { weights: Vec<(String, f64)> },
    /// The best score any strategy gave.
    Max,
}
