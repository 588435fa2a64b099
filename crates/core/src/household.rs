//! What a session shares with the sessions it starts (`transfer_task` children, background
//! tasks): the budgets they spend from, the background tasks, and the messages typed while it
//! works. A new top-level session has its own; a child holds its parent's. The runtime keeps
//! only what every session reads, so one runtime serves many sessions at once.

use std::sync::Arc;

use crate::budget::Spending;
use crate::queues::{QueueError, Queues};
use crate::tasks::Tasks;

#[derive(Debug, Default)]
pub(crate) struct Household {
    /// The top-level session: the conversation a client sees, also while a sub-agent works.
    pub(crate) conversation: String,
    pub(crate) queues: Queues,
    pub(crate) spending: Spending,
    pub(crate) tasks: Tasks,
}

impl Household {
    pub(crate) fn new(conversation: &str) -> Self {
        Self {
            conversation: conversation.to_owned(),
            ..Self::default()
        }
    }
}

/// Where messages typed while a session's agent works go: a cheap handle the console (or a
/// server) keeps while the session itself is busy running.
#[derive(Debug, Clone)]
pub struct Inbox(pub(crate) Arc<Household>);

impl Inbox {
    /// Queues a steering message for the running turn (drained at the next drain point).
    pub fn steer(&self, text: impl Into<String>) -> Result<(), QueueError> {
        self.0.queues.steer(text.into())
    }

    /// Queues a follow-up, taken at the end of a turn.
    pub fn follow_up(&self, text: impl Into<String>) -> Result<(), QueueError> {
        self.0.queues.follow_up(text.into())
    }
}
