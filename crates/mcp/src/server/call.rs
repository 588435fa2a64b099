//! One tool call on a server: sent without holding the server's lock, bounded by the
//! lifecycle's `call_timeout`, cancelled on the server when the run is, with its progress
//! reports passed on in order.

use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};
use tether_tools::{ToolContext, ToolResult};

use super::{Core, State};
use crate::render::render;

impl Core {
    pub(crate) async fn call(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        ctx: ToolContext<'_>,
    ) -> ToolResult {
        let peer = match self.peer().await {
            Ok(p) => p.peer,
            Err(e) => return ToolResult::error(e),
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        // Models send `null` for optional arguments; servers may reject it for a typed one.
        params.arguments = Some(
            args.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => return self.failed_call(&e.to_string()).await,
        };
        let token = handle.progress_token.clone();
        let mut progress = self.shared.route(&token);
        let mut shown = Shown::default();
        let far = tokio::time::Instant::now() + Duration::from_secs(60 * 60 * 24 * 365);
        let deadline = self
            .call_timeout
            .map_or(far, |t| tokio::time::Instant::now() + t);
        let timeout = tokio::time::sleep_until(deadline);
        tokio::pin!(timeout);
        let outcome = loop {
            tokio::select! {
                r = &mut handle.rx => break Ok(r),
                Some(p) = progress.recv() => shown.report(&ctx, &p),
                () = ctx.cancel.cancelled() => break Err("cancelled by the user"),
                () = &mut timeout => break Err("call timeout"),
            }
        };
        let outcome = match outcome {
            Ok(r) => r,
            Err(reason) => {
                self.shared.unroute(&token);
                // Tell the server; the call's own answer, if any, is dropped.
                let _ = handle.cancel(Some(reason.to_owned())).await;
                if ctx.cancel.is_cancelled() {
                    return ToolResult::error("cancelled");
                }
                let secs = self.call_timeout.map_or(0.0, |t| t.as_secs_f64());
                return ToolResult::error(format!(
                    "The MCP tool call timed out after {secs}s (lifecycle.call_timeout) and was cancelled on the server."
                ));
            }
        };
        // Reports handled on rmcp's tasks may trail the answer by a moment.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        while let Ok(p) = progress.try_recv() {
            shown.report(&ctx, &p);
        }
        self.shared.unroute(&token);
        match outcome {
            Ok(Ok(ServerResult::CallToolResult(result))) => render(result),
            Ok(Ok(other)) => ToolResult::error(format!(
                "Error calling tool: the server answered with something other than a tool result: {other:?}"
            )),
            Ok(Err(e)) => self.failed_call(&e.to_string()).await,
            Err(_) => self.failed_call("the connection closed").await,
        }
    }

    /// A call that got no result: the server died (restarted on the next call, lifecycle
    /// permitting), or answered with a protocol error.
    async fn failed_call(&self, error: &str) -> ToolResult {
        let death = match &mut *self.state.lock().await {
            State::Ready(conn) => {
                if conn.is_alive() {
                    None
                } else {
                    Some(conn.death().await)
                }
            }
            State::Idle | State::Down { .. } | State::Stopped => None,
        };
        match death {
            Some(death) => {
                let then = if self.may_restart(0, false) {
                    "it will be restarted on the next call"
                } else {
                    "it is not restarted (lifecycle)"
                };
                ToolResult::error(format!(
                    "MCP server `{}` stopped during the call: {death}; {then}.",
                    self.shared.name()
                ))
            }
            None => ToolResult::error(format!("Error calling tool: {error}")),
        }
    }
}

/// Progress shown so far: reports handled out of order are not shown going backwards.
#[derive(Debug, Default)]
struct Shown {
    last: Option<f64>,
}

impl Shown {
    fn report(&mut self, ctx: &ToolContext<'_>, p: &crate::handler::Progress) {
        if self.last.is_some_and(|last| p.progress <= last) {
            return;
        }
        self.last = Some(p.progress);
        if let Some(sink) = ctx.progress {
            sink.progress(p.progress, p.total, p.message.as_deref());
        }
    }
}
