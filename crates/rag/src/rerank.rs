//! `results.reranking`: the first `top_k` fused results re-scored by a model, those under
//! `threshold` dropped, the rest following unchanged, then sorted by score. A failed call
//! keeps the retrieval order (the search still answers); a failure that cannot get better
//! (an unknown model, a bad key) turns reranking off for the source's lifetime rather than
//! paying for a doomed request on every query, as docker-agent does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tether_config::Reranking;
use tether_providers::{RerankDocument, Reranker};

use crate::Hit;

#[derive(Debug)]
pub(crate) struct Rerank {
    cfg: Reranking,
    model: Arc<dyn Reranker>,
    disabled: AtomicBool,
}

impl Rerank {
    pub(crate) fn new(cfg: Reranking, model: Arc<dyn Reranker>) -> Self {
        Self {
            cfg,
            model,
            disabled: AtomicBool::new(false),
        }
    }

    /// `hits` re-scored; `limit` is `results.limit`, the default `top_k`.
    pub(crate) async fn apply(&self, query: &str, hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
        if hits.is_empty() || self.disabled.load(Ordering::Relaxed) {
            return hits;
        }
        let n = self.cfg.top_k.unwrap_or(limit).min(hits.len());
        let documents: Vec<RerankDocument> = hits[..n]
            .iter()
            .map(|h| RerankDocument {
                content: h.content.clone(),
                source_path: h.path.clone(),
            })
            .collect();
        let criteria = self.cfg.criteria.as_deref();
        let scores = match self.model.rerank(query, &documents, criteria).await {
            Ok(s) if s.len() == n => s,
            Ok(s) => {
                tracing::warn!(
                    model = self.model.id(),
                    "reranking returned {} scores for {n} results; keeping retrieval order",
                    s.len()
                );
                return hits;
            }
            Err(e) => {
                if !e.is_retryable() {
                    self.disabled.store(true, Ordering::Relaxed);
                }
                tracing::warn!(
                    model = self.model.id(),
                    "reranking failed, keeping retrieval order: {e}"
                );
                return hits;
            }
        };
        let mut out = Vec::with_capacity(hits.len());
        let mut rest = hits;
        let tail = rest.split_off(n);
        for (mut hit, score) in rest.into_iter().zip(scores) {
            if self.cfg.threshold > 0.0 && score < self.cfg.threshold {
                continue;
            }
            hit.score = score;
            out.push(hit);
        }
        out.extend(tail);
        // Stable: equal scores keep the retrieval order.
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        out
    }
}
