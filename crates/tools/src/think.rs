//! The `think` tool: a scratchpad. Calling it changes nothing; it gives the model a place to
//! reason between tool calls (Anthropic's "think" tool), so it is read-only and instant.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = "Use this tool to think something through: analysing tool results, checking a plan against the rules you were given, or deciding what to do next. It does not fetch or change anything; the thought is only recorded.";

#[derive(Debug, Deserialize)]
struct ThinkArgs {
    /// Only checked to be a string: the thought lives in the call itself.
    #[serde(rename = "thought")]
    _thought: String,
}

/// The `think` tool.
#[derive(Debug)]
pub struct ThinkTool {
    definition: ToolDefinition,
}

impl Default for ThinkTool {
    fn default() -> Self {
        Self {
            definition: ToolDefinition {
                name: "think".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(json!({"thought": string("Your thought")}), &["thought"]),
                read_only: true,
                category: "think",
            },
        }
    }
}

impl Tool for ThinkTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match parse::<ThinkArgs>("think", args) {
            Ok(_) => ToolResult::ok("Thought recorded."),
            Err(e) => e.into(),
        };
        Box::pin(std::future::ready(result))
    }
}
