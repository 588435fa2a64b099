//! What the editor sees of a session: runtime events and stored history as ACP
//! `session/update` payloads (message and thought chunks, tool calls and their results).

use serde_json::{Value, json};
use tether_protocol::{Message, Role, RuntimeEvent};

/// The ACP tool kind of a Tether tool, for the editor's icon and grouping.
pub(crate) fn tool_kind(name: &str) -> &'static str {
    match name {
        "shell" | "script" => "execute",
        "think" => "think",
        "fetch" => "fetch",
        "directory_tree" | "read_skill" | "read_skill_file" => "read",
        "transfer_task" | "handoff" => "switch_mode",
        n if n.starts_with("read_") || n.starts_with("list_") || n.starts_with("get_") => "read",
        n if n.starts_with("edit_")
            || n.starts_with("write_")
            || n.starts_with("create_")
            || n.starts_with("update_")
            || n.starts_with("add_") =>
        {
            "edit"
        }
        n if n.starts_with("delete_") || n.starts_with("remove_") => "delete",
        n if n.starts_with("move_") || n.starts_with("rename_") => "move",
        n if n.starts_with("search_") || n.starts_with("find_") || n.starts_with("grep") => {
            "search"
        }
        n if n.starts_with("run_") || n.starts_with("exec") => "execute",
        n if n.starts_with("http_") => "fetch",
        _ => "other",
    }
}

/// The files a tool call touches, from its usual argument names.
pub(crate) fn locations(arguments: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for key in ["path", "file", "filepath", "filename", "file_path"] {
        if let Some(p) = arguments
            .get(key)
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        {
            let mut loc = json!({"path": p});
            if let Some(line) = arguments.get("line").and_then(Value::as_u64) {
                loc["line"] = json!(line);
            }
            out.push(loc);
            break;
        }
    }
    if let Some(paths) = arguments.get("paths").and_then(Value::as_array) {
        out.extend(
            paths
                .iter()
                .filter_map(Value::as_str)
                .filter(|p| !p.is_empty())
                .map(|p| json!({"path": p})),
        );
    }
    out
}

/// A `tool_call` (or, with `sessionUpdate` dropped, the `toolCall` of a permission request).
pub(crate) fn tool_call(id: &str, name: &str, arguments: &Value, status: &str) -> Value {
    let mut update = json!({
        "sessionUpdate": "tool_call",
        "toolCallId": id,
        "title": name,
        "kind": tool_kind(name),
        "status": status,
        "rawInput": arguments,
    });
    let locs = locations(arguments);
    if !locs.is_empty() {
        update["locations"] = Value::Array(locs);
    }
    update
}

fn text_chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

fn tool_result(id: &str, response: &str, is_error: bool) -> Value {
    json!({
        "sessionUpdate": "tool_call_update",
        "toolCallId": id,
        "status": if is_error { "failed" } else { "completed" },
        "content": [{"type": "content", "content": {"type": "text", "text": response}}],
        "rawOutput": {"content": response},
    })
}

/// The tools of the `todo` toolset, whose results carry the whole list.
const TODO_TOOLS: [&str; 4] = ["create_todo", "create_todos", "update_todos", "list_todos"];

/// A todo tool's result as the agent's plan (the editor replaces its plan with each one).
fn plan(name: &str, response: &str) -> Option<Value> {
    if !TODO_TOOLS.contains(&name) {
        return None;
    }
    let result: Value = serde_json::from_str(response).ok()?;
    let entries: Vec<Value> = result["todos"]
        .as_array()?
        .iter()
        .map(|t| {
            json!({
                "content": t["description"],
                "priority": "medium",
                "status": t["status"].as_str().unwrap_or("pending"),
            })
        })
        .collect();
    Some(json!({"sessionUpdate": "plan", "entries": entries}))
}

/// The updates one runtime event becomes (none when the editor has no place for it).
pub(crate) fn from_event(event: &RuntimeEvent) -> Vec<Value> {
    if let RuntimeEvent::ToolResponse {
        id,
        name,
        response,
        is_error,
        ..
    } = event
    {
        let result = tool_result(id, response, *is_error);
        return match plan(name, response).filter(|_| !is_error) {
            Some(plan) => vec![result, plan],
            None => vec![result],
        };
    }
    one(event).into_iter().collect()
}

fn one(event: &RuntimeEvent) -> Option<Value> {
    match event {
        RuntimeEvent::AgentTextDelta { text, .. } => Some(text_chunk("agent_message_chunk", text)),
        RuntimeEvent::ReasoningDelta { text, .. } => Some(text_chunk("agent_thought_chunk", text)),
        RuntimeEvent::ToolCall {
            id,
            name,
            arguments,
            ..
        } => Some(tool_call(id, name, arguments, "in_progress")),
        RuntimeEvent::HookBlocked { event, message, .. } => Some(text_chunk(
            "agent_message_chunk",
            &format!("\n\n[{event} hook] {message}\n"),
        )),
        RuntimeEvent::Error { message, .. } => Some(text_chunk(
            "agent_message_chunk",
            &format!("\n\nError: {message}\n"),
        )),
        RuntimeEvent::SessionStarted { .. }
        | RuntimeEvent::UserMessage { .. }
        | RuntimeEvent::AgentChanged { .. }
        | RuntimeEvent::AgentMessage { .. }
        | RuntimeEvent::TurnStarted { .. }
        | RuntimeEvent::TurnEnded { .. }
        | RuntimeEvent::ModelCallStarted { .. }
        | RuntimeEvent::ToolConfirmation { .. }
        | RuntimeEvent::ToolResponse { .. }
        | RuntimeEvent::ToolProgress { .. }
        | RuntimeEvent::HookStarted { .. }
        | RuntimeEvent::HookFinished { .. }
        | RuntimeEvent::Warning { .. }
        | RuntimeEvent::SessionEnded { .. } => None,
    }
}

/// A stored conversation as the updates that show it again (`session/load`).
pub(crate) fn replay(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in messages {
        match m.role {
            Role::System => {}
            Role::User => out.push(text_chunk("user_message_chunk", &m.text())),
            Role::Assistant => {
                if !m.reasoning_content.is_empty() {
                    out.push(text_chunk("agent_thought_chunk", &m.reasoning_content));
                }
                let text = m.text();
                if !text.is_empty() {
                    out.push(text_chunk("agent_message_chunk", &text));
                }
                for call in &m.tool_calls {
                    let args = serde_json::from_str(&call.function.arguments)
                        .unwrap_or_else(|_| json!({"raw": call.function.arguments}));
                    out.push(tool_call(&call.id, &call.function.name, &args, "pending"));
                }
            }
            Role::Tool => out.push(tool_result(&m.tool_call_id, &m.text(), m.is_error)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_map_to_acp_kinds() {
        for (name, kind) in [
            ("shell", "execute"),
            ("read_file", "read"),
            ("read_multiple_files", "read"),
            ("list_directory", "read"),
            ("directory_tree", "read"),
            ("write_file", "edit"),
            ("edit_file", "edit"),
            ("create_directory", "edit"),
            ("delete_memory", "delete"),
            ("search_files_content", "search"),
            ("think", "think"),
            ("fetch", "fetch"),
            ("transfer_task", "switch_mode"),
            ("weather", "other"),
        ] {
            assert_eq!(tool_kind(name), kind, "{name}");
        }
    }

    #[test]
    fn file_tools_carry_their_locations() {
        assert_eq!(
            tool_call(
                "c1",
                "read_file",
                &json!({"path": "src/a.rs", "line": 3}),
                "pending"
            ),
            json!({
                "sessionUpdate": "tool_call", "toolCallId": "c1", "title": "read_file",
                "kind": "read", "status": "pending",
                "rawInput": {"path": "src/a.rs", "line": 3},
                "locations": [{"path": "src/a.rs", "line": 3}],
            })
        );
        assert_eq!(
            locations(&json!({"paths": ["a", "b"]})),
            vec![json!({"path": "a"}), json!({"path": "b"})]
        );
        assert!(
            tool_call("c2", "shell", &json!({"cmd": "ls"}), "pending")
                .get("locations")
                .is_none()
        );
    }

    #[test]
    fn a_todo_result_is_also_the_plan() {
        let event = RuntimeEvent::ToolResponse {
            id: "c1".into(),
            name: "create_todos".into(),
            response: r#"{"created":[],"todos":[{"id":"todo_1","description":"write it","status":"in_progress"}]}"#.into(),
            is_error: false,
            structured: None,
        };
        let updates = from_event(&event);
        assert_eq!(updates.len(), 2);
        assert_eq!(
            updates[1],
            json!({"sessionUpdate": "plan", "entries": [
                {"content": "write it", "priority": "medium", "status": "in_progress"}
            ]})
        );
    }

    #[test]
    fn history_replays_as_chunks_and_tool_calls() {
        let call = tether_protocol::ToolCall {
            id: "c1".into(),
            kind: "function".into(),
            function: tether_protocol::FunctionCall {
                name: "shell".into(),
                arguments: r#"{"cmd":"ls"}"#.into(),
            },
        };
        let mut asked = Message::assistant("");
        asked.tool_calls = vec![call];
        let messages = vec![
            Message::user("hi"),
            asked,
            Message::tool_result("c1", "shell", "a.txt", false),
            Message::assistant("done"),
        ];
        let kinds: Vec<String> = replay(&messages)
            .iter()
            .map(|u| u["sessionUpdate"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk"
            ]
        );
    }
}
