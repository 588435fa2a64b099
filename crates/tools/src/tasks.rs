//! `type: tasks`: docker-agent's persistent task list (priorities, statuses, dependencies) in
//! one JSON file, `path` (default `tasks.json`, relative to the working directory).
//!
//! Every call reads the file, changes it and writes it back whole: the write goes to a
//! private file beside it that is renamed over it (a reader never sees half a file, and a
//! symlink at `path` is replaced, not followed), under an exclusive `flock` of `PATH.lock`
//! so two runs sharing the file do not lose each other's changes. A task's `path` argument
//! (a markdown file for its description) must stay inside the task file's directory: it is
//! checked like a filesystem `allow_list` entry, without following a symlink out.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string, string_array};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

/// The toolset's system-prompt text (docker-agent's).
pub const TASKS_INSTRUCTION: &str = "## Task Tools\n\nPersistent task management with priorities (critical > high > medium > low), statuses (pending, in_progress, done, blocked), and dependencies. Tasks persist across sessions.\n\nA task is automatically blocked if any dependency is not done. Use next_task to get the highest-priority actionable task.";

const PRIORITIES: [&str; 4] = ["critical", "high", "medium", "low"];
const STATUSES: [&str; 4] = ["pending", "in_progress", "done", "blocked"];

/// One task as stored and shown (docker-agent's field names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Task {
    id: String,
    title: String,
    #[serde(default)]
    description: String,
    priority: String,
    status: String,
    #[serde(default)]
    dependencies: Vec<String>,
    #[serde(default)]
    created_at: String,
    #[serde(default)]
    updated_at: String,
}

/// The file: tasks by id (sorted, as Go writes a map).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Store {
    #[serde(default)]
    tasks: BTreeMap<String, Task>,
}

fn rank(priority: &str) -> usize {
    PRIORITIES
        .iter()
        .position(|p| *p == priority)
        .unwrap_or(PRIORITIES.len())
}

impl Store {
    /// `done` stays done; otherwise a task waiting on an unfinished dependency is `blocked`.
    fn effective(&self, task: &Task) -> String {
        if task.status == "done" {
            return task.status.clone();
        }
        let waiting = task
            .dependencies
            .iter()
            .any(|d| self.tasks.get(d).is_some_and(|dep| dep.status != "done"));
        if waiting {
            "blocked".to_owned()
        } else {
            task.status.clone()
        }
    }

    /// Whether `start` is reachable from `deps` through the stored dependencies.
    fn cycle(&self, start: &str, deps: &[String]) -> bool {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&str> = deps.iter().map(String::as_str).collect();
        while let Some(id) = stack.pop() {
            if id == start {
                return true;
            }
            if !seen.insert(id) {
                continue;
            }
            if let Some(t) = self.tasks.get(id) {
                stack.extend(t.dependencies.iter().map(String::as_str));
            }
        }
        false
    }

    /// Every task with its effective status: unblocked first, then by priority, then oldest.
    fn sorted(&self) -> Vec<(Task, String)> {
        let mut all: Vec<(Task, String)> = self
            .tasks
            .values()
            .map(|t| (t.clone(), self.effective(t)))
            .collect();
        all.sort_by(|(a, ea), (b, eb)| {
            (ea == "blocked", rank(&a.priority), &a.created_at).cmp(&(
                eb == "blocked",
                rank(&b.priority),
                &b.created_at,
            ))
        });
        all
    }

    fn missing_dependency(&self, deps: &[String]) -> Option<String> {
        deps.iter()
            .find(|d| !self.tasks.contains_key(*d))
            .map(|d| format!("dependency task not found: {d}"))
    }
}

fn with_effective(task: &Task, effective: &str) -> Value {
    let mut v = json!(task);
    if let Some(o) = v.as_object_mut() {
        o.insert("effectiveStatus".to_owned(), json!(effective));
    }
    v
}

fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The task file of one toolset, shared by its eight tools.
#[derive(Debug)]
struct File {
    /// As written (`path`), relative to the working directory unless absolute.
    path: String,
    /// One call at a time within this process (the `flock` covers other processes).
    turn: tokio::sync::Mutex<()>,
}

impl File {
    fn resolve(&self, working_dir: &Path) -> Result<PathBuf, String> {
        let given = Path::new(&self.path);
        if given
            .components()
            .any(|c| matches!(c, Component::ParentDir))
        {
            return Err(format!(
                "the tasks path `{}` leaves the working directory",
                self.path
            ));
        }
        Ok(working_dir.join(given))
    }
}

fn load(file: &Path) -> Result<Store, String> {
    match std::fs::read(file) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("parsing task store: {e}")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Store::default()),
        Err(e) => Err(format!("reading task store: {e}")),
    }
}

fn save(file: &Path, store: &Store) -> Result<(), String> {
    let text = serde_json::to_string_pretty(store).map_err(|e| e.to_string())?;
    tether_exec::private::write_whole(file, text.as_bytes())
        .map_err(|e| format!("writing task store `{}`: {e}", file.display()))
}

/// Holds an exclusive lock of `FILE.lock` until dropped.
fn lock(file: &Path) -> Result<std::fs::File, String> {
    if let Some(dir) = file.parent() {
        tether_exec::private::create_dirs(dir)
            .map_err(|e| format!("creating storage directory: {e}"))?;
    }
    let mut name = file.as_os_str().to_owned();
    name.push(".lock");
    let handle = tether_exec::private::open(
        Path::new(&name),
        OpenOptions::new().create(true).truncate(false).write(true),
    )
    .map_err(|e| format!("locking task store: {e}"))?;
    rustix::fs::flock(&handle, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| format!("locking task store: {e}"))?;
    Ok(handle)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    Get,
    Update,
    Delete,
    List,
    Next,
    AddDependency,
    RemoveDependency,
}

impl Op {
    fn writes(self) -> bool {
        !matches!(self, Self::Get | Self::List | Self::Next)
    }
}

/// One task tool.
#[derive(Debug)]
pub struct TasksTool {
    definition: ToolDefinition,
    op: Op,
    file: Arc<File>,
}

fn definitions() -> Vec<(Op, &'static str, &'static str, bool, Value)> {
    vec![
        (
            Op::Create,
            "create_task",
            "Create a new task. Provide a title and either a description or a path to a markdown file whose content will be used as the description. Optionally set priority and dependencies on other task IDs.",
            false,
            object(
                json!({
                    "title": string("Short title for the task"),
                    "description": string("Task description (ignored if path is given)"),
                    "path": string("Path to a markdown file whose content becomes the task description"),
                    "priority": string("Priority: critical, high, medium (default), or low"),
                    "dependencies": string_array("IDs of tasks that must be completed before this one"),
                }),
                &["title"],
            ),
        ),
        (
            Op::Get,
            "get_task",
            "Get full details of a single task by ID, including its effective status (blocked if any dependency is not done).",
            true,
            object(json!({"id": string("Task ID")}), &["id"]),
        ),
        (
            Op::Update,
            "update_task",
            "Update fields of an existing task. You can change title, description (or path to re-read from file), priority, status, and dependencies.",
            false,
            object(
                json!({
                    "id": string("Task ID to update"),
                    "title": string("New title"),
                    "description": string("New description"),
                    "path": string("Read new description from this file"),
                    "priority": string("New priority: critical, high, medium, or low"),
                    "status": string("New status: pending, in_progress, done, or blocked"),
                    "dependencies": string_array("Replace dependency list with these task IDs"),
                }),
                &["id"],
            ),
        ),
        (
            Op::Delete,
            "delete_task",
            "Delete a task by ID. Also removes it from other tasks' dependency lists.",
            false,
            object(json!({"id": string("Task ID to delete")}), &["id"]),
        ),
        (
            Op::List,
            "list_tasks",
            "List all tasks, sorted by priority (critical first) with blocked tasks last. Optionally filter by status or priority.",
            true,
            object(
                json!({
                    "status": string("Filter by effective status: pending, in_progress, done, blocked"),
                    "priority": string("Filter by priority level: critical, high, medium, low"),
                }),
                &[],
            ),
        ),
        (
            Op::Next,
            "next_task",
            "Get the highest-priority actionable task — one that is not blocked and not done. Great for asking 'what should I work on next?'",
            true,
            object(json!({}), &[]),
        ),
        (
            Op::AddDependency,
            "add_dependency",
            "Add a dependency: taskId will be blocked until dependsOnId is done.",
            false,
            object(
                json!({
                    "taskId": string("The task that depends on another"),
                    "dependsOnId": string("The task that must be completed first"),
                }),
                &["taskId", "dependsOnId"],
            ),
        ),
        (
            Op::RemoveDependency,
            "remove_dependency",
            "Remove a dependency from a task.",
            false,
            object(
                json!({
                    "taskId": string("The task to remove the dependency from"),
                    "dependsOnId": string("The dependency to remove"),
                }),
                &["taskId", "dependsOnId"],
            ),
        ),
    ]
}

impl TasksTool {
    /// The eight tools over the file `path` (default `tasks.json`).
    pub fn all(path: Option<&str>) -> Vec<Arc<dyn Tool>> {
        let file = Arc::new(File {
            path: path.unwrap_or("tasks.json").to_owned(),
            turn: tokio::sync::Mutex::new(()),
        });
        definitions()
            .into_iter()
            .map(|(op, name, description, read_only, parameters)| {
                Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "tasks",
                    },
                    op,
                    file: Arc::clone(&file),
                }) as Arc<dyn Tool>
            })
            .collect()
    }
}

/// The arguments any task tool may take (each tool's schema says which).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    id: Option<String>,
    title: Option<String>,
    description: Option<String>,
    path: Option<String>,
    priority: Option<String>,
    status: Option<String>,
    dependencies: Option<Vec<String>>,
    task_id: Option<String>,
    depends_on_id: Option<String>,
}

/// Reads the description file `given`, which must stay inside `base` (symlinks resolved).
fn read_description(base: &Path, given: &str) -> Result<String, String> {
    crate::filesystem::read_beneath(base, given).map_err(|e| format!("invalid file path: {e}"))
}

/// `description`, or the text of `path` when given.
fn description(base: &Path, a: &Args) -> Result<Option<String>, String> {
    match a.path.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => read_description(base, p).map(Some),
        None => Ok(a.description.clone().filter(|d| !d.is_empty())),
    }
}

fn check_priority(p: &str) -> Result<(), String> {
    if PRIORITIES.contains(&p) {
        Ok(())
    } else {
        Err(format!("invalid priority: {p}"))
    }
}

/// Runs `op` on `store`: its answer, and whether the store changed.
fn apply(op: Op, store: &mut Store, base: &Path, a: Args) -> Result<(Value, bool), String> {
    let id = a.id.clone().unwrap_or_default();
    match op {
        Op::Create => {
            let text = description(base, &a)?.unwrap_or_default();
            let priority = a.priority.filter(|p| !p.is_empty());
            let priority = priority.unwrap_or_else(|| "medium".to_owned());
            check_priority(&priority)?;
            let deps = a.dependencies.clone().unwrap_or_default();
            if let Some(e) = store.missing_dependency(&deps) {
                return Err(e);
            }
            let stamp = now();
            let task = Task {
                id: uuid::Uuid::now_v7().to_string(),
                title: a.title.unwrap_or_default(),
                description: text,
                priority,
                status: "pending".to_owned(),
                dependencies: deps,
                created_at: stamp.clone(),
                updated_at: stamp,
            };
            store.tasks.insert(task.id.clone(), task.clone());
            Ok((json!(task), true))
        }
        Op::Get => {
            let task = store
                .tasks
                .get(&id)
                .ok_or_else(|| format!("task not found: {id}"))?;
            Ok((with_effective(task, &store.effective(task)), false))
        }
        Op::Update => {
            let mut task = store
                .tasks
                .get(&id)
                .cloned()
                .ok_or_else(|| format!("task not found: {id}"))?;
            if let Some(t) = a.title.clone().filter(|t| !t.is_empty()) {
                task.title = t;
            }
            if let Some(d) = description(base, &a)? {
                task.description = d;
            }
            if let Some(p) = a.priority.clone().filter(|p| !p.is_empty()) {
                check_priority(&p)?;
                task.priority = p;
            }
            if let Some(s) = a.status.clone().filter(|s| !s.is_empty()) {
                if !STATUSES.contains(&s.as_str()) {
                    return Err(format!("invalid status: {s}"));
                }
                task.status = s;
            }
            if let Some(deps) = a.dependencies {
                if let Some(e) = store.missing_dependency(&deps) {
                    return Err(e);
                }
                if store.cycle(&id, &deps) {
                    return Err("adding these dependencies would create a cycle".to_owned());
                }
                task.dependencies = deps;
            }
            task.updated_at = now();
            store.tasks.insert(id, task.clone());
            Ok((json!(task), true))
        }
        Op::Delete => {
            if store.tasks.remove(&id).is_none() {
                return Err(format!("task not found: {id}"));
            }
            for t in store.tasks.values_mut() {
                t.dependencies.retain(|d| *d != id);
            }
            Ok((json!({"deleted": id}), true))
        }
        Op::List => {
            let status = a.status.filter(|s| !s.is_empty());
            let priority = a.priority.filter(|p| !p.is_empty());
            let shown: Vec<Value> = store
                .sorted()
                .into_iter()
                .filter(|(t, e)| {
                    status.as_ref().is_none_or(|s| s == e)
                        && priority.as_ref().is_none_or(|p| *p == t.priority)
                })
                .map(|(t, e)| with_effective(&t, &e))
                .collect();
            // Go marshals an empty list as `null`.
            let list = if shown.is_empty() {
                Value::Null
            } else {
                Value::Array(shown)
            };
            Ok((list, false))
        }
        Op::Next => {
            let next = store
                .sorted()
                .into_iter()
                .find(|(_, e)| e != "blocked" && e != "done");
            Ok(match next {
                Some((t, e)) => (with_effective(&t, &e), false),
                None => (
                    json!("No actionable tasks. Everything is either done or blocked."),
                    false,
                ),
            })
        }
        Op::AddDependency | Op::RemoveDependency => {
            let task_id = a.task_id.clone().unwrap_or_default();
            let dep = a.depends_on_id.unwrap_or_default();
            let mut task = store
                .tasks
                .get(&task_id)
                .cloned()
                .ok_or_else(|| format!("task not found: {task_id}"))?;
            if op == Op::AddDependency {
                if !store.tasks.contains_key(&dep) {
                    return Err(format!("dependency task not found: {dep}"));
                }
                if task.dependencies.contains(&dep) {
                    return Err("dependency already exists".to_owned());
                }
                task.dependencies.push(dep);
                if store.cycle(&task_id, &task.dependencies) {
                    return Err("adding this dependency would create a cycle".to_owned());
                }
            } else {
                task.dependencies.retain(|d| *d != dep);
            }
            task.updated_at = now();
            store.tasks.insert(task_id, task.clone());
            Ok((json!(task), true))
        }
    }
}

impl TasksTool {
    fn run(&self, file: &Path, args: Args) -> ToolResult {
        let _lock = match self.op.writes().then(|| lock(file)).transpose() {
            Ok(l) => l,
            Err(e) => return ToolResult::error(e),
        };
        let mut store = match load(file) {
            Ok(s) => s,
            Err(e) => return ToolResult::error(e),
        };
        let base = file.parent().unwrap_or(Path::new("/"));
        match apply(self.op, &mut store, base, args) {
            Err(e) => ToolResult::error(e),
            Ok((out, changed)) => {
                if changed && let Err(e) = save(file, &store) {
                    return ToolResult::error(e);
                }
                match out {
                    Value::String(text) => ToolResult::ok(text),
                    other => ToolResult::ok(other.to_string()),
                }
            }
        }
    }
}

impl Tool for TasksTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let parsed: Args = match parse(&self.definition.name, args) {
                Ok(a) => a,
                Err(e) => return e.into(),
            };
            let file = match self.file.resolve(ctx.working_dir) {
                Ok(f) => f,
                Err(e) => return ToolResult::error(e),
            };
            let _turn = self.file.turn.lock().await;
            let this = Self {
                definition: self.definition.clone(),
                op: self.op,
                file: Arc::clone(&self.file),
            };
            tokio::task::spawn_blocking(move || this.run(&file, parsed))
                .await
                .unwrap_or_else(|e| ToolResult::error(format!("internal error: {e}")))
        })
    }
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
