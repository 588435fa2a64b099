//! Validated RAG sources (top-level `rag:`): the documents, the retrieval strategies that
//! index them, and how their results combine. An agent reaches a source through its `rag:`
//! list or a `type: rag` toolset with `ref:`; both become a toolset holding the source.

use std::path::PathBuf;

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
}

/// How a strategy retrieves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RagStrategyKind {
    /// Chunks embedded by a model, ranked by cosine similarity.
    ChunkedEmbeddings,
    /// Keyword ranking (Okapi BM25).
    Bm25,
}

impl RagStrategyKind {
    /// The `type:` of each.
    pub const fn type_name(self) -> &'static str {
        match self {
            Self::ChunkedEmbeddings => "chunked-embeddings",
            Self::Bm25 => "bm25",
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
    /// `chunked-embeddings`: the model reference (`models:` name or `provider/model`).
    pub embedding_model: Option<String>,
    /// `chunked-embeddings`: the length every vector must have.
    pub vector_dimensions: Option<usize>,
    /// `chunked-embeddings`: texts per embedding request (default 50).
    pub batch_size: usize,
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
}

impl Default for RagResults {
    fn default() -> Self {
        Self {
            limit: 15,
            fusion: Fusion::Rrf { k: 60 },
            deduplicate: true,
            include_score: false,
            return_full_content: false,
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
