//! The tasks a server keeps for `tasks/get` and `tasks/cancel`: bounded, oldest finished
//! first out, each running one with the token that cancels its turn.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use super::wire::{RpcError, State, TASK_NOT_CANCELABLE, TASK_NOT_FOUND, Task, Version};

/// How many tasks are kept.
pub(crate) const MAX_TASKS: usize = 1000;

#[derive(Debug)]
struct Kept {
    task: Task,
    cancel: CancellationToken,
}

#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<String, Kept>,
    /// Ids, oldest first.
    order: VecDeque<String>,
}

#[derive(Debug)]
pub(crate) struct Tasks {
    inner: Mutex<Inner>,
    max: usize,
}

fn not_found(id: &str) -> RpcError {
    RpcError::new(TASK_NOT_FOUND, format!("task `{id}` not found"))
}

impl Tasks {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            max: max.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere must not take the task list down with it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `task`, forgetting the oldest finished task (else the oldest) when full.
    pub(crate) fn insert(&self, task: Task, cancel: CancellationToken) {
        let mut inner = self.lock();
        while inner.tasks.len() >= self.max {
            let victim = inner
                .order
                .iter()
                .position(|id| inner.tasks.get(id).is_none_or(|k| k.task.state.terminal()))
                .unwrap_or(0);
            match inner.order.remove(victim) {
                Some(id) => {
                    inner.tasks.remove(&id);
                }
                None => break,
            }
        }
        inner.order.push_back(task.id.clone());
        inner.tasks.insert(task.id.clone(), Kept { task, cancel });
    }

    pub(crate) fn get(&self, id: &str) -> Result<Task, RpcError> {
        self.lock()
            .tasks
            .get(id)
            .map(|k| k.task.clone())
            .ok_or_else(|| not_found(id))
    }

    /// Changes a kept task (a forgotten one stays forgotten) and returns it as changed.
    /// A finished task's state no longer changes.
    pub(crate) fn update(&self, id: &str, change: impl FnOnce(&mut Task)) -> Option<Task> {
        let mut inner = self.lock();
        let kept = inner.tasks.get_mut(id)?;
        let state = kept.task.state;
        change(&mut kept.task);
        if state.terminal() {
            kept.task.state = state;
        }
        Some(kept.task.clone())
    }

    /// Cancels a running task's turn and marks it canceled.
    pub(crate) fn cancel(&self, id: &str, now: String) -> Result<Task, RpcError> {
        let mut inner = self.lock();
        let kept = inner.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        if kept.task.state.terminal() {
            return Err(RpcError::new(
                TASK_NOT_CANCELABLE,
                format!(
                    "task `{id}` cannot be canceled: it is {}",
                    kept.task.state.wire(Version::V03)
                ),
            ));
        }
        kept.cancel.cancel();
        kept.task.state = State::Canceled;
        kept.task.timestamp = now;
        Ok(kept.task.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, state: State) -> Task {
        Task {
            id: id.to_owned(),
            context_id: "c".to_owned(),
            state,
            status_message: None,
            timestamp: String::new(),
            artifacts: vec![],
            history: vec![],
        }
    }

    #[test]
    fn the_oldest_finished_task_goes_first() {
        let tasks = Tasks::new(2);
        tasks.insert(task("running", State::Working), CancellationToken::new());
        tasks.insert(task("done", State::Completed), CancellationToken::new());
        tasks.insert(task("new", State::Submitted), CancellationToken::new());
        assert!(tasks.get("running").is_ok());
        assert_eq!(tasks.get("done").map_err(|e| e.code), Err(TASK_NOT_FOUND));
        assert!(tasks.get("new").is_ok());
    }

    #[test]
    fn cancel_stops_the_turn_once() {
        let tasks = Tasks::new(10);
        let token = CancellationToken::new();
        tasks.insert(task("t", State::Working), token.clone());
        assert_eq!(
            tasks.cancel("t", "now".to_owned()).map(|t| t.state),
            Ok(State::Canceled)
        );
        assert!(token.is_cancelled());
        assert_eq!(
            tasks.cancel("t", "now".to_owned()).map_err(|e| e.code),
            Err(TASK_NOT_CANCELABLE)
        );
        // The turn ending afterwards does not undo the cancel.
        let t = tasks.update("t", |t| t.state = State::Completed);
        assert_eq!(t.map(|t| t.state), Some(State::Canceled));
        assert_eq!(
            tasks.cancel("nope", "now".to_owned()).map_err(|e| e.code),
            Err(TASK_NOT_FOUND)
        );
    }
}
