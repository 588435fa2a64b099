//! The `todo` toolset: a task list the model keeps for itself during a session.
//!
//! The four tools share one in-memory list per toolset instance (a `Mutex` over a small
//! `Vec`: calls are sequential and quick). Results are JSON with the whole list and a
//! reminder of unfinished items, so the model always sees the current state. Statuses are
//! `pending`, `in_progress` and `completed` (docker-agent's `in-progress` is accepted too).

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolResult};

/// The toolset's system-prompt text.
pub const TODO_INSTRUCTION: &str = "## Todo Tools\n\nTrack multi-step work with todos:\n- Before complex work, create one todo per major step (create_todos creates several at once)\n- Set a todo to \"in_progress\" when you start it and to \"completed\" as soon as it is done\n- Update several todos in one update_todos call\n- Leave no todo pending or in progress when you give your final answer";

/// Where a todo stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    /// The wire name, or docker-agent's `in-progress`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" | "in-progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for TodoStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown status `{s}` (expected pending, in_progress or completed)"
            ))
        })
    }
}

/// One item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Todo {
    pub id: String,
    pub description: String,
    pub status: TodoStatus,
}

/// The list the four tools share.
#[derive(Debug, Default)]
pub struct TodoList {
    items: Vec<Todo>,
    next_id: u64,
}

impl TodoList {
    pub fn items(&self) -> &[Todo] {
        &self.items
    }

    fn add(&mut self, description: String) -> Todo {
        self.next_id += 1;
        let todo = Todo {
            id: format!("todo_{}", self.next_id),
            description,
            status: TodoStatus::Pending,
        };
        self.items.push(todo.clone());
        todo
    }

    /// `None` when every item is completed.
    fn reminder(&self) -> Option<String> {
        let open: Vec<String> = self
            .items
            .iter()
            .filter(|t| t.status != TodoStatus::Completed)
            .map(|t| format!("[{}] {}", t.id, t.description))
            .collect();
        (!open.is_empty())
            .then(|| format!("these todos are not completed yet: {}", open.join("; ")))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    CreateMany,
    Update,
    List,
}

#[derive(Debug, Deserialize)]
struct CreateArgs {
    description: String,
}

#[derive(Debug, Deserialize)]
struct CreateManyArgs {
    descriptions: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct UpdateArgs {
    updates: Vec<Update>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
struct Update {
    id: String,
    status: TodoStatus,
}

/// One todo tool.
#[derive(Debug)]
pub struct TodoTool {
    definition: ToolDefinition,
    op: Op,
    list: Arc<Mutex<TodoList>>,
}

impl TodoTool {
    /// The four tools over one new list.
    pub fn all() -> Vec<Arc<dyn Tool>> {
        Self::over(&Arc::default())
    }

    /// The four tools over `list` (shared with the caller, e.g. to show it in a UI).
    pub fn over(list: &Arc<Mutex<TodoList>>) -> Vec<Arc<dyn Tool>> {
        let status = json!({
            "description": "The new status",
            "enum": ["pending", "in_progress", "completed"],
            "type": "string",
        });
        let rows = [
            (
                Op::Create,
                "create_todo",
                "Create a new todo item with a description",
                object(
                    json!({"description": string("Description of the todo item")}),
                    &["description"],
                ),
            ),
            (
                Op::CreateMany,
                "create_todos",
                "Create a list of new todo items with descriptions",
                object(
                    json!({"descriptions": {
                        "description": "Descriptions of the todo items",
                        "items": {"type": "string"},
                        "type": "array",
                    }}),
                    &["descriptions"],
                ),
            ),
            (
                Op::Update,
                "update_todos",
                "Update the status of one or more todo item(s)",
                object(
                    json!({"updates": {
                        "description": "List of todo updates",
                        "items": object(
                            json!({"id": string("ID of the todo item"), "status": status}),
                            &["id", "status"],
                        ),
                        "type": "array",
                    }}),
                    &["updates"],
                ),
            ),
            (
                Op::List,
                "list_todos",
                "List all current todos with their status",
                object(json!({}), &[]),
            ),
        ];
        rows.into_iter()
            .map(|(op, name, description, parameters)| {
                Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only: op == Op::List,
                        category: "todo",
                    },
                    op,
                    list: Arc::clone(list),
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    fn run(&self, args: &Map<String, Value>) -> Result<ToolResult, ToolError> {
        let tool = self.definition.name.as_str();
        // A panic elsewhere cannot leave the list half-updated (every change is one push or
        // one field write), so a poisoned lock is still safe to use.
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = Map::new();
        let mut is_error = false;
        match self.op {
            Op::Create => {
                let args: CreateArgs = parse(tool, args)?;
                out.insert("created".to_owned(), to_value(&list.add(args.description)));
            }
            Op::CreateMany => {
                let args: CreateManyArgs = parse(tool, args)?;
                if args.descriptions.is_empty() {
                    return Err(ToolError::invalid(tool, "`descriptions` is empty"));
                }
                let created: Vec<Todo> =
                    args.descriptions.into_iter().map(|d| list.add(d)).collect();
                out.insert("created".to_owned(), to_value(&created));
            }
            Op::Update => {
                let args: UpdateArgs = parse(tool, args)?;
                let mut updated = Vec::new();
                let mut not_found = Vec::new();
                for update in args.updates {
                    match list.items.iter_mut().find(|t| t.id == update.id) {
                        Some(todo) => {
                            todo.status = update.status;
                            updated.push(update);
                        }
                        None => not_found.push(update.id),
                    }
                }
                is_error = updated.is_empty();
                out.insert("updated".to_owned(), to_value(&updated));
                if !not_found.is_empty() {
                    out.insert("not_found".to_owned(), to_value(&not_found));
                }
            }
            Op::List => {}
        }
        out.insert("todos".to_owned(), to_value(list.items()));
        if let Some(reminder) = list.reminder() {
            out.insert("reminder".to_owned(), Value::String(reminder));
        }
        Ok(ToolResult {
            content: Value::Object(out).to_string(),
            is_error,
            spool: None,
            structured: None,
        })
    }
}

fn to_value<T: Serialize + ?Sized>(v: &T) -> Value {
    // Plain structs of strings: serialisation cannot fail.
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Tool for TodoTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = self.run(args).unwrap_or_else(ToolResult::from);
        Box::pin(std::future::ready(result))
    }
}
