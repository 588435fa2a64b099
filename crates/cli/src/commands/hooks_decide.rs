//! `tether hooks decide AGENT.yaml --tool NAME`: the approval ladder as a dry run (docs/cli.md).
//! It is the runtime's own ladder (`Runtime::decide`), so its answer is the one a real call
//! gets.

use serde::Serialize;
use serde_json::{Map, Value};
use tether_core::{Blocked, Session};
use tether_hooks::{PolicyError, duration_ms};
use tether_protocol::Decision;
use tokio_util::sync::CancellationToken;

use crate::args::DecideArgs;
use crate::common::user_error;
use crate::{out, status};

#[derive(Debug, Serialize)]
struct DecideOutput<'a> {
    tool: &'a str,
    decision: Decision,
    source: &'a str,
    reason: &'a str,
    /// What the model is told when the call is denied.
    #[serde(skip_serializing_if = "str::is_empty")]
    message: &'a str,
    /// The arguments the tool would get.
    updated_input: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a std::collections::BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked: Option<&'a Blocked>,
    /// The Cedar policies behind the decision, when a policy hook made it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    policies: Vec<&'a str>,
    /// The Cedar policies whose condition errored, so did not apply, with Cedar's message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    policy_errors: Vec<&'a PolicyError>,
    hooks: Vec<DecideHook<'a>>,
}

#[derive(Debug, Serialize)]
struct DecideHook<'a> {
    event: &'static str,
    lane: &'static str,
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    status: &'a str,
    verdict: &'a str,
    exit_code: Option<i32>,
    duration_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// `type: policy`: the ids of the policies that decided.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    policies: &'a [String],
    #[serde(skip_serializing_if = "<[PolicyError]>::is_empty")]
    policy_errors: &'a [PolicyError],
}

/// The call's arguments: the `tool_input` of a hook Input, or the object itself.
fn read_arguments(arg: Option<&str>) -> anyhow::Result<Map<String, Value>> {
    let Some(text) = crate::common::read_input_text(arg)? else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut m)) => match m.remove("tool_input") {
            Some(Value::Object(args)) => Ok(args),
            Some(Value::Null) => Ok(Map::new()),
            Some(other) => Err(user_error(format!(
                "`tool_input` must be a JSON object, got {other}"
            ))),
            None => Ok(m),
        },
        Ok(other) => Err(user_error(format!(
            "the input must be a JSON object (a hook Input or the arguments), got {other}"
        ))),
        Err(e) => Err(user_error(format!("the input is not valid JSON: {e}"))),
    }
}

pub(crate) async fn run(args: DecideArgs) -> anyhow::Result<u8> {
    let arguments = read_arguments(args.input.as_deref())?;
    let built = crate::commands::mcp::build(
        &args.agent_file,
        args.agent.as_deref(),
        args.working_dir.as_ref(),
        args.yolo,
        args.hook_log.as_deref(),
    )?;
    let runtime = &built.runtime;
    let mut session = Session::new(runtime.new_session_id(), built.agent.clone());
    session.tools_approved = args.yolo;
    let cancel = CancellationToken::new();
    let verdict = runtime
        .decide(&session, &args.tool, &arguments, &cancel)
        .await;
    runtime.stop_servers().await;
    let v = verdict.map_err(user_error)?;
    for r in &v.dispatches {
        for w in &r.warnings {
            out::warning(w);
        }
    }
    let output = DecideOutput {
        tool: &args.tool,
        decision: v.decision,
        source: v.source,
        reason: &v.reason,
        message: v.denial(),
        updated_input: &v.arguments,
        metadata: (!v.metadata.is_empty()).then_some(&v.metadata),
        blocked: v.blocked.as_ref(),
        policies: deciding_policies(&v),
        policy_errors: v
            .dispatches
            .iter()
            .flat_map(|r| r.runs.iter())
            .flat_map(|run| run.policy_errors.iter())
            .collect(),
        hooks: v
            .dispatches
            .iter()
            .flat_map(|r| r.runs.iter())
            .map(|run| DecideHook {
                event: run.event.wire_name(),
                lane: run.lane.as_str(),
                name: &run.name,
                kind: run.kind,
                status: run.status.as_str(),
                verdict: run.verdict,
                exit_code: run.exit_code,
                duration_ms: duration_ms(run.duration),
                error: run.error.as_deref(),
                policies: &run.policies,
                policy_errors: &run.policy_errors,
            })
            .collect(),
    };
    out::line(&serde_json::to_string_pretty(&output)?)?;
    Ok(status::OK)
}

/// The policies of the policy-hook runs whose verdict is the decision (a deny's forbids, an
/// allow's permits).
fn deciding_policies(v: &tether_core::Verdict) -> Vec<&str> {
    v.dispatches
        .iter()
        .flat_map(|r| r.runs.iter())
        .filter(|run| run.verdict == v.decision.as_str())
        .flat_map(|run| run.policies.iter().map(String::as_str))
        .collect()
}

/// What happened to a stored call, or what would happen to it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Decided(Decision),
    Canceled,
    /// The tool is not there (any more).
    Unavailable,
    /// No result was stored.
    Unknown,
}

impl Outcome {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Decided(d) => d.as_str(),
            Self::Canceled => "canceled",
            Self::Unavailable => "unavailable",
            Self::Unknown => "unknown",
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What a stored result says happened to its call (the runtime's texts for calls that did
/// not run; anything else ran).
fn what_happened(result: Option<&tether_protocol::Message>) -> Outcome {
    let Some(m) = result else {
        return Outcome::Unknown;
    };
    let text = m.text();
    let denied = [
        "The tool call was rejected by a pre_tool_use hook.",
        "Tool call blocked by hook:",
        "The tool call was rejected by a permission_request hook.",
    ];
    if denied.iter().any(|d| text.starts_with(d))
        || (text.starts_with("Tool '")
            && text.ends_with("' is denied by permissions configuration."))
    {
        Outcome::Decided(Decision::Deny)
    } else if text.starts_with("The user rejected the tool call.") {
        // Asked, and refused by the user.
        Outcome::Decided(Decision::Ask)
    } else if text.starts_with("The tool call was canceled") {
        Outcome::Canceled
    } else if text.starts_with("Tool '") && text.contains("' is not available.") {
        Outcome::Unavailable
    } else {
        Outcome::Decided(Decision::Allow)
    }
}

#[derive(Debug, Serialize)]
struct Replayed {
    call_id: String,
    tool: String,
    arguments: Value,
    was: Outcome,
    now: Outcome,
    source: &'static str,
    reason: String,
    changed: bool,
}

pub(crate) async fn replay(args: crate::args::ReplayArgs) -> anyhow::Result<u8> {
    let store = crate::common::open_store(args.session_db.as_deref())?;
    let stored = store
        .load(&args.session)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| {
            user_error(format!(
                "no session `{}` (see `tether sessions list`)",
                args.session
            ))
        })?;
    let session = tether_core::restore(stored.clone());
    let config = match (&args.config, &session.agent_file) {
        (Some(c), _) => c.clone(),
        (None, Some(f)) => f.clone(),
        (None, None) => {
            return Err(user_error(
                "the session does not say which agent file it ran: pass `--config AGENT.yaml`",
            ));
        }
    };
    let built = crate::commands::mcp::build(
        &config,
        Some(&stored.meta.agent),
        Some(&stored.meta.working_dir).filter(|d| d.is_dir()),
        args.yolo,
        None,
    )?;
    let runtime = &built.runtime;
    let mut probe = Session::new(runtime.new_session_id(), built.agent.clone());
    probe.tools_approved = args.yolo;
    let cancel = CancellationToken::new();
    let mut rows = Vec::new();
    for m in &stored.messages {
        for call in &m.tool_calls {
            let result = stored.messages.iter().find(|r| r.tool_call_id == call.id);
            let arguments = match serde_json::from_str::<Value>(&call.function.arguments) {
                Ok(Value::Object(a)) => a,
                _ => Map::new(),
            };
            let was = what_happened(result);
            let (now, source, reason) = match runtime
                .decide(&probe, &call.function.name, &arguments, &cancel)
                .await
            {
                Ok(v) => (Outcome::Decided(v.decision), v.source, v.reason),
                Err(why) => (Outcome::Unavailable, "unknown_tool", why),
            };
            rows.push(Replayed {
                call_id: call.id.clone(),
                tool: call.function.name.clone(),
                arguments: Value::Object(arguments),
                was,
                now,
                source,
                reason,
                changed: was != now && !matches!(was, Outcome::Canceled | Outcome::Unknown),
            });
        }
    }
    runtime.stop_servers().await;
    if args.json {
        out::line(&serde_json::to_string_pretty(&rows)?)?;
        return Ok(status::OK);
    }
    let changed: Vec<&Replayed> = rows.iter().filter(|r| r.changed).collect();
    let mut text = format!(
        "{} tool call(s) re-decided under {}: {} change(s)\n",
        rows.len(),
        config.display(),
        changed.len()
    );
    if !changed.is_empty() {
        text.push_str("\n| call | tool | arguments | was | now | source | reason |\n|---|---|---|---|---|---|---|\n");
        for r in changed {
            let args = crate::render::call_arguments(&r.arguments).replace('|', "\\|");
            text.push_str(&format!(
                "| {} | {} | {args} | {} | {} | {} | {} |\n",
                r.call_id,
                r.tool,
                r.was.as_str(),
                r.now.as_str(),
                r.source,
                r.reason.replace('|', "\\|").replace('\n', " ")
            ));
        }
    }
    out::line(text.trim_end())?;
    Ok(status::OK)
}
