//! `POST /v1/chat/completions`: one turn of the agent the `model` names, as a real stored
//! session (every hook; asks denied), answered whole or streamed as OpenAI chunks.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::stream;
use tether_core::{RunOutcome, Session, StopReason};
use tether_protocol::{Message, Role, RuntimeEvent};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::conversations::Slot;
use super::wire::{
    ApiError, AssistantMessage, Choice, Chunk, ChunkChoice, Completion, Delta, RequestWire, Usage,
    UsageChunk,
};
use super::{ChatState, now};
use crate::router::{Nobody, Route};

const NOBODY: Nobody = Nobody {
    mode: "tether serve chat",
};

/// What a successful turn answers.
#[derive(Debug)]
struct Done {
    text: String,
    usage: Usage,
}

/// One turn, run in its own task so a client that goes away cancels it (and its
/// `session_end` still runs) instead of dropping it halfway.
struct Job {
    state: Arc<ChatState>,
    agent: String,
    history: Vec<Message>,
    prompt: String,
    conversation: Option<Slot>,
    events: mpsc::UnboundedSender<RuntimeEvent>,
    cancel: CancellationToken,
}

pub(super) async fn handle(
    State(state): State<Arc<ChatState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request: RequestWire = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return ApiError::bad_request(format!("invalid request body: {e}")).into_response();
        }
    };
    let agent = match state.model(&request.model) {
        Ok(a) => a.to_owned(),
        Err(e) => return e.into_response(),
    };
    let Some((last, earlier)) = request.messages.split_last().filter(|(m, _)| m.is_user()) else {
        return ApiError::bad_request("`messages` must end with a `user` message".to_owned())
            .into_response();
    };
    let conversation = state.conversations.as_ref().and_then(|c| {
        let id = headers.get("x-conversation-id")?.to_str().ok()?.trim();
        (!id.is_empty()).then(|| c.slot(&agent, id))
    });
    let (events, rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let job = Job {
        state: Arc::clone(&state),
        agent: agent.clone(),
        history: earlier.iter().filter_map(|m| m.to_message()).collect(),
        prompt: last.text(),
        conversation,
        events,
        cancel: cancel.clone(),
    };
    let task = tokio::spawn(job.run());
    let id = format!("chatcmpl-{}", tether_core::new_session_id());
    if request.stream {
        let usage = request.stream_options.is_some_and(|o| o.include_usage);
        return streamed(id, agent, usage, rx, task, cancel.drop_guard());
    }
    // Nobody reads the events of a whole answer: they are dropped as they come.
    drop(rx);
    let guard = cancel.drop_guard();
    let result = joined(task).await;
    drop(guard.disarm());
    match result {
        Ok(done) => {
            let body = Completion {
                id: &id,
                object: "chat.completion",
                created: now(),
                model: &agent,
                choices: [Choice {
                    index: 0,
                    message: AssistantMessage {
                        role: "assistant",
                        content: &done.text,
                    },
                    logprobs: None,
                    finish_reason: "stop",
                }],
                usage: done.usage,
            };
            json(
                StatusCode::OK,
                serde_json::to_string(&body).unwrap_or_default(),
            )
        }
        Err(e) => e.into_response(),
    }
}

impl Job {
    async fn run(self) -> Result<Done, ApiError> {
        let Self {
            state,
            agent,
            history,
            prompt,
            conversation,
            events,
            cancel,
        } = self;
        let hub = &state.hub;
        let route = Route {
            events,
            asker: Arc::new(NOBODY),
        };
        let Some(slot) = conversation else {
            let start = history.len();
            let turn = hub
                .one_shot(&state.entry, Some(&agent), history, prompt, route, &cancel)
                .await
                .map_err(internal)?;
            return finish(&turn.outcome, &turn.session, start, (0, 0));
        };
        let (runtime, agent) = hub.runtime(&state.entry, Some(&agent)).map_err(internal)?;
        // Turns of one conversation take turns; the kept session changes only on success.
        let mut kept = slot.lock().await;
        let (mut session, source) = match kept.as_ref() {
            Some(s) => (s.clone(), "resume"),
            None => {
                let mut s = hub.new_session(&runtime, &state.entry, &agent, Some(&prompt));
                if !history.is_empty() {
                    s.messages = history;
                    runtime.save_session(&mut s, None, true);
                }
                (s, "startup")
            }
        };
        let start = session.messages.len();
        let spent = (session.input_tokens, session.output_tokens);
        let outcome = hub
            .run(&runtime, &mut session, Some(prompt), source, route, &cancel)
            .await;
        let done = finish(&outcome, &session, start, spent)?;
        *kept = Some(session);
        Ok(done)
    }
}

/// The answer of a turn that started at `messages[start]`, or why there is none.
fn finish(
    outcome: &RunOutcome,
    session: &Session,
    start: usize,
    spent: (u64, u64),
) -> Result<Done, ApiError> {
    let error =
        |status, code, message: String| Err(ApiError::new(status, "server_error", code, message));
    match &outcome.reason {
        StopReason::Normal => {}
        StopReason::HookBlocked { message } => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "hook_blocked",
                format!("blocked by a hook: {message}"),
            ));
        }
        StopReason::Error { code, message } => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "agent_error",
                format!("the agent failed ({code}): {message}"),
            );
        }
        StopReason::Cancelled => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "cancelled",
                "the turn was cancelled".to_owned(),
            );
        }
        StopReason::LoopDetected { message } => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "loop_detected",
                format!("loop detected: {message}"),
            );
        }
        StopReason::MaxIterations { limit } => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "max_iterations",
                format!("the agent reached its max_iterations ({limit}) without an answer"),
            );
        }
    }
    let text = session
        .messages
        .get(start..)
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.text().is_empty())
        .map(Message::text)
        .unwrap_or_default();
    let prompt_tokens = session.input_tokens.saturating_sub(spent.0);
    let completion_tokens = session.output_tokens.saturating_sub(spent.1);
    Ok(Done {
        text,
        usage: Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
        },
    })
}

fn internal(message: String) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "internal",
        message,
    )
}

async fn joined(task: JoinHandle<Result<Done, ApiError>>) -> Result<Done, ApiError> {
    task.await
        .unwrap_or_else(|e| Err(internal(format!("the turn failed: {e}"))))
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Where a streamed answer is.
enum Phase {
    Start,
    Deltas,
    Over,
}

struct Streaming {
    id: String,
    model: String,
    created: u64,
    /// Only the active agent's text is the answer (a sub-agent's is its own business).
    current: String,
    rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    task: Option<JoinHandle<Result<Done, ApiError>>>,
    phase: Phase,
    /// Send the usage chunk at the end.
    usage: bool,
    /// Dropped with the response body: a client that disconnects cancels the turn.
    _cancel: DropGuard,
}

impl Streaming {
    fn chunk(&self, delta: Delta<'_>, finish_reason: Option<&'static str>) -> String {
        let chunk = Chunk {
            id: &self.id,
            object: "chat.completion.chunk",
            created: self.created,
            model: &self.model,
            choices: [ChunkChoice {
                index: 0,
                delta,
                logprobs: None,
                finish_reason,
            }],
        };
        format!(
            "data: {}\n\n",
            serde_json::to_string(&chunk).unwrap_or_default()
        )
    }

    fn content(&self, text: &str) -> String {
        self.chunk(
            Delta {
                role: None,
                content: Some(text),
            },
            None,
        )
    }

    /// The text of a delta event worth sending; follows agent changes.
    fn text_of(&mut self, event: RuntimeEvent) -> Option<String> {
        match event {
            RuntimeEvent::AgentTextDelta { agent, text }
                if agent == self.current && !text.is_empty() =>
            {
                Some(text)
            }
            RuntimeEvent::AgentChanged { agent } => {
                self.current = agent;
                None
            }
            _ => None,
        }
    }

    /// The next piece of the body; `None` at the end.
    async fn next(&mut self) -> Option<String> {
        match self.phase {
            Phase::Start => {
                self.phase = Phase::Deltas;
                Some(self.chunk(
                    Delta {
                        role: Some("assistant"),
                        content: Some(""),
                    },
                    None,
                ))
            }
            Phase::Over => None,
            Phase::Deltas => loop {
                let task = self.task.as_mut()?;
                tokio::select! {
                    biased;
                    Some(event) = self.rx.recv() => {
                        if let Some(text) = self.text_of(event) {
                            return Some(self.content(&text));
                        }
                    }
                    result = task => {
                        self.task = None;
                        self.phase = Phase::Over;
                        return Some(self.last(result.unwrap_or_else(|e| Err(internal(format!("the turn failed: {e}"))))));
                    }
                }
            },
        }
    }

    /// What the events not yet read still say, then the final chunk (or the error) and
    /// `[DONE]`.
    fn last(&mut self, result: Result<Done, ApiError>) -> String {
        let mut rest = String::new();
        while let Ok(event) = self.rx.try_recv() {
            if let Some(text) = self.text_of(event) {
                rest.push_str(&text);
            }
        }
        let mut out = if rest.is_empty() {
            String::new()
        } else {
            self.content(&rest)
        };
        match result {
            Ok(done) => {
                out.push_str(&self.chunk(Delta::default(), Some("stop")));
                if self.usage {
                    let chunk = UsageChunk {
                        id: &self.id,
                        object: "chat.completion.chunk",
                        created: self.created,
                        model: &self.model,
                        choices: [],
                        usage: done.usage,
                    };
                    out.push_str("data: ");
                    out.push_str(&serde_json::to_string(&chunk).unwrap_or_default());
                    out.push_str("\n\n");
                }
            }
            Err(e) => {
                out.push_str("data: ");
                out.push_str(&e.body());
                out.push_str("\n\n");
            }
        }
        out.push_str("data: [DONE]\n\n");
        out
    }
}

fn streamed(
    id: String,
    model: String,
    usage: bool,
    rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    task: JoinHandle<Result<Done, ApiError>>,
    cancel: DropGuard,
) -> Response {
    let state = Streaming {
        id,
        current: model.clone(),
        model,
        created: now(),
        rx,
        task: Some(task),
        phase: Phase::Start,
        usage,
        _cancel: cancel,
    };
    let body = stream::unfold(state, |mut s| async move {
        let piece = s.next().await?;
        Some((Ok::<_, Infallible>(Bytes::from(piece)), s))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}
