//! The executor: one per agent, built once from its effective hooks, read-only afterwards.
//!
//! Dispatch selects the hooks whose matcher accepts the tool, drops duplicates, runs them all
//! concurrently and aggregates their results in config order. The events whose row says
//! `chains_rewrites` (`tool_response_transform`, `before_llm_call`, `tool_input_transform`)
//! run their hooks one after another instead, each seeing the previous hook's rewrite, so a
//! later rewriter (e.g. `redact_secrets`) is never discarded by an earlier one.
//!
//! `async: true` hooks (observational events only) are started and not awaited: they are
//! observed like any run but never aggregated, and [`Executor::shutdown`] reaps them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::{BoxFuture, join_all};
use tether_config::{Diagnostic, Dialect, HookSpec, HooksConfig, Matcher};
use tether_protocol::{HookEvent, HookInput, Lane, SpecificOutput};
use tokio_util::sync::CancellationToken;

use crate::aggregate::{RunPolicy, aggregate, verdict};
use crate::async_hooks::AsyncHooks;
use crate::claude;
use crate::command_runner::{self, CommandRun, duration_text};
use crate::compile::{CompiledHook, Handler, compile};
use crate::mcp_hook::McpCaller;
use crate::observer::HookObserver;
use crate::persistent::{PersistentCall, PersistentPool};
use crate::policy_hook;
use crate::registry::{Builtin, BuiltinCall, Notes, Registry};
use crate::result::{HookResult, HookRun, Outcome};
use crate::strict_output;

mod shutdown;

/// How the executor runs hooks.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Where hooks run unless they set `working_dir`; also `TETHER_PROJECT_DIR` and the
    /// default `cwd` of the Input.
    pub working_dir: PathBuf,
    /// The environment hooks start from; `None` inherits this process's.
    pub base_env: Option<Arc<[(OsString, OsString)]>>,
    /// Told about every hook run (event stream, `--hook-log`).
    pub observers: Vec<Arc<dyn HookObserver>>,
    /// The agent's MCP servers, for `type: mcp` hooks.
    pub mcp: Option<Arc<dyn McpCaller>>,
    /// The agent's safety mode (`context.safety` of policy hooks).
    pub safety: String,
}

impl ExecutorOptions {
    pub fn new(working_dir: impl Into<PathBuf>) -> Self {
        Self {
            working_dir: working_dir.into(),
            base_env: None,
            observers: Vec::new(),
            mcp: None,
            safety: "balanced".to_owned(),
        }
    }
}

#[derive(Debug)]
struct Entry {
    matcher: Matcher,
    lane: Lane,
    hooks: Vec<Arc<CompiledHook>>,
}

/// Runs the hooks of one agent.
#[derive(Debug)]
pub struct Executor {
    events: [Vec<Entry>; HookEvent::ALL.len()],
    runner: Arc<Runner>,
    background: AsyncHooks,
}

/// What running one hook needs; shared with the tasks of `async` hooks.
#[derive(Debug)]
struct Runner {
    registry: Arc<Registry>,
    opts: ExecutorOptions,
    /// The processes of `persistent: true` hooks, per session.
    persistent: PersistentPool,
}

impl Executor {
    /// Compiles `config`; an unknown builtin, bad builtin arguments, an invalid prompt template
    /// or an unknown model are config errors at the hook's location.
    pub fn new(
        config: &HooksConfig,
        registry: Arc<Registry>,
        opts: ExecutorOptions,
    ) -> Result<Self, Vec<Diagnostic>> {
        let mut diags = Vec::new();
        let mut events: [Vec<Entry>; HookEvent::ALL.len()] = Default::default();
        for event in HookEvent::ALL {
            for entry in config.entries(event) {
                let lane = if event.has_preempt_lane() && entry.preempt_yolo {
                    Lane::Preempt
                } else {
                    Lane::Default
                };
                let mut hooks = Vec::new();
                for spec in &entry.hooks {
                    match compile(spec, &registry, &opts) {
                        Ok(h) => hooks.push(Arc::new(h)),
                        Err(d) => diags.push(*d),
                    }
                }
                events[event.index()].push(Entry {
                    matcher: entry.matcher.clone(),
                    lane,
                    hooks,
                });
            }
        }
        if diags.is_empty() {
            Ok(Self {
                events,
                runner: Arc::new(Runner {
                    registry,
                    opts,
                    persistent: PersistentPool::default(),
                }),
                background: AsyncHooks::default(),
            })
        } else {
            Err(diags)
        }
    }

    pub fn working_dir(&self) -> &Path {
        &self.runner.opts.working_dir
    }

    /// Starts the `async` hooks among `hooks` in the background; returns the others.
    fn start_async(
        &self,
        event: HookEvent,
        lane: Lane,
        hooks: Vec<Arc<CompiledHook>>,
        input: &HookInput,
    ) -> Vec<Arc<CompiledHook>> {
        // Most dispatches have no async hook: keep their list as it is.
        if !hooks.iter().any(|h| h.spec.run_async) {
            return hooks;
        }
        let (background, awaited): (Vec<_>, Vec<_>) =
            hooks.into_iter().partition(|h| h.spec.run_async);
        for hook in background {
            let runner = Arc::clone(&self.runner);
            let input = input.clone();
            let session = input.session_id.clone();
            self.background.spawn(&session, move |cancel| {
                Box::pin(async move {
                    let payload = Payloads::default().for_hook(event, &hook, &input);
                    // Observed like any run; the result is not aggregated.
                    let _ = runner
                        .run_hook(event, lane, &hook, &input, payload.as_ref(), &cancel)
                        .await;
                })
            });
        }
        awaited
    }

    /// Whether any hook is configured for this event and lane.
    pub fn has(&self, event: HookEvent, lane: Lane) -> bool {
        self.events[event.index()]
            .iter()
            .any(|e| e.lane == lane && !e.hooks.is_empty())
    }

    /// The hooks a dispatch would run, in order, without duplicates.
    /// A tool event's matcher accepts the tool's name, for an MCP tool its `mcp:SERVER:TOOL`
    /// name, and for a tool that runs a shell line (a background job) `shell`, so that a guard
    /// written for the shell cannot be walked around through it.
    fn select(&self, event: HookEvent, lane: Lane, input: &HookInput) -> Vec<Arc<CompiledHook>> {
        let mut out: Vec<Arc<CompiledHook>> = Vec::new();
        let qualified = input.tool_qualified_name.as_str();
        let shell = tether_config::shell_alias(&input.tool_name);
        for entry in &self.events[event.index()] {
            if entry.lane != lane
                || (event.uses_matcher()
                    && !entry.matcher.matches(&input.tool_name)
                    && (qualified.is_empty() || !entry.matcher.matches(qualified))
                    && !shell.is_some_and(|s| entry.matcher.matches(s)))
            {
                continue;
            }
            for hook in &entry.hooks {
                if !out.iter().any(|h| h.dedupe_key == hook.dedupe_key) {
                    out.push(Arc::clone(hook));
                }
            }
        }
        out
    }

    /// Runs `pre_tool_use` on both lanes: the preempt lane first; if it denies or asks, its
    /// result stands alone; otherwise both results are combined.
    pub fn dispatch_pre_tool_use<'a>(
        &'a self,
        input: HookInput,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult> {
        Box::pin(self.dispatch_pre_tool_use_inner(input, cancel))
    }

    async fn dispatch_pre_tool_use_inner(
        &self,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult {
        let preempt = self
            .dispatch(HookEvent::PreToolUse, Lane::Preempt, input.clone(), cancel)
            .await;
        if matches!(
            preempt.decision,
            Some(tether_protocol::Decision::Deny | tether_protocol::Decision::Ask)
        ) {
            return preempt;
        }
        let default = self
            .dispatch(HookEvent::PreToolUse, Lane::Default, input, cancel)
            .await;
        HookResult::combine(preempt, default)
    }

    /// Dispatches one event on one lane. Never fails: hook failures are in the result.
    ///
    /// Boxed on purpose: the dispatch state machine is large, and a box keeps every caller's
    /// future (and, in debug builds, its stack frame) small.
    pub fn dispatch<'a>(
        &'a self,
        event: HookEvent,
        lane: Lane,
        input: HookInput,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult> {
        Box::pin(self.dispatch_inner(event, lane, input, cancel))
    }

    async fn dispatch_inner(
        &self,
        event: HookEvent,
        lane: Lane,
        mut input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult {
        let hooks = self.select(event, lane, &input);
        if hooks.is_empty() {
            return HookResult::empty(event, lane);
        }
        event.wire_name().clone_into(&mut input.hook_event_name);
        if input.cwd.is_empty() {
            input.cwd = self.runner.opts.working_dir.display().to_string();
        }
        let hooks = self.start_async(event, lane, hooks, &input);
        if hooks.is_empty() {
            return HookResult::empty(event, lane);
        }
        let runs = if event.chains_rewrites() {
            self.run_chain(event, lane, &hooks, input, cancel).await
        } else {
            let mut payloads = Payloads::default();
            let payloads: Vec<_> = hooks
                .iter()
                .map(|h| payloads.for_hook(event, h, &input))
                .collect();
            let futures = hooks.iter().zip(&payloads).map(|(h, payload)| {
                self.runner
                    .run_hook(event, lane, h, &input, payload.as_ref(), cancel)
            });
            if hooks.len() == 1 {
                let mut runs = Vec::with_capacity(1);
                for f in futures {
                    runs.push(f.await);
                }
                runs
            } else {
                join_all(futures).await
            }
        };
        let mut r = aggregate(
            event,
            lane,
            hooks.iter().zip(runs).map(|(h, run)| {
                let policy = RunPolicy {
                    on_error: h.spec.on_error,
                    name: h.spec.display_name(),
                };
                (policy, run)
            }),
        );
        if event.claude_block_continues() {
            r.keep_going = hooks
                .iter()
                .zip(&r.runs)
                .filter(|(h, _)| h.spec.dialect == Dialect::Claude)
                .filter_map(|(_, run)| claude::stop_block(&run.outcome))
                .collect();
        }
        r
    }

    async fn run_chain(
        &self,
        event: HookEvent,
        lane: Lane,
        hooks: &[Arc<CompiledHook>],
        mut input: HookInput,
        cancel: &CancellationToken,
    ) -> Vec<HookRun> {
        let mut runs = Vec::with_capacity(hooks.len());
        // Serialized again only after a hook changed the input: a long conversation costs
        // milliseconds to encode, and most hooks of a chain only read it.
        let mut payloads = Payloads::default();
        // A rewritten tool output may be megabytes: it moves from the run into the input of
        // the next hook, and the last one moves back into its run for the aggregate.
        let mut last_rewrite = None;
        for hook in hooks {
            let payload = payloads.for_hook(event, hook, &input);
            let mut run = self
                .runner
                .run_hook(event, lane, hook, &input, payload.as_ref(), cancel)
                .await;
            if let Some(h) = run
                .outcome
                .output_mut()
                .and_then(|o| o.hook_specific_output.as_mut())
            {
                if let Some(t) = h.updated_tool_response.take() {
                    input.tool_response = Some(t);
                    last_rewrite = Some(runs.len());
                    payloads = Payloads::default();
                }
                if let Some(m) = h.updated_messages.as_ref().filter(|m| !m.is_empty()) {
                    input.messages.clone_from(m);
                    payloads = Payloads::default();
                }
                // tool_input_transform: the next hook sees the arguments rewritten so far.
                if event.specific_output() == SpecificOutput::InputRewrite
                    && let Some(updates) = h.updated_input.as_ref().filter(|u| !u.is_empty())
                {
                    let args = input.tool_input.get_or_insert_with(Default::default);
                    for (k, v) in updates {
                        args.insert(k.clone(), v.clone());
                    }
                    payloads = Payloads::default();
                }
            }
            runs.push(run);
        }
        if let Some(h) = last_rewrite
            .and_then(|i| runs.get_mut(i))
            .and_then(|run| run.outcome.output_mut())
            .and_then(|o| o.hook_specific_output.as_mut())
        {
            h.updated_tool_response = input.tool_response.take();
        }
        runs
    }

    /// Every hook of the event and lane, for listings (`tether hooks check`).
    pub fn hooks(&self, event: HookEvent, lane: Lane) -> Vec<(&Matcher, &HookSpec)> {
        self.events[event.index()]
            .iter()
            .filter(|e| e.lane == lane)
            .flat_map(|e| e.hooks.iter().map(move |h| (&e.matcher, &h.spec)))
            .collect()
    }
}

impl Runner {
    async fn run_hook(
        &self,
        event: HookEvent,
        lane: Lane,
        hook: &CompiledHook,
        input: &HookInput,
        payload: Option<&Arc<[u8]>>,
        cancel: &CancellationToken,
    ) -> HookRun {
        let name = hook.spec.display_name();
        for o in &self.opts.observers {
            o.started(event, lane, &input.session_id, &hook.spec);
        }
        let started = Instant::now();
        let notes = Notes::default();
        let mut policies = Vec::new();
        let mut policy_errors = Vec::new();
        let mut outcome = match &hook.handler {
            Handler::Command(command, direct) => {
                let stdin = payload.cloned().unwrap_or_else(|| Arc::from(&b"{}"[..]));
                command_runner::run(CommandRun {
                    shell: self.registry.shell(),
                    command,
                    direct: direct.as_ref(),
                    name,
                    cwd: &hook.cwd,
                    env: &hook.env,
                    tether_env: [
                        ("TETHER_SESSION_ID".into(), input.session_id.clone().into()),
                        ("TETHER_HOOK_EVENT".into(), event.wire_name().into()),
                        (
                            "TETHER_PROJECT_DIR".into(),
                            self.opts.working_dir.clone().into_os_string(),
                        ),
                    ],
                    stdin,
                    timeout: hook.spec.timeout,
                    cancel,
                    sandbox: hook.sandbox.as_ref(),
                })
                .await
            }
            Handler::Persistent(command, direct) => {
                let payload = payload.map_or(&b"{}"[..], |p| &p[..]);
                self.persistent
                    .run(PersistentCall {
                        shell: self.registry.shell(),
                        command,
                        direct: direct.as_ref(),
                        key: &hook.dedupe_key,
                        name,
                        cwd: &hook.cwd,
                        env: &hook.env,
                        session_id: &input.session_id,
                        project_dir: &self.opts.working_dir,
                        payload,
                        timeout: hook.spec.timeout,
                        cancel,
                        sandbox: hook.sandbox.as_ref(),
                    })
                    .await
            }
            Handler::Builtin(b) => {
                self.run_builtin(event, hook, b.as_ref(), input, &notes, cancel)
                    .await
            }
            Handler::Model(m, runner) => {
                let run = m.run(input, runner.as_ref());
                bounded(name, hook.spec.timeout, cancel, run).await
            }
            Handler::Evaluator(e, runner) => {
                let run = e.run(input, runner.as_ref());
                bounded(name, hook.spec.timeout, cancel, run).await
            }
            Handler::Http(h) => {
                let body = payload.cloned().unwrap_or_else(|| Arc::from(&b"{}"[..]));
                let run = h.run(name, body, &hook.env);
                bounded(name, hook.spec.timeout, cancel, run).await
            }
            Handler::Mcp(h) => bounded(name, hook.spec.timeout, cancel, h.run(name, input)).await,
            Handler::Policy(p) => {
                let answer = p.decide(event, input);
                policies = answer.policies;
                policy_errors = answer.errors;
                answer.outcome
            }
            Handler::Unavailable(why) => Outcome::failed(why.clone()),
        };
        if hook.spec.strict_output
            && matches!(
                hook.handler,
                Handler::Command(..) | Handler::Persistent(..) | Handler::Http(_) | Handler::Mcp(_)
            )
        {
            strict_output::enforce(event, name, &mut outcome);
        }
        if hook.spec.dialect == Dialect::Claude {
            claude::adapt(event, &input.tool_name, &mut outcome);
        }
        let duration = started.elapsed();
        let (exit_code, error) = match &outcome {
            // A builtin's swallowed failures (an undelivered notification) are the run's error,
            // and so are the policies whose condition errored (they did not apply).
            Outcome::Exited { code, .. } => (
                Some(*code),
                notes.take().or_else(|| {
                    (!policy_errors.is_empty())
                        .then(|| policy_hook::describe_errors(&policy_errors))
                }),
            ),
            Outcome::Failed { error, .. } => (None, Some(error.clone())),
        };
        for e in &policy_errors {
            tracing::warn!(
                event = event.wire_name(),
                hook = name,
                policy = %e.policy,
                "policy `{}` errored, so did not apply: {}",
                e.policy,
                e.error
            );
        }
        let run = HookRun {
            event,
            lane,
            name: name.to_owned(),
            kind: hook.spec.type_name(),
            source: hook.spec.source,
            status: outcome.status(),
            exit_code,
            duration,
            error,
            verdict: verdict(&outcome),
            outcome,
            policies,
            policy_errors,
        };
        if let Some(error) = &run.error {
            // Also what a builtin swallowed (an `http_post` or `unload` not delivered, status
            // `ok`): shown with `TETHER_LOG=debug` even without a hook log.
            tracing::debug!(
                event = event.wire_name(),
                hook = name,
                status = run.status.as_str(),
                "hook error: {error}"
            );
        }
        for o in &self.opts.observers {
            o.finished(&input.session_id, &run);
        }
        run
    }

    async fn run_builtin(
        &self,
        event: HookEvent,
        hook: &CompiledHook,
        builtin: &dyn Builtin,
        input: &HookInput,
        notes: &Notes,
        cancel: &CancellationToken,
    ) -> Outcome {
        let moved;
        let input = if hook.spec.working_dir.is_some() {
            let mut i = input.clone();
            i.cwd = hook.cwd.display().to_string();
            moved = i;
            &moved
        } else {
            input
        };
        let call = BuiltinCall {
            event,
            input,
            args: &hook.spec.args,
            cwd: &hook.cwd,
            env: &hook.env,
            cancel,
            notes,
        };
        let name = hook.spec.display_name();
        tokio::select! {
            r = tokio::time::timeout(hook.spec.timeout, builtin.call(call)) => match r {
                Ok(Ok(output)) => Outcome::ok(output),
                Ok(Err(e)) => Outcome::failed(format!("builtin {name}: {e}")),
                Err(_) => Outcome::Failed {
                    error: format!("hook {name:?} timed out after {}s", hook.spec.timeout.as_secs()),
                    stdout: String::new(),
                    stderr: String::new(),
                    timed_out: true,
                },
            },
            () = cancel.cancelled() => Outcome::failed(format!("hook {name:?} was cancelled")),
        }
    }
}

/// `run` within `timeout`, unless `cancel` fires first (in-process handlers; command hooks
/// are bounded by `tether-exec`, which also kills their process group).
async fn bounded(
    name: &str,
    timeout: Duration,
    cancel: &CancellationToken,
    run: impl Future<Output = Outcome>,
) -> Outcome {
    tokio::select! {
        r = tokio::time::timeout(timeout, run) => r.unwrap_or_else(|_| Outcome::Failed {
            error: format!("hook {name:?} timed out after {}", duration_text(timeout)),
            stdout: String::new(),
            stderr: String::new(),
            timed_out: true,
        }),
        () = cancel.cancelled() => Outcome::failed(format!("hook {name:?} was cancelled")),
    }
}

/// The JSON Input, serialized at most once per dialect, and only for hooks that read it
/// (command and http hooks).
#[derive(Default)]
struct Payloads {
    native: Option<Arc<[u8]>>,
    claude: Option<Arc<[u8]>>,
}

impl Payloads {
    fn for_hook(
        &mut self,
        event: HookEvent,
        hook: &CompiledHook,
        input: &HookInput,
    ) -> Option<Arc<[u8]>> {
        if !matches!(
            hook.handler,
            Handler::Command(..) | Handler::Persistent(..) | Handler::Http(_)
        ) {
            return None;
        }
        let payload = match hook.spec.dialect {
            Dialect::DockerAgent => self.native.get_or_insert_with(|| {
                serde_json::to_vec(input)
                    .map(Arc::from)
                    .unwrap_or_else(|_| Arc::from(&b"{}"[..]))
            }),
            Dialect::Claude => self
                .claude
                .get_or_insert_with(|| claude::payload(event, input)),
        };
        Some(Arc::clone(payload))
    }
}
