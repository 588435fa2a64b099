//! `results:` of a RAG source: fusion, reranking, the query cache and the topology prior.

use std::time::Duration;

use serde_json::{Map, Value};

use super::Entry;
use crate::mcp::parse_go_duration;
use crate::rag::{Fusion, Prefetch, RagResults, Reranking, TopologyPrior};

const RESULTS_KEYS: &[&str] = &[
    "limit",
    "fusion",
    "deduplicate",
    "include_score",
    "return_full_content",
    "reranking",
    "prefetch",
    "topology_prior",
];
const RERANKING_KEYS: &[&str] = &["model", "top_k", "threshold", "criteria"];
const PREFETCH_KEYS: &[&str] = &[
    "enabled",
    "max_entries",
    "max_candidates",
    "min_similarity",
    "drift_threshold",
    "timeout",
];
const TOPOLOGY_KEYS: &[&str] = &["enabled", "weight", "max_source_history"];

impl Entry<'_, '_, '_> {
    pub(super) fn results(&mut self, path: &str, value: &Value) -> RagResults {
        let d = RagResults::default();
        let Some(map) = self.object(path, value) else {
            return d;
        };
        self.keys(path, map, RESULTS_KEYS);
        let fusion = match map.get("fusion") {
            None | Some(Value::Null) => d.fusion.clone(),
            Some(f) => self.fusion(&format!("{path}.fusion"), f),
        };
        let sub = |key: &str| map.get(key).filter(|v| !v.is_null());
        RagResults {
            limit: self.count(&format!("{path}.limit"), map.get("limit"), d.limit, 1),
            fusion,
            deduplicate: self.bool(&format!("{path}.deduplicate"), map.get("deduplicate"), true),
            include_score: self.bool(
                &format!("{path}.include_score"),
                map.get("include_score"),
                false,
            ),
            return_full_content: self.bool(
                &format!("{path}.return_full_content"),
                map.get("return_full_content"),
                false,
            ),
            reranking: sub("reranking")
                .and_then(|r| self.reranking(&format!("{path}.reranking"), r)),
            prefetch: sub("prefetch").and_then(|p| self.prefetch(&format!("{path}.prefetch"), p)),
            topology_prior: sub("topology_prior")
                .and_then(|t| self.topology(&format!("{path}.topology_prior"), t)),
        }
    }

    fn reranking(&mut self, path: &str, value: &Value) -> Option<Reranking> {
        let map = self.object(path, value)?;
        self.keys(path, map, RERANKING_KEYS);
        let model = self.string(&format!("{path}.model"), map.get("model"));
        let model = match model {
            Some(m) if !m.trim().is_empty() => m,
            _ => {
                self.err(&format!("{path}.model"), "`model` is required");
                return None;
            }
        };
        let top_k = self.count(&format!("{path}.top_k"), map.get("top_k"), 0, 0);
        let criteria = self
            .string(&format!("{path}.criteria"), map.get("criteria"))
            .filter(|c| !c.trim().is_empty());
        Some(Reranking {
            model,
            top_k: (top_k > 0).then_some(top_k),
            threshold: self.number(&format!("{path}.threshold"), map.get("threshold"), 0.5, 1.0),
            criteria,
        })
    }

    /// `enabled` (default false, as docker-agent: the block alone turns nothing on).
    fn enabled(&mut self, path: &str, map: &Map<String, Value>) -> bool {
        self.bool(&format!("{path}.enabled"), map.get("enabled"), false)
    }

    fn prefetch(&mut self, path: &str, value: &Value) -> Option<Prefetch> {
        let map = self.object(path, value)?;
        self.keys(path, map, PREFETCH_KEYS);
        let enabled = self.enabled(path, map);
        let timeout = match map.get("timeout") {
            None | Some(Value::Null) => Duration::from_secs(10),
            Some(Value::String(s)) => match parse_go_duration(s) {
                Ok(d) if !d.is_zero() => d,
                Ok(_) => Duration::from_secs(10),
                Err(e) => {
                    self.err(&format!("{path}.timeout"), e);
                    Duration::from_secs(10)
                }
            },
            Some(_) => {
                self.err(
                    &format!("{path}.timeout"),
                    "expected a duration such as `10s`",
                );
                Duration::from_secs(10)
            }
        };
        let prefetch = Prefetch {
            max_entries: self.count(
                &format!("{path}.max_entries"),
                map.get("max_entries"),
                32,
                1,
            ),
            max_candidates: self.count(
                &format!("{path}.max_candidates"),
                map.get("max_candidates"),
                0,
                0,
            ),
            min_similarity: self.number(
                &format!("{path}.min_similarity"),
                map.get("min_similarity"),
                0.5,
                f64::MAX,
            ),
            drift_threshold: self.number(
                &format!("{path}.drift_threshold"),
                map.get("drift_threshold"),
                0.8,
                f64::MAX,
            ),
            timeout,
        };
        enabled.then_some(prefetch)
    }

    fn topology(&mut self, path: &str, value: &Value) -> Option<TopologyPrior> {
        let map = self.object(path, value)?;
        self.keys(path, map, TOPOLOGY_KEYS);
        let enabled = self.enabled(path, map);
        let weight = self.number(&format!("{path}.weight"), map.get("weight"), 0.05, 1.0);
        let prior = TopologyPrior {
            // docker-agent caps the boost so it can only break near-ties.
            weight: if weight > 0.0 { weight.min(0.2) } else { 0.05 },
            max_source_history: self.count(
                &format!("{path}.max_source_history"),
                map.get("max_source_history"),
                32,
                1,
            ),
        };
        enabled.then_some(prior)
    }

    fn fusion(&mut self, path: &str, value: &Value) -> Fusion {
        let Some(map) = self.object(path, value) else {
            return Fusion::Rrf { k: 60 };
        };
        self.keys(path, map, &["strategy", "k", "weights"]);
        let k = self.count(&format!("{path}.k"), map.get("k"), 60, 1);
        match map.get("strategy").and_then(Value::as_str).unwrap_or("rrf") {
            "rrf" | "reciprocal_rank_fusion" => Fusion::Rrf {
                k: u32::try_from(k).unwrap_or(u32::MAX),
            },
            "max" => Fusion::Max,
            "weighted" => {
                let weights = match map
                    .get("weights")
                    .and_then(|w| self.object(&format!("{path}.weights"), w))
                {
                    Some(w) => w
                        .iter()
                        .map(|(name, v)| {
                            let weight =
                                self.number(&format!("{path}.weights.{name}"), Some(v), 0.0, 1.0);
                            (name.clone(), weight)
                        })
                        .collect(),
                    None => {
                        self.err(
                            &format!("{path}.weights"),
                            "`weighted` fusion needs `weights`",
                        );
                        Vec::new()
                    }
                };
                Fusion::Weighted { weights }
            }
            other => {
                self.err(
                    &format!("{path}.strategy"),
                    format!("unknown fusion `{other}`; expected rrf, weighted or max"),
                );
                Fusion::Rrf { k: 60 }
            }
        }
    }
}
