//! `tether serve mcp`: each agent one MCP tool (`{message}` → `{response}`), over stdio or
//! streamable HTTP at `/mcp` (or any path, as docker-agent answers).

mod tools;

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::listen::{Listen, bearer_ok, is_loopback, serve_http};
use tools::AgentTools;

#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Serve only this agent; `None`: every agent of the file.
    pub agent: Option<String>,
    /// Streamable HTTP on this address; `None`: stdio.
    pub http: Option<Listen>,
    /// Every HTTP request needs `Authorization: Bearer TOKEN`.
    pub auth_token: Option<String>,
}

/// Serves until `shutdown` (or, on stdio, until the client closes standard input); `bound`
/// hears the HTTP address bound.
pub async fn serve(
    hub: Arc<Hub>,
    opts: McpOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str) + Send,
) -> Result<(), String> {
    let tools = AgentTools::new(hub, opts.agent.as_deref(), shutdown.clone())?;
    match opts.http {
        None => stdio(tools, shutdown).await,
        Some(listen) => {
            let app = app(tools, &listen, opts.auth_token, shutdown.child_token());
            serve_http(&listen, app, shutdown, bound)
                .await
                .map_err(|e| e.to_string())
        }
    }
}

/// Standard input and output are the protocol: nothing else writes to stdout.
async fn stdio(tools: AgentTools, shutdown: CancellationToken) -> Result<(), String> {
    let transport = (stdin(), tokio::io::stdout());
    let running = match tools.serve_with_ct(transport, shutdown.clone()).await {
        Ok(r) => r,
        Err(_) if shutdown.is_cancelled() => return Ok(()),
        Err(e) => return Err(format!("mcp over stdio: {e}")),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("mcp over stdio: {e}"))
}

/// Standard input, read on a thread of its own: a read blocked on a client that keeps stdin
/// open would otherwise hold the process after SIGTERM (tokio waits for its blocking reads).
fn stdin() -> tokio::io::DuplexStream {
    let (mut tx, rx) = tokio::io::duplex(64 * 1024);
    let runtime = tokio::runtime::Handle::current();
    std::thread::spawn(move || {
        let mut input = std::io::stdin().lock();
        let mut buf = [0u8; 8192];
        loop {
            let n = match std::io::Read::read(&mut input, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let sent = runtime.block_on(tokio::io::AsyncWriteExt::write_all(&mut tx, &buf[..n]));
            if sent.is_err() {
                break;
            }
        }
    });
    rx
}

/// The streamable HTTP endpoint at `/mcp`, behind the bearer token when one is set.
fn app(
    tools: AgentTools,
    listen: &Listen,
    token: Option<String>,
    stop: CancellationToken,
) -> axum::Router {
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(stop);
    // Host checks guard loopback servers against DNS rebinding; a server listening on other
    // interfaces is reached by names it cannot know.
    if !is_loopback(listen) {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    // `/mcp`, and like docker-agent (whose handler is the whole server) every other path.
    let router = axum::Router::new().fallback_service(service);
    match token {
        Some(token) => {
            let token: Arc<str> = token.into();
            router.layer(middleware::from_fn(move |req: Request, next: Next| {
                let token = Arc::clone(&token);
                async move { authorize(&token, req, next).await }
            }))
        }
        None => router,
    }
}

async fn authorize(token: &str, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if bearer_ok(given, token) {
        next.run(req).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or invalid bearer token",
        )
            .into_response()
    }
}
