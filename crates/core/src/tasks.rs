//! The background tasks of a runtime's sessions (docs/design.md, Background agents): each
//! task's status and live output, which session owns it, and which sessions' events it
//! collects instead of the screen. Plain state; `background` runs the tasks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tether_protocol::RuntimeEvent;
use tether_tools::ToolResult;
use tokio_util::sync::CancellationToken;

use crate::outcome::StopReason;
use crate::runtime_tools::{LIST, STOP};

/// Running tasks at once, per session.
const MAX_RUNNING: usize = 20;
/// Tasks kept (running and finished); finished ones are dropped first.
const MAX_TOTAL: usize = 100;
/// Live output kept per task.
const MAX_OUTPUT: usize = 10 * 1024 * 1024;
/// `wait_background_agents`: the default and the longest wait, in seconds.
const DEFAULT_WAIT: u64 = 300;
const MAX_WAIT: u64 = 3600;
/// Output (or error) kept per task in a wait's answer.
const MAX_WAIT_OUTPUT: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Running,
    Completed,
    Stopped,
    Failed,
}

impl Status {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
        }
    }
}

#[derive(Debug)]
struct Progress {
    status: Status,
    /// Streamed text so far (capped at [`MAX_OUTPUT`]).
    output: String,
    truncated: bool,
    result: String,
    error: String,
}

#[derive(Debug)]
pub(crate) struct Task {
    pub(crate) id: String,
    pub(crate) agent: String,
    /// The session that started it; the task ends with it.
    pub(crate) owner: String,
    started: Instant,
    pub(crate) cancel: CancellationToken,
    /// Cancelled once the task has wound down (its session ended, its hooks ran).
    finished: CancellationToken,
    progress: Mutex<Progress>,
    pub(crate) handle: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Task {
    fn status(&self) -> Status {
        self.progress.lock().map_or(Status::Failed, |p| p.status)
    }

    /// Records how the task's run ended (a stopped task stays stopped).
    pub(crate) fn finish(&self, reason: StopReason, answer: String) {
        if let Ok(mut p) = self.progress.lock() {
            match reason {
                _ if p.status == Status::Stopped => {}
                StopReason::Normal | StopReason::MaxIterations { .. } => {
                    p.result = answer;
                    p.status = Status::Completed;
                }
                StopReason::Cancelled => p.status = Status::Stopped,
                StopReason::HookBlocked { message }
                | StopReason::LoopDetected { message }
                | StopReason::Error { message, .. } => {
                    p.error = message;
                    p.status = Status::Failed;
                }
            }
        }
        self.finished.cancel();
    }

    fn elapsed(&self) -> String {
        format!("{}s", self.started.elapsed().as_secs_f64().round())
    }

    /// Takes a background session's event: streamed text goes to the live output; what only
    /// narrates the task's turns stays out of the caller's view. Returns whether to forward it.
    fn observe(&self, event: &RuntimeEvent) -> bool {
        match event {
            RuntimeEvent::AgentTextDelta { text, .. } => {
                if let Ok(mut p) = self.progress.lock() {
                    if p.output.len() + text.len() <= MAX_OUTPUT {
                        p.output.push_str(text);
                    } else {
                        p.truncated = true;
                    }
                }
                false
            }
            RuntimeEvent::AgentChanged { .. }
            | RuntimeEvent::ReasoningDelta { .. }
            | RuntimeEvent::AgentMessage { .. }
            | RuntimeEvent::UserMessage { .. }
            | RuntimeEvent::TurnStarted { .. }
            | RuntimeEvent::TurnEnded { .. }
            | RuntimeEvent::ModelCallStarted { .. }
            | RuntimeEvent::ToolCall { .. }
            | RuntimeEvent::ToolResponse { .. }
            | RuntimeEvent::ToolProgress { .. } => false,
            _ => true,
        }
    }
}

/// Which sessions run for a background task, so that their events feed its output instead
/// of the screen. The runtime's: one router for every session it serves.
#[derive(Debug, Default)]
pub(crate) struct TaskRouter {
    /// Session id → its task: the task's own session and those it transferred to.
    sessions: RwLock<HashMap<String, Arc<Task>>>,
    /// `sessions.len()`, read without the lock on every event.
    live: AtomicUsize,
}

/// A session's background tasks, shared with the sessions it starts.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    next: AtomicU64,
    tasks: Mutex<Vec<Arc<Task>>>,
}

impl TaskRouter {
    fn of_session(&self, session_id: &str) -> Option<Arc<Task>> {
        if self.live.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.sessions.read().ok()?.get(session_id).cloned()
    }

    pub(crate) fn bind(&self, session_id: &str, task: &Arc<Task>) {
        if let Ok(mut m) = self.sessions.write() {
            m.insert(session_id.to_owned(), Arc::clone(task));
            self.live.store(m.len(), Ordering::Release);
        }
    }

    pub(crate) fn unbind(&self, session_id: &str) {
        if let Ok(mut m) = self.sessions.write() {
            m.remove(session_id);
            self.live.store(m.len(), Ordering::Release);
        }
    }

    /// A child of background session `parent` (a `transfer_task` inside a task) belongs to
    /// the same task.
    pub(crate) fn adopt(&self, parent: &str, child: &str) {
        if let Some(task) = self.of_session(parent) {
            self.bind(child, &task);
        }
    }

    pub(crate) fn release(&self, session_id: &str) {
        if self.live.load(Ordering::Acquire) > 0 {
            self.unbind(session_id);
        }
    }

    /// Whether `event` of `session_id` goes on to the sink.
    pub(crate) fn forward(&self, session_id: &str, event: &RuntimeEvent) -> bool {
        self.of_session(session_id)
            .is_none_or(|task| task.observe(event))
    }
}

impl Tasks {
    fn owned_by(&self, owner: &str) -> Vec<Arc<Task>> {
        self.tasks
            .lock()
            .map(|t| t.iter().filter(|t| t.owner == owner).cloned().collect())
            .unwrap_or_default()
    }

    fn find(&self, owner: &str, id: &str) -> Option<Arc<Task>> {
        self.owned_by(owner).into_iter().find(|t| t.id == id)
    }

    /// `wait_background_agents` for the tasks `owner` started: waits for them in order within
    /// one shared timeout; a timeout or a cancelled wait leaves them running.
    pub(crate) async fn wait(
        &self,
        owner: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let (ids, timeout) = match wait_args(args) {
            Ok(a) => a,
            Err(e) => return ToolResult::error(e),
        };
        let tasks: Vec<Option<Arc<Task>>> = ids.iter().map(|id| self.find(owner, id)).collect();
        let deadline = tokio::time::Instant::now() + timeout;
        let (mut timed_out, mut error) = (false, None);
        for task in tasks.iter().flatten() {
            if task.finished.is_cancelled() {
                continue;
            }
            tokio::select! {
                () = task.finished.cancelled() => {}
                () = tokio::time::sleep_until(deadline) => { timed_out = true; break; }
                () = cancel.cancelled() => { error = Some("Wait cancelled"); break; }
            }
        }
        let entries: Vec<Value> = ids
            .iter()
            .zip(&tasks)
            .map(|(id, t)| wait_entry(id, t.as_ref()))
            .collect();
        let all_done = entries.iter().all(|e| e["done"] == true);
        let mut answer = json!({"all_done": all_done, "tasks": entries});
        if timed_out {
            answer["timed_out"] = Value::Bool(true);
        }
        if let Some(e) = error {
            answer["error"] = Value::from(e);
        }
        let text = answer.to_string();
        if error.is_some() || tasks.iter().any(Option::is_none) {
            ToolResult::error(text)
        } else {
            ToolResult::ok(text)
        }
    }

    /// Registers a new running task of `agent` for `owner`, within the limits.
    pub(crate) fn start(&self, agent: &str, owner: &str) -> Result<Arc<Task>, String> {
        let Ok(mut tasks) = self.tasks.lock() else {
            return Err("background tasks are unavailable".to_owned());
        };
        let running = tasks
            .iter()
            .filter(|t| t.status() == Status::Running)
            .count();
        if running >= MAX_RUNNING {
            return Err(format!(
                "maximum concurrent background agent tasks ({MAX_RUNNING}) reached; stop or wait for existing tasks to complete"
            ));
        }
        if tasks.len() >= MAX_TOTAL {
            tasks.retain(|t| t.status() == Status::Running);
        }
        if tasks.len() >= MAX_TOTAL {
            return Err(format!(
                "maximum total background agent tasks ({MAX_TOTAL}) reached; stop some first"
            ));
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let task = Arc::new(Task {
            id: format!("agent_task_{n}"),
            agent: agent.to_owned(),
            owner: owner.to_owned(),
            started: Instant::now(),
            cancel: CancellationToken::new(),
            finished: CancellationToken::new(),
            progress: Mutex::new(Progress {
                status: Status::Running,
                output: String::new(),
                truncated: false,
                result: String::new(),
                error: String::new(),
            }),
            handle: Mutex::new(None),
        });
        tasks.push(Arc::clone(&task));
        Ok(task)
    }

    /// Stops the tasks `owner` started; their join handles, to wait for them to wind down.
    pub(crate) fn stop_all(&self, owner: &str) -> Vec<tokio::task::JoinHandle<()>> {
        let mut handles = Vec::new();
        for task in &self.owned_by(owner) {
            stop(task);
            if let Some(h) = task.handle.lock().ok().and_then(|mut h| h.take()) {
                handles.push(h);
            }
        }
        handles
    }

    /// `list_background_agents`, `view_background_agent` and `stop_background_agent`.
    pub(crate) fn answer(&self, owner: &str, tool: &str, args: &Map<String, Value>) -> ToolResult {
        if tool == LIST {
            return list(&self.owned_by(owner));
        }
        let id = text(args, "task_id");
        let Some(task) = self.find(owner, id) else {
            return ToolResult::error(format!("task not found: {id}"));
        };
        if tool == STOP {
            stop(&task)
        } else {
            view(&task)
        }
    }
}

pub(crate) fn text<'a>(args: &'a Map<String, Value>, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `wait_background_agents`' arguments: distinct task ids (1 to [`MAX_TOTAL`]) and the wait.
fn wait_args(args: &Map<String, Value>) -> Result<(Vec<String>, Duration), String> {
    let ids: Vec<String> = match args.get("task_ids") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or("task IDs must be strings")
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    if ids.is_empty() || ids.len() > MAX_TOTAL {
        return Err(format!(
            "task_ids must contain 1 to {MAX_TOTAL} distinct task IDs"
        ));
    }
    for (i, id) in ids.iter().enumerate() {
        if id.trim().is_empty() {
            return Err("task IDs must not be empty".to_owned());
        }
        if ids[..i].contains(id) {
            return Err(format!("duplicate task ID: {id}"));
        }
    }
    let timeout = match args.get("timeout") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .filter(|t| *t <= MAX_WAIT)
            .ok_or(format!("timeout must be between 0 and {MAX_WAIT} seconds"))?,
    };
    let timeout = if timeout == 0 { DEFAULT_WAIT } else { timeout };
    Ok((ids, Duration::from_secs(timeout)))
}

/// `text` cut to at most `max` bytes on a character boundary; whether it was cut.
fn bounded(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_owned(), false);
    }
    (text[..text.floor_char_boundary(max)].to_owned(), true)
}

/// One task's entry in a wait's answer.
fn wait_entry(id: &str, task: Option<&Arc<Task>>) -> Value {
    let Some(task) = task else {
        return json!({"task_id": id, "status": "not_found", "done": false, "error": "Task not found; it may have been pruned."});
    };
    let done = task.finished.is_cancelled();
    let Ok(p) = task.progress.lock() else {
        return json!({"task_id": id, "status": "unknown", "done": done});
    };
    let mut entry = json!({"task_id": id, "status": p.status.as_str(), "done": done});
    let (key, text, cut) = match p.status {
        Status::Completed => ("output", &p.result, false),
        Status::Failed => ("error", &p.error, false),
        _ => ("output", &p.output, p.truncated),
    };
    let (text, short) = bounded(text, MAX_WAIT_OUTPUT);
    if !text.is_empty() {
        entry[key] = Value::String(text);
    }
    if short || cut {
        entry["truncated"] = Value::Bool(true);
    }
    entry
}

fn list(tasks: &[Arc<Task>]) -> ToolResult {
    let mut out = String::from("Background Agent Tasks:\n\n");
    if tasks.is_empty() {
        out.push_str("No background agent tasks found.\n");
    }
    for t in tasks {
        out.push_str(&format!(
            "ID: {}\n  Agent:   {}\n  Status:  {}\n  Runtime: {}\n\n",
            t.id,
            t.agent,
            t.status().as_str(),
            t.elapsed()
        ));
    }
    ToolResult::ok(out)
}

fn view(task: &Task) -> ToolResult {
    let Ok(p) = task.progress.lock() else {
        return ToolResult::error("background task state is unavailable");
    };
    let mut out = format!(
        "Task ID: {}\nAgent:   {}\nStatus:  {}\nRuntime: {}\n\n--- Output ---\n",
        task.id,
        task.agent,
        p.status.as_str(),
        task.elapsed()
    );
    match p.status {
        Status::Completed if p.result.is_empty() => out.push_str("<no output>"),
        Status::Completed => out.push_str(&p.result),
        Status::Failed => {
            out.push_str("<task failed>");
            if !p.error.is_empty() {
                out.push_str(&format!("\nError: {}", p.error));
            }
        }
        Status::Stopped => out.push_str("<task was stopped>"),
        Status::Running if p.output.is_empty() => {
            out.push_str("<no output yet — still running>");
        }
        Status::Running => {
            out.push_str(&p.output);
            out.push_str(if p.truncated {
                "\n\n[output truncated at 10MB limit — still running...]"
            } else {
                "\n\n[still running...]"
            });
        }
    }
    ToolResult::ok(out)
}

fn stop(task: &Task) -> ToolResult {
    let Ok(mut p) = task.progress.lock() else {
        return ToolResult::error("background task state is unavailable");
    };
    if p.status != Status::Running {
        return ToolResult::error(format!(
            "task {} is not running (status: {})",
            task.id,
            p.status.as_str()
        ));
    }
    p.status = Status::Stopped;
    task.cancel.cancel();
    ToolResult::ok(format!("Background agent task {} stopped.", task.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_arguments_are_checked() {
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            wait_args(&args(json!({"task_ids": ["a", "b"]}))),
            Ok((
                vec!["a".to_owned(), "b".to_owned()],
                Duration::from_secs(300)
            ))
        );
        assert_eq!(
            wait_args(&args(json!({"task_ids": ["a"], "timeout": 5}))).map(|a| a.1),
            Ok(Duration::from_secs(5))
        );
        assert!(wait_args(&args(json!({"task_ids": []}))).is_err());
        assert_eq!(
            wait_args(&args(json!({"task_ids": ["a", "a"]}))),
            Err("duplicate task ID: a".to_owned())
        );
        assert!(wait_args(&args(json!({"task_ids": ["a"], "timeout": 4000}))).is_err());
        assert_eq!(bounded("héllo", 2), ("h".to_owned(), true));
    }
}
