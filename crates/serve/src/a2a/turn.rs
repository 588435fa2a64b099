//! One message, one task: each message runs a fresh Tether session (as docker-agent runs
//! one per message), on its own tokio task so a slow turn never holds up another; its events
//! become the task's updates.

use std::sync::Arc;

use tether_core::StopReason;
use tether_protocol::RuntimeEvent;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::wire::{Artifact, Msg, State, Task};
use crate::router::{Nobody, Route};

/// How the agent is served, for denial reasons.
pub(crate) const MODE: &str = "tether serve a2a";

/// A change of a running task, in order; `Done` is the last.
#[derive(Debug)]
pub(crate) enum Update {
    Status(Task),
    Artifact(Task, Artifact),
    Done(Task),
}

/// A task just started.
#[derive(Debug)]
pub(crate) struct Started {
    /// As submitted.
    pub task: Task,
    pub updates: mpsc::UnboundedReceiver<Update>,
    /// Cancels the turn (the client went away).
    pub cancel: CancellationToken,
}

pub(crate) fn now() -> String {
    jiff::Timestamp::now().to_string()
}

pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Keeps a new task for `text` and starts its turn.
pub(crate) fn start(
    shared: &Arc<Shared>,
    context_id: Option<String>,
    message_id: Option<String>,
    text: String,
) -> Started {
    let task = Task {
        id: new_id(),
        context_id: context_id.unwrap_or_else(new_id),
        state: State::Submitted,
        status_message: None,
        timestamp: now(),
        artifacts: vec![],
        history: vec![Msg {
            id: message_id.unwrap_or_else(new_id),
            user: true,
            text: text.clone(),
        }],
    };
    let cancel = CancellationToken::new();
    shared.tasks.insert(task.clone(), cancel.clone());
    let (tx, updates) = mpsc::unbounded_channel();
    tokio::spawn(run(
        Arc::clone(shared),
        task.id.clone(),
        text,
        tx,
        cancel.clone(),
    ));
    Started {
        task,
        updates,
        cancel,
    }
}

fn agent_msg(text: String) -> Msg {
    Msg {
        id: new_id(),
        user: false,
        text,
    }
}

async fn run(
    shared: Arc<Shared>,
    id: String,
    text: String,
    out: mpsc::UnboundedSender<Update>,
    cancel: CancellationToken,
) {
    // A client that stopped listening just misses updates; the task is still kept.
    let send = |u: Update| {
        let _ = out.send(u);
    };
    if let Some(t) = shared.tasks.update(&id, |t| {
        t.state = State::Working;
        t.timestamp = now();
    }) {
        send(Update::Status(t));
    }
    let (events, mut rx) = mpsc::unbounded_channel();
    let route = Route {
        events,
        asker: Arc::new(Nobody { mode: MODE }),
    };
    let turn = shared.hub.one_shot(
        &shared.entry,
        Some(&shared.agent),
        vec![],
        text,
        route,
        &cancel,
    );
    // The route (and so the sender) goes when the run ends, which ends this loop.
    let drain = async {
        while let Some(event) = rx.recv().await {
            if let Some(u) = update(&shared, &id, event) {
                send(u);
            }
        }
    };
    let (turn, ()) = tokio::join!(turn, drain);
    let (state, reason) = match turn {
        Err(e) => (State::Failed, Some(e)),
        Ok(turn) => match turn.outcome.reason {
            StopReason::Normal => (State::Completed, None),
            StopReason::Cancelled => (State::Canceled, Some("the task was canceled".to_owned())),
            StopReason::HookBlocked { message } => (State::Rejected, Some(message)),
            StopReason::Error { message, .. } | StopReason::LoopDetected { message } => {
                (State::Failed, Some(message))
            }
            StopReason::MaxIterations { limit } => (
                State::Failed,
                Some(format!("stopped at the agent's max_iterations ({limit})")),
            ),
        },
    };
    let done = shared.tasks.update(&id, |t| {
        t.state = state;
        t.timestamp = now();
        t.status_message = match reason {
            Some(r) => Some(agent_msg(r)),
            None => t.artifacts.last().map(|a| agent_msg(a.text.clone())),
        };
    });
    if let Some(t) = done {
        send(Update::Done(t));
    }
}

/// What a runtime event changes in the task: answers become artifacts; tool calls, tool
/// failures (a denial among them) and hook blocks become the working status's message.
fn update(shared: &Shared, id: &str, event: RuntimeEvent) -> Option<Update> {
    match event {
        RuntimeEvent::AgentMessage { text, .. } if !text.trim().is_empty() => {
            let mut artifact = None;
            let task = shared.tasks.update(id, |t| {
                let a = Artifact {
                    id: format!("{}-{}", t.id, t.artifacts.len() + 1),
                    text: text.clone(),
                };
                t.history.push(agent_msg(text));
                t.artifacts.push(a.clone());
                artifact = Some(a);
            })?;
            Some(Update::Artifact(task, artifact?))
        }
        RuntimeEvent::ToolCall { name, .. } => status(shared, id, format!("calling `{name}`")),
        RuntimeEvent::ToolResponse {
            name,
            response,
            is_error: true,
            ..
        } => status(shared, id, format!("tool `{name}` failed: {response}")),
        RuntimeEvent::HookBlocked {
            event,
            hook,
            message,
        } => status(
            shared,
            id,
            format!("hook `{hook}` blocked {event}: {message}"),
        ),
        _ => None,
    }
}

fn status(shared: &Shared, id: &str, text: String) -> Option<Update> {
    shared
        .tasks
        .update(id, |t| {
            t.status_message = Some(agent_msg(text));
            t.timestamp = now();
        })
        .map(Update::Status)
}
