//! What MCP servers reach of the runtime, built with it: the user (for elicitation), the
//! agent's servers (for `type: mcp` hooks), and the failures already told.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tether_hooks::McpCaller;
use tether_mcp::{Elicitation, ElicitationAnswer, McpEvent, McpHost, McpServer};
use tether_tools::ToolContext;
use tokio_util::sync::CancellationToken;

use crate::interaction::Interaction;

/// Servers' questions, for every agent of a runtime.
#[derive(Debug)]
pub(crate) struct Host {
    pub(crate) interaction: Arc<dyn Interaction>,
}

impl McpHost for Host {
    fn elicit<'a>(&'a self, request: &'a Elicitation) -> BoxFuture<'a, ElicitationAnswer> {
        self.interaction.elicit(request)
    }

    /// Starts, listings and log messages are in each server's log file; the user hears of
    /// failures from `prepare_tools` (once per failure) and from the failed calls' results.
    fn event(&self, _: McpEvent) {}
}

/// `type: mcp` hooks reach the agent's servers through this.
#[derive(Debug)]
pub(crate) struct HookCaller {
    pub(crate) servers: Vec<Arc<McpServer>>,
    pub(crate) working_dir: std::path::PathBuf,
}

impl McpCaller for HookCaller {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let mut names = Vec::new();
            for s in &self.servers {
                // A server's reported name is known once it runs.
                if s.config().label.is_none() && s.generation() == 0 {
                    let _ = s.start().await;
                }
                if s.name() == server {
                    s.start().await?;
                    let cancel = CancellationToken::new();
                    let ctx = ToolContext {
                        working_dir: &self.working_dir,
                        cancel: &cancel,
                        env: &[],
                        progress: None,
                    };
                    let r = s.call(tool, &args, ctx).await;
                    return if r.is_error {
                        Err(r.content)
                    } else {
                        Ok(r.content)
                    };
                }
                names.push(s.name());
            }
            Err(format!(
                "no MCP server `{server}` (servers: {})",
                names.join(", ")
            ))
        })
    }
}

/// Servers already reported as failing, so each failure is told once.
#[derive(Debug, Default)]
pub(crate) struct Notified(Mutex<BTreeSet<String>>);

impl Notified {
    /// `true` the first time `key` is seen.
    pub(crate) fn first(&self, key: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned())
    }

    pub(crate) fn forget(&self, key: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
    }
}
