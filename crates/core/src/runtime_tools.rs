//! The tools the runtime answers itself (`transfer_task`, `handoff`, the `background_agents`
//! tools, code mode's `run_tools_with_javascript`): their names and the definitions the model
//! sees. Only data, so the toolbox and setup read them without reaching into the phases that
//! run them.

use serde_json::{Value, json};
use tether_codemode::Function;
use tether_tools::ToolDefinition;

pub(crate) const TRANSFER_TASK: &str = "transfer_task";
pub(crate) const HANDOFF: &str = "handoff";

pub(crate) fn transfer_task_definition(sub_agents: &[String]) -> ToolDefinition {
    ToolDefinition {
        name: TRANSFER_TASK.to_owned(),
        description: format!(
            "Use this function to transfer a task to the selected team member. You must provide a clear and concise description of the task the member should achieve AND the expected output. Team members: {}.",
            sub_agents.join(", ")
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "agent": {"type": "string", "description": "The name of the agent to transfer the task to."},
                "task": {"type": "string", "description": "A clear and concise description of the task the member should achieve."},
                "expected_output": {"type": "string", "description": "The expected output from the member (optional)."}
            },
            "required": ["agent", "task", "expected_output"],
            "additionalProperties": false
        }),
        read_only: true,
        category: "transfer",
    }
}

pub(crate) fn handoff_definition(handoffs: &[String]) -> ToolDefinition {
    ToolDefinition {
        name: HANDOFF.to_owned(),
        description: format!(
            "Hand the conversation off to another agent, who continues it from here with the full history. Agents you can hand off to: {}.",
            handoffs.join(", ")
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "agent": {"type": "string", "description": "The name of the agent to hand the conversation to."}
            },
            "required": ["agent"],
            "additionalProperties": false
        }),
        read_only: true,
        category: "transfer",
    }
}

pub(crate) const RUN: &str = "run_background_agent";
pub(crate) const LIST: &str = "list_background_agents";
pub(crate) const VIEW: &str = "view_background_agent";
pub(crate) const STOP: &str = "stop_background_agent";
pub(crate) const WAIT: &str = "wait_background_agents";

pub(crate) const BACKGROUND_INSTRUCTION: &str = "# Background Agent Tasks

Use background agent tasks to dispatch work to sub-agents concurrently.

- **run_background_agent**: Start a sub-agent task and return its task ID. Sub-agents keep the session's safety mode, permissions and hooks; calls that would need the user's confirmation are denied, since background tasks cannot ask.
- **list_background_agents**: Show all tasks with status and runtime
- **view_background_agent**: Get output and status of a task by task_id
- **stop_background_agent**: Terminate a task by task_id
- **wait_background_agents**: Join the given tasks and collect their results. Prefer this over polling; a timeout leaves the tasks running.

**Notes**: Output capped at 10MB per task. All tasks end when the session ends.";

/// The toolset's tools: those `allow` names (all when `None`), only the read-only ones when
/// `readonly`.
pub(crate) fn background_definitions(
    allow: Option<&[String]>,
    readonly: bool,
) -> Vec<ToolDefinition> {
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

/// `run_tools_with_javascript`, describing `scripted` (not read-only: its script may call
/// anything, though each call is approved on its own too).
pub(crate) fn code_mode_definition<'a>(
    scripted: impl Iterator<Item = &'a ToolDefinition>,
) -> ToolDefinition {
    let functions: Vec<Function<'_>> = scripted.map(function).collect();
    ToolDefinition {
        name: tether_codemode::TOOL_NAME.to_owned(),
        description: tether_codemode::description(&functions),
        parameters: tether_codemode::parameters(),
        read_only: false,
        category: tether_codemode::CATEGORY,
    }
}

pub(crate) fn function(d: &ToolDefinition) -> Function<'_> {
    Function {
        name: &d.name,
        description: &d.description,
        parameters: &d.parameters,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_follow_tools_and_readonly() {
        let names =
            |defs: Vec<ToolDefinition>| defs.into_iter().map(|d| d.name).collect::<Vec<_>>();
        assert_eq!(
            names(background_definitions(None, false)),
            [RUN, LIST, VIEW, WAIT, STOP]
        );
        assert_eq!(
            names(background_definitions(None, true)),
            [LIST, VIEW, WAIT]
        );
        let only = [RUN.to_owned(), VIEW.to_owned()];
        assert_eq!(
            names(background_definitions(Some(&only), false)),
            [RUN, VIEW]
        );
    }
}
