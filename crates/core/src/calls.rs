//! What the phases say about one tool call: who made it, which tool it names (as the
//! approval ladder and the hooks see it), and its arguments.

use serde_json::{Map, Value};
use tether_protocol::{ToolCall, ToolCallPayload};
use tether_tools::ToolDefinition;

pub(crate) const CANCELED_BY_USER: &str = "The tool call was canceled by the user.";

/// Who made a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The model: the result joins the conversation.
    Model,
    /// A code-mode script: the result goes back to the script alone (it reaches the model
    /// inside the script's own result), as it was, without the model-facing cap or TOON.
    Script,
}

/// The tool a call names, as the approval chain and the hooks see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    pub(crate) def: &'a ToolDefinition,
    /// `mcp:SERVER:TOOL` for an MCP tool, else empty.
    pub(crate) qualified: &'a str,
}

/// The call's arguments as an object; anything else is an empty object.
pub(crate) fn arguments(call: &ToolCall) -> Map<String, Value> {
    match serde_json::from_str::<Value>(&call.function.arguments) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The payload of every hook about a call: the tool it names and its arguments.
pub(crate) fn tool_call(
    call: &ToolCall,
    target: Target<'_>,
    args: &Map<String, Value>,
) -> ToolCallPayload {
    ToolCallPayload {
        tool_category: target.def.category.to_owned(),
        tool_name: call.function.name.clone(),
        tool_qualified_name: target.qualified.to_owned(),
        tool_use_id: call.id.clone(),
        tool_input: args.clone(),
    }
}
