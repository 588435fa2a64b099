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
    /// A piece of an answer still streaming; `append` for all but its first piece.
    Chunk {
        task_id: String,
        context_id: String,
        artifact: Artifact,
        append: bool,
    },
    /// A whole answer (it replaces its streamed pieces).
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
    let progress = Progress {
        shared: Arc::clone(shared),
        id: task.id.clone(),
        context_id: task.context_id.clone(),
        answers: 0,
        chunks: 0,
    };
    tokio::spawn(run(progress, text, tx, cancel.clone()));
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
    mut progress: Progress,
    text: String,
    out: mpsc::UnboundedSender<Update>,
    cancel: CancellationToken,
) {
    let shared = Arc::clone(&progress.shared);
    let id = progress.id.clone();
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
            if let Some(u) = progress.update(event) {
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

/// A running task's answers so far, to name their artifacts.
#[derive(Debug)]
struct Progress {
    shared: Arc<Shared>,
    id: String,
    context_id: String,
    /// Whole answers so far.
    answers: usize,
    /// Pieces streamed of the answer being written.
    chunks: usize,
}

impl Progress {
    fn artifact(&self, text: String) -> Artifact {
        Artifact {
            id: format!("{}-{}", self.id, self.answers + 1),
            text,
        }
    }

    /// What a runtime event changes in the task: answers become artifacts (streamed as they
    /// are written); tool calls, tool failures (a denial among them) and hook blocks become
    /// the working status's message.
    fn update(&mut self, event: RuntimeEvent) -> Option<Update> {
        match event {
            RuntimeEvent::AgentTextDelta { text, .. } if !text.is_empty() => {
                self.chunks += 1;
                Some(Update::Chunk {
                    task_id: self.id.clone(),
                    context_id: self.context_id.clone(),
                    artifact: self.artifact(text),
                    append: self.chunks > 1,
                })
            }
            RuntimeEvent::AgentMessage { text, .. } if !text.trim().is_empty() => {
                let artifact = self.artifact(text.clone());
                self.answers += 1;
                self.chunks = 0;
                let task = self.shared.tasks.update(&self.id, |t| {
                    t.history.push(agent_msg(text));
                    t.artifacts.push(artifact.clone());
                })?;
                Some(Update::Artifact(task, artifact))
            }
            RuntimeEvent::ToolCall { name, .. } => self.status(format!("calling `{name}`")),
            RuntimeEvent::ToolResponse {
                name,
                response,
                is_error: true,
                ..
            } => self.status(format!("tool `{name}` failed: {response}")),
            RuntimeEvent::HookBlocked {
                event,
                hook,
                message,
            } => self.status(format!("hook `{hook}` blocked {event}: {message}")),
            _ => None,
        }
    }

    fn status(&self, text: String) -> Option<Update> {
        self.shared
            .tasks
            .update(&self.id, |t| {
                t.status_message = Some(agent_msg(text));
                t.timestamp = now();
            })
            .map(Update::Status)
    }
}
