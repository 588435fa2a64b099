//! `tether serve chat`: the agents as models of an OpenAI-compatible chat completions API
//! (`POST /v1/chat/completions`, plain or streamed; `GET /v1/models`).

mod completions;
mod conversations;
mod wire;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio_util::sync::CancellationToken;

use crate::catalog::CatalogEntry;
use crate::hub::Hub;
use crate::listen::{Listen, bearer_ok, serve_http};
use conversations::Conversations;
use wire::ApiError;

#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// Serve only this agent; `None`: every agent of the file, each a model.
    pub agent: Option<String>,
    pub listen: Listen,
    /// Every request needs `Authorization: Bearer KEY`.
    pub api_key: Option<String>,
    /// Conversations kept server-side (`X-Conversation-Id`); 0: stateless.
    pub conversations_max: usize,
    /// A conversation idle this long is forgotten.
    pub conversation_ttl: Duration,
}

/// Requests larger than this are refused (413).
const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// What every request shares, built once at start.
#[derive(Debug)]
struct ChatState {
    hub: Arc<Hub>,
    entry: CatalogEntry,
    /// The agents served, each a model; the first answers requests that name none.
    models: Vec<String>,
    /// The `GET /v1/models` body.
    models_body: String,
    conversations: Option<Conversations>,
}

impl ChatState {
    /// The agent a request's `model` names.
    fn model(&self, model: &str) -> Result<&str, ApiError> {
        if model.is_empty() {
            return self
                .models
                .first()
                .map(String::as_str)
                .ok_or_else(|| ApiError::bad_request("this server serves no model".to_owned()));
        }
        self.models
            .iter()
            .find(|m| *m == model)
            .map(String::as_str)
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    "invalid_request_error",
                    "model_not_found",
                    format!(
                        "The model `{model}` does not exist (models: {})",
                        self.models.join(", ")
                    ),
                )
            })
    }
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: ChatOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let entry = hub.entry(None)?.clone();
    let models: Vec<String> = match &opts.agent {
        Some(a) if entry.file.agent(a).is_some() => vec![a.clone()],
        Some(a) => {
            return Err(format!(
                "no agent `{a}` in `{}` (agents: {})",
                entry.path.display(),
                entry.file.agent_names().join(", ")
            ));
        }
        None => entry
            .file
            .agent_names()
            .iter()
            .map(|n| (*n).to_owned())
            .collect(),
    };
    // Built now: a file that cannot run fails at start, and no request pays for a build.
    for m in &models {
        hub.runtime(&entry, Some(m))?;
    }
    let conversations = (opts.conversations_max > 0)
        .then(|| Conversations::new(opts.conversations_max, opts.conversation_ttl));
    let state = Arc::new(ChatState {
        models_body: models_body(&models),
        hub,
        entry,
        models,
        conversations,
    });
    if state.conversations.is_some() {
        sweep(Arc::clone(&state), shutdown.clone());
    }
    let app = app(state, opts.api_key);
    serve_http(&opts.listen, app, shutdown, bound)
        .await
        .map_err(|e| e.to_string())
}

fn app(state: Arc<ChatState>, api_key: Option<String>) -> axum::Router {
    let router = axum::Router::new()
        .route("/v1/chat/completions", post(completions::handle))
        .route("/v1/models", get(models))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state);
    match api_key {
        Some(key) => {
            let key: Arc<str> = key.into();
            router.layer(middleware::from_fn(move |req: Request, next: Next| {
                let key = Arc::clone(&key);
                async move { authorize(&key, req, next).await }
            }))
        }
        None => router,
    }
}

/// Forgets idle conversations even when no request comes to do it.
fn sweep(state: Arc<ChatState>, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let Some(every) = state
            .conversations
            .as_ref()
            .map(|c| c.ttl().max(Duration::from_secs(1)))
        else {
            return;
        };
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            if let Some(c) = &state.conversations {
                c.sweep();
            }
        }
    });
}

fn models_body(models: &[String]) -> String {
    let created = now();
    let data: Vec<serde_json::Value> = models
        .iter()
        .map(|m| serde_json::json!({"id": m, "object": "model", "created": created, "owned_by": "tether"}))
        .collect();
    serde_json::json!({"object": "list", "data": data}).to_string()
}

async fn models(axum::extract::State(state): axum::extract::State<Arc<ChatState>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.models_body.clone(),
    )
        .into_response()
}

async fn not_found(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "not_found",
        format!("no route {} {}", req.method(), req.uri().path()),
    )
}

async fn authorize(key: &str, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if bearer_ok(given, key) {
        next.run(req).await
    } else {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "invalid_api_key",
            "missing or invalid bearer token".to_owned(),
        )
        .into_response()
    }
}

/// Seconds since the epoch (`created`).
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
