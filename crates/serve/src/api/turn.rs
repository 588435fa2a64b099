//! `POST /api/sessions/:id/agent/:agent[/:agent_name]`: one turn of a session, its events
//! streamed over SSE (`data: {json}` frames, as docker-agent writes them). The turn runs in
//! its own task so `session_end` runs even when the client goes; a client that goes cancels it.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use serde_json::Value;
use tether_core::{Runtime, Session};
use tether_protocol::{Message, RuntimeEvent};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::events::Mapper;
use super::handlers::parse;
use super::live::{Live, persist, refresh};
use super::{Api, ApiError};
use crate::catalog::CatalogEntry;
use crate::router::Route;

/// docker-agent's `api.Message`.
#[derive(Debug, Deserialize)]
struct MessageWire {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    content: String,
    #[serde(default)]
    multi_content: Vec<Value>,
}

pub(crate) async fn run_agent(
    State(api): State<Arc<Api>>,
    Path((id, agent)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    start(api, id, agent, None, body).await
}

pub(crate) async fn run_agent_named(
    State(api): State<Arc<Api>>,
    Path((id, agent, name)): Path<(String, String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    start(api, id, agent, Some(name), body).await
}

/// Cancels the turn when the response body goes (the client disconnected or read it all).
struct CancelOnDrop(CancellationToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

async fn start(
    api: Arc<Api>,
    id: String,
    file: String,
    name: Option<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let messages: Vec<MessageWire> = parse(body)?;
    for m in &messages {
        if let Some(role) = m.role.as_deref().filter(|r| *r != "user") {
            return Err(ApiError::bad(format!(
                "invalid message role `{role}`: only user messages can be sent"
            )));
        }
        if !m.multi_content.is_empty() {
            return Err(ApiError::unsupported(
                "multi_content",
                "send the text as `content`",
            ));
        }
    }
    let entry =
        api.hub.catalog().get(&file).cloned().ok_or_else(|| {
            ApiError::new(StatusCode::NOT_FOUND, format!("agent not found: {file}"))
        })?;
    if let Some(n) = name.as_deref()
        && entry.file.agent(n).is_none()
    {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no agent `{n}` in `{}`", entry.id),
        ));
    }
    let live = api.sessions.get(&api.hub, &id)?;
    let Ok(mut session) = Arc::clone(&live.state).try_lock_owned() else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("session {id} is already running a turn"),
        ));
    };
    refresh(&api.hub, &live, &mut session)?;
    let agent = name.or_else(|| entry.file.agent(&session.agent).map(|a| a.name.clone()));
    let (runtime, agent) = api
        .hub
        .runtime(&entry, agent.as_deref())
        .map_err(ApiError::internal)?;
    session.agent.clone_from(&agent);
    session.agent_file = std::fs::canonicalize(&entry.path).ok();
    let mut texts: Vec<String> = messages.into_iter().map(|m| m.content).collect();
    let prompt = texts.pop();
    if let (Some(store), Some(first)) =
        (api.hub.factory().store(), texts.first().or(prompt.as_ref()))
        && session.messages.is_empty()
    {
        // What `tether sessions list` shows; a session made by `POST /api/sessions` has none yet.
        let update = tether_store::SessionUpdate {
            first_prompt: Some(Some(first.clone())),
            ..tether_store::SessionUpdate::default()
        };
        store
            .update(&id, &update)
            .map_err(|e| ApiError::internal(format!("cannot save session {id}: {e}")))?;
    }
    if !texts.is_empty() {
        // Earlier messages join the conversation as they are; the last one is the prompt.
        session
            .messages
            .extend(texts.into_iter().map(Message::user));
        runtime.save_session(&mut session, None, true);
    }
    let cancel = api.shutdown.child_token();
    if let Ok(mut c) = live.cancel.lock() {
        *c = Some(cancel.clone());
    }
    let (out, frames) = mpsc::unbounded_channel::<Value>();
    let turn = Turn {
        api: Arc::clone(&api),
        live,
        runtime,
        entry,
        agent,
        prompt,
        cancel: cancel.clone(),
        out,
    };
    tokio::spawn(turn.run(session));
    let stream = futures::stream::unfold(
        (frames, CancelOnDrop(cancel)),
        |(mut frames, guard)| async move {
            let v = frames.recv().await?;
            let frame = Bytes::from(format!("data: {v}\n\n"));
            Some((Ok::<_, Infallible>(frame), (frames, guard)))
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// One turn, run to its end whatever the client does.
struct Turn {
    api: Arc<Api>,
    live: Arc<Live>,
    runtime: Runtime,
    entry: CatalogEntry,
    agent: String,
    prompt: Option<String>,
    cancel: CancellationToken,
    out: mpsc::UnboundedSender<Value>,
}

impl Turn {
    async fn run(self, mut session: tokio::sync::OwnedMutexGuard<Session>) {
        let description = self
            .entry
            .file
            .agent(&self.agent)
            .map(|a| a.description.clone())
            .unwrap_or_default();
        let mut mapper = Mapper::new(&session.id, &self.agent, &description);
        let _ = self.out.send(mapper.stream_started());
        let (events, mut rx) = mpsc::unbounded_channel::<RuntimeEvent>();
        let (parked, mut parked_rx) = mpsc::unbounded_channel::<()>();
        self.live.asker.attach(parked);
        let yolo_before = session.tools_approved;
        let source = if session.messages.is_empty() {
            "startup"
        } else {
            "resume"
        };
        let route = Route {
            events,
            asker: self.live.asker.clone(),
        };
        let run = async {
            let outcome = self
                .api
                .hub
                .run(
                    &self.runtime,
                    &mut session,
                    self.prompt.clone(),
                    source,
                    route,
                    &self.cancel,
                )
                .await;
            self.live.asker.detach();
            outcome
        };
        let forward = async {
            while let Some(event) = rx.recv().await {
                if matches!(event, RuntimeEvent::ToolConfirmation { .. }) {
                    // Sent once the question waits, so an answer to it always lands.
                    let _ = parked_rx.recv().await;
                }
                if let Some(v) = mapper.map(event) {
                    let _ = self.out.send(v);
                }
            }
        };
        let (outcome, ()) = tokio::join!(run, forward);
        if session.tools_approved != yolo_before {
            // `approve-session` during the turn: yolo for the rest of the session.
            let now = session.tools_approved;
            self.live.set_settings(|s| s.tools_approved = now);
        }
        self.live.settings().apply(&mut session);
        let saved = persist(&self.api.hub, &session);
        if self.api.hub.factory().store().is_some() {
            // The next turn reloads it from the store: memory keeps only the lock.
            *session = Session::new(session.id.clone(), session.agent.clone());
        }
        if let Ok(mut c) = self.live.cancel.lock() {
            *c = None;
        }
        // The session is free before the stream says so, so the client's next turn is not a 409.
        drop(session);
        if let Err(e) = saved {
            let _ = self
                .out
                .send(serde_json::json!({"type": "error", "error": e.message}));
        }
        if let Some(v) = mapper.outcome(&outcome) {
            let _ = self.out.send(v);
        }
        let _ = self.out.send(mapper.stream_stopped());
    }
}
