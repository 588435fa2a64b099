//! `tether mcp list` and `tether mcp call`: an agent's MCP servers without a model (docs/cli.md).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::{Map, Value};
use tether_core::{EventSink, Interaction, Runtime, RuntimeOptions, Session, build_runtime};
use tether_hooks::{HookLog, HookObserver};
use tether_protocol::RuntimeEvent;
use tokio_util::sync::CancellationToken;

use crate::args::{McpCallArgs, McpListArgs};
use crate::commands::run::{INTERRUPTED, cancel_on_signals, working_dir};
use crate::common::{self, user_error};
use crate::interact::PromptInteraction;
use crate::status;

/// No model is called here: a provider whose key is not set must not stop the command.
struct KeysNotNeeded;

impl tether_providers::Env for KeysNotNeeded {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .or_else(|| name.ends_with("_KEY").then(|| "unused".to_owned()))
    }
}

/// Records what the call did, for the report.
#[derive(Debug, Default)]
struct Collect(Mutex<Vec<RuntimeEvent>>);

impl EventSink for Collect {
    fn emit(&self, _: &str, event: RuntimeEvent) {
        if let RuntimeEvent::ToolProgress {
            name,
            progress,
            total,
            message,
            ..
        } = &event
        {
            crate::out::note(&crate::render::progress_text(
                name,
                *progress,
                *total,
                message.as_deref(),
            ));
        }
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}

/// A runtime for commands that call no model.
pub(crate) struct Built {
    pub(crate) runtime: Runtime,
    pub(crate) agent: String,
    events: Arc<Collect>,
}

pub(crate) fn build(
    file: &std::path::Path,
    agent: Option<&str>,
    dir: Option<&std::path::PathBuf>,
    yolo: bool,
    hook_log: Option<&std::path::Path>,
) -> anyhow::Result<Built> {
    let file = common::load(file)?;
    let agent = common::pick_agent(&file, agent)?.name.clone();
    let user = common::user_config()?;
    let mut opts = RuntimeOptions::new(working_dir(dir)?);
    opts.default_model = user.model;
    opts.global_permissions = user.permissions;
    opts.inject.snapshot = user.snapshot;
    opts.inject.hooks_sandbox = user.hooks_sandbox;
    opts.default_safety = user.safety;
    opts.global_hooks = user.hooks;
    opts.yolo = yolo;
    opts.non_interactive = true;
    let home = common::tether_home();
    opts.mcp_log_dir = Some(home.join("logs").join(tether_core::new_session_id()));
    opts.cache_dir = Some(home.join("cache"));
    if let Some(path) = hook_log {
        let log = HookLog::open(path)
            .map_err(|e| user_error(format!("cannot open `{}`: {e}", path.display())))?;
        let log: Arc<dyn HookObserver> = Arc::new(log);
        opts.observers.push(log);
    }
    let events = Arc::new(Collect::default());
    let sink: Arc<dyn EventSink> = events.clone();
    let interaction: Arc<dyn Interaction> = Arc::new(PromptInteraction::new(true, yolo));
    let runtime = build_runtime(
        &file,
        &agent,
        Arc::new(common::registry(Some(&file))),
        &KeysNotNeeded,
        opts,
        sink,
        interaction,
    )
    .map_err(|e| user_error(e.to_string()))?;
    Ok(Built {
        runtime,
        agent,
        events,
    })
}

pub(crate) async fn list(args: McpListArgs) -> anyhow::Result<u8> {
    let built = build(
        &args.agent_file,
        args.agent.as_deref(),
        args.working_dir.as_ref(),
        false,
        None,
    )?;
    let servers = built.runtime.mcp_report(&built.agent).await;
    built.runtime.stop_servers().await;
    let mut o = std::io::stdout().lock();
    if args.json {
        let text = serde_json::to_string_pretty(&servers)?;
        writeln!(o, "{text}")?;
        return Ok(status::OK);
    }
    if servers.is_empty() {
        writeln!(o, "agent `{}` has no MCP toolsets", built.agent)?;
    }
    for s in &servers {
        writeln!(o, "{} ({}): {}", s.name, s.transport, s.status)?;
        if let Some(e) = &s.error {
            for line in e.lines() {
                writeln!(o, "  ! {line}")?;
            }
        }
        for t in &s.tools {
            let mut marks = Vec::new();
            if t.read_only {
                marks.push("read-only");
            }
            if t.deferred {
                marks.push("deferred");
            }
            let marks = if marks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", marks.join(", "))
            };
            writeln!(o, "  {:<28} {}{marks}", t.name, t.qualified_name)?;
        }
        if let Some(log) = &s.log_file {
            writeln!(o, "  log: {}", log.display())?;
        }
    }
    Ok(status::OK)
}

#[derive(Debug, Serialize)]
struct CallReport {
    tool: String,
    /// The tool ran (the approval chain let it through).
    ran: bool,
    /// The arguments it ran with (after hooks rewrote them).
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<Value>,
    result: String,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured: Option<Value>,
    /// Each hook that ran: event, hook, status, allowed.
    hooks: Vec<BTreeMap<&'static str, Value>>,
    /// What blocked the call, if a hook did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blocked: Vec<BTreeMap<&'static str, String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

pub(crate) async fn call(args: McpCallArgs) -> anyhow::Result<u8> {
    let input: Map<String, Value> = match serde_json::from_str(&args.args) {
        Ok(Value::Object(m)) => m,
        Ok(other) => {
            return Err(user_error(format!(
                "`--args` must be a JSON object, got {other}"
            )));
        }
        Err(e) => return Err(user_error(format!("`--args` is not valid JSON: {e}"))),
    };
    let built = build(
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
    cancel_on_signals(cancel.clone());
    let outcome = runtime
        .call_tool(&mut session, &args.tool, &input, &cancel)
        .await;
    runtime.stop_servers().await;
    let events = std::mem::take(
        &mut *built
            .events
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    if let Err(reason) = outcome {
        return Err(anyhow::anyhow!("{reason:?}"));
    }
    let mut report = CallReport {
        tool: args.tool.clone(),
        ran: false,
        arguments: None,
        result: String::new(),
        is_error: true,
        structured: None,
        hooks: Vec::new(),
        blocked: Vec::new(),
        warnings: Vec::new(),
    };
    for event in events {
        match event {
            RuntimeEvent::ToolCall { arguments, .. } => {
                report.ran = true;
                report.arguments = Some(arguments);
            }
            RuntimeEvent::ToolResponse {
                response,
                is_error,
                structured,
                ..
            } => {
                report.result = response;
                report.is_error = is_error;
                report.structured = structured;
            }
            RuntimeEvent::HookFinished {
                event,
                hook,
                status,
                allowed,
                ..
            } => report.hooks.push(BTreeMap::from([
                ("event", Value::String(event)),
                ("hook", Value::String(hook)),
                ("status", Value::String(status)),
                ("allowed", Value::Bool(allowed)),
            ])),
            RuntimeEvent::HookBlocked {
                event,
                hook,
                message,
            } => report.blocked.push(BTreeMap::from([
                ("event", event),
                ("hook", hook),
                ("message", message),
            ])),
            RuntimeEvent::Warning { message } | RuntimeEvent::Error { message, .. } => {
                report.warnings.push(message);
            }
            _ => {}
        }
    }
    let text = serde_json::to_string_pretty(&report)?;
    writeln!(std::io::stdout().lock(), "{text}")?;
    Ok(if cancel.is_cancelled() {
        INTERRUPTED
    } else if !report.ran {
        status::BLOCKED
    } else if report.is_error {
        status::RUNTIME
    } else {
        status::OK
    })
}
