//! Every route but the turn: agents, sessions and their settings.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tether_config::PermissionPattern;
use tether_core::{Confirmation, Session};
use tether_protocol::Role;

use super::live::{Live, Settings, load, persist};
use super::{Api, ApiError};

type Reply = Result<Json<Value>, ApiError>;

/// The body as JSON, or the right error (400 malformed, 413 too large).
pub(crate) fn parse<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"null"
    } else {
        &body
    };
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("invalid request body: {e}")))
}

pub(crate) async fn ping() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

pub(crate) async fn agents(State(api): State<Arc<Api>>) -> Json<Value> {
    let mut agents: Vec<Value> = api
        .hub
        .catalog()
        .entries()
        .iter()
        .filter(|e| !e.file.agents.is_empty())
        .map(|e| {
            let first = e.file.agents.first().map(|a| a.description.clone());
            json!({"name": e.id, "description": first.unwrap_or_default(), "multi": e.multi()})
        })
        .collect();
    agents.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Json(Value::Array(agents))
}

/// A faithful subset of the agent file: what each agent is, not how its tools are built.
pub(crate) async fn agent(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Reply {
    let entry =
        api.hub.catalog().get(&id).ok_or_else(|| {
            ApiError::new(StatusCode::NOT_FOUND, format!("agent not found: {id}"))
        })?;
    let agents: Map<String, Value> = entry
        .file
        .agents
        .iter()
        .map(|a| {
            let v = json!({
                "model": a.model, "description": a.description, "instruction": a.instruction,
                "sub_agents": a.sub_agents, "handoffs": a.handoffs,
                "max_iterations": a.max_iterations, "welcome_message": a.welcome_message,
            });
            (a.name.clone(), v)
        })
        .collect();
    Ok(Json(json!({
        "version": entry.file.version, "agents": agents, "metadata": entry.file.metadata,
    })))
}

pub(crate) async fn sessions(State(api): State<Arc<Api>>) -> Reply {
    let ids = match api.hub.factory().store() {
        Some(store) => store
            .list()
            .map_err(|e| ApiError::internal(format!("failed to get sessions: {e}")))?
            .into_iter()
            .map(|s| s.id)
            .collect(),
        None => api.sessions.ids(),
    };
    let mut out = Vec::new();
    for id in ids {
        let Ok(view) = view(&api, &id) else { continue };
        out.push(json!({
            "id": view["id"], "title": view["title"], "created_at": view["created_at"],
            "num_messages": view["messages"].as_array().map_or(0, Vec::len),
            "input_tokens": view["input_tokens"], "output_tokens": view["output_tokens"],
            "working_dir": view["working_dir"],
        }));
    }
    Ok(Json(Value::Array(out)))
}

pub(crate) async fn session(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Reply {
    view(&api, &id).map(Json)
}

/// docker-agent's `SessionResponse` for `id`, from the store (or memory without one).
fn view(api: &Api, id: &str) -> Result<Value, ApiError> {
    let (session, created_at, working_dir) = match api.hub.factory().store() {
        Some(store) => {
            let stored = store
                .load(id)
                .map_err(|e| ApiError::internal(format!("cannot load session {id}: {e}")))?
                .ok_or_else(|| ApiError::no_session(id))?;
            let meta = (
                stored.meta.created_at.to_string(),
                stored.meta.working_dir.clone(),
            );
            (
                tether_core::restore(stored),
                meta.0,
                meta.1.display().to_string(),
            )
        }
        None => {
            let live = api.sessions.get(&api.hub, id)?;
            let session = live.state.try_lock().map(|s| s.clone()).map_err(|_| {
                ApiError::new(
                    StatusCode::CONFLICT,
                    format!("session {id} is running a turn"),
                )
            })?;
            (session, String::new(), String::new())
        }
    };
    let settings = Settings::of(&session);
    let messages: Vec<Value> = session
        .messages
        .iter()
        .map(|m| {
            // Only an assistant message's `name` is its agent (a tool result's is the tool).
            let agent = if m.role == Role::Assistant {
                m.name.as_str()
            } else {
                ""
            };
            json!({"agent_name": agent, "message": m})
        })
        .collect();
    let permissions = (!settings.allow.is_empty()).then(|| json!({"allow": settings.allow}));
    Ok(json!({
        "id": session.id, "title": settings.title, "messages": messages,
        "created_at": created_at, "tools_approved": settings.tools_approved, "thinking": false,
        "input_tokens": session.input_tokens, "output_tokens": session.output_tokens,
        "working_dir": working_dir, "permissions": permissions,
    }))
}

/// docker-agent's `PermissionsConfig`.
#[derive(Debug, Default, Deserialize)]
struct PermissionsWire {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// The session's `allow` list; `ask` and `deny` have no per-session place in Tether.
fn allow_list(p: PermissionsWire) -> Result<Vec<String>, ApiError> {
    let why = "Tether sessions keep approvals only: put ask and deny rules in the agent file";
    if !p.ask.is_empty() {
        return Err(ApiError::unsupported("permissions.ask", why));
    }
    if !p.deny.is_empty() {
        return Err(ApiError::unsupported("permissions.deny", why));
    }
    for rule in &p.allow {
        PermissionPattern::parse(rule)
            .map_err(|e| ApiError::bad(format!("invalid permissions.allow rule `{rule}`: {e}")))?;
    }
    Ok(p.allow)
}

pub(crate) async fn create(
    State(api): State<Arc<Api>>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let body: Option<Map<String, Value>> = parse(body)?;
    let mut settings = Settings::default();
    // The session starts with the first agent file's default agent (a turn may pick another)
    // in the directory its runtime works in.
    let first = api.hub.catalog().first();
    let agent = first.and_then(|e| e.default_agent()).unwrap_or_default();
    let cwd = match first.map(|e| api.hub.runtime(e, None)) {
        Some(Ok((runtime, _))) => runtime.working_dir().to_path_buf(),
        _ => std::env::current_dir()
            .map_err(|e| ApiError::internal(format!("no working directory: {e}")))?,
    };
    for (key, value) in body.unwrap_or_default() {
        let bad = |e: serde_json::Error| ApiError::bad(format!("invalid `{key}`: {e}"));
        match key.as_str() {
            "tools_approved" => {
                settings.tools_approved = serde_json::from_value(value).map_err(bad)?
            }
            "title" => settings.title = serde_json::from_value(value).map_err(bad)?,
            "permissions" => {
                let p: Option<PermissionsWire> = serde_json::from_value(value).map_err(bad)?;
                settings.allow = allow_list(p.unwrap_or_default())?;
            }
            "working_dir" => {
                let wd: String = serde_json::from_value(value).map_err(bad)?;
                let same = wd.trim().is_empty()
                    || std::fs::canonicalize(wd.trim()).ok() == std::fs::canonicalize(&cwd).ok();
                if !same {
                    return Err(ApiError::unsupported(
                        "working_dir",
                        "every session runs in the server's --working-dir",
                    ));
                }
            }
            "max_iterations" if value.as_u64() == Some(0) || value.is_null() => {}
            "max_iterations" => {
                return Err(ApiError::unsupported(
                    "max_iterations",
                    "the agent's max_iterations applies",
                ));
            }
            _ if is_empty(&value) => {}
            _ => {
                return Err(ApiError::unsupported(
                    &key,
                    "Tether does not take it on a new session",
                ));
            }
        }
    }
    let mut session = Session::new(tether_core::new_session_id(), agent.clone());
    settings.apply(&mut session);
    if let Some(store) = api.hub.factory().store() {
        let new = tether_store::NewSession {
            id: session.id.clone(),
            parent_id: None,
            agent,
            working_dir: cwd,
            first_prompt: None,
        };
        store
            .create_session(&new)
            .map_err(|e| ApiError::internal(format!("failed to create session: {e}")))?;
        persist(&api.hub, &session)?;
    }
    let id = session.id.clone();
    api.sessions.insert(session);
    view(&api, &id).map(Json)
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

pub(crate) async fn delete(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Reply {
    let live = api.sessions.remove(&id);
    if let Some(live) = &live {
        live.cancel_turn();
    }
    let deleted = match api.hub.factory().store() {
        Some(store) => store
            .delete(&id)
            .map_err(|e| ApiError::internal(format!("failed to delete session: {e}")))?,
        None => live.is_some(),
    };
    if !deleted {
        return Err(ApiError::no_session(&id));
    }
    Ok(Json(json!({"message": "session deleted"})))
}

/// docker-agent's `ResumeSessionRequest`.
#[derive(Debug, Deserialize)]
struct ResumeWire {
    confirmation: String,
    #[serde(default)]
    reason: String,
}

pub(crate) async fn resume(
    State(api): State<Arc<Api>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let req: ResumeWire = parse(body)?;
    let answer = match req.confirmation.as_str() {
        "approve" => Confirmation::Yes,
        "approve-session" => Confirmation::All,
        "reject" => Confirmation::No {
            reason: Some(req.reason).filter(|r| !r.trim().is_empty()),
        },
        "approve-tool" => {
            return Err(ApiError::unsupported(
                "confirmation: approve-tool",
                "answer approve or approve-session, or add the tool to the session's permissions",
            ));
        }
        other => {
            return Err(ApiError::bad(format!(
                "invalid confirmation `{other}`: use approve, approve-session or reject"
            )));
        }
    };
    let live = api.sessions.get(&api.hub, &id)?;
    live.asker.answer(answer).map_err(|_| {
        ApiError::new(
            StatusCode::CONFLICT,
            format!("no tool call of session {id} is waiting for a confirmation"),
        )
    })?;
    Ok(Json(json!({"message": "session resumed"})))
}

/// Changes the session's settings: at once if no turn runs, else when the turn ends.
async fn update(api: &Api, id: &str, f: impl FnOnce(&mut Settings)) -> Result<Arc<Live>, ApiError> {
    let live = api.sessions.get(&api.hub, id)?;
    let Ok(mut session) = live.state.try_lock() else {
        live.set_settings(f);
        return Ok(live);
    };
    if let Some(fresh) = load(&api.hub, id)? {
        *session = fresh;
        let stored = Settings::of(&session);
        live.set_settings(|s| *s = stored);
    }
    live.set_settings(f).apply(&mut session);
    persist(&api.hub, &session)?;
    drop(session);
    Ok(live)
}

pub(crate) async fn toggle_yolo(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Reply {
    update(&api, &id, |s| s.tools_approved = !s.tools_approved).await?;
    Ok(Json(Value::Null))
}

pub(crate) async fn toggle_thinking(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Reply {
    api.sessions.get(&api.hub, &id)?;
    Err(ApiError::unsupported(
        "thinking",
        "an agent's thinking is set by its model's thinking_budget",
    ))
}

#[derive(Debug, Deserialize)]
struct PermissionsRequestWire {
    permissions: Option<PermissionsWire>,
}

pub(crate) async fn permissions(
    State(api): State<Arc<Api>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let req: PermissionsRequestWire = parse(body)?;
    let allow = allow_list(req.permissions.unwrap_or_default())?;
    update(&api, &id, |s| s.allow = allow).await?;
    Ok(Json(json!({"message": "session permissions updated"})))
}

#[derive(Debug, Deserialize)]
struct TitleRequestWire {
    title: String,
}

pub(crate) async fn title(
    State(api): State<Arc<Api>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let req: TitleRequestWire = parse(body)?;
    let title = req.title.clone();
    update(&api, &id, |s| s.title = title).await?;
    Ok(Json(json!({"id": id, "title": req.title})))
}

/// docker-agent's `ResumeElicitationRequest`.
#[derive(Debug, Deserialize)]
struct ElicitationRequestWire {
    #[serde(rename = "action")]
    _action: String,
}

pub(crate) async fn elicitation(
    State(api): State<Arc<Api>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let _: ElicitationRequestWire = parse(body)?;
    api.sessions.get(&api.hub, &id)?;
    Err(ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        format!(
            "failed to resume elicitation: no elicitation is pending for session {id} (tether serve api does not route MCP elicitations to sessions yet)"
        ),
    ))
}
