//! Our side of the protocol: what we tell a server we can do, and how we answer what it sends
//! us (elicitation, sampling, progress, logs, tool-list changes).
// Sampling and logging are deprecated by the newest MCP revision, yet the servers people run
// today send them: we answer both.
#![expect(
    deprecated,
    reason = "servers of earlier MCP revisions still send sampling and log messages"
)]

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::host::{Elicitation, ElicitationAnswer, McpEvent, McpHost};

/// What `sampling/createMessage` gets: Tether lets no server drive its models.
pub const SAMPLING_DECLINED: &str =
    "sampling is not supported: Tether does not let MCP servers call its models";

/// One progress notification of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// State shared between the handler (on the client's task) and the server's supervisor.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The server's name for events (`mcp:NAME:tool`); the reported name once known.
    pub(crate) name: Mutex<String>,
    pub(crate) host: Arc<dyn McpHost>,
    /// Server log messages are appended here (beside its stderr).
    pub(crate) log: Option<PathBuf>,
    /// Set by `notifications/tools/list_changed`; the next listing clears it.
    pub(crate) tools_changed: AtomicBool,
    progress: Mutex<Routes>,
}

/// Where progress notifications go, by token. rmcp picks a request's token when it sends the
/// request and handles notifications on tasks of their own, so a report can beat the route
/// to us: those wait (a few, briefly) in `early`.
#[derive(Debug, Default)]
struct Routes {
    routes: HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>,
    early: std::collections::VecDeque<(ProgressToken, Progress)>,
}

/// Reports kept for calls whose route is not set up yet.
const EARLY_PROGRESS: usize = 64;

impl Shared {
    pub(crate) fn new(name: String, host: Arc<dyn McpHost>, log: Option<PathBuf>) -> Self {
        Self {
            name: Mutex::new(name),
            host,
            log,
            tools_changed: AtomicBool::new(false),
            progress: Mutex::new(Routes::default()),
        }
    }

    pub(crate) fn name(&self) -> String {
        self.name
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Routes `token`'s progress reports (including any that arrived first) to the receiver,
    /// until [`Self::unroute`].
    pub(crate) fn route(&self, token: &ProgressToken) -> mpsc::UnboundedReceiver<Progress> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut routes = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        for (t, p) in std::mem::take(&mut routes.early) {
            if t == *token {
                let _ = tx.send(p);
            } else {
                routes.early.push_back((t, p));
            }
        }
        routes.routes.insert(token.clone(), tx);
        rx
    }

    pub(crate) fn unroute(&self, token: &ProgressToken) {
        self.progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .routes
            .remove(token);
    }

    /// Appends a line to the server's log file; failures are not worth a failed call.
    pub(crate) fn log_line(&self, line: &str) {
        let Some(path) = &self.log else { return };
        if let Ok(mut f) = tether_exec::private::append(path) {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The rmcp client handler of one connection.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) shared: Arc<Shared>,
}

/// How Tether introduces itself.
pub(crate) fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    // Forms only: a URL elicitation would need a browser flow we do not have.
    let mut elicitation = ElicitationCapability::new();
    elicitation.form = Some(FormElicitationCapability::new());
    capabilities.elicitation = Some(elicitation);
    ClientConfig::new(
        capabilities,
        Implementation::new("tether", env!("CARGO_PKG_VERSION")),
    )
}

fn level_name(level: rmcp::model::LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "info".to_owned())
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        client_info()
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.shared.log_line(&format!(
            "[tether] declined a sampling request: {SAMPLING_DECLINED}"
        ));
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            SAMPLING_DECLINED,
            None,
        ))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (message, schema) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                serde_json::to_value(requested_schema).unwrap_or(Value::Null),
            ),
            // Not advertised; a server that sends one anyway is told no.
            _ => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        };
        let request = Elicitation {
            server: self.shared.name(),
            message,
            schema,
        };
        Ok(match self.shared.host.elicit(&request).await {
            ElicitationAnswer::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let report = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        let mut routes = self
            .shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match routes.routes.get(&params.progress_token) {
            Some(tx) => {
                let _ = tx.send(report);
            }
            None => {
                if routes.early.len() == EARLY_PROGRESS {
                    routes.early.pop_front();
                }
                routes.early.push_back((params.progress_token, report));
            }
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let text = match params.data {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let level = level_name(params.level);
        let logger = params.logger.map(|l| format!(" {l}")).unwrap_or_default();
        self.shared.log_line(&format!("[{level}{logger}] {text}"));
        self.shared.host.event(McpEvent::Log {
            server: self.shared.name(),
            level,
            text,
        });
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.tools_changed.store(true, Ordering::Release);
        self.shared.host.event(McpEvent::ToolsChanged {
            server: self.shared.name(),
        });
    }
}
