//! The runtime's side of MCP: servers start together before an agent's first model call, a
//! changed tool list is listed again before the next one, servers ask the user through the
//! [`crate::Interaction`], and every server stops when the runtime shuts down.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value};
use tether_mcp::McpServer;
use tether_protocol::RuntimeEvent;
use tether_tools::ProgressSink;
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::outcome::StopReason;
use crate::runtime::Runtime;
use crate::toolbox::View;

/// Reports a running call's progress as [`RuntimeEvent::ToolProgress`].
pub(crate) struct CallProgress<'a> {
    pub(crate) runtime: &'a Runtime,
    pub(crate) session_id: &'a str,
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
}

impl ProgressSink for CallProgress<'_> {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.runtime.emit(
            self.session_id,
            RuntimeEvent::ToolProgress {
                id: self.id.to_owned(),
                name: self.name.to_owned(),
                progress,
                total,
                message: message.map(str::to_owned),
            },
        );
    }
}

impl Runtime {
    /// Starts the agent's MCP servers that are not running yet (all at once), lists changed
    /// tool lists again, and returns the tools for the next model call. A server that cannot
    /// start is a warning, unless its lifecycle makes it `required`.
    pub(crate) async fn prepare_tools(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
    ) -> Result<Arc<View>, StopReason> {
        self.read_openapi_documents(agent, session_id).await;
        self.start_language_servers(agent, session_id).await;
        let servers: Vec<&Arc<McpServer>> = agent.toolbox.servers().collect();
        if servers.is_empty() {
            return Ok(agent.toolbox.refresh_view());
        }
        let results = futures::future::join_all(servers.iter().map(|s| async move {
            if s.generation() == 0 {
                s.start().await
            } else {
                s.refresh().await
            }
        }))
        .await;
        for (server, result) in servers.iter().zip(results) {
            let key = format!("{:p}", Arc::as_ptr(server));
            match result {
                Ok(()) => self.mcp_notified.forget(&key),
                Err(reason) if server.config().lifecycle.required && server.generation() == 0 => {
                    return Err(StopReason::Error {
                        code: "mcp_server_failed".to_owned(),
                        message: reason,
                    });
                }
                Err(reason) => {
                    if self.mcp_notified.first(&key) {
                        self.emit(
                            session_id,
                            RuntimeEvent::Warning {
                                message: format!(
                                    "{reason}\nthe run goes on without its tools until it starts"
                                ),
                            },
                        );
                    }
                }
            }
        }
        let view = agent.toolbox.refresh_view();
        for name in &view.shadowed {
            if self.mcp_notified.first(&format!("shadowed\0{name}")) {
                self.emit(
                    session_id,
                    RuntimeEvent::Warning {
                        message: format!(
                            "two toolsets of agent `{}` have a tool `{name}`: the first one is used",
                            agent.name
                        ),
                    },
                );
            }
        }
        Ok(view)
    }

    /// Reads the agent's OpenAPI documents and A2A agent cards not read yet (all at once). One
    /// that cannot be read is a warning, told once, and the run goes on without its tools; the
    /// next model call tries again.
    async fn read_openapi_documents(&self, agent: &AgentRuntime, session_id: &str) {
        let documents: Vec<&Arc<tether_tools::OpenApiToolset>> =
            agent.toolbox.openapis().filter(|d| !d.loaded()).collect();
        let cards: Vec<&Arc<tether_tools::A2aToolset>> =
            agent.toolbox.a2as().filter(|t| !t.loaded()).collect();
        if documents.is_empty() && cards.is_empty() {
            return;
        }
        let (read, fetched) = futures::future::join(
            futures::future::join_all(documents.iter().map(|d| d.load(&self.working_dir))),
            futures::future::join_all(cards.iter().map(|t| t.load())),
        )
        .await;
        let keys = documents
            .iter()
            .map(|d| format!("{:p}", Arc::as_ptr(d)))
            .chain(cards.iter().map(|t| format!("{:p}", Arc::as_ptr(t))));
        for (key, result) in keys.zip(read.into_iter().chain(fetched)) {
            if let Err(reason) = result
                && self.mcp_notified.first(&key)
            {
                self.emit(
                    session_id,
                    RuntimeEvent::Warning {
                        message: format!("{reason}\nthe run goes on without its tools"),
                    },
                );
            }
        }
    }

    /// Stops every MCP server of every agent (and the processes they started), language
    /// server and background job. Call it once the runtime is done; servers are also killed if
    /// the runtime is dropped.
    pub async fn stop_servers(&self) {
        // The set of pointers is not `Send`: gone before the first await.
        let servers: Vec<&Arc<McpServer>> = {
            let mut seen = BTreeSet::new();
            self.agents
                .iter()
                .flat_map(|a| a.toolbox.servers())
                .filter(|s| seen.insert(Arc::as_ptr(s)))
                .collect()
        };
        futures::future::join_all(servers.iter().map(|s| s.stop())).await;
        self.stop_language_servers().await;
        let catalogs = self.agents.iter().flat_map(|a| a.toolbox.catalogs());
        futures::future::join_all(catalogs.map(|c| c.stop())).await;
        self.jobs.stop_all().await;
    }
}

/// One MCP server of an agent, for `tether mcp list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerReport {
    /// `SERVER` of `mcp:SERVER:TOOL`.
    pub name: String,
    /// `stdio`, `streamable`, `sse` or `docker`.
    pub transport: &'static str,
    /// `ready`, `not started`, `down`, `stopped`.
    pub status: String,
    /// Why it is down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_file: Option<std::path::PathBuf>,
    pub tools: Vec<ToolReport>,
}

/// One tool as the model and the hooks see it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ToolReport {
    /// The name the model calls.
    pub name: String,
    /// `mcp:SERVER:TOOL`.
    pub qualified_name: String,
    pub read_only: bool,
    /// Hidden until `add_tool` (`defer`).
    pub deferred: bool,
    pub description: String,
}

impl Runtime {
    /// Starts `agent`'s MCP servers and reports each with the tools the model would see.
    pub async fn mcp_report(&self, agent: &str) -> Vec<ServerReport> {
        let Some(agent) = self.agent(agent).cloned() else {
            return Vec::new();
        };
        let _ = self.prepare_tools(&agent, "").await;
        let view = agent.toolbox.refresh_view();
        let mut out = Vec::new();
        for (index, slot) in agent.toolbox.slots.iter().enumerate() {
            let Some(server) = slot.server() else {
                continue;
            };
            let (status, error) = match server.status().await {
                tether_mcp::Status::Ready => ("ready", None),
                tether_mcp::Status::NotStarted => ("not started", None),
                tether_mcp::Status::Down { reason, .. } => ("down", Some(reason)),
                tether_mcp::Status::Stopped => ("stopped", None),
            };
            let tools = view
                .entries(index)
                .map(|(e, deferred)| {
                    let d = e.tool.definition();
                    ToolReport {
                        name: d.name.clone(),
                        qualified_name: e.tool.qualified_name().unwrap_or_default().to_owned(),
                        read_only: d.read_only,
                        deferred,
                        description: d.description.clone(),
                    }
                })
                .collect();
            out.push(ServerReport {
                name: server.name(),
                transport: server.config().transport.kind(),
                status: status.to_owned(),
                error,
                log_file: server.log_file(),
                tools,
            });
        }
        out
    }

    /// Runs one tool call on `session`'s agent as if the model had made it: the whole
    /// approval chain, the tool, `tool_response_transform` and `post_tool_use`; the result is
    /// recorded in the session and announced as events.
    pub async fn call_tool(
        &self,
        session: &mut crate::session::Session,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<(), StopReason> {
        let agent = self.current(session)?;
        self.prepare_tools(&agent, &session.id).await?;
        let call = tether_protocol::ToolCall::new(
            format!("call_{}", uuid::Uuid::now_v7().simple()),
            name,
            Value::Object(args.clone()).to_string(),
        );
        let mut message = tether_protocol::Message::assistant("");
        message.tool_calls = vec![call.clone()];
        message.name.clone_from(&agent.name);
        self.record(session, message);
        self.run_tool_calls(&agent, session, &[call], cancel).await;
        Ok(())
    }
}
