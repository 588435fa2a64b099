//! `tether serve acp`: the Agent Client Protocol over stdio, as editors (Zed, JetBrains,
//! Neovim) drive it: newline-delimited JSON-RPC 2.0 in both directions, the messages built as
//! JSON values after the ACP schema (v1); each editor session is a stored Tether session,
//! each prompt one submission with every hook and approval rule, and the ladder's questions
//! go to the editor as `session/request_permission`.

mod agent;
mod permission;
mod prompt;
mod rpc;
mod updates;

use std::sync::Arc;

use tokio::io::BufReader;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use self::agent::Agent;
use self::rpc::{INVALID_REQUEST, Incoming, Peer, RpcError};
use crate::hub::Hub;

#[derive(Debug, Clone)]
pub struct AcpOptions {
    /// The agent sessions start with; `None`: `root`, else the first.
    pub agent: Option<String>,
}

/// Serves on standard input and output until the client closes its end or `shutdown`.
pub async fn serve(
    hub: Arc<Hub>,
    opts: AcpOptions,
    shutdown: CancellationToken,
) -> Result<(), String> {
    serve_on(hub, opts, shutdown, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one connection on `input`/`output`. Each request runs in its own task, so one
/// session's slow prompt never holds up another's. At the end every running prompt is
/// cancelled and finishes (its `session_end` hooks included) before we return.
async fn serve_on(
    hub: Arc<Hub>,
    opts: AcpOptions,
    shutdown: CancellationToken,
    input: impl tokio::io::AsyncRead + Unpin,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> Result<(), String> {
    let (tx, rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(rpc::write_loop(output, rx));
    let peer = Arc::new(Peer::new(tx));
    let agent = Arc::new(Agent::new(hub, opts, Arc::clone(&peer)));
    let mut reader = BufReader::new(input);
    let mut tasks = JoinSet::new();
    let mut failure = None;
    loop {
        let line = tokio::select! {
            line = rpc::read_line(&mut reader) => line,
            () = shutdown.cancelled() => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let line = match line {
            Ok(Some(Ok(line))) => line,
            Ok(Some(Err(len))) => {
                peer.respond(
                    serde_json::Value::Null,
                    Err(RpcError::new(
                        INVALID_REQUEST,
                        format!(
                            "message of {len} bytes is over the {} byte limit",
                            rpc::MAX_LINE
                        ),
                    )),
                );
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                failure = Some(format!("cannot read standard input: {e}"));
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match rpc::classify(&line) {
            Incoming::Request { id, method, params } => {
                let agent = Arc::clone(&agent);
                tasks.spawn(async move {
                    let result = agent.request(&method, params).await;
                    let follow_up = agent.follow_up(&method, &result);
                    agent.peer.respond(id, result);
                    if let Some(update) = follow_up {
                        agent.peer.notify("session/update", update);
                    }
                });
            }
            Incoming::Notification { method, params } => agent.notification(&method, params),
            Incoming::Response { id, result } => {
                peer.resolve(&id, result);
            }
            Incoming::Invalid { id, error } => peer.respond(id, Err(error)),
        }
    }
    agent.cancel_all();
    peer.close();
    while tasks.join_next().await.is_some() {}
    drop(agent);
    drop(peer);
    let _ = writer.await;
    failure.map_or(Ok(()), Err)
}
