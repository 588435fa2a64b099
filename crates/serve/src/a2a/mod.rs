//! `tether serve a2a`: an agent over A2A (JSON-RPC; protocol 1.0 and 0.3) with its agent card.
//!
//! Like docker-agent: the card is named after the agent file and offers one skill, JSON-RPC
//! is posted to `/invoke`, and every message runs a fresh session. Unlike it: each request is
//! answered in the generation it came in (told by its method name), tasks are kept for
//! `tasks/get` and `tasks/cancel`, tools are not approved up front (a question nobody can
//! answer is a denial), and a token can guard everything but the card.

mod card;
mod tasks;
mod turn;
mod wire;

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State as AxState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use serde_json::Value;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::catalog::CatalogEntry;
use crate::hub::Hub;
use crate::listen::{Listen, bearer_ok, serve_http};
use tasks::{MAX_TASKS, Tasks};
use turn::Update;
use wire::{Method, Render, Request, RpcError, SendParamsWire, TaskIdWire, Version};

#[derive(Debug, Clone)]
pub struct A2aOptions {
    pub agent: String,
    pub listen: Listen,
    /// Every request but the agent card needs `Authorization: Bearer TOKEN`.
    pub auth_token: Option<String>,
}

/// Request bodies larger than this are refused (413).
const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// What every request handler shares.
#[derive(Debug)]
pub(crate) struct Shared {
    hub: Arc<Hub>,
    entry: CatalogEntry,
    /// The agent each run starts with.
    agent: String,
    tasks: Tasks,
    token: Option<String>,
    /// The address bound, for the card when a request names no Host.
    bound: OnceLock<String>,
}

/// Serves until `shutdown`; `bound` hears the address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: A2aOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let entry = hub.entry(None)?.clone();
    // Fails now, not at the first message, when `--agent` names no agent of the file.
    let (_, agent) = hub.runtime(&entry, Some(&opts.agent))?;
    let shared = Arc::new(Shared {
        hub,
        entry,
        agent,
        tasks: Tasks::new(MAX_TASKS),
        token: opts.auth_token,
        bound: OnceLock::new(),
    });
    let app = Router::new()
        .route("/.well-known/agent-card.json", get(agent_card))
        .route("/.well-known/agent.json", get(agent_card))
        .route(card::RPC_PATH, post(rpc))
        .route("/", post(rpc))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(Arc::clone(&shared));
    serve_http(&opts.listen, app, shutdown, |addr| {
        let _ = shared.bound.set(addr.to_owned());
        bound(addr);
    })
    .await
    .map_err(|e| e.to_string())
}

async fn agent_card(AxState(shared): AxState<Arc<Shared>>, headers: HeaderMap) -> Json<Value> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let base = card::base_url(host, shared.bound.get().map(String::as_str));
    Json(card::card(&shared, &base))
}

async fn rpc(AxState(shared): AxState<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(token) = &shared.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok());
        if !bearer_ok(given, token) {
            let mut r = refuse(
                StatusCode::UNAUTHORIZED,
                "unauthorized: send `Authorization: Bearer TOKEN` with the server's token",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
            return r;
        }
    }
    if !json_content(&headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send JSON-RPC with `Content-Type: application/json`",
        );
    }
    let req = match Request::parse(&body) {
        Ok(r) => r,
        Err((id, e)) => return json(wire::error_response(&id, &e)),
    };
    let (method, version) = match wire::method(&req.method) {
        Ok(m) => m,
        Err(e) => return json(wire::error_response(&req.id, &e)),
    };
    let stream = method == Method::Stream;
    let answer = match check_version(&headers, version) {
        Ok(()) => {
            dispatch(
                &shared,
                req.id.clone(),
                &req.method,
                method,
                version,
                req.params,
            )
            .await
        }
        Err(e) => Err(e),
    };
    match answer {
        Ok(r) => r,
        // A streaming client reads its error from the stream.
        Err(e) if stream => sse(futures::stream::iter([wire::error_response(&req.id, &e)])),
        Err(e) => json(wire::error_response(&req.id, &e)),
    }
}

/// An HTTP error whose body is still a JSON-RPC error, for clients that read only that.
fn refuse(status: StatusCode, message: &str) -> Response {
    let e = RpcError::new(wire::INVALID_REQUEST, message);
    (status, Json(wire::error_response(&Value::Null, &e))).into_response()
}

/// Whether the body is declared JSON. A web page can post a form or `text/plain` to a local
/// server without asking first; JSON makes the browser ask (CORS), and this server says no.
fn json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .is_some_and(|m| m.starts_with("application/") && m.ends_with("json"))
}

/// A 1.0 method sent with `A2A-Version: 0.x` is a client confused about what it speaks.
fn check_version(headers: &HeaderMap, version: Version) -> Result<(), RpcError> {
    let said = headers
        .get("a2a-version")
        .and_then(|h| h.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty());
    match (version, said) {
        (Version::V10, Some(v)) if v.starts_with("0.") => Err(RpcError::new(
            wire::VERSION_NOT_SUPPORTED,
            format!(
                "A2A-Version `{v}` does not have 1.0 methods: use `message/send` and the 0.3 shapes, or send `A2A-Version: 1.0`"
            ),
        )),
        _ => Ok(()),
    }
}

async fn dispatch(
    shared: &Arc<Shared>,
    id: Value,
    name: &str,
    method: Method,
    version: Version,
    params: Value,
) -> Result<Response, RpcError> {
    let render = Render(version);
    match method {
        Method::Get => {
            let p: TaskIdWire = wire::params(name, params)?;
            let task = shared.tasks.get(&p.id)?;
            Ok(json(wire::result_response(
                &id,
                render.task(&task, p.history_length),
            )))
        }
        Method::Cancel => {
            let p: TaskIdWire = wire::params(name, params)?;
            let task = shared.tasks.cancel(&p.id, turn::now())?;
            Ok(json(wire::result_response(&id, render.task(&task, None))))
        }
        Method::Send | Method::Stream => {
            let p: SendParamsWire = wire::params(name, params)?;
            let text = p.message.text();
            if text.is_empty() {
                return Err(RpcError::params(
                    "the message has no text part: send `parts` with text",
                ));
            }
            if let Some(task_id) = &p.message.task_id {
                let task = shared.tasks.get(task_id)?;
                return Err(RpcError::params(format!(
                    "task `{}` is {}: each task takes one message; send a new message without `taskId` (the same `contextId` is fine)",
                    task.id,
                    task.state.wire(version)
                )));
            }
            let config = p.configuration.unwrap_or_default();
            let started = turn::start(
                shared,
                p.message.context_id.clone(),
                p.message.message_id.clone(),
                text,
            );
            if method == Method::Stream {
                return Ok(stream(id, render, started));
            }
            if !config.blocking() {
                let task = shared.tasks.get(&started.task.id)?;
                return Ok(json(wire::result_response(
                    &id,
                    render.send_result(&task, config.history_length),
                )));
            }
            finish(id, render, started, config.history_length).await
        }
    }
}

/// Waits for the task's end; a client that goes away first cancels the turn.
async fn finish(
    id: Value,
    render: Render,
    mut started: turn::Started,
    history_length: Option<usize>,
) -> Result<Response, RpcError> {
    let guard = started.cancel.clone().drop_guard();
    while let Some(update) = started.updates.recv().await {
        if let Update::Done(task) = update {
            guard.disarm();
            return Ok(json(wire::result_response(
                &id,
                render.send_result(&task, history_length),
            )));
        }
    }
    Err(RpcError::new(
        wire::INTERNAL,
        format!("task `{}` ended without an answer", started.task.id),
    ))
}

/// The task as SSE: the task, its status and artifact updates, the final status. Dropping
/// the stream (the client went away) cancels the turn.
fn stream(id: Value, render: Render, started: turn::Started) -> Response {
    struct St {
        id: Value,
        render: Render,
        first: Option<wire::Task>,
        updates: tokio::sync::mpsc::UnboundedReceiver<Update>,
        guard: Option<DropGuard>,
    }
    let state = St {
        id,
        render,
        first: Some(started.task),
        updates: started.updates,
        guard: Some(started.cancel.drop_guard()),
    };
    let events = futures::stream::unfold(state, |mut st| async move {
        if let Some(task) = st.first.take() {
            let v = wire::result_response(&st.id, st.render.task_event(&task));
            return Some((v, st));
        }
        st.guard.as_ref()?;
        let result = match st.updates.recv().await {
            Some(Update::Status(task)) => st.render.status_event(&task, false),
            Some(Update::Chunk {
                task_id,
                context_id,
                artifact,
                append,
            }) => st
                .render
                .artifact_event(&task_id, &context_id, &artifact, append, false),
            Some(Update::Artifact(task, a)) => {
                st.render
                    .artifact_event(&task.id, &task.context_id, &a, false, true)
            }
            Some(Update::Done(task)) => {
                if let Some(g) = st.guard.take() {
                    g.disarm();
                }
                st.render.status_event(&task, true)
            }
            None => return None,
        };
        Some((wire::result_response(&st.id, result), st))
    });
    sse(events)
}

fn sse(events: impl Stream<Item = Value> + Send + 'static) -> Response {
    use futures::StreamExt;
    let events = events.map(|v| Ok::<_, Infallible>(Event::default().data(v.to_string())));
    // Comments now and then keep idle proxies from closing a long turn's stream.
    Sse::new(events)
        .keep_alive(axum::response::sse::KeepAlive::default())
        .into_response()
}

fn json(v: Value) -> Response {
    Json(v).into_response()
}
