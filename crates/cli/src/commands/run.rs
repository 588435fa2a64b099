//! `tether run AGENT.yaml [PROMPT…]`: one-shot (`--exec`) runs.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use tether_core::{
    EventSink, Interaction, RunOutcome, RuntimeOptions, Session, StopReason, build_runtime,
};
use tether_exec::Shell;
use tether_hooks::builtins::Snapshot;
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

/// `--exec`, or a prompt on a non-terminal: one turn, nobody to ask.
fn is_one_shot(args: &RunArgs) -> bool {
    args.exec || (!std::io::stdin().is_terminal() && args.prompt.iter().any(|w| !w.is_empty()))
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let prompt = args.prompt.join(" ");
    if !is_one_shot(&args) {
        return crate::interactive::run(args).await;
    }
    if prompt.trim().is_empty() {
        return Err(user_error(
            "`--exec` needs a prompt: `tether run AGENT.yaml --exec \"…\"`",
        ));
    }
    let sink: Arc<dyn EventSink> = if args.json {
        Arc::new(JsonSink)
    } else {
        Arc::new(ExecSink::new(args.hide_tool_calls))
    };
    let interaction: Arc<dyn Interaction> = Arc::new(PromptInteraction::new(!args.json, args.yolo));
    #[cfg(feature = "otel")]
    let (telemetry, sink, observers) = crate::telemetry::install(sink);
    #[cfg(not(feature = "otel"))]
    let observers = Vec::new();
    let Prepared {
        runtime,
        mut session,
        resumed,
        ..
    } = prepare(&args, sink, observers, interaction, Some(&prompt)).await?;
    let cancel = CancellationToken::new();
    cancel_on_signals(cancel.clone());
    let source = if resumed { "resume" } else { "startup" };
    runtime.start_session(&mut session, source, &cancel).await;
    // `/NAME ARGS…` runs one of the agent's commands.
    let prompt = match runtime
        .resolve_command(&mut session, &prompt, &cancel)
        .await
    {
        Some(expanded) => expanded,
        None => prompt,
    };
    let outcome = runtime.run(&mut session, Some(prompt), &cancel).await;
    let exiting = runtime.end_session_exiting(&session, "other").await;
    runtime.stop_servers().await;
    #[cfg(feature = "otel")]
    crate::telemetry::shutdown(telemetry).await;
    // The session store closes (a checkpoint, an fsync) while the hook processes exit.
    drop(runtime);
    exiting.wait().await;
    if session.store_failed && outcome.reason == StopReason::Normal {
        return Ok(status::RUNTIME);
    }
    Ok(exit_status(&outcome))
}

/// A runtime and the session it runs (new, or restored from the store).
pub(crate) struct Prepared {
    pub(crate) runtime: tether_core::Runtime,
    pub(crate) session: Session,
    pub(crate) resumed: bool,
    /// The worktree `--worktree` created for this run.
    pub(crate) worktree: Option<crate::worktree::Worktree>,
    /// The `snapshot` builtin's checkpoints, for `/undo` and `/snapshots`.
    pub(crate) snapshots: Arc<Snapshot>,
}

/// Loads the agent file, opens the session store, restores `--session`/`--resume` if asked,
/// and builds the runtime around it.
pub(crate) async fn prepare(
    args: &RunArgs,
    sink: Arc<dyn EventSink>,
    observers: Vec<Arc<dyn HookObserver>>,
    interaction: Arc<dyn Interaction>,
    first_prompt: Option<&str>,
) -> anyhow::Result<Prepared> {
    let file = common::load(&args.agent_file)?;
    let store = common::open_store(args.session_db.as_deref())?;
    let store_err = |e: tether_store::StoreError| anyhow::anyhow!("{e}");
    let id = match (&args.session, args.resume) {
        (Some(id), _) => Some(id.clone()),
        (None, true) => Some(
            store
                .latest()
                .map_err(store_err)?
                .ok_or_else(|| user_error("there is no stored session to resume"))?,
        ),
        (None, false) => None,
    };
    let stored = match &id {
        Some(id) => Some(store.load(id).map_err(store_err)?.ok_or_else(|| {
            user_error(format!("no session `{id}` (see `tether sessions list`)"))
        })?),
        None => None,
    };
    let agent = match (&args.agent, &stored) {
        (Some(_), _) | (None, None) => common::pick_agent(&file, args.agent.as_deref())?
            .name
            .clone(),
        (None, Some(s)) => s.meta.agent.clone(),
    };
    let mut dir = match (&args.working_dir, &stored) {
        (Some(d), _) => working_dir(Some(d))?,
        (None, Some(s)) if s.meta.working_dir.is_dir() => s.meta.working_dir.clone(),
        _ => working_dir(None)?,
    };
    let gate = if is_one_shot(args) {
        crate::trust::Gate::Refuse
    } else {
        crate::trust::Gate::Ask
    };
    let user = common::user_config()?;
    crate::trust::check(&args.agent_file, &file, &dir, &user, args.trust_hooks, gate)?;
    let worktree = match (&args.worktree, &stored) {
        (Some(name), None) => {
            let wt = crate::worktree::create(&dir, name).await?;
            dir.clone_from(&wt.working_dir);
            Some(wt)
        }
        _ => None,
    };
    let session_store: Arc<dyn tether_core::SessionStore> = store.clone();
    let session_id = id.clone().unwrap_or_else(tether_core::new_session_id);
    let (runtime, snapshots) = build(
        args,
        &file,
        &agent,
        dir,
        Some(&session_id),
        Some(session_store),
        sink,
        observers,
        interaction,
        false,
    )?;
    if let Some(wt) = &worktree {
        let info = tether_core::WorktreeInfo {
            path: wt.path.display().to_string(),
            branch: wt.branch.clone(),
            source_dir: wt.source.display().to_string(),
        };
        if let Some(r) = runtime
            .worktree_created(&agent, &info, &CancellationToken::new())
            .await
        {
            for text in [&r.system_message, &r.additional_context] {
                if !text.is_empty() {
                    crate::out::note(text);
                }
            }
            if !r.allowed {
                let why = if r.message.is_empty() {
                    "a worktree_create hook blocked the run"
                } else {
                    &r.message
                };
                return Err(anyhow::Error::new(common::BlockedByHook(format!(
                    "worktree_create hook aborted the run: {why}"
                ))));
            }
        }
    }
    let (mut session, resumed) = match stored {
        Some(s) => (tether_core::restore(s), true),
        None => (Session::new(session_id, agent), false),
    };
    if let Ok(path) = std::fs::canonicalize(&args.agent_file) {
        session.agent_file = Some(path);
    }
    runtime.save_session(&mut session, first_prompt, resumed);
    if let Some(wt) = &worktree {
        let update = tether_store::SessionUpdate {
            worktree_path: Some(Some(wt.path.clone())),
            worktree_branch: Some(Some(wt.branch.clone())),
            ..tether_store::SessionUpdate::default()
        };
        store
            .update(&session.id, &update)
            .map_err(|e| anyhow::anyhow!("cannot record the worktree: {e}"))?;
    }
    Ok(Prepared {
        runtime,
        session,
        resumed,
        worktree,
        snapshots,
    })
}

/// The runtime options every command that runs agents shares: the user config's defaults,
/// hooks and permissions, the `--hook-*` flags, `--model` overrides and `--hook-log`.
pub(crate) fn options(
    user: &tether_config::UserConfig,
    working_dir: PathBuf,
    hooks: &crate::args::HookFlags,
    models: &[String],
    hook_log: Option<&std::path::Path>,
) -> anyhow::Result<RuntimeOptions> {
    let mut opts = RuntimeOptions::new(working_dir);
    opts.inject.snapshot = user.snapshot;
    opts.inject.hooks_sandbox = user.hooks_sandbox;
    opts.default_safety = user.safety;
    opts.global_hooks = user.hooks.clone();
    opts.default_model.clone_from(&user.model);
    opts.global_permissions = user.permissions.clone();
    opts.cli_hooks = hooks.to_cli_hooks();
    opts.model_overrides = models
        .iter()
        .map(|m| parse_model_override(m))
        .collect::<anyhow::Result<_>>()?;
    opts.shell = Shell::from_env();
    opts.cache_dir = Some(common::tether_home().join("cache"));
    if let Some(path) = hook_log {
        let log = HookLog::open(path)
            .map_err(|e| user_error(format!("cannot open `{}`: {e}", path.display())))?;
        let log: Arc<dyn HookObserver> = Arc::new(log);
        opts.observers.push(log);
    }
    Ok(opts)
}

/// Builds the runtime for `tether run`.
#[expect(
    clippy::too_many_arguments,
    reason = "each is one thing a run is made of"
)]
pub(crate) fn build(
    args: &RunArgs,
    file: &tether_config::AgentFile,
    agent: &str,
    working_dir: PathBuf,
    session_id: Option<&str>,
    store: Option<Arc<dyn tether_core::SessionStore>>,
    sink: Arc<dyn EventSink>,
    observers: Vec<Arc<dyn HookObserver>>,
    interaction: Arc<dyn Interaction>,
    non_interactive: bool,
) -> anyhow::Result<(tether_core::Runtime, Arc<Snapshot>)> {
    let user = common::user_config()?;
    let mut opts = options(
        &user,
        working_dir,
        &args.hooks,
        &args.model,
        args.hook_log.as_deref(),
    )?;
    opts.store = store;
    opts.yolo = args.yolo;
    opts.script_time_limit = std::time::Duration::try_from_secs_f64(args.code_mode_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            user_error(format!(
                "--code-mode-timeout must be a positive number of seconds, got {}",
                args.code_mode_timeout
            ))
        })?;
    opts.non_interactive = non_interactive;
    // Each session's MCP server logs live together: $TETHER_HOME/logs/SESSION/mcp-NAME.log.
    opts.mcp_log_dir = session_id.map(|id| common::tether_home().join("logs").join(id));
    opts.observers.extend(observers);
    let (registry, snapshots) = common::registry_with_snapshots(Some(file));
    let runtime = build_runtime(
        file,
        agent,
        Arc::new(registry),
        &ProcessEnv,
        opts,
        sink,
        interaction,
    )
    .map_err(|e| user_error(e.to_string()))?;
    for w in runtime.warnings() {
        crate::out::warning(w);
    }
    Ok((runtime, snapshots))
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
