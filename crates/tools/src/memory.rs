//! `type: memory`: the agent's long-term memory in a SQLite file, with docker-agent's five
//! tools (`add_memory`, `get_memories`, `search_memories`, `update_memory`, `delete_memory`).
//!
//! The file is `path` (relative to the working directory, and inside it), else
//! `$TETHER_HOME/memory/default/memory.db`. It is opened on the first call, so a run that
//! never uses its memory never creates it; every call is one short transaction, so two runs
//! may share a file.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};
use tether_exec::private;

use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

pub const MEMORY_INSTRUCTION: &str = "## Memory Tools\n\nCheck stored memories for relevant context before acting. Store useful information silently — never mention using this tool.\n\n- Remember: user preferences, corrections, key decisions, project conventions\n- Use search_memories with keywords/category for targeted lookup; use get_memories only for a full dump\n- Use update_memory to edit existing entries; use add_memory only for new information";

/// The memory file shared by the five tools of one toolset.
#[derive(Debug)]
struct Store {
    /// As written (`path`), or `None` for the default.
    path: Option<String>,
    conn: Mutex<Option<(PathBuf, Connection)>>,
}

/// The memory file of a toolset with `path` (see the module doc).
pub(crate) fn memory_file(path: Option<&str>, working_dir: &Path) -> Result<PathBuf, String> {
    let Some(p) = path else {
        return Ok(tether_config::data_dir().join("memory/default/memory.db"));
    };
    let given = Path::new(p);
    if given.is_absolute() {
        return Ok(given.to_path_buf());
    }
    if given
        .components()
        .any(|c| matches!(c, Component::ParentDir))
    {
        return Err(format!(
            "the memory path `{p}` leaves the working directory"
        ));
    }
    Ok(working_dir.join(given))
}

impl Store {
    fn file(&self, working_dir: &Path) -> Result<PathBuf, String> {
        memory_file(self.path.as_deref(), working_dir)
    }

    fn with<T>(
        &self,
        working_dir: &Path,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, String> {
        let mut guard = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let file = self.file(working_dir)?;
        if guard.as_ref().is_none_or(|(p, _)| *p != file) {
            let conn = open(&tether_config::data_dir(), &file)?;
            *guard = Some((file, conn));
        }
        let (file, conn) = guard.as_ref().ok_or("the memory is not open")?;
        f(conn).map_err(|e| format!("memory `{}`: {e}", file.display()))
    }
}

/// Opens (creating) the memory file. Memories are private wherever the file is: it is 0600,
/// and so are the journal files SQLite makes beside it; its directory is created 0700, and
/// tightened only inside the data directory `home` (a `path` in the project is the user's).
fn open(home: &Path, file: &Path) -> Result<Connection, String> {
    if let Some(dir) = file.parent() {
        private::create_dir(home, dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    }
    private::prepare_sqlite(file)
        .map_err(|e| format!("cannot make the memory `{}` private: {e}", file.display()))?;
    Connection::open(file)
        .and_then(|c| {
            c.busy_timeout(std::time::Duration::from_secs(5))?;
            c.execute_batch(
                "CREATE TABLE IF NOT EXISTS memories (
                   id TEXT PRIMARY KEY,
                   created_at TEXT NOT NULL,
                   memory TEXT NOT NULL,
                   category TEXT NOT NULL DEFAULT ''
                 );",
            )?;
            Ok(c)
        })
        .map_err(|e| format!("cannot open the memory `{}`: {e}", file.display()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Get,
    Search,
    Update,
    Delete,
}

/// One of the five memory tools.
#[derive(Debug)]
pub struct MemoryTool {
    op: Op,
    store: Arc<Store>,
    definition: ToolDefinition,
}

impl MemoryTool {
    /// The five tools over the file `path` (see the module doc).
    pub fn all(path: Option<&str>) -> Vec<Arc<dyn Tool>> {
        let store = Arc::new(Store {
            path: path.map(str::to_owned),
            conn: Mutex::new(None),
        });
        let category =
            string("Optional category to organize the memory (e.g. preference, fact, project)");
        let defs = [
            (
                Op::Add,
                "add_memory",
                "Add a new memory to the database",
                object(
                    json!({"memory": string("The memory content to store"), "category": category}),
                    &["memory"],
                ),
                false,
            ),
            (
                Op::Get,
                "get_memories",
                "Retrieve all stored memories",
                object(json!({}), &[]),
                true,
            ),
            (
                Op::Delete,
                "delete_memory",
                "Delete a specific memory by ID",
                object(
                    json!({"id": string("The ID of the memory to delete")}),
                    &["id"],
                ),
                false,
            ),
            (
                Op::Search,
                "search_memories",
                "Search memories by keywords and/or category. More efficient than retrieving all memories.",
                object(
                    json!({
                        "query": string("Keywords to search for in memory content (space-separated, all must match)"),
                        "category": string("Optional category to filter by"),
                    }),
                    &[],
                ),
                true,
            ),
            (
                Op::Update,
                "update_memory",
                "Update an existing memory's content and/or category by ID",
                object(
                    json!({
                        "id": string("The ID of the memory to update"),
                        "memory": string("The new memory content"),
                        "category": string("Optional new category for the memory"),
                    }),
                    &["id", "memory"],
                ),
                false,
            ),
        ];
        defs.into_iter()
            .map(|(op, name, description, parameters, read_only)| {
                Arc::new(Self {
                    op,
                    store: Arc::clone(&store),
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "memory",
                    },
                }) as Arc<dyn Tool>
            })
            .collect()
    }
}

fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or("")
}

fn rows(conn: &Connection, sql: &str, bind: &[&dyn rusqlite::ToSql]) -> rusqlite::Result<Value> {
    let mut stmt = conn.prepare(sql)?;
    let items = stmt
        .query_map(bind, |r| {
            let category: String = r.get(3)?;
            let mut m = json!({"id": r.get::<_, String>(0)?, "created_at": r.get::<_, String>(1)?, "memory": r.get::<_, String>(2)?});
            if !category.is_empty() {
                m["category"] = Value::String(category);
            }
            Ok(m)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Value::Array(items))
}

/// RFC 3339 UTC time of `secs` since the epoch (no time-zone database needed).
fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Tool for MemoryTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let dir = ctx.working_dir;
            let result = match self.op {
                Op::Add => {
                    let memory = arg(args, "memory");
                    if memory.trim().is_empty() {
                        return ToolResult::error("`memory` is missing or empty");
                    }
                    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
                    let id = now.as_nanos().to_string();
                    let created = rfc3339(now.as_secs());
                    self.store
                        .with(dir, |c| {
                            c.execute(
                                "INSERT INTO memories (id, created_at, memory, category) VALUES (?1, ?2, ?3, ?4)",
                                params![id, created, memory, arg(args, "category")],
                            )
                        })
                        .map(|_| format!("Memory added successfully with ID: {id}"))
                }
                Op::Get => self
                    .store
                    .with(dir, |c| {
                        rows(c, "SELECT id, created_at, memory, category FROM memories ORDER BY created_at, id", &[])
                    })
                    .map(|v| v.to_string()),
                Op::Search => {
                    let words: Vec<String> = arg(args, "query")
                        .split_whitespace()
                        .map(str::to_lowercase)
                        .collect();
                    let category = arg(args, "category").to_owned();
                    self.store
                        .with(dir, |c| {
                            let all = rows(c, "SELECT id, created_at, memory, category FROM memories ORDER BY created_at, id", &[])?;
                            let keep: Vec<Value> = all
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter(|m| {
                                    let text = m["memory"].as_str().unwrap_or("").to_lowercase();
                                    words.iter().all(|w| text.contains(w.as_str()))
                                        && (category.is_empty()
                                            || m["category"].as_str().unwrap_or("") == category)
                                })
                                .cloned()
                                .collect();
                            Ok(Value::Array(keep))
                        })
                        .map(|v| v.to_string())
                }
                Op::Update => {
                    let id = arg(args, "id");
                    let memory = arg(args, "memory");
                    let category = args.get("category").and_then(Value::as_str);
                    self.store
                        .with(dir, |c| match category {
                            Some(cat) => c.execute(
                                "UPDATE memories SET memory = ?2, category = ?3 WHERE id = ?1",
                                params![id, memory, cat],
                            ),
                            None => c.execute(
                                "UPDATE memories SET memory = ?2 WHERE id = ?1",
                                params![id, memory],
                            ),
                        })
                        .and_then(|n| {
                            if n == 0 {
                                Err(format!("memory not found: {id}"))
                            } else {
                                Ok(format!("Memory with ID {id} updated successfully"))
                            }
                        })
                }
                Op::Delete => {
                    let id = arg(args, "id");
                    self.store
                        .with(dir, |c| c.execute("DELETE FROM memories WHERE id = ?1", params![id]))
                        .and_then(|n| {
                            if n == 0 {
                                Err(format!("memory not found: {id}"))
                            } else {
                                Ok(format!("Memory with ID {id} deleted successfully"))
                            }
                        })
                }
            };
            match result {
                Ok(text) => ToolResult::ok(text),
                Err(e) => ToolResult::error(e),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_764_028_800), "2025-11-25T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 3661), "2000-02-29T01:01:01Z");
    }

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn set_mode(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn add(conn: &Connection) {
        conn.execute(
            "INSERT INTO memories (id, created_at, memory) VALUES ('1', 'now', 'ghp_secret')",
            [],
        )
        .unwrap();
    }

    #[test]
    fn the_default_memory_and_its_directories_are_private_and_tightened_when_wide() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let file = home.join("memory/default/memory.db");
        add(&open(&home, &file).unwrap());
        assert_eq!(mode(&file), 0o600);
        for d in ["", "memory", "memory/default"] {
            assert_eq!(mode(&home.join(d)), 0o700, "{d}");
        }
        // As an older Tether left them.
        for d in ["", "memory", "memory/default"] {
            set_mode(&home.join(d), 0o755);
        }
        set_mode(&file, 0o644);
        let conn = open(&home, &file).unwrap();
        // A write makes SQLite's rollback journal: it gets the file's mode.
        conn.execute_batch("BEGIN IMMEDIATE; DELETE FROM memories;")
            .unwrap();
        assert_eq!(mode(&home.join("memory/default/memory.db-journal")), 0o600);
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(mode(&file), 0o600);
        for d in ["", "memory", "memory/default"] {
            assert_eq!(mode(&home.join(d)), 0o700, "{d}");
        }
    }

    #[test]
    fn a_memory_in_the_project_is_private_but_the_project_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir(&project).unwrap();
        set_mode(&project, 0o755);
        let file = project.join("notes.db");
        add(&open(&tmp.path().join("home"), &file).unwrap());
        assert_eq!((mode(&file), mode(&project)), (0o600, 0o755));
    }
}
