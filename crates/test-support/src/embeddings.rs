//! A fake embedding server speaking OpenAI's `POST /v1/embeddings` (the dialect of Docker
//! Model Runner and the compatible services too). Its vectors are deterministic bags of
//! words: each lowercase word (stop words dropped, a plural `s` trimmed) adds 1 to a bucket
//! chosen by hashing it, so texts sharing words are close and retrieval is meaningful. It
//! counts requests and the texts it embedded, so tests can prove what was re-embedded.
//!
//! It also answers Docker Model Runner's `POST /rerank` (at the host root, as DMR serves
//! it): each document's `relevance_score` is the logit `8 * cos - 2` of the cosine between
//! the query's and the document's vectors, results listed best first as llama.cpp does.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The running server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeEmbeddings {
    addr: SocketAddr,
    state: Arc<Mutex<Seen>>,
    _shutdown: oneshot::Sender<()>,
}

#[derive(Debug, Default)]
struct Seen {
    requests: usize,
    texts: Vec<String>,
    dimensions: usize,
    reranks: Vec<Value>,
}

const STOP: &[&str] = &[
    "the", "a", "an", "of", "and", "or", "to", "in", "on", "is", "are", "was", "for", "with", "by",
    "as", "at", "it", "its", "be", "that", "this", "from", "what", "how", "do", "does",
];

/// The vector the server gives `text` (unit length; all zeros for a text of stop words).
pub fn bag_of_words(text: &str, dimensions: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; dimensions.max(1)];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() > 1 && !STOP.contains(&w.as_str()))
    {
        let word = word
            .strip_suffix('s')
            .filter(|w| w.len() > 2)
            .unwrap_or(&word);
        // FNV-1a: stable across runs and platforms.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in word.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let i = usize::try_from(h % v.len() as u64).unwrap_or(0);
        v[i] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

impl FakeEmbeddings {
    /// Starts on the current tokio runtime, answering vectors of `dimensions` floats.
    pub async fn start(dimensions: usize) -> std::io::Result<Self> {
        let state = Arc::new(Mutex::new(Seen {
            dimensions,
            ..Seen::default()
        }));
        let app = Router::new()
            .route("/v1/embeddings", post(embed))
            .route("/rerank", post(rerank))
            .with_state(state.clone());
        let (addr, shutdown) = crate::fake_llm::spawn_async(app).await?;
        Ok(Self {
            addr,
            state,
            _shutdown: shutdown,
        })
    }

    /// `http://127.0.0.1:PORT/v1`, the `base_url` of a model using it.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Embedding requests served so far.
    pub fn requests(&self) -> usize {
        self.seen().requests
    }

    /// Every text embedded so far, in order.
    pub fn texts(&self) -> Vec<String> {
        self.seen().texts.clone()
    }

    /// Every `/rerank` request body received so far.
    pub fn reranks(&self) -> Vec<Value> {
        self.seen().reranks.clone()
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn embed(State(state): State<Arc<Mutex<Seen>>>, body: String) -> Response {
    let Ok(req) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "invalid JSON").into_response();
    };
    let inputs: Vec<String> = match &req["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => return (StatusCode::BAD_REQUEST, "`input` is required").into_response(),
    };
    let dims = {
        let mut seen = state.lock().unwrap_or_else(PoisonError::into_inner);
        seen.requests += 1;
        seen.texts.extend(inputs.iter().cloned());
        seen.dimensions
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(
            |(i, t)| json!({"object": "embedding", "index": i, "embedding": bag_of_words(t, dims)}),
        )
        .collect();
    axum::Json(json!({
        "object": "list",
        "data": data,
        "model": req["model"],
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }))
    .into_response()
}

async fn rerank(State(state): State<Arc<Mutex<Seen>>>, body: String) -> Response {
    let Ok(req) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "invalid JSON").into_response();
    };
    let (Some(query), Some(docs)) = (req["query"].as_str(), req["documents"].as_array()) else {
        return (
            StatusCode::BAD_REQUEST,
            "`query` and `documents` are required",
        )
            .into_response();
    };
    let dims = {
        let mut seen = state.lock().unwrap_or_else(PoisonError::into_inner);
        seen.reranks.push(req.clone());
        seen.dimensions
    };
    let q = bag_of_words(query, dims);
    let mut results: Vec<(usize, f32)> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let v = bag_of_words(d.as_str().unwrap_or_default(), dims);
            let cos: f32 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
            (i, 8.0 * cos - 2.0)
        })
        .collect();
    results.sort_by(|a, b| b.1.total_cmp(&a.1));
    let results: Vec<Value> = results
        .into_iter()
        .map(|(i, s)| json!({"index": i, "relevance_score": s}))
        .collect();
    axum::Json(json!({
        "model": req["model"],
        "object": "list",
        "results": results,
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }))
    .into_response()
}
