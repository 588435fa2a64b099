//! `tether serve api`: docker-agent's HTTP API under `/api` (`pkg/server/server.go`), a
//! turn's events streamed over SSE as docker-agent names them. Sessions live in the store, so
//! another server process on the same database can continue one this process created.

mod asker;
mod events;
mod handlers;
mod live;
mod turn;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::{Listen, serve_http};

/// Request bodies above this are refused (413).
const BODY_LIMIT: usize = 4 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct ApiOptions {
    pub listen: Listen,
}

/// What every handler shares.
#[derive(Debug)]
pub(crate) struct Api {
    hub: Arc<Hub>,
    sessions: live::Sessions,
    /// Cancelled on shutdown; every turn's token is a child of it.
    shutdown: CancellationToken,
}

/// An error as the API returns it: `{"error": "..."}` with its status.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn bad(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    pub(crate) fn no_session(id: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, format!("session not found: {id}"))
    }

    /// A field docker-agent takes that Tether cannot honour.
    pub(crate) fn unsupported(field: &str, why: &str) -> Self {
        Self::bad(format!("not supported yet: `{field}` ({why})"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(serde_json::json!({"error": self.message})),
        )
            .into_response()
    }
}

fn app(api: Arc<Api>) -> Router {
    use handlers as h;
    let api_routes = Router::new()
        .route("/ping", get(h::ping))
        .route("/agents", get(h::agents))
        .route("/agents/{id}", get(h::agent))
        .route("/sessions", get(h::sessions).post(h::create))
        .route("/sessions/{id}", get(h::session).delete(h::delete))
        .route("/sessions/{id}/resume", post(h::resume))
        .route("/sessions/{id}/tools/toggle", post(h::toggle_yolo))
        .route("/sessions/{id}/thinking/toggle", post(h::toggle_thinking))
        .route("/sessions/{id}/permissions", patch(h::permissions))
        .route("/sessions/{id}/title", patch(h::title))
        .route("/sessions/{id}/elicitation", post(h::elicitation))
        .route("/sessions/{id}/agent/{agent}", post(turn::run_agent))
        .route(
            "/sessions/{id}/agent/{agent}/{agent_name}",
            post(turn::run_agent_named),
        )
        .method_not_allowed_fallback(|| async {
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        });
    Router::new()
        .nest("/api", api_routes)
        .fallback(|uri: axum::http::Uri| async move {
            ApiError::new(StatusCode::NOT_FOUND, format!("no route {uri}"))
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(api)
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: ApiOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let api = Arc::new(Api {
        hub,
        sessions: live::Sessions::default(),
        shutdown: shutdown.clone(),
    });
    let watch = Arc::clone(&api);
    let stop = shutdown.clone();
    // Turns hear the shutdown through their tokens; this also ends questions left waiting.
    tokio::spawn(async move {
        stop.cancelled().await;
        watch.sessions.cancel_all();
    });
    serve_http(&opts.listen, app(api), shutdown, bound)
        .await
        .map_err(|e| e.to_string())
}
