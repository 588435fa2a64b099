//! `type: session_context`: docker-agent's `list_sessions` and `read_session`, over the
//! runtime's session store, so an agent can reuse an earlier session's work as context.
//!
//! The tools read the store the run writes to ([`SessionStore::history`]); the session that
//! is running is never listed nor read. A transcript longer than the budget keeps its most
//! recent messages, as docker-agent renders it.

use std::fmt::Write as _;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_protocol::{ContentPart, Message, Role};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

use crate::store::{SessionStore, StoredInfo};

/// The toolset's system-prompt text (docker-agent's).
const SESSION_CONTEXT_INSTRUCTION: &str = "## Session Context Tools\n\nUse this toolset to reuse work from a previous session as context, instead of asking the user to repeat it.\n\n- `list_sessions(limit?)` returns recent sessions (most recent first) with their id, title, creation time and message count. The session you are running in is never listed.\n- `read_session(session_id)` returns the conversation transcript of a previous session so you can use it as context. `session_id` accepts a concrete id from `list_sessions`, or a relative reference like `-1` (most recent), `-2` (second most recent), and so on. Long transcripts are truncated from the start, keeping the most recent messages.\n\nCall `list_sessions` first to find the right session, then `read_session` to pull it in. Only read a session when its content is actually relevant to the current task.";

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;
/// The budget of a rendered transcript, in bytes.
const MAX_CHARS: usize = 24_000;
const UNAVAILABLE: &str = "session history is not available in this runtime";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    List,
    Read,
}

/// One of the two tools.
#[derive(Debug)]
pub(crate) struct SessionContextTool {
    definition: ToolDefinition,
    op: Op,
    store: Option<Arc<dyn SessionStore>>,
}

#[derive(Debug, Default, Deserialize)]
struct ListArgs {
    #[serde(default)]
    limit: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct ReadArgs {
    session_id: String,
}

impl SessionContextTool {
    /// `list_sessions` and `read_session` over `store` (none: each call says so).
    pub(crate) fn pair(store: Option<Arc<dyn SessionStore>>) -> Vec<Arc<dyn Tool>> {
        let list = ToolDefinition {
            name: "list_sessions".to_owned(),
            description: "List previous sessions (most recent first) with their id, title, creation time and message count. The current session is never included.".to_owned(),
            parameters: json!({
                "additionalProperties": false,
                "properties": {"limit": {"description": "Maximum number of sessions to return, most recent first. Defaults to 20 and is capped at 100.", "type": "integer"}},
                "type": "object",
            }),
            read_only: true,
            category: "session_context",
        };
        let read = ToolDefinition {
            name: "read_session".to_owned(),
            description: "Read the conversation transcript of a previous session to use it as context. Accepts a concrete session id or a relative reference like '-1'. Long transcripts are truncated, keeping the most recent messages.".to_owned(),
            parameters: json!({
                "additionalProperties": false,
                "properties": {"session_id": {"description": "The session to read. Use an id from list_sessions, or a relative reference like '-1' (most recent), '-2' (second most recent).", "type": "string"}},
                "required": ["session_id"],
                "type": "object",
            }),
            read_only: true,
            category: "session_context",
        };
        [(list, Op::List), (read, Op::Read)]
            .into_iter()
            .map(|(definition, op)| {
                Arc::new(Self {
                    definition,
                    op,
                    store: store.clone(),
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    fn run(&self, current: &str, args: &Map<String, Value>) -> Result<String, String> {
        let store = self.store.as_ref().ok_or(UNAVAILABLE)?;
        let invalid = |e: serde_json::Error| format!("invalid arguments: {e}");
        // The `n` most recent earlier sessions, the running one left out.
        let earlier = |n: usize| -> Result<Vec<StoredInfo>, String> {
            let mut all = store.history(n.saturating_add(1))?;
            all.retain(|s| s.id != current);
            all.truncate(n);
            Ok(all)
        };
        match self.op {
            Op::List => {
                let a: ListArgs =
                    serde_json::from_value(Value::Object(args.clone())).map_err(invalid)?;
                let limit = match a.limit {
                    Some(n) if n > 0 => usize::try_from(n).unwrap_or(MAX_LIMIT).min(MAX_LIMIT),
                    _ => DEFAULT_LIMIT,
                };
                let infos: Vec<Value> = earlier(limit)?
                    .into_iter()
                    .map(|s| {
                        json!({
                            "id": s.id,
                            "title": s.title,
                            "created_at": s.created_at,
                            "num_messages": s.num_messages,
                        })
                    })
                    .collect();
                Ok(Value::Array(infos).to_string())
            }
            Op::Read => {
                let a: ReadArgs =
                    serde_json::from_value(Value::Object(args.clone())).map_err(invalid)?;
                let reference = a.session_id.trim();
                if reference.is_empty() {
                    return Err("session_id must not be empty".to_owned());
                }
                let id = match reference.strip_prefix('-').map(str::parse::<usize>) {
                    Some(Ok(n)) if n > 0 => earlier(n)?
                        .into_iter()
                        .nth(n - 1)
                        .map(|s| s.id)
                        .ok_or_else(|| {
                            format!("cannot resolve session {reference:?}: no such session")
                        })?,
                    _ => reference.to_owned(),
                };
                if id == current {
                    return Err(
                        "cannot read the current session; reference a different one".to_owned()
                    );
                }
                let (info, messages) = store
                    .transcript(&id)?
                    .ok_or_else(|| format!("session {id:?} not found"))?;
                Ok(render(&info, &messages, MAX_CHARS))
            }
        }
    }
}

impl Tool for SessionContextTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.answer("", args).await })
    }

    fn call_in_session<'a>(
        &'a self,
        session_id: &'a str,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.answer(session_id, args).await })
    }
}

impl SessionContextTool {
    async fn answer(&self, current: &str, args: &Map<String, Value>) -> ToolResult {
        // The store is synchronous (SQLite): off the async threads.
        let this = Self {
            definition: self.definition.clone(),
            op: self.op,
            store: self.store.clone(),
        };
        let current = current.to_owned();
        let args = args.clone();
        match tokio::task::spawn_blocking(move || this.run(&current, &args)).await {
            Ok(Ok(text)) => ToolResult::ok(text),
            Ok(Err(e)) => ToolResult::error(e),
            Err(e) => ToolResult::error(format!("internal error: {e}")),
        }
    }
}

/// The slot of a `session_context` toolset, its text given to `instruct`.
pub(crate) fn source(
    store: &Option<Arc<dyn SessionStore>>,
    mut instruct: impl FnMut(&str),
) -> crate::toolbox::Source {
    instruct(SESSION_CONTEXT_INSTRUCTION);
    crate::toolbox::Source::Builtin(SessionContextTool::pair(store.clone()))
}

/// The transcript of a session: a header, then its messages; when over `budget` bytes, the
/// oldest are dropped and a note says how many.
pub(crate) fn render(info: &StoredInfo, messages: &[Message], budget: usize) -> String {
    let mut head = String::new();
    let title = if info.title.trim().is_empty() {
        "(untitled)"
    } else {
        info.title.trim()
    };
    let _ = writeln!(head, "# Session {} — {title}", info.id);
    if !info.created_at.is_empty() {
        let _ = writeln!(head, "Created: {}", info.created_at);
    }
    let _ = writeln!(head, "Messages: {}", messages.len());
    let blocks: Vec<String> = messages.iter().filter_map(block).collect();
    let room = budget.saturating_sub(head.len());
    let (mut used, mut kept) = (0, 0);
    for b in blocks.iter().rev() {
        let cost = b.len() + 1;
        if used + cost > room && kept > 0 {
            break;
        }
        used += cost;
        kept += 1;
    }
    let omitted = blocks.len() - kept;
    let mut out = head;
    if omitted > 0 {
        let _ = writeln!(
            out,
            "\n[{omitted} earlier message(s) omitted to fit the context budget; showing the most recent {kept}]"
        );
    }
    for b in &blocks[blocks.len() - kept..] {
        out.push('\n');
        out.push_str(b);
        out.push('\n');
    }
    out
}

/// One message as a transcript block; `None` when it carries nothing.
fn block(m: &Message) -> Option<String> {
    let text = if m.content.trim().is_empty() {
        m.multi_content
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } => Some(text.trim()),
                ContentPart::ImageUrl { .. } => None,
            })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        m.content.trim().to_owned()
    };
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool result",
        Role::System => "system",
    };
    let mut b = format!("## {role}\n");
    if !text.is_empty() {
        b.push_str(&text);
        b.push('\n');
    }
    for call in &m.tool_calls {
        let name = if call.function.name.is_empty() {
            "(unknown)"
        } else {
            &call.function.name
        };
        let args = call.function.arguments.trim();
        if args.is_empty() {
            let _ = writeln!(b, "→ called tool `{name}`");
        } else {
            let _ = writeln!(b, "→ called tool `{name}` with {args}");
        }
    }
    let b = b.trim_end_matches('\n').to_owned();
    b.contains('\n').then_some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> StoredInfo {
        StoredInfo {
            id: "s1".to_owned(),
            title: "fix the build".to_owned(),
            created_at: "2026-01-02T03:04:05Z".to_owned(),
            num_messages: 3,
        }
    }

    #[test]
    fn a_transcript_shows_roles_text_and_tool_calls() {
        let mut a = Message::assistant("looking");
        a.tool_calls.push(tether_protocol::ToolCall::new(
            "c1",
            "shell",
            r#"{"cmd":"ls"}"#,
        ));
        let msgs = [Message::user("hello"), a, Message::user("  ")];
        let text = render(&info(), &msgs, MAX_CHARS);
        assert_eq!(
            text,
            "# Session s1 — fix the build\nCreated: 2026-01-02T03:04:05Z\nMessages: 3\n\n## user\nhello\n\n## assistant\nlooking\n→ called tool `shell` with {\"cmd\":\"ls\"}\n"
        );
    }

    /// Sessions `s3` (the running one), `s2`, `s1`, most recent first.
    #[derive(Debug)]
    struct Three;

    impl SessionStore for Three {
        fn create(&self, _: &crate::Session, _: &str, _: Option<&str>) -> Result<(), String> {
            Ok(())
        }
        fn append(&self, _: &str, _: &Message) -> Result<(), String> {
            Ok(())
        }
        fn update(&self, _: &crate::Session) -> Result<(), String> {
            Ok(())
        }
        fn replace_messages(&self, _: &str, _: &[Message]) -> Result<(), String> {
            Ok(())
        }
        fn record_usage(
            &self,
            _: &str,
            _: &str,
            _: &tether_protocol::Usage,
            _: Option<f64>,
        ) -> Result<(), String> {
            Ok(())
        }
        fn history(&self, limit: usize) -> Result<Vec<StoredInfo>, String> {
            Ok(["s3", "s2", "s1"]
                .iter()
                .take(limit)
                .map(|id| StoredInfo {
                    id: (*id).to_owned(),
                    title: format!("title {id}"),
                    created_at: String::new(),
                    num_messages: 1,
                })
                .collect())
        }
        fn transcript(&self, id: &str) -> Result<Option<(StoredInfo, Vec<Message>)>, String> {
            let info = self.history(3)?.into_iter().find(|s| s.id == id);
            Ok(info.map(|i| (i, vec![Message::user(format!("in {id}"))])))
        }
    }

    fn answer(
        store: Option<Arc<dyn SessionStore>>,
        name: &str,
        args: Value,
    ) -> Result<String, String> {
        let tools = SessionContextTool::pair(store);
        let tool = tools.iter().find(|t| t.definition().name == name).unwrap();
        let Value::Object(args) = args else { panic!() };
        let this = SessionContextTool {
            definition: tool.definition().clone(),
            op: if name == "list_sessions" {
                Op::List
            } else {
                Op::Read
            },
            store: Some(Arc::new(Three)),
        };
        this.run("s3", &args)
    }

    #[test]
    fn the_running_session_is_never_listed_nor_read() {
        let list = answer(None, "list_sessions", json!({"limit": 5})).unwrap();
        let ids: Vec<String> = serde_json::from_str::<Vec<Value>>(&list)
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids, ["s2", "s1"]);
        let one = answer(None, "list_sessions", json!({"limit": 1})).unwrap();
        assert!(one.contains("s2") && !one.contains("s1"), "{one}");
        let text = answer(None, "read_session", json!({"session_id": "-1"})).unwrap();
        assert!(text.starts_with("# Session s2 — title s2"), "{text}");
        let text = answer(None, "read_session", json!({"session_id": "-2"})).unwrap();
        assert!(text.contains("in s1"), "{text}");
        assert_eq!(
            answer(None, "read_session", json!({"session_id": "s3"})),
            Err("cannot read the current session; reference a different one".to_owned())
        );
        assert_eq!(
            answer(None, "read_session", json!({"session_id": "-3"})),
            Err("cannot resolve session \"-3\": no such session".to_owned())
        );
        assert_eq!(
            answer(None, "read_session", json!({"session_id": " "})),
            Err("session_id must not be empty".to_owned())
        );
    }

    #[test]
    fn without_a_store_the_tools_say_so() {
        let tools = SessionContextTool::pair(None);
        let this = SessionContextTool {
            definition: tools[0].definition().clone(),
            op: Op::List,
            store: None,
        };
        assert_eq!(this.run("s", &Map::new()), Err(UNAVAILABLE.to_owned()));
    }

    #[test]
    fn a_long_transcript_keeps_its_most_recent_messages() {
        let msgs: Vec<Message> = (0..50)
            .map(|i| Message::user(format!("message {i:02} {}", "x".repeat(40))))
            .collect();
        let text = render(&info(), &msgs, 600);
        assert!(text.len() <= 700, "{}", text.len());
        assert!(text.contains("message 49"));
        assert!(!text.contains("message 00"));
        assert!(text.contains("earlier message(s) omitted to fit the context budget"));
    }
}
