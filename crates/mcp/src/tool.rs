//! An MCP server's tool as one of the agent's tools.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

use crate::server::Core;

/// One tool of one server: the model calls it by `definition().name` (`NAME_tool` when the
/// toolset has a `name`); the server gets its raw name.
#[derive(Debug)]
pub struct McpTool {
    core: Arc<Core>,
    raw: String,
    definition: ToolDefinition,
    qualified: String,
}

impl McpTool {
    pub(crate) fn new(
        core: Arc<Core>,
        server: &str,
        prefix: Option<&str>,
        tool: rmcp::model::Tool,
    ) -> Self {
        let raw = tool.name.to_string();
        let name = match prefix {
            Some(p) => format!("{p}_{raw}"),
            None => raw.clone(),
        };
        let description = tool
            .description
            .map(|d| d.to_string())
            .or_else(|| tool.title.clone())
            .unwrap_or_default();
        let read_only = tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false);
        Self {
            core,
            qualified: format!("mcp:{server}:{raw}"),
            raw,
            definition: ToolDefinition {
                name,
                description,
                parameters: Value::Object((*tool.input_schema).clone()),
                read_only,
                category: "mcp",
            },
        }
    }

    /// The tool's name on its server.
    pub fn raw_name(&self) -> &str {
        &self.raw
    }
}

impl Tool for McpTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn qualified_name(&self) -> Option<&str> {
        Some(&self.qualified)
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(self.core.call(&self.raw, args, ctx))
    }
}
