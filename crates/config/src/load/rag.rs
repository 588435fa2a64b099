//! Validation of `rag:` sources. An entry is read as plain YAML data and checked key by key
//! (docker-agent's strategies take type-specific keys side by side), so every unknown key and
//! every field Tether cannot honour is an error naming its path.

mod results;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use serde_saphyr::{Location, Spanned};

use super::Validator;
use crate::mcp::parse_go_duration;
use crate::rag::{Chunking, Fusion, RagResults, RagSource, RagStrategy, RagStrategyKind};

const SOURCE_KEYS: &[&str] = &[
    "tool",
    "docs",
    "respect_vcs",
    "strategies",
    "results",
    "description",
    "indexing_timeout",
];
const TOOL_KEYS: &[&str] = &["name", "description", "instruction"];
const COMMON_KEYS: &[&str] = &[
    "type",
    "docs",
    "database",
    "limit",
    "threshold",
    "chunking",
    "respect_vcs",
];
const EMBEDDING_KEYS: &[&str] = &[
    "embedding_model",
    "model",
    "vector_dimensions",
    "similarity_metric",
    "batch_size",
    "embedding_batch_size",
    "max_embedding_concurrency",
    "max_indexing_concurrency",
];
const SEMANTIC_KEYS: &[&str] = &["chat_model", "semantic_prompt", "ast_context"];
const BM25_KEYS: &[&str] = &["k1", "b", "max_indexing_concurrency"];
const CHUNKING_KEYS: &[&str] = &["size", "overlap", "respect_word_boundaries", "code_aware"];

/// Reads one entry's keys with its location, for errors.
struct Entry<'v, 'a, 'b> {
    v: &'v mut Validator<'a>,
    at: &'b Location,
}

impl Entry<'_, '_, '_> {
    fn err(&mut self, path: &str, message: impl Into<String>) {
        let origin = self.v.origin(self.at, path);
        self.v.error(origin, message);
    }

    /// Each key of `map` outside `allowed` is an error.
    fn keys(&mut self, path: &str, map: &Map<String, Value>, allowed: &[&str]) {
        for key in map.keys() {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            self.err(
                &format!("{path}.{key}"),
                format!(
                    "unknown key `{key}`; expected one of {}",
                    allowed.join(", ")
                ),
            );
        }
    }

    fn object<'m>(&mut self, path: &str, value: &'m Value) -> Option<&'m Map<String, Value>> {
        match value {
            Value::Object(m) => Some(m),
            Value::Null => None,
            _ => {
                self.err(path, "expected a map");
                None
            }
        }
    }

    fn string(&mut self, path: &str, value: Option<&Value>) -> Option<String> {
        match value? {
            Value::String(s) => Some(s.clone()),
            _ => {
                self.err(path, "expected a string");
                None
            }
        }
    }

    fn strings(&mut self, path: &str, value: Option<&Value>) -> Vec<String> {
        match value {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| self.string(&format!("{path}[{i}]"), Some(v)))
                .collect(),
            Some(_) => {
                self.err(path, "expected a list of strings");
                Vec::new()
            }
        }
    }

    fn bool(&mut self, path: &str, value: Option<&Value>, default: bool) -> bool {
        match value {
            None | Some(Value::Null) => default,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.err(path, "expected true or false");
                default
            }
        }
    }

    /// A whole number of at least `min`.
    fn count(&mut self, path: &str, value: Option<&Value>, default: usize, min: u64) -> usize {
        match value {
            None | Some(Value::Null) => default,
            Some(v) => match v.as_u64().filter(|n| *n >= min) {
                Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
                None => {
                    self.err(path, format!("expected a whole number of at least {min}"));
                    default
                }
            },
        }
    }

    fn number(&mut self, path: &str, value: Option<&Value>, default: f64, max: f64) -> f64 {
        match value {
            None | Some(Value::Null) => default,
            Some(v) => match v.as_f64().filter(|n| (0.0..=max).contains(n)) {
                Some(n) => n,
                None => {
                    self.err(path, format!("expected a number from 0 to {max}"));
                    default
                }
            },
        }
    }
}

impl Validator<'_> {
    /// The top-level `rag:` entries (`None`: the entry had errors, already reported).
    pub(super) fn rag_sources(
        &mut self,
        raw: Vec<(String, Spanned<Value>)>,
    ) -> Vec<(String, Option<Arc<RagSource>>)> {
        raw.into_iter()
            .map(|(name, value)| {
                let before = self.diags.len();
                let source = self.rag_source(&name, &value.value, &value.referenced);
                let ok = self.diags.len() == before;
                (name, source.filter(|_| ok).map(Arc::new))
            })
            .collect()
    }

    fn rag_source(&mut self, name: &str, value: &Value, at: &Location) -> Option<RagSource> {
        let path = format!("rag.{name}");
        let mut e = Entry { v: self, at };
        let map = e.object(&path, value)?;
        e.keys(&path, map, SOURCE_KEYS);
        let (mut tool_name, mut description, mut instruction) = (None, None, None);
        if let Some(tool) = map
            .get("tool")
            .and_then(|t| e.object(&format!("{path}.tool"), t))
        {
            e.keys(&format!("{path}.tool"), tool, TOOL_KEYS);
            tool_name = e.string(&format!("{path}.tool.name"), tool.get("name"));
            description = e.string(&format!("{path}.tool.description"), tool.get("description"));
            instruction = e.string(&format!("{path}.tool.instruction"), tool.get("instruction"));
        }
        description = description
            .or_else(|| e.string(&format!("{path}.description"), map.get("description")));
        let tool_name = tool_name.unwrap_or_else(|| name.to_owned());
        if !valid_tool_name(&tool_name) {
            e.err(
                &format!("{path}.tool.name"),
                format!("tool name `{tool_name}` may hold only letters, digits, `_` and `-`"),
            );
        }
        let docs = e.strings(&format!("{path}.docs"), map.get("docs"));
        let respect_vcs = e.bool(&format!("{path}.respect_vcs"), map.get("respect_vcs"), true);
        let strategies = match map.get("strategies") {
            Some(Value::Array(list)) if !list.is_empty() => list
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    e.strategy(&format!("{path}.strategies[{i}]"), name, s, respect_vcs)
                })
                .collect::<Vec<_>>(),
            _ => {
                e.err(
                    &format!("{path}.strategies"),
                    "a list of at least one strategy is required",
                );
                Vec::new()
            }
        };
        let indexing_timeout = e.timeout(&format!("{path}.indexing_timeout"), map);
        let results = match map.get("results") {
            Some(r) => e.results(&format!("{path}.results"), r),
            None => RagResults::default(),
        };
        if let Fusion::Weighted { weights } = &results.fusion {
            for s in &strategies {
                if !weights.iter().any(|(n, _)| n == s.kind.type_name()) {
                    e.err(
                        &format!("{path}.results.fusion.weights"),
                        format!("no weight for strategy `{}`", s.kind.type_name()),
                    );
                }
            }
        }
        if docs.is_empty() && strategies.iter().all(|s| s.docs.is_empty()) {
            e.err(
                &format!("{path}.docs"),
                "no documents to index: give `docs`",
            );
        }
        Some(RagSource {
            name: name.to_owned(),
            tool_name,
            description,
            instruction,
            base_dir: self.dir.to_path_buf(),
            docs,
            respect_vcs,
            strategies,
            results,
            indexing_timeout,
        })
    }

    /// `type: rag` with `ref:` (or an agent's `rag:` entry): the named source.
    pub(super) fn rag_ref(
        &mut self,
        path: &str,
        reference: Option<Spanned<String>>,
        at: &Location,
    ) -> Option<Arc<RagSource>> {
        let Some(reference) = reference else {
            self.error_hint(
                self.origin(at, path),
                "a `type: rag` toolset needs `ref`",
                "name a source of the top-level `rag:`, e.g. `ref: docs`",
            );
            return None;
        };
        match self.rag.iter().find(|(n, _)| *n == reference.value) {
            Some((_, source)) => source.clone(),
            None => {
                self.error_hint(
                    self.origin(&reference.referenced, path),
                    format!("unknown RAG source `{}`", reference.value),
                    "define it under the top-level `rag:`",
                );
                None
            }
        }
    }
}

impl Entry<'_, '_, '_> {
    fn strategy(
        &mut self,
        path: &str,
        source: &str,
        value: &Value,
        respect_vcs: bool,
    ) -> Option<RagStrategy> {
        let map = self.object(path, value)?;
        let kind = match map.get("type").and_then(Value::as_str) {
            Some("chunked-embeddings") => RagStrategyKind::ChunkedEmbeddings,
            Some("bm25") => RagStrategyKind::Bm25,
            Some("semantic-embeddings") => RagStrategyKind::SemanticEmbeddings,
            Some(other) => {
                self.err(
                    &format!("{path}.type"),
                    format!(
                        "unknown RAG strategy `{other}`; expected chunked-embeddings, semantic-embeddings or bm25"
                    ),
                );
                return None;
            }
            None => {
                self.err(&format!("{path}.type"), "`type` is required");
                return None;
            }
        };
        let extra: &[&[&str]] = match kind {
            RagStrategyKind::ChunkedEmbeddings => &[EMBEDDING_KEYS],
            RagStrategyKind::SemanticEmbeddings => &[EMBEDDING_KEYS, SEMANTIC_KEYS],
            RagStrategyKind::Bm25 => &[BM25_KEYS],
        };
        let allowed: Vec<&str> = COMMON_KEYS
            .iter()
            .chain(extra.iter().flat_map(|k| k.iter()))
            .copied()
            .collect();
        self.keys(path, map, &allowed);
        let docs = self.strings(&format!("{path}.docs"), map.get("docs"));
        let database = self
            .string(&format!("{path}.database"), map.get("database"))
            .map_or_else(
                || PathBuf::from(format!(".{source}.{}.db", kind.type_name())),
                PathBuf::from,
            );
        let limit = self.count(&format!("{path}.limit"), map.get("limit"), 5, 1);
        let (default_threshold, max) = if kind.embeds() {
            (0.5, 1.0)
        } else {
            (0.0, f64::MAX)
        };
        let threshold = self.number(
            &format!("{path}.threshold"),
            map.get("threshold"),
            default_threshold,
            max,
        );
        let chunking = match map.get("chunking") {
            Some(c) => self.chunking(&format!("{path}.chunking"), c),
            None => Chunking::default(),
        };
        let respect_vcs = self.bool(
            &format!("{path}.respect_vcs"),
            map.get("respect_vcs"),
            respect_vcs,
        );
        let mut strategy = RagStrategy {
            kind,
            docs,
            database,
            limit,
            threshold,
            chunking,
            respect_vcs,
            embedding_model: None,
            vector_dimensions: None,
            batch_size: 50,
            concurrency: 3,
            chat_model: None,
            semantic_prompt: None,
            ast_context: false,
            k1: self.number(&format!("{path}.k1"), map.get("k1"), 1.5, 100.0),
            b: self.number(&format!("{path}.b"), map.get("b"), 0.75, 1.0),
        };
        if kind == RagStrategyKind::SemanticEmbeddings {
            strategy.chat_model = self
                .string(&format!("{path}.chat_model"), map.get("chat_model"))
                .filter(|m| !m.trim().is_empty());
            if strategy.chat_model.is_none() {
                self.err(&format!("{path}.chat_model"), "`chat_model` is required");
            }
            strategy.semantic_prompt = self
                .string(
                    &format!("{path}.semantic_prompt"),
                    map.get("semantic_prompt"),
                )
                .filter(|p| !p.trim().is_empty());
            strategy.ast_context = self.bool(
                &format!("{path}.ast_context"),
                map.get("ast_context"),
                false,
            );
        }
        if kind.embeds() {
            let model = map.get("embedding_model").or_else(|| map.get("model"));
            strategy.embedding_model = self.string(&format!("{path}.embedding_model"), model);
            match strategy.embedding_model.as_deref() {
                None => self.err(
                    &format!("{path}.embedding_model"),
                    "`embedding_model` is required",
                ),
                Some("auto") => self.err(
                    &format!("{path}.embedding_model"),
                    "RAG `embedding_model: auto` is not supported yet",
                ),
                Some(_) => {}
            }
            strategy.vector_dimensions = map
                .get("vector_dimensions")
                .map(|v| self.count(&format!("{path}.vector_dimensions"), Some(v), 0, 1));
            let batch = map
                .get("embedding_batch_size")
                .or_else(|| map.get("batch_size"));
            strategy.batch_size = self.count(&format!("{path}.batch_size"), batch, 50, 1);
            // Embedding batches go one at a time; summaries (semantic-embeddings) run
            // `max_embedding_concurrency` at once; files are indexed one by one.
            strategy.concurrency = self.count(
                &format!("{path}.max_embedding_concurrency"),
                map.get("max_embedding_concurrency"),
                3,
                1,
            );
            self.count(
                &format!("{path}.max_indexing_concurrency"),
                map.get("max_indexing_concurrency"),
                1,
                1,
            );
            if let Some(m) = map.get("similarity_metric")
                && m.as_str() != Some("cosine_similarity")
            {
                self.err(
                    &format!("{path}.similarity_metric"),
                    "only `cosine_similarity` is supported",
                );
            }
        } else {
            self.count(
                &format!("{path}.max_indexing_concurrency"),
                map.get("max_indexing_concurrency"),
                1,
                1,
            );
        }
        Some(strategy)
    }

    /// `indexing_timeout`: a Go duration, default 30 minutes, `0s` for no bound.
    fn timeout(&mut self, path: &str, map: &Map<String, Value>) -> Option<Duration> {
        let default = Some(Duration::from_secs(30 * 60));
        match map.get("indexing_timeout") {
            None | Some(Value::Null) => default,
            Some(Value::String(s)) => match parse_go_duration(s) {
                Ok(d) => (!d.is_zero()).then_some(d),
                Err(e) => {
                    self.err(path, e);
                    default
                }
            },
            Some(_) => {
                self.err(path, "expected a duration such as `30m`");
                default
            }
        }
    }

    fn chunking(&mut self, path: &str, value: &Value) -> Chunking {
        let d = Chunking::default();
        let Some(map) = self.object(path, value) else {
            return d;
        };
        self.keys(path, map, CHUNKING_KEYS);
        let size = self.count(&format!("{path}.size"), map.get("size"), d.size, 1);
        let overlap = self.count(&format!("{path}.overlap"), map.get("overlap"), d.overlap, 0);
        if overlap >= size {
            self.err(
                &format!("{path}.overlap"),
                "`overlap` must be smaller than `size`",
            );
        }
        Chunking {
            size,
            overlap: overlap.min(size.saturating_sub(1)),
            respect_word_boundaries: self.bool(
                &format!("{path}.respect_word_boundaries"),
                map.get("respect_word_boundaries"),
                true,
            ),
            code_aware: self.bool(&format!("{path}.code_aware"), map.get("code_aware"), false),
        }
    }
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
