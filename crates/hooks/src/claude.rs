//! Claude Code's dialect of the hook protocol (`dialect: claude`), so a hook script written for
//! Claude Code runs unchanged.
//!
//! The protocols already agree on stdin JSON, exit 2 and the camelCase Output (docs/design.md D13).
//! What differs is names: Claude's events are `PreToolUse`, its tools `Bash` / `Read` / …, and
//! its tool inputs say `command` and `file_path` where ours say `cmd` and `path`. A guard that
//! reads `.tool_input.command` would see nothing in our Input and let every call through, so a
//! Claude-dialect hook gets the Input in Claude's spelling and its `updatedInput` is spelled
//! back. Everything else in the Input is ours (for example `tool_response` stays the tool's
//! text, where Claude sends an object).
//!
//! Two verdicts differ too, and a Claude-dialect hook keeps Claude's meaning. On `PostToolUse`
//! the tool has already run: Claude hands an exit 2's stderr (or a `decision: "block"`'s
//! reason) to the model and goes on, where a docker-agent hook stops the run; here the reason
//! becomes context for the next model call. On `Stop` a block keeps the agent working with the
//! reason as feedback (the runtime reads `HookResult::keep_going`), where docker-agent ignores
//! stop verdicts.

use std::sync::Arc;

use serde_json::{Map, Value};
use tether_protocol::{HookEvent, HookInput, HookOutput};

use crate::result::Outcome;

/// Claude Code event names, for the events both have.
pub const EVENTS: [(&str, HookEvent); 10] = [
    ("PreToolUse", HookEvent::PreToolUse),
    ("PostToolUse", HookEvent::PostToolUse),
    ("PermissionRequest", HookEvent::PermissionRequest),
    ("UserPromptSubmit", HookEvent::UserPromptSubmit),
    ("Stop", HookEvent::Stop),
    ("SubagentStop", HookEvent::SubagentStop),
    ("SessionStart", HookEvent::SessionStart),
    ("SessionEnd", HookEvent::SessionEnd),
    ("PreCompact", HookEvent::PreCompact),
    ("Notification", HookEvent::Notification),
];

/// Our tool → Claude Code's tool (the first match names it in the Input; the importer reads
/// the table the other way).
pub const TOOLS: [(&str, &str); 13] = [
    ("shell", "Bash"),
    ("read_file", "Read"),
    ("read_multiple_files", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("edit_file", "MultiEdit"),
    ("directory_tree", "Glob"),
    ("search_files_content", "Grep"),
    ("list_directory", "LS"),
    ("create_todo", "TodoWrite"),
    ("create_todos", "TodoWrite"),
    ("update_todos", "TodoWrite"),
    ("transfer_task", "Task"),
];

/// Tool input keys spelled differently: (tool, ours, Claude's).
const KEYS: [(&str, &str, &str); 4] = [
    ("shell", "cmd", "command"),
    ("read_file", "path", "file_path"),
    ("write_file", "path", "file_path"),
    ("edit_file", "path", "file_path"),
];

/// Claude's name of an event, if it has one.
pub fn event_name(event: HookEvent) -> Option<&'static str> {
    EVENTS.iter().find(|(_, e)| *e == event).map(|(c, _)| *c)
}

/// Claude's name of one of our tools, if it has one.
pub fn tool_name(ours: &str) -> Option<&'static str> {
    TOOLS.iter().find(|(o, _)| *o == ours).map(|(_, c)| *c)
}

fn rename(map: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(v) = map.remove(from) {
        map.insert(to.to_owned(), v);
    }
}

/// The Input as a Claude Code hook reads it.
pub(crate) fn payload(event: HookEvent, input: &HookInput) -> Arc<[u8]> {
    let mut value = serde_json::to_value(input).unwrap_or_else(|_| Value::Object(Map::new()));
    if let Value::Object(map) = &mut value {
        if let Some(name) = event_name(event) {
            map.insert("hook_event_name".to_owned(), name.into());
        }
        if let Some(name) = tool_name(&input.tool_name) {
            map.insert("tool_name".to_owned(), name.into());
        }
        if let Some(Value::Object(args)) = map.get_mut("tool_input") {
            for (tool, ours, theirs) in KEYS {
                if tool == input.tool_name {
                    rename(args, ours, theirs);
                }
            }
        }
    }
    serde_json::to_vec(&value)
        .map(Arc::from)
        .unwrap_or_else(|_| Arc::from(&b"{}"[..]))
}

/// Reads a Claude hook's outcome with Claude's meaning: `updatedInput` spelled back, and a
/// `PostToolUse` block turned into context for the model.
pub(crate) fn adapt(event: HookEvent, tool: &str, outcome: &mut Outcome) {
    if event == HookEvent::PostToolUse
        && let Some(reason) = block_reason(outcome).map(str::to_owned)
        && let Outcome::Exited {
            code,
            stdout,
            stderr,
            output,
        } = outcome
    {
        *code = 0;
        stdout.clear();
        stderr.clear();
        let o = output.get_or_insert_with(HookOutput::default);
        o.decision.clear();
        o.reason.clear();
        if !reason.is_empty() {
            let specific = o.hook_specific_output.get_or_insert_with(Box::default);
            if !specific.additional_context.is_empty() {
                specific.additional_context.push('\n');
            }
            specific.additional_context.push_str(&reason);
        }
    }
    if let Outcome::Exited {
        output: Some(o), ..
    } = outcome
    {
        map_output(tool, o);
    }
}

/// The reason a Claude hook blocked a `Stop`; a block without one still keeps the agent going.
pub(crate) fn stop_block(outcome: &Outcome) -> Option<String> {
    block_reason(outcome).map(|r| {
        if r.is_empty() {
            "a Stop hook asked to keep going"
        } else {
            r
        }
        .to_owned()
    })
}

/// How Claude Code reads a block: exit 2 with its stderr, or `decision: "block"` with its
/// `reason` (possibly empty); `None` when the hook did not block.
fn block_reason(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Exited {
            code: 2, stderr, ..
        } => Some(stderr.trim()),
        Outcome::Exited {
            code: 0,
            output: Some(o),
            ..
        } if o.decision.eq_ignore_ascii_case("block") => Some(o.reason.trim()),
        _ => None,
    }
}

/// Spells a Claude hook's `updatedInput` keys back as the tool `tool` expects them.
fn map_output(tool: &str, output: &mut HookOutput) {
    let Some(args) = output
        .hook_specific_output
        .as_mut()
        .and_then(|h| h.updated_input.as_mut())
    else {
        return;
    };
    for (t, ours, theirs) in KEYS {
        if t == tool {
            rename(args, theirs, ours);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use serde_json::json;
    use tether_protocol::HookSpecificOutput;

    use super::*;

    #[test]
    fn a_shell_call_reads_as_claude_code_spells_it() {
        let input = HookInput {
            session_id: "s".into(),
            hook_event_name: "pre_tool_use".into(),
            tool_name: "shell".into(),
            tool_use_id: "call_1".into(),
            tool_input: Some(
                json!({"cmd": "rm -rf /", "cwd": "/tmp"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
            ..HookInput::default()
        };
        let v: Value = serde_json::from_slice(&payload(HookEvent::PreToolUse, &input)).unwrap();
        assert_eq!(
            (
                &v["hook_event_name"],
                &v["tool_name"],
                &v["tool_input"],
                &v["tool_use_id"]
            ),
            (
                &json!("PreToolUse"),
                &json!("Bash"),
                &json!({"command": "rm -rf /", "cwd": "/tmp"}),
                &json!("call_1")
            )
        );
    }

    #[test]
    fn names_without_a_claude_equivalent_stay_ours() {
        let input = HookInput {
            hook_event_name: "turn_start".into(),
            tool_name: "fetch".into(),
            tool_input: Some(json!({"path": "x"}).as_object().cloned().unwrap()),
            ..HookInput::default()
        };
        let v: Value = serde_json::from_slice(&payload(HookEvent::TurnStart, &input)).unwrap();
        assert_eq!(v["tool_name"], json!("fetch"));
        assert_eq!(v["tool_input"], json!({"path": "x"}));
        assert!(v.get("hook_event_name").is_none_or(|n| n != "TurnStart"));
        assert_eq!(v["hook_event_name"], json!("turn_start"));
    }

    #[test]
    fn updated_input_is_spelled_back() {
        let mut out = HookOutput {
            hook_specific_output: Some(Box::new(HookSpecificOutput {
                updated_input: json!({"file_path": "/a", "content": "x"})
                    .as_object()
                    .cloned(),
                ..HookSpecificOutput::default()
            })),
            ..HookOutput::default()
        };
        map_output("write_file", &mut out);
        assert_eq!(
            out.hook_specific_output.unwrap().updated_input.unwrap(),
            json!({"path": "/a", "content": "x"})
                .as_object()
                .cloned()
                .unwrap()
        );
    }
}
