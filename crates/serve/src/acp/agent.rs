//! The ACP methods: each editor session is a Tether session on the agent's shared runtime;
//! a prompt is one submission (`Hub::run`) whose events stream back as `session/update`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Value, json};
use tether_core::{RunOutcome, Runtime, Session, StopReason};
use tether_protocol::RuntimeEvent;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::AcpOptions;
use super::permission::EditorAsker;
use super::prompt::prompt_text;
use super::rpc::{INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, NOT_FOUND, Peer, RpcError};
use super::updates;
use crate::hub::Hub;
use crate::router::Route;

/// The protocol version we speak (ACP's only stable one).
const PROTOCOL_VERSION: u64 = 1;

/// One session the editor has open.
#[derive(Debug)]
struct Live {
    runtime: Runtime,
    /// The agent the session started with (whose slash commands the editor offers).
    agent: String,
    /// Held for the length of a prompt: one prompt at a time per session.
    session: tokio::sync::Mutex<Session>,
    /// The running prompt's cancellation.
    turn: Mutex<Option<CancellationToken>>,
    /// A submission ran (or the session was loaded): the next `session_start` is a resume.
    started: AtomicBool,
    rejected: Arc<Mutex<HashSet<String>>>,
    /// The `auto` mode: every question is answered "allow once" without asking.
    auto: Arc<AtomicBool>,
}

/// The agent side of one connection.
#[derive(Debug)]
pub(crate) struct Agent {
    pub(crate) hub: Arc<Hub>,
    pub(crate) opts: AcpOptions,
    pub(crate) peer: Arc<Peer>,
    /// Parent of every prompt's cancellation: cancelled when the editor goes.
    pub(crate) stop: CancellationToken,
    sessions: Mutex<HashMap<String, Arc<Live>>>,
}

fn params<T: for<'de> Deserialize<'de>>(method: &str, params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params)
        .map_err(|e| RpcError::params(format!("invalid `{method}` params: {e}")))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionSetup {
    cwd: String,
    #[serde(default)]
    mcp_servers: Vec<Value>,
    #[serde(default)]
    session_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptParams {
    session_id: String,
    prompt: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetMode {
    session_id: String,
    mode_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionRef {
    session_id: String,
}

impl Agent {
    pub(crate) fn new(hub: Arc<Hub>, opts: AcpOptions, peer: Arc<Peer>) -> Self {
        Self {
            hub,
            opts,
            peer,
            stop: CancellationToken::new(),
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// Answers one request.
    pub(crate) async fn request(&self, method: &str, p: Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => Ok(initialize(&p)),
            "authenticate" => Ok(json!({})),
            "session/new" => self.new_session(params(method, p)?),
            "session/load" => self.load_session(params(method, p)?).await,
            "session/prompt" => self.prompt(params(method, p)?).await,
            "session/set_mode" => self.set_mode(params(method, p)?),
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method `{method}` is not supported"),
            )),
        }
    }

    /// The `session/update` that follows a response: a new session learns the agent's slash
    /// commands (`/NAME ARGS` prompts run them).
    pub(crate) fn follow_up(
        &self,
        method: &str,
        result: &Result<Value, RpcError>,
    ) -> Option<Value> {
        let id = match (method, result) {
            ("session/new", Ok(r)) => r["sessionId"].as_str()?.to_owned(),
            _ => return None,
        };
        let live = self.live(&id).ok()?;
        let commands: Vec<Value> = live
            .runtime
            .agent(&live.agent)
            .map(|a| {
                a.commands
                    .iter()
                    .map(|c| json!({"name": c.name, "description": c.description}))
                    .collect()
            })
            .unwrap_or_default();
        (!commands.is_empty()).then(|| {
            json!({"sessionId": id, "update": {
                "sessionUpdate": "available_commands_update",
                "availableCommands": commands,
            }})
        })
    }

    /// Handles one notification (unknown ones are ignored, as JSON-RPC wants).
    pub(crate) fn notification(&self, method: &str, p: Value) {
        if method == "session/cancel"
            && let Ok(SessionRef { session_id }) = serde_json::from_value(p)
            && let Some(live) = self.live(&session_id).ok()
            && let Ok(turn) = live.turn.lock()
            && let Some(token) = turn.as_ref()
        {
            token.cancel();
        }
    }

    fn live(&self, id: &str) -> Result<Arc<Live>, RpcError> {
        self.sessions
            .lock()
            .ok()
            .and_then(|s| s.get(id).cloned())
            .ok_or_else(|| RpcError::new(NOT_FOUND, format!("unknown session `{id}`")))
    }

    fn register(&self, runtime: Runtime, session: Session, started: bool) -> String {
        let id = session.id.clone();
        let live = Arc::new(Live {
            runtime,
            agent: session.agent.clone(),
            session: tokio::sync::Mutex::new(session),
            turn: Mutex::new(None),
            started: AtomicBool::new(started),
            rejected: Arc::default(),
            auto: Arc::default(),
        });
        if let Ok(mut s) = self.sessions.lock() {
            s.insert(id.clone(), live);
        }
        id
    }

    fn new_session(&self, setup: SessionSetup) -> Result<Value, RpcError> {
        let cwd = check_setup(&setup)?;
        let entry = self.hub.entry(None).map_err(internal)?;
        let (runtime, agent) = self
            .hub
            .runtime_in(entry, self.opts.agent.as_deref(), Some(&cwd))
            .map_err(internal)?;
        let session = self.hub.new_session(&runtime, entry, &agent, None);
        let id = self.register(runtime, session, false);
        Ok(json!({"sessionId": id, "modes": modes(ASK)}))
    }

    fn set_mode(&self, p: SetMode) -> Result<Value, RpcError> {
        let live = self.live(&p.session_id)?;
        let auto = match p.mode_id.as_str() {
            ASK => false,
            AUTO => true,
            other => {
                return Err(RpcError::params(format!(
                    "unknown mode `{other}` (modes: {ASK}, {AUTO})"
                )));
            }
        };
        live.auto.store(auto, Ordering::SeqCst);
        Ok(json!({}))
    }

    async fn load_session(&self, setup: SessionSetup) -> Result<Value, RpcError> {
        let cwd = check_setup(&setup)?;
        let Some(id) = setup.session_id else {
            return Err(RpcError::params("`session/load` needs `sessionId`"));
        };
        // Open in this connection already: show what it holds now.
        if let Ok(live) = self.live(&id) {
            let session = live.session.try_lock().map_err(|_| busy(&id))?;
            self.replay(&id, &session);
            let mode = if live.auto.load(Ordering::SeqCst) {
                AUTO
            } else {
                ASK
            };
            return Ok(json!({"modes": modes(mode)}));
        }
        let store = self
            .hub
            .factory()
            .store()
            .ok_or_else(|| RpcError::new(NOT_FOUND, "this server keeps no sessions to load"))?;
        let key = id.clone();
        let stored = tokio::task::spawn_blocking(move || store.load(&key))
            .await
            .map_err(|e| internal(format!("loading session `{id}` failed: {e}")))?
            .map_err(|e| internal(format!("cannot load session `{id}`: {e}")))?
            .ok_or_else(|| RpcError::new(NOT_FOUND, format!("unknown session `{id}`")))?;
        let session = tether_core::restore(stored);
        let entry = self.hub.entry(None).map_err(internal)?;
        if let (Some(theirs), Ok(ours)) = (&session.agent_file, std::fs::canonicalize(&entry.path))
            && *theirs != ours
        {
            return Err(RpcError::params(format!(
                "session `{id}` belongs to `{}`, not `{}`",
                theirs.display(),
                ours.display()
            )));
        }
        let (runtime, _) = self
            .hub
            .runtime_in(entry, Some(&session.agent), Some(&cwd))
            .or_else(|_| {
                self.hub
                    .runtime_in(entry, self.opts.agent.as_deref(), Some(&cwd))
            })
            .map_err(internal)?;
        self.replay(&id, &session);
        self.register(runtime, session, true);
        Ok(json!({"modes": modes(ASK)}))
    }

    fn replay(&self, id: &str, session: &Session) {
        for update in updates::replay(&session.messages) {
            self.peer
                .notify("session/update", json!({"sessionId": id, "update": update}));
        }
    }

    async fn prompt(&self, p: PromptParams) -> Result<Value, RpcError> {
        let id = p.session_id;
        let live = self.live(&id)?;
        let text = prompt_text(&p.prompt)?;
        let mut session = live.session.try_lock().map_err(|_| busy(&id))?;
        let cancel = self.stop.child_token();
        if let Ok(mut turn) = live.turn.lock() {
            *turn = Some(cancel.clone());
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let route = Route {
            events: tx,
            asker: Arc::new(EditorAsker {
                peer: Arc::clone(&self.peer),
                session_id: id.clone(),
                rejected: Arc::clone(&live.rejected),
                auto: Arc::clone(&live.auto),
                cancel: cancel.clone(),
            }),
        };
        let peer = Arc::clone(&self.peer);
        let sid = id.clone();
        // Ends when the route detaches at the end of the run: every update is out before the
        // prompt's answer.
        let forward = tokio::spawn(async move {
            let mut finish = None;
            while let Some(event) = rx.recv().await {
                if let RuntimeEvent::AgentMessage { finish_reason, .. } = &event {
                    finish.clone_from(finish_reason);
                }
                for update in updates::from_event(&event) {
                    peer.notify(
                        "session/update",
                        json!({"sessionId": sid, "update": update}),
                    );
                }
            }
            finish
        });
        let source = if live.started.swap(true, Ordering::SeqCst) {
            "resume"
        } else {
            "startup"
        };
        let outcome = self
            .hub
            .run(
                &live.runtime,
                &mut session,
                Some(text),
                source,
                route,
                &cancel,
            )
            .await;
        let finish = forward.await.ok().flatten();
        if let Ok(mut turn) = live.turn.lock() {
            *turn = None;
        }
        let reason = stop_reason(&outcome, cancel.is_cancelled(), finish.as_deref());
        Ok(json!({"stopReason": reason}))
    }

    /// Cancels every running prompt (the editor went away).
    pub(crate) fn cancel_all(&self) {
        self.stop.cancel();
    }
}

/// The session modes: `ask` puts the approval ladder's questions to the editor; `auto`
/// answers them "allow once" itself (hooks and deny rules still apply: only asks are skipped).
const ASK: &str = "ask";
const AUTO: &str = "auto";

fn modes(current: &str) -> Value {
    json!({
        "currentModeId": current,
        "availableModes": [
            {"id": ASK, "name": "Ask", "description": "Ask before running tools that need approval"},
            {"id": AUTO, "name": "Auto", "description": "Allow every tool call that would ask (hooks and deny rules still apply)"},
        ],
    })
}

fn internal(message: String) -> RpcError {
    RpcError::new(INTERNAL_ERROR, message)
}

fn busy(id: &str) -> RpcError {
    RpcError::new(
        INVALID_REQUEST,
        format!("session `{id}` is answering a prompt; cancel it first"),
    )
}

/// The session's working directory (where its tools and hooks run): `cwd` must be an
/// absolute directory. MCP servers from the editor are refused, not ignored.
fn check_setup(setup: &SessionSetup) -> Result<PathBuf, RpcError> {
    let cwd = Path::new(&setup.cwd);
    let dir = match std::fs::canonicalize(cwd) {
        Ok(dir) if cwd.is_absolute() && dir.is_dir() => dir,
        _ => {
            return Err(RpcError::params(format!(
                "`cwd` must be an absolute path to a directory: `{}`",
                setup.cwd
            )));
        }
    };
    if !setup.mcp_servers.is_empty() {
        let names: Vec<&str> = setup
            .mcp_servers
            .iter()
            .map(|s| s["name"].as_str().unwrap_or("?"))
            .collect();
        return Err(RpcError::params(format!(
            "MCP servers from the editor are not supported yet (got {}): declare them as toolsets in the agent file",
            names.join(", ")
        )));
    }
    Ok(dir)
}

fn initialize(p: &Value) -> Value {
    // Zed once sent a date string here; read anything unparsable as version 1.
    let asked = p["protocolVersion"].as_u64().unwrap_or(PROTOCOL_VERSION);
    json!({
        "protocolVersion": asked.min(PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": false, "sse": false},
        },
        "authMethods": [],
        "agentInfo": {"name": "tether", "title": "Tether", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// ACP's stop reason for how a run ended.
fn stop_reason(outcome: &RunOutcome, cancelled: bool, finish: Option<&str>) -> &'static str {
    if cancelled {
        return "cancelled";
    }
    match &outcome.reason {
        StopReason::Cancelled => "cancelled",
        StopReason::MaxIterations { .. } => "max_turn_requests",
        StopReason::HookBlocked { .. } => "refusal",
        StopReason::Error { .. } | StopReason::LoopDetected { .. } => "end_turn",
        StopReason::Normal => match finish {
            Some("length") => "max_tokens",
            Some("content_filter") => "refusal",
            _ => "end_turn",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_end_with_acp_stop_reasons() {
        let of = |reason| RunOutcome { reason };
        assert_eq!(
            stop_reason(&of(StopReason::Normal), false, Some("stop")),
            "end_turn"
        );
        assert_eq!(
            stop_reason(&of(StopReason::Normal), false, Some("length")),
            "max_tokens"
        );
        assert_eq!(
            stop_reason(&of(StopReason::Normal), true, None),
            "cancelled"
        );
        assert_eq!(
            stop_reason(&of(StopReason::MaxIterations { limit: 3 }), false, None),
            "max_turn_requests"
        );
        assert_eq!(
            stop_reason(
                &of(StopReason::HookBlocked {
                    message: "no".into()
                }),
                false,
                None
            ),
            "refusal"
        );
    }

    #[test]
    fn initialize_negotiates_version_one() {
        assert_eq!(
            initialize(&json!({"protocolVersion": 7}))["protocolVersion"],
            1
        );
        assert_eq!(
            initialize(&json!({"protocolVersion": 0}))["protocolVersion"],
            0
        );
        assert_eq!(
            initialize(&json!({"protocolVersion": "2024-11-05"}))["agentCapabilities"]["loadSession"],
            true
        );
    }
}
