//! `type: plan`: one markdown plan per session, for the "draft, approve, execute" workflow
//! (docker-agent's `write_plan`, `read_plan`, `exit_plan_mode`).
//!
//! The plan is `$TETHER_HOME/plans/SESSION.md`, as docker-agent keeps `<data-dir>/plans`: every
//! agent that runs in the session (a planner, then the agent a command switches to) reads and
//! writes the same plan, and the plan outlives the run so a resumed session finds it. The
//! session's id comes from the runtime ([`Tool::call_in_session`]); it is checked before it
//! names a file, so no id can reach outside the plans directory. Writes are atomic and replace
//! a symlink rather than follow it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

/// The toolset's system-prompt text (docker-agent's).
pub const PLAN_INSTRUCTION: &str = "## Plan Tools\n\nUse this toolset to record the session's plan before executing it.\n\n- `write_plan(content)` creates or replaces the plan for this session. There is exactly one plan per session and `content` is the full markdown — write_plan does not append.\n- `read_plan()` returns the plan you (or an earlier turn) wrote. It errors when no plan has been written yet.\n- `exit_plan_mode()` signals that the plan is ready for review. Call this once the plan is complete and you do not intend to change it on the next turn. It does not switch agents on its own — the host application decides what happens next based on the user's reply.";

/// The largest plan accepted (a plan is read back whole into the context).
const MAX_PLAN: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Write,
    Read,
    ExitPlanMode,
}

/// One plan tool.
#[derive(Debug)]
pub struct PlanTool {
    definition: ToolDefinition,
    op: Op,
    /// Where plans are kept (`None`: `$TETHER_HOME/plans`, looked up at call time).
    dir: Option<Arc<PathBuf>>,
}

#[derive(Debug, Deserialize)]
struct WriteArgs {
    content: String,
}

impl PlanTool {
    /// The three tools, keeping plans in `$TETHER_HOME/plans`.
    pub fn all() -> Vec<Arc<dyn Tool>> {
        Self::in_dir(None)
    }

    /// The three tools, keeping plans in `dir` (`None`: `$TETHER_HOME/plans`).
    pub fn in_dir(dir: Option<PathBuf>) -> Vec<Arc<dyn Tool>> {
        let dir = dir.map(Arc::new);
        let rows = [
            (
                Op::Write,
                "write_plan",
                "Create or replace the plan for this session as markdown. The plan path is derived from the session ID; there is exactly one plan per session.",
                false,
                object(
                    json!({"content": string("The full plan content as markdown. Replaces the existing plan for this session.")}),
                    &["content"],
                ),
            ),
            (
                Op::Read,
                "read_plan",
                "Read the plan written for this session and return it as markdown. Errors if no plan has been written yet.",
                true,
                object(json!({}), &[]),
            ),
            (
                Op::ExitPlanMode,
                "exit_plan_mode",
                "Signal that the plan written for this session is ready for review. Only call this once the plan is complete and you do not intend to change it on the next turn. It does not switch agents.",
                true,
                object(json!({}), &[]),
            ),
        ];
        rows.into_iter()
            .map(|(op, name, description, read_only, parameters)| {
                Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "plan",
                    },
                    op,
                    dir: dir.clone(),
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    fn dir(&self) -> PathBuf {
        self.dir
            .as_deref()
            .cloned()
            .unwrap_or_else(|| tether_config::data_dir().join("plans"))
    }
}

/// Whether `id` may name a plan file: a letter or digit, then up to 127 of letters, digits,
/// `.`, `_`, `-` (no `/`, no leading `.`, so never `..`).
fn valid_session_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The plan file of `session_id` in `dir`.
pub(crate) fn plan_path(dir: &Path, session_id: &str) -> Result<PathBuf, String> {
    if !valid_session_id(session_id) {
        return Err(format!("invalid session ID: {session_id:?}"));
    }
    Ok(dir.join(format!("{session_id}.md")))
}

/// The plan's text; `Ok(None)` when none was written.
fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("read plan: {e}")),
    }
}

impl PlanTool {
    fn run(&self, dir: &Path, session_id: &str, args: &Map<String, Value>) -> ToolResult {
        let path = match plan_path(dir, session_id) {
            Ok(p) => p,
            Err(e) => return ToolResult::error(e),
        };
        match self.op {
            Op::Write => {
                let a: WriteArgs = match parse(&self.definition.name, args) {
                    Ok(a) => a,
                    Err(e) => return e.into(),
                };
                if a.content.trim().is_empty() {
                    return ToolResult::error("content must not be empty");
                }
                if a.content.len() > MAX_PLAN {
                    return ToolResult::error(format!(
                        "the plan is too large to store ({} bytes; max {MAX_PLAN})",
                        a.content.len()
                    ));
                }
                if let Err(e) = tether_exec::private::create_dir(&tether_config::data_dir(), dir)
                    .and_then(|()| tether_exec::private::write_whole(&path, a.content.as_bytes()))
                {
                    return ToolResult::error(format!("write plan: {e}"));
                }
                ToolResult::ok(format!("Plan saved to {}", path.display()))
            }
            Op::Read => match read(&path) {
                Ok(Some(text)) => ToolResult::ok(text),
                Ok(None) => ToolResult::error(format!(
                    "no plan written yet for this session; call write_plan first (would write to {})",
                    path.display()
                )),
                Err(e) => ToolResult::error(e),
            },
            Op::ExitPlanMode => match read(&path) {
                Ok(Some(_)) => ToolResult::ok("Plan ready for review."),
                Ok(None) => ToolResult::error(
                    "no plan to mark ready; call write_plan before exit_plan_mode",
                ),
                Err(e) => ToolResult::error(e),
            },
        }
    }
}

impl Tool for PlanTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        _args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async { ToolResult::error("the plan tools need a session; none is running") })
    }

    fn call_in_session<'a>(
        &'a self,
        session_id: &'a str,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let dir = self.dir();
        Box::pin(async move {
            let session = session_id.to_owned();
            let args = args.clone();
            let tool = Self {
                definition: self.definition.clone(),
                op: self.op,
                dir: None,
            };
            tokio::task::spawn_blocking(move || tool.run(&dir, &session, &args))
                .await
                .unwrap_or_else(|e| ToolResult::error(format!("internal error: {e}")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::sync::CancellationToken;

    async fn call(tools: &[Arc<dyn Tool>], name: &str, session: &str, args: Value) -> ToolResult {
        let tool = tools.iter().find(|t| t.definition().name == name).unwrap();
        let cancel = CancellationToken::new();
        let ctx = ToolContext {
            working_dir: Path::new("/"),
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        let Value::Object(args) = args else { panic!() };
        tool.call_in_session(session, &args, ctx).await
    }

    #[tokio::test]
    async fn a_plan_is_written_read_back_and_marked_ready_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let tools = PlanTool::in_dir(Some(dir.path().to_path_buf()));
        let r = call(&tools, "read_plan", "s1", json!({})).await;
        assert!(
            r.is_error && r.content.starts_with("no plan written yet"),
            "{r:?}"
        );
        let r = call(&tools, "exit_plan_mode", "s1", json!({})).await;
        assert_eq!(
            r.content,
            "no plan to mark ready; call write_plan before exit_plan_mode"
        );
        let r = call(
            &tools,
            "write_plan",
            "s1",
            json!({"content": "# plan\n1. a"}),
        )
        .await;
        let file = dir.path().join("s1.md");
        assert_eq!(
            r,
            ToolResult::ok(format!("Plan saved to {}", file.display()))
        );
        let r = call(&tools, "read_plan", "s1", json!({})).await;
        assert_eq!(r, ToolResult::ok("# plan\n1. a"));
        assert_eq!(
            call(&tools, "exit_plan_mode", "s1", json!({})).await,
            ToolResult::ok("Plan ready for review.")
        );
        let other = call(&tools, "read_plan", "s2", json!({})).await;
        assert!(other.is_error, "another session has no plan");
        let r = call(&tools, "write_plan", "s1", json!({"content": "  \n"})).await;
        assert_eq!(r, ToolResult::error("content must not be empty"));
    }

    #[tokio::test]
    async fn a_session_id_cannot_name_a_file_outside_the_plans_directory() {
        let dir = tempfile::tempdir().unwrap();
        let tools = PlanTool::in_dir(Some(dir.path().join("plans")));
        for bad in ["../x", "..", ".hidden", "a/b", "a\\b", "", &"a".repeat(129)] {
            let r = call(&tools, "write_plan", bad, json!({"content": "x"})).await;
            assert!(
                r.is_error && r.content.starts_with("invalid session ID"),
                "{bad}: {r:?}"
            );
        }
        assert!(!dir.path().join("x.md").exists());
    }

    #[tokio::test]
    async fn a_symlink_at_the_plan_path_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "keep").unwrap();
        let plans = dir.path().join("plans");
        std::fs::create_dir(&plans).unwrap();
        std::os::unix::fs::symlink(&outside, plans.join("s.md")).unwrap();
        let tools = PlanTool::in_dir(Some(plans.clone()));
        let r = call(&tools, "write_plan", "s", json!({"content": "new"})).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(plans.join("s.md")).unwrap(), "new");
    }

    #[tokio::test]
    async fn without_a_session_the_tools_say_so() {
        let tools = PlanTool::all();
        let cancel = CancellationToken::new();
        let ctx = ToolContext {
            working_dir: Path::new("/"),
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        let r = tools[1].call(&Map::new(), ctx).await;
        assert!(r.is_error, "{r:?}");
    }
}
