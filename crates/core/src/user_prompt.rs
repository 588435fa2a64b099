//! `type: user_prompt`: a tool the model calls to ask the user a question, answered through
//! the same [`Interaction`] as tool confirmations and MCP elicitations (interactive: asked;
//! `--exec`: read from stdin, end of input declines). The answer is docker-agent's JSON:
//! `{"action": "accept"|"decline"|"cancel", "content": {…}}`.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_mcp::{Elicitation, ElicitationAnswer};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

use crate::interaction::Interaction;

pub(crate) const USER_PROMPT_INSTRUCTION: &str = "## User Prompt Tool\n\nAsk the user a question when you need clarification, input, or a decision.\n\nOptionally provide a JSON schema to structure the response:\n- Enum: {\"type\": \"string\", \"enum\": [\"option1\", \"option2\"], \"title\": \"Select\"}\n- Object: {\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}}, \"required\": [\"name\"]}\n\nResponse contains \"action\" (accept/decline/cancel) and \"content\" (user data when accepted).";

#[derive(Debug)]
pub(crate) struct UserPromptTool {
    interaction: Arc<dyn Interaction>,
    definition: ToolDefinition,
}

impl UserPromptTool {
    pub(crate) fn new(interaction: Arc<dyn Interaction>) -> Self {
        Self {
            interaction,
            definition: ToolDefinition {
                name: "user_prompt".to_owned(),
                description: "Ask the user a question and wait for their response. Use this when you need interactive input, clarification, or confirmation from the user. Optionally provide a JSON schema to define the expected response structure.".to_owned(),
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "message": {"type": "string", "description": "The message/question to display to the user"},
                        "title": {"type": "string", "description": "Optional title for the dialog window (defaults to 'Question')"},
                        "schema": {"type": "object", "description": "JSON Schema defining the expected response structure. Supports object schemas with properties or primitive type schemas."}
                    },
                    "required": ["message"],
                    "additionalProperties": false
                }),
                read_only: true,
                category: "user_prompt",
            },
        }
    }
}

/// A primitive schema (`{"type": "string", "enum": …}`) is asked as one field, `response`.
fn form(schema: Option<&Value>) -> (Value, bool) {
    match schema {
        Some(s) if s.get("properties").is_some() => (s.clone(), false),
        Some(s) if s.is_object() => (
            json!({"type": "object", "properties": {"response": s}, "required": ["response"]}),
            true,
        ),
        _ => (
            json!({"type": "object", "properties": {"response": {"type": "string", "title": "Answer"}}, "required": ["response"]}),
            true,
        ),
    }
}

impl Tool for UserPromptTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let Some(message) = args.get("message").and_then(Value::as_str) else {
                return ToolResult::error("`message` is missing");
            };
            let (schema, wrapped) = form(args.get("schema"));
            let request = Elicitation {
                server: String::new(),
                message: message.to_owned(),
                schema,
            };
            let answer = tokio::select! {
                a = self.interaction.elicit(&request) => a,
                () = ctx.cancel.cancelled() => ElicitationAnswer::Cancel,
            };
            match answer {
                ElicitationAnswer::Accept(mut content) => {
                    let content = match (wrapped, content.remove("response")) {
                        (true, Some(v)) => v,
                        (_, v) => {
                            if let Some(v) = v {
                                content.insert("response".to_owned(), v);
                            }
                            Value::Object(content)
                        }
                    };
                    ToolResult::ok(json!({"action": "accept", "content": content}).to_string())
                }
                ElicitationAnswer::Decline => {
                    ToolResult::error(json!({"action": "decline"}).to_string())
                }
                ElicitationAnswer::Cancel => {
                    ToolResult::error(json!({"action": "cancel"}).to_string())
                }
            }
        })
    }
}
