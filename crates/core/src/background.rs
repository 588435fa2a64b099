//! `background_agents` (docs/design.md, Background agents): sub-agent tasks that run beside
//! the caller's turn. Each task is a child session on its own tokio task, with its own hooks
//! and its caller's safety mode and permissions; where the approval ladder would ask the user,
//! its calls are denied (nobody can answer a question from a task nobody watches). Tasks end
//! with the session that started them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tether_protocol::{HookEvent, Message, RuntimeEvent};
use tether_tools::{ToolDefinition, ToolResult};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::run::StopReason;
use crate::session::Session;
use crate::setup::Runtime;

pub(crate) const RUN: &str = "run_background_agent";
pub(crate) const LIST: &str = "list_background_agents";
pub(crate) const VIEW: &str = "view_background_agent";
pub(crate) const STOP: &str = "stop_background_agent";
pub(crate) const WAIT: &str = "wait_background_agents";

/// Running tasks at once, per runtime.
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

pub(crate) const INSTRUCTION: &str = "# Background Agent Tasks

Use background agent tasks to dispatch work to sub-agents concurrently.

- **run_background_agent**: Start a sub-agent task and return its task ID. Sub-agents keep the session's safety mode, permissions and hooks; calls that would need the user's confirmation are denied, since background tasks cannot ask.
- **list_background_agents**: Show all tasks with status and runtime
- **view_background_agent**: Get output and status of a task by task_id
- **stop_background_agent**: Terminate a task by task_id
- **wait_background_agents**: Join the given tasks and collect their results. Prefer this over polling; a timeout leaves the tasks running.

**Notes**: Output capped at 10MB per task. All tasks end when the session ends.";

/// The toolset's tools: those `allow` names (all when `None`), only the read-only ones when
/// `readonly`.
pub(crate) fn definitions(allow: Option<&[String]>, readonly: bool) -> Vec<ToolDefinition> {
    let def = |name: &str, description: &str, parameters: Value, read_only: bool| ToolDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
        read_only,
        category: "transfer",
    };
    let task_id = |what: &str| json!({"type": "string", "description": format!("The ID of the background agent task to {what}.")});
    [
        def(
            RUN,
            "Start a sub-agent task in the background and return immediately with a task ID.\nUse this to dispatch work to multiple sub-agents concurrently. Sub-agents keep the session's\nsafety mode, permissions and hooks; calls that would need confirmation are denied because\nbackground tasks cannot ask. Check progress with view_background_agent, or join tasks and\ncollect results with wait_background_agents instead of polling.",
            json!({
                "type": "object",
                "properties": {
                    "agent": {"type": "string", "description": "The name of the sub-agent to run in the background."},
                    "task": {"type": "string", "description": "A clear and concise description of the task the agent should achieve."},
                    "expected_output": {"type": "string", "description": "The expected output from the agent (optional)."}
                },
                "required": ["agent", "task"],
                "additionalProperties": false
            }),
            false,
        ),
        def(
            LIST,
            "List all background agent tasks with their status and runtime.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            true,
        ),
        def(
            VIEW,
            "View the output and status of a specific background agent task by task ID. Returns live buffered output if still running, or the final result if complete.",
            json!({
                "type": "object",
                "properties": {"task_id": task_id("view")},
                "required": ["task_id"],
                "additionalProperties": false
            }),
            true,
        ),
        def(
            WAIT,
            "Wait for all specified background agent tasks to finish and return their statuses and bounded outputs in task_ids order. Use this to join concurrent tasks instead of polling. Failed or stopped tasks do not end the wait early. Already-finished tasks return immediately. The timeout is shared by the whole group; timeout or cancellation of the wait does not stop the tasks. Check all_done before continuing dependent work; use view_background_agent for truncated output.",
            json!({
                "type": "object",
                "properties": {
                    "task_ids": {"type": "array", "items": {"type": "string"}, "description": "IDs returned by run_background_agent. Provide 1 to 100 distinct task IDs."},
                    "timeout": {"type": "integer", "description": "Maximum seconds to wait for the whole group (default 300; 0 uses the default; maximum 3600). Unfinished tasks keep running after a timeout."}
                },
                "required": ["task_ids"],
                "additionalProperties": false
            }),
            true,
        ),
        def(
            STOP,
            "Stop a running background agent task by task ID.",
            json!({
                "type": "object",
                "properties": {"task_id": task_id("stop")},
                "required": ["task_id"],
                "additionalProperties": false
            }),
            false,
        ),
    ]
    .into_iter()
    .filter(|d| allow.is_none_or(|names| names.contains(&d.name)))
    .filter(|d| !readonly || d.read_only)
    .collect()
}

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
struct Task {
    id: String,
    agent: String,
    /// The session that started it; the task ends with it.
    owner: String,
    started: Instant,
    cancel: CancellationToken,
    /// Cancelled once the task has wound down (its session ended, its hooks ran).
    finished: CancellationToken,
    progress: Mutex<Progress>,
    handle: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Task {
    fn status(&self) -> Status {
        self.progress.lock().map_or(Status::Failed, |p| p.status)
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

/// The runtime's background tasks.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    next: AtomicU64,
    tasks: Mutex<Vec<Arc<Task>>>,
    /// Session id → its task: the task's own session and those it transferred to.
    sessions: RwLock<HashMap<String, Arc<Task>>>,
    /// `sessions.len()`, read without the lock on every event.
    live: AtomicUsize,
}

impl Tasks {
    fn of_session(&self, session_id: &str) -> Option<Arc<Task>> {
        if self.live.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.sessions.read().ok()?.get(session_id).cloned()
    }

    fn bind(&self, session_id: &str, task: &Arc<Task>) {
        if let Ok(mut m) = self.sessions.write() {
            m.insert(session_id.to_owned(), Arc::clone(task));
            self.live.store(m.len(), Ordering::Release);
        }
    }

    fn unbind(&self, session_id: &str) {
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

    fn owned_by(&self, owner: &str) -> Vec<Arc<Task>> {
        self.tasks
            .lock()
            .map(|t| t.iter().filter(|t| t.owner == owner).cloned().collect())
            .unwrap_or_default()
    }

    fn find(&self, owner: &str, id: &str) -> Option<Arc<Task>> {
        self.owned_by(owner).into_iter().find(|t| t.id == id)
    }
}

fn text<'a>(args: &'a Map<String, Value>, key: &str) -> &'a str {
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

impl Runtime {
    /// Runs one of the `background_agents` tools for `session`.
    pub(crate) async fn call_background_tool(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match name {
            RUN => self.start_background(agent, session, args),
            LIST => list(&self.background.owned_by(&session.id)),
            VIEW | STOP => {
                let id = text(args, "task_id");
                let Some(task) = self.background.find(&session.id, id) else {
                    return ToolResult::error(format!("task not found: {id}"));
                };
                if name == STOP {
                    stop(&task)
                } else {
                    view(&task)
                }
            }
            WAIT => self.wait_background(session, args, cancel).await,
            _ => ToolResult::error(format!("unknown background agents tool `{name}`")),
        }
    }

    /// `wait_background_agents`: waits for the tasks in order within one shared timeout; a
    /// timeout or a cancelled wait leaves them running.
    async fn wait_background(
        &self,
        session: &Session,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let (ids, timeout) = match wait_args(args) {
            Ok(a) => a,
            Err(e) => return ToolResult::error(e),
        };
        let tasks: Vec<Option<Arc<Task>>> = ids
            .iter()
            .map(|id| self.background.find(&session.id, id))
            .collect();
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

    fn start_background(
        &self,
        caller: &AgentRuntime,
        parent: &Session,
        args: &Map<String, Value>,
    ) -> ToolResult {
        let (target, task_text) = (text(args, "agent"), text(args, "task"));
        if target.trim().is_empty() {
            return ToolResult::error("agent name must not be empty");
        }
        if task_text.trim().is_empty() {
            return ToolResult::error("task must not be empty");
        }
        if !caller.sub_agents.iter().any(|a| a == target) || self.agent(target).is_none() {
            return ToolResult::error(format!(
                "agent \"{target}\" is not in the sub-agents list. Available: {}",
                caller.sub_agents.join(", ")
            ));
        }
        let Some(caller) = self.agent(&caller.name).cloned() else {
            return ToolResult::error(format!("no agent `{}` in this runtime", caller.name));
        };
        let task = {
            let Ok(mut tasks) = self.background.tasks.lock() else {
                return ToolResult::error("background tasks are unavailable");
            };
            let running = tasks
                .iter()
                .filter(|t| t.status() == Status::Running)
                .count();
            if running >= MAX_RUNNING {
                return ToolResult::error(format!(
                    "maximum concurrent background agent tasks ({MAX_RUNNING}) reached; stop or wait for existing tasks to complete"
                ));
            }
            if tasks.len() >= MAX_TOTAL {
                tasks.retain(|t| t.status() == Status::Running);
            }
            if tasks.len() >= MAX_TOTAL {
                return ToolResult::error(format!(
                    "maximum total background agent tasks ({MAX_TOTAL}) reached; stop some first"
                ));
            }
            let n = self.background.next.fetch_add(1, Ordering::Relaxed) + 1;
            let task = Arc::new(Task {
                id: format!("agent_task_{n}"),
                agent: target.to_owned(),
                owner: parent.id.clone(),
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
            task
        };
        let mut child = Session::new(self.new_session_id(), target);
        child.parent_id = Some(parent.id.clone());
        child.instruction = Some(crate::delegation::task_instruction(
            task_text,
            text(args, "expected_output"),
        ));
        child.tools_approved = parent.tools_approved;
        child.background = true;
        child.agent_file.clone_from(&parent.agent_file);
        self.background.bind(&child.id, &task);
        let runtime = self.clone();
        let handle = tokio::spawn({
            let task = Arc::clone(&task);
            async move { runtime.run_background(caller, child, task).await }
        });
        if let Ok(mut h) = task.handle.lock() {
            *h = Some(handle);
        }
        ToolResult::ok(format!(
            "Background agent task started with ID: {}\nAgent: {target}\nTask: {task_text}",
            task.id
        ))
    }

    async fn run_background(&self, caller: Arc<AgentRuntime>, mut child: Session, task: Arc<Task>) {
        let cancel = task.cancel.clone();
        self.persist_new(&mut child, None);
        self.start_session(&mut child, "startup", &cancel).await;
        self.record(&mut child, Message::user(crate::delegation::PROCEED));
        let outcome = self.run(&mut child, None, &cancel).await;
        self.end_session(&child, "other").await;
        let answer = match &outcome.reason {
            StopReason::Normal | StopReason::MaxIterations { .. } => child.last_assistant_message(),
            _ => String::new(),
        };
        let mut input = self.input(&caller, &child.id);
        task.agent.clone_into(&mut input.agent_name);
        input.parent_session_id.clone_from(&task.owner);
        input.stop_response.clone_from(&answer);
        self.fire(
            &caller,
            &child.id,
            HookEvent::SubagentStop,
            input,
            &CancellationToken::new(),
        )
        .await;
        if let Ok(mut p) = task.progress.lock() {
            match outcome.reason {
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
        self.background.unbind(&child.id);
        task.finished.cancel();
    }

    /// Stops the tasks `session_id` started and waits for them to wind down.
    pub(crate) async fn stop_background(&self, session_id: &str) {
        let tasks = self.background.owned_by(session_id);
        let mut handles = Vec::new();
        for task in &tasks {
            stop(task);
            if let Some(h) = task.handle.lock().ok().and_then(|mut h| h.take()) {
                handles.push(h);
            }
        }
        futures::future::join_all(handles).await;
    }
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
    fn definitions_follow_tools_and_readonly() {
        let names =
            |defs: Vec<ToolDefinition>| defs.into_iter().map(|d| d.name).collect::<Vec<_>>();
        assert_eq!(
            names(definitions(None, false)),
            [RUN, LIST, VIEW, WAIT, STOP]
        );
        assert_eq!(names(definitions(None, true)), [LIST, VIEW, WAIT]);
        let only = [RUN.to_owned(), VIEW.to_owned()];
        assert_eq!(names(definitions(Some(&only), false)), [RUN, VIEW]);
    }

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
