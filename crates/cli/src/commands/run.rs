//! `tether run AGENT.yaml [PROMPT…]`: one-shot (`--exec`) runs.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use tether_core::{
    EventSink, Interaction, RunOutcome, RuntimeOptions, Session, StopReason, build_runtime,
};
use tether_exec::Shell;
use tether_hooks::{HookLog, HookObserver};
use tether_providers::ProcessEnv;
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::common::{self, user_error};
use crate::interact::PromptInteraction;
use crate::render::{ExecSink, JsonSink};
use crate::status;

/// Exit status 130: interrupted.
pub(crate) const INTERRUPTED: u8 = 130;

/// `[AGENT=]PROVIDER/MODEL`.
fn parse_model_override(value: &str) -> anyhow::Result<(Option<String>, String)> {
    let (agent, model) = match value.split_once('=') {
        Some((a, m)) if !a.contains('/') => (Some(a.to_owned()), m),
        _ => (None, value),
    };
    if !model.contains('/') {
        return Err(user_error(format!(
            "invalid `--model {value}`: write PROVIDER/MODEL or AGENT=PROVIDER/MODEL"
        )));
    }
    Ok((agent, model.to_owned()))
}

pub(crate) fn exit_status(outcome: &RunOutcome) -> u8 {
    match outcome.reason {
        StopReason::Normal | StopReason::MaxIterations { .. } => status::OK,
        StopReason::HookBlocked { .. } => status::BLOCKED,
        StopReason::Error { .. } | StopReason::LoopDetected { .. } => status::RUNTIME,
        StopReason::Cancelled => INTERRUPTED,
    }
}

/// Cancels `token` on SIGINT or SIGTERM.
pub(crate) fn cancel_on_signals(token: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        token.cancel();
    });
}

pub(crate) fn working_dir(arg: Option<&PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = match arg {
        Some(d) => d.clone(),
        None => common::current_dir()?,
    };
    std::fs::canonicalize(&dir)
        .map_err(|e| user_error(format!("invalid `--working-dir {}`: {e}", dir.display())))
}

pub(crate) fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let prompt = args.prompt.join(" ");
    let one_shot = args.exec || (!std::io::stdin().is_terminal() && !prompt.is_empty());
    if !one_shot {
        return crate::interactive::run(args).await;
    }
    if prompt.trim().is_empty() {
        return Err(user_error(
            "`--exec` needs a prompt: `tether run AGENT.yaml --exec \"…\"`",
        ));
    }
    let file = common::load(&args.agent_file)?;
    let agent = common::pick_agent(&file, args.agent.as_deref())?
        .name
        .clone();
    let sink: Arc<dyn EventSink> = if args.json {
        Arc::new(JsonSink)
    } else {
        Arc::new(ExecSink::new(args.hide_tool_calls))
    };
    let interaction: Arc<dyn Interaction> = Arc::new(PromptInteraction::new(!args.json, args.yolo));
    let runtime = build(&args, &file, &agent, sink, interaction, false)?;
    let mut session = Session::new(new_session_id(), agent);
    let cancel = CancellationToken::new();
    cancel_on_signals(cancel.clone());
    runtime
        .start_session(&mut session, "startup", &cancel)
        .await;
    let outcome = runtime.run(&mut session, Some(prompt), &cancel).await;
    runtime.end_session(&session, "other").await;
    Ok(exit_status(&outcome))
}

/// Builds the runtime for `tether run`.
pub(crate) fn build(
    args: &RunArgs,
    file: &tether_config::AgentFile,
    agent: &str,
    sink: Arc<dyn EventSink>,
    interaction: Arc<dyn Interaction>,
    non_interactive: bool,
) -> anyhow::Result<tether_core::Runtime> {
    let mut opts = RuntimeOptions::new(working_dir(args.working_dir.as_ref())?);
    opts.cli_hooks = args.hooks.to_cli_hooks();
    opts.model_overrides = args
        .model
        .iter()
        .map(|m| parse_model_override(m))
        .collect::<anyhow::Result<_>>()?;
    opts.yolo = args.yolo;
    opts.non_interactive = non_interactive;
    opts.shell = Shell::from_env();
    if let Some(path) = &args.hook_log {
        let log = HookLog::open(path)
            .map_err(|e| user_error(format!("cannot open `{}`: {e}", path.display())))?;
        let log: Arc<dyn HookObserver> = Arc::new(log);
        opts.observers.push(log);
    }
    build_runtime(
        file,
        agent,
        Arc::new(common::registry()),
        &ProcessEnv,
        opts,
        sink,
        interaction,
    )
    .map_err(|e| user_error(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_overrides_parse() {
        assert_eq!(
            parse_model_override("openai/gpt-4o").unwrap(),
            (None, "openai/gpt-4o".into())
        );
        assert_eq!(
            parse_model_override("helper=anthropic/claude").unwrap(),
            (Some("helper".into()), "anthropic/claude".into())
        );
        assert_eq!(
            parse_model_override("script/./a=b.yaml").unwrap(),
            (None, "script/./a=b.yaml".into())
        );
        assert!(parse_model_override("gpt-4o").is_err());
    }
}
