//! The search tool of a RAG source, as docker-agent defines it: named after the source (or
//! `tool.name`), one `query` argument, a JSON list of `{source_path, content, similarity,
//! chunk_index}` best first (at most ten), read-only, category `knowledge`.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

use crate::Rag;

/// The most results one call returns (docker-agent's cap).
const MAX_RESULTS: usize = 10;

#[derive(Debug)]
pub struct RagTool {
    definition: ToolDefinition,
    rag: Arc<Rag>,
}

#[derive(Serialize)]
struct QueryResult<'a> {
    source_path: &'a str,
    content: &'a str,
    similarity: f64,
    chunk_index: usize,
}

impl RagTool {
    pub fn new(rag: Arc<Rag>) -> Self {
        let source = rag.source();
        let name = source.tool_name.clone();
        let description = source
            .description
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| {
                format!(
                    "Search project documents from {name} to find relevant code or documentation. \
                 Provide a natural language query describing what you need. \
                 Returns the most relevant document chunks with file paths."
                )
            });
        Self {
            definition: ToolDefinition {
                name,
                description,
                parameters: json!({
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "Search query"}},
                    "required": ["query"],
                    "additionalProperties": false,
                }),
                read_only: true,
                category: "knowledge",
            },
            rag,
        }
    }

    /// The system-prompt text: `tool.instruction`, else docker-agent's default.
    pub fn instruction(&self) -> String {
        self.rag.source().instruction.clone().unwrap_or_else(|| {
            format!(
                "Search documents in {} to find relevant code or documentation. \
                 Provide a clear search query describing what you need.",
                self.definition.name
            )
        })
    }

    async fn run(&self, args: &Map<String, Value>) -> ToolResult {
        if let Some(k) = args.keys().find(|k| *k != "query") {
            return ToolResult::error(format!(
                "unknown argument `{k}`; the only argument is `query`"
            ));
        }
        let query = match args.get("query") {
            Some(Value::String(q)) if !q.trim().is_empty() => q,
            Some(Value::String(_)) | None => return ToolResult::error("query cannot be empty"),
            Some(_) => return ToolResult::error("`query` must be a string"),
        };
        let mut hits = match self.rag.query(query).await {
            Ok(h) => h,
            Err(e) => return ToolResult::error(format!("RAG query failed: {e}")),
        };
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(MAX_RESULTS);
        let out: Vec<QueryResult<'_>> = hits
            .iter()
            .map(|h| QueryResult {
                source_path: &h.path,
                content: &h.content,
                similarity: h.score,
                chunk_index: h.index,
            })
            .collect();
        match serde_json::to_string(&out) {
            Ok(s) => ToolResult::ok(s),
            Err(e) => ToolResult::error(format!("cannot encode results: {e}")),
        }
    }
}

impl Tool for RagTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(self.run(args))
    }
}
