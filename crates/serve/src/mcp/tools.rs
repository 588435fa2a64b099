//! The MCP server: each served agent is one tool taking `{message}` and answering
//! `{response}`; every call is a fresh stored session nobody can answer questions for.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tether_core::StopReason;
use tether_protocol::Role;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::catalog::CatalogEntry;
use crate::hub::{Hub, Turn};
use crate::router::{Nobody, Route};

const MODE: Nobody = Nobody {
    mode: "tether serve mcp",
};

/// What every connection shares: the hub, the file served and its tools.
#[derive(Debug, Clone)]
pub(super) struct AgentTools {
    hub: Arc<Hub>,
    entry: CatalogEntry,
    tools: Arc<Vec<Tool>>,
    /// Cancelled when the server stops: runs in flight end (their session_end still runs).
    shutdown: CancellationToken,
}

impl AgentTools {
    /// One tool per agent of the served file (or only `agent`); each agent's runtime is built
    /// now, so a file that cannot run fails at start, not at the first call.
    pub(super) fn new(
        hub: Arc<Hub>,
        agent: Option<&str>,
        shutdown: CancellationToken,
    ) -> Result<Self, String> {
        let entry = hub.entry(None)?.clone();
        let names: Vec<String> = match agent {
            Some(a) if entry.file.agent(a).is_some() => vec![a.to_owned()],
            Some(a) => {
                return Err(format!(
                    "no agent `{a}` in `{}` (agents: {})",
                    entry.path.display(),
                    entry.file.agent_names().join(", ")
                ));
            }
            None => entry
                .file
                .agent_names()
                .iter()
                .map(|n| (*n).to_owned())
                .collect(),
        };
        let mut tools = Vec::with_capacity(names.len());
        for name in names {
            let (runtime, _) = hub.runtime(&entry, Some(&name))?;
            let read_only = runtime.agent(&name).is_some_and(|a| a.tools_read_only());
            let description = entry
                .file
                .agent(&name)
                .map(|a| a.description.clone())
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| format!("Run the {name} agent"));
            tools.push(tool(&name, &description, read_only));
        }
        Ok(Self {
            hub,
            entry,
            tools: Arc::new(tools),
            shutdown,
        })
    }

    /// Runs `agent` on `message` as a fresh session: the answer, or why there is none.
    async fn ask(
        &self,
        agent: &str,
        message: String,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        // Nothing listens to the events: the answer is read from the session at the end.
        let (events, _) = mpsc::unbounded_channel();
        let route = Route {
            events,
            asker: Arc::new(MODE),
        };
        let Turn { outcome, session } = self
            .hub
            .one_shot(&self.entry, Some(agent), Vec::new(), message, route, cancel)
            .await?;
        match outcome.reason {
            StopReason::Normal => Ok(session
                .messages
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant && !m.text().is_empty())
                .map_or_else(|| "No response from agent".to_owned(), |m| m.text())),
            StopReason::HookBlocked { message } => Err(format!("blocked by a hook: {message}")),
            StopReason::Error { code, message } => {
                Err(format!("agent execution failed ({code}): {message}"))
            }
            StopReason::Cancelled => Err("the run was cancelled".to_owned()),
            StopReason::LoopDetected { message } => Err(format!("loop detected: {message}")),
            StopReason::MaxIterations { limit } => Err(format!(
                "the agent reached its max_iterations ({limit}) without an answer"
            )),
        }
    }
}

fn tool(name: &str, description: &str, read_only: bool) -> Tool {
    let input = json!({
        "type": "object",
        "properties": {"message": {"type": "string", "description": "the message to send to the agent"}},
        "required": ["message"],
        "additionalProperties": false,
    });
    let output = json!({
        "type": "object",
        "properties": {"response": {"type": "string", "description": "the response from the agent"}},
        "required": ["response"],
        "additionalProperties": false,
    });
    let mut annotations = ToolAnnotations::with_title(description).read_only(read_only);
    if read_only {
        annotations = annotations.destructive(false);
    }
    Tool::new(name.to_owned(), description.to_owned(), object(input))
        .with_raw_output_schema(Arc::new(object(output)))
        .with_annotations(annotations)
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

impl ServerHandler for AgentTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tether", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!("no tool `{name}` (this server's tools are its agents)"),
                None,
            ));
        }
        let message = match request.arguments.as_ref().and_then(|a| a.get("message")) {
            Some(Value::String(m)) => m.clone(),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("`message` must be a string, got {other:?}"),
                    None,
                ));
            }
        };
        // The client's cancellation or the server's shutdown cancels the run; so does a
        // dropped request. The run is its own task so that its session_end still runs.
        let cancel = context.ct.child_token();
        let stop = self.shutdown.clone();
        let linked = cancel.clone();
        let watcher = tokio::spawn(async move {
            stop.cancelled().await;
            linked.cancel();
        });
        let tools = self.clone();
        let (agent, run_cancel) = (name.to_owned(), cancel.clone());
        let task = tokio::spawn(async move { tools.ask(&agent, message, &run_cancel).await });
        let guard = cancel.drop_guard();
        let answer = task
            .await
            .unwrap_or_else(|e| Err(format!("the run failed: {e}")));
        drop(guard.disarm());
        watcher.abort();
        let result = match answer {
            // The text content is the serialized output, as the MCP spec asks.
            Ok(response) => CallToolResult::structured(json!({ "response": response })),
            Err(reason) => CallToolResult::error(vec![ContentBlock::text(reason)]),
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_takes_a_message_and_answers_a_response() {
        let t = serde_json::to_value(tool("root", "Helps", true)).unwrap();
        assert_eq!(t["name"], "root");
        assert_eq!(t["inputSchema"]["required"], json!(["message"]));
        assert_eq!(t["outputSchema"]["required"], json!(["response"]));
        assert_eq!(t["annotations"]["readOnlyHint"], true);
        assert_eq!(t["annotations"]["destructiveHint"], false);
        let t = serde_json::to_value(tool("w", "Writes", false)).unwrap();
        assert_eq!(t["annotations"]["readOnlyHint"], false);
        assert!(t["annotations"].get("destructiveHint").is_none());
    }
}
