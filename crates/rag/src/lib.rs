//! Retrieval-augmented generation: a `rag:` source's documents are chunked, indexed by each
//! strategy (BM25 keywords, model embeddings) in that strategy's SQLite database, and searched
//! by one tool whose results are fused across strategies.
//!
//! Shaped for query speed and cheap re-indexing: a database keeps each file's content hash,
//! so only new or changed files are chunked and embedded again; the index a query reads is
//! rebuilt in memory from the database after a change (vectors contiguous and normalised,
//! BM25 postings), never read row by row per query. A file watcher marks the source dirty so
//! the next query sees edits. What follows retrieval (reranking, the query cache, the
//! topology prior) has a module each, applied in `source.rs`.

mod bm25;
mod chunk;
mod docs;
mod fusion;
mod prefetch;
mod rerank;
mod semantic;
mod source;
mod store;
mod tool;
mod topology;
mod vectors;

use std::path::PathBuf;

pub use bm25::Bm25Index;
pub use chunk::{Symbols, chunk, chunks_with_symbols, text_chunks};
pub use fusion::fuse;
pub use source::{ChatFor, EmbedderFor, IndexReport, Models, Rag, RerankerFor};
pub use store::{Store, StoredChunk, decode};
pub use tool::RagTool;
pub use vectors::{VectorIndex, dot, normalise};

/// One retrieved chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The document's path.
    pub path: String,
    /// The chunk's position in the document (0-based).
    pub index: usize,
    pub content: String,
    /// The strategy's score, or the fused one.
    pub score: f64,
}

/// Why indexing or a query failed (a tool answer, never a crash).
#[derive(Debug, thiserror::Error)]
pub enum RagError {
    /// A strategy's database could not be opened, read or written. Not retryable.
    #[error("RAG database `{}`: {message}", path.display())]
    Database { path: PathBuf, message: String },
    /// The embedding model is unknown, unreachable or answered badly. Retryable when the
    /// provider's error is.
    #[error("embedding model `{model}`: {message}")]
    Model { model: String, message: String },
    /// The file watcher could not start. Not retryable.
    #[error("cannot watch RAG documents: {0}")]
    Watch(String),
    /// An indexing pass outlasted `indexing_timeout`. Retryable: files indexed so far are
    /// kept, and the next query resumes with the rest.
    #[error(
        "indexing took longer than `indexing_timeout` ({}s); files indexed so far are kept and the next query resumes",
        .0.as_secs_f64()
    )]
    Timeout(std::time::Duration),
}
