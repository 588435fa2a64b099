//! Building a [`Runtime`] from an agent file: every agent the run can reach gets its model
//! client, tools and hooks executor up front, so a missing key or a bad hook is reported before
//! any request.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use tether_config::ModelChoice;
use tether_config::{AgentFile, CliHooks, InjectOptions, ModelConfig, Permissions};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookObserver, HookResult, Registry};
use tether_protocol::{HookEvent, HookInput, Lane, RuntimeEvent};
use tether_providers::ResponseSchema;
use tether_providers::{
    AlloyProvider, Env, ModelSpec, Provider, ProviderError, RouterProvider, Thinking,
    build_provider,
};
use tokio_util::sync::CancellationToken;

use tether_mcp::{McpContext, McpServer};

use crate::agent::{AgentRuntime, FallbackChain, ToolModel};
use crate::delegation::{handoff_definition, transfer_task_definition};
use crate::hook_bridge::EventObserver;
use crate::mcp::{HookCaller, Host};
use crate::persistence::SessionStore;
use crate::queues::Queues;
use crate::toolbox::{self, Slot, Source, Toolbox};
use crate::{Interaction, Sink};

/// Why a runtime could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The configuration cannot run (unknown agent, no model, invalid hooks). Not retryable.
    #[error("{0}")]
    Config(String),
    /// A model client could not be built (missing key, bad spec). Not retryable.
    #[error(transparent)]
    Provider(#[from] ProviderError),
}

/// How the runtime runs.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// The project directory: tools and hooks run here; hook Inputs carry it as `cwd`.
    pub working_dir: PathBuf,
    /// The user config's safety mode, for agents that set none.
    pub default_safety: Option<tether_config::Safety>,
    /// The user config's hooks (`settings.hooks`, `hooks.d/`), after every agent's own.
    pub global_hooks: tether_config::HooksConfig,
    /// `--hook-*` flags, appended to every agent's hooks.
    pub cli_hooks: CliHooks,
    pub inject: InjectOptions,
    /// `--model [AGENT=]PROVIDER/MODEL` overrides.
    pub model_overrides: Vec<(Option<String>, String)>,
    /// Approve every tool call (the preempt lane still runs).
    pub yolo: bool,
    /// Nobody can answer: past `max_iterations` the run stops instead of asking.
    pub non_interactive: bool,
    /// Extra hook observers (e.g. `--hook-log`).
    pub observers: Vec<Arc<dyn HookObserver>>,
    /// The shell for the `shell` tool.
    pub shell: Shell,
    /// Where sessions are saved; `None` keeps them in memory only.
    pub store: Option<Arc<dyn SessionStore>>,
    /// Compact the conversation when it nears the model's context window.
    pub compaction: bool,
    /// The user config's model, for agents that name none.
    pub default_model: Option<String>,
    /// The user config's global permissions, checked after the agent file's.
    pub global_permissions: Permissions,
    /// How long `async` hooks may go on after `session_end` before they are killed.
    pub async_hook_grace: std::time::Duration,
    /// Where MCP servers' stderr and log messages go (`mcp-NAME.log`); `None` keeps none.
    pub mcp_log_dir: Option<PathBuf>,
    /// Where the Docker MCP catalog is cached.
    pub cache_dir: Option<PathBuf>,
    /// The home directory whose `.agents/skills` (and Codex's, Claude's) hold global skills.
    pub home: Option<PathBuf>,
    /// How long a code-mode script may run, not counting its tool calls (default 60 s).
    pub script_time_limit: std::time::Duration,
}

impl RuntimeOptions {
    pub fn new(working_dir: impl Into<PathBuf>) -> Self {
        Self {
            working_dir: working_dir.into(),
            default_safety: None,
            global_hooks: tether_config::HooksConfig::default(),
            cli_hooks: CliHooks::default(),
            inject: InjectOptions::default(),
            model_overrides: Vec::new(),
            yolo: false,
            non_interactive: false,
            observers: Vec::new(),
            shell: Shell::from_env(),
            store: None,
            compaction: true,
            default_model: None,
            global_permissions: Permissions::default(),
            async_hook_grace: ASYNC_HOOK_GRACE,
            mcp_log_dir: None,
            cache_dir: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            script_time_limit: tether_codemode::Limits::default().time,
        }
    }
}

/// A new, time-ordered session id.
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The default [`RuntimeOptions::async_hook_grace`].
pub const ASYNC_HOOK_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// A configured runtime: agents, team permissions, where events go and how to ask the user.
/// Cloning is cheap and shares everything: background sub-agent tasks hold a clone.
#[derive(Debug, Clone)]
pub struct Runtime(Arc<Shared>);

impl std::ops::Deref for Runtime {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every clone of a [`Runtime`] shares.
#[derive(Debug)]
pub struct Shared {
    pub(crate) agents: Vec<Arc<AgentRuntime>>,
    pub(crate) permissions: Permissions,
    pub(crate) sink: Sink,
    pub(crate) interaction: Arc<dyn Interaction>,
    pub(crate) working_dir: PathBuf,
    pub(crate) yolo: bool,
    pub(crate) non_interactive: bool,
    pub(crate) store: Option<Arc<dyn SessionStore>>,
    pub(crate) queues: Queues,
    pub(crate) async_hook_grace: std::time::Duration,
    /// A code-mode script's limits.
    pub(crate) script_limits: tether_codemode::Limits,
    /// MCP failures already reported.
    pub(crate) mcp_notified: crate::mcp::Notified,
    /// What setup skipped (malformed skills), for the user to see.
    pub(crate) warnings: Vec<String>,
    /// `background_agents` tasks.
    pub(crate) background: crate::background::Tasks,
    pub(crate) budgets: crate::budget::Budgets,
}

/// A `models:` entry as the providers take it; relative paths in it resolve against `base_dir`.
pub(crate) fn spec_of(cfg: ModelConfig, base_dir: Option<PathBuf>) -> ModelSpec {
    use tether_config::ThinkingBudget as B;
    let thinking = cfg.thinking_budget.map(|b| match b {
        B::Disabled => Thinking::Disabled,
        B::Dynamic => Thinking::Dynamic,
        B::Tokens(t) => Thinking::Tokens(t),
        B::Effort(e) => Thinking::Effort(e),
    });
    ModelSpec {
        provider: cfg.provider,
        model: cfg.model,
        base_url: cfg.base_url,
        max_tokens: cfg.max_tokens,
        temperature: cfg.temperature,
        top_p: cfg.top_p,
        frequency_penalty: cfg.frequency_penalty,
        presence_penalty: cfg.presence_penalty,
        parallel_tool_calls: cfg.parallel_tool_calls,
        track_usage: cfg.track_usage,
        token_key: cfg.token_key,
        thinking,
        provider_opts: cfg.provider_opts,
        prices: cfg.cost.map(|c| tether_providers::catalogue::Prices {
            input: c.input,
            output: c.output,
            cached_input: c.cache_read,
            cache_write: c.cache_write,
        }),
        base_dir,
    }
}

/// The client for an agent's `model:` value (a name, `provider/model`, `a,b` or `auto`),
/// with the spec of the model it starts on.
pub(crate) fn build_model(
    file: &AgentFile,
    agent: &str,
    value: &str,
    env: &dyn Env,
) -> Result<(ModelSpec, Arc<dyn Provider>), SetupError> {
    match ModelChoice::parse(value) {
        ModelChoice::One(reference) => one_model(file, agent, &reference, env),
        ModelChoice::Auto => {
            let (provider, model) = tether_config::AUTO_MODELS
                .iter()
                .find(|(_, vars, _)| {
                    vars.iter()
                        .any(|v| env.var(v).is_some_and(|k| !k.is_empty()))
                })
                .map_or(tether_config::AUTO_LOCAL_MODEL, |(p, _, m)| (*p, *m));
            one_model(file, agent, &format!("{provider}/{model}"), env)
        }
        ModelChoice::Alloy(references) => {
            let mut first = None;
            let mut providers = Vec::new();
            for r in &references {
                let (spec, provider) = one_model(file, agent, r, env)?;
                first.get_or_insert(spec);
                providers.push(provider);
            }
            let spec = first.ok_or_else(|| {
                SetupError::Config(format!("agent `{agent}`: the model is empty"))
            })?;
            Ok((spec, Arc::new(AlloyProvider::new(providers)?)))
        }
    }
}

/// One model reference: a plain model, a router (`routing:`), or a `first_available` list.
fn one_model(
    file: &AgentFile,
    agent: &str,
    reference: &str,
    env: &dyn Env,
) -> Result<(ModelSpec, Arc<dyn Provider>), SetupError> {
    let cfg = file.resolve_model(reference).ok_or_else(|| {
        SetupError::Config(format!("agent `{agent}`: unknown model `{reference}`"))
    })?;
    if !cfg.first_available.is_empty() {
        let mut last = None;
        for candidate in &cfg.first_available {
            match one_model(file, agent, candidate, env) {
                Ok(found) => return Ok(found),
                Err(e) => last = Some(e),
            }
        }
        return Err(last.unwrap_or_else(|| {
            SetupError::Config(format!(
                "agent `{agent}`: `{reference}` lists no candidates"
            ))
        }));
    }
    let routing = cfg.routing.clone();
    let spec = spec_of(cfg, Some(file.dir.clone()));
    let provider = build_provider(&spec, env)?;
    if routing.is_empty() {
        return Ok((spec, provider));
    }
    let mut routes = Vec::new();
    for rule in routing {
        let (_, target) = one_model(file, agent, &rule.model, env)?;
        routes.push((target, rule.examples));
    }
    let router = RouterProvider::new(spec.id(), provider, routes);
    Ok((spec, Arc::new(router)))
}

/// A server and what it was built from: agents whose toolsets define the same server (the
/// same `mcps:` entry, or the same command) share one process.
struct SharedServer {
    cfg: tether_config::McpServer,
    prefix: Option<String>,
    server: Arc<McpServer>,
}

fn mcp_server(
    servers: &mut Vec<SharedServer>,
    cfg: &tether_config::McpServer,
    toolset: &tether_config::Toolset,
    ctx: &McpContext,
) -> Arc<McpServer> {
    if let Some(s) = servers
        .iter()
        .find(|s| s.cfg == *cfg && s.prefix == toolset.name)
    {
        return Arc::clone(&s.server);
    }
    let server = Arc::new(McpServer::new(
        cfg.clone(),
        toolset.name.clone(),
        ctx.clone(),
    ));
    servers.push(SharedServer {
        cfg: cfg.clone(),
        prefix: toolset.name.clone(),
        server: Arc::clone(&server),
    });
    server
}

/// The index in `tool_models` of the model `reference` (added when new).
fn tool_model(
    file: &AgentFile,
    agent: &str,
    reference: &str,
    env: &dyn Env,
    tool_models: &mut Vec<ToolModel>,
) -> Result<usize, SetupError> {
    let (spec, provider) = build_model(file, agent, reference, env)?;
    let id = spec.id();
    if let Some(i) = tool_models.iter().position(|m| m.id == id) {
        return Ok(i);
    }
    tool_models.push(ToolModel { id, provider });
    Ok(tool_models.len() - 1)
}

/// The agents reachable from `start` through `sub_agents`, `handoffs` and `force_handoff`.
fn reachable(file: &AgentFile, start: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut stack = vec![start.to_owned()];
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some((_, a)) = file.member(&name) {
            stack.extend(a.sub_agents.iter().cloned());
            stack.extend(a.handoffs.iter().cloned());
            stack.extend(a.force_handoff.iter().cloned());
            if let Some(r) = &a.routing {
                stack.extend(r.allowed_agents.iter().cloned());
            }
        }
        order.push(name);
    }
    order
}

/// Builds the runtime for a run that starts with agent `start`.
pub fn build_runtime(
    file: &AgentFile,
    start: &str,
    registry: Arc<Registry>,
    env: &dyn Env,
    opts: RuntimeOptions,
    sink: Sink,
    interaction: Arc<dyn Interaction>,
) -> Result<Runtime, SetupError> {
    let mut observers: Vec<Arc<dyn HookObserver>> = vec![Arc::new(EventObserver {
        sink: Arc::clone(&sink),
    })];
    observers.extend(opts.observers.iter().cloned());
    let mut agents = Vec::new();
    let mcp_ctx = McpContext {
        working_dir: opts.working_dir.clone(),
        log_dir: opts.mcp_log_dir.clone(),
        cache_dir: opts.cache_dir.clone(),
        host: Arc::new(Host {
            interaction: Arc::clone(&interaction),
        }),
        lookup: Arc::new(tether_mcp::ProcessEnv),
    };
    let mut servers: Vec<SharedServer> = Vec::new();
    let mut warnings = Vec::new();
    let budgets = crate::budget::Budgets::new(file);
    let shared = tether_tools::SharedState::default();
    for name in reachable(file, start) {
        // An external agent's models and paths resolve against its own file.
        let (file, agent) = file.member(&name).ok_or_else(|| {
            SetupError::Config(format!(
                "no agent `{name}` (agents: {})",
                file.agent_names().join(", ")
            ))
        })?;
        let override_for = |target: Option<&str>| {
            opts.model_overrides
                .iter()
                .rev()
                .find(|(a, _)| a.as_deref() == target)
                .map(|(_, m)| m.clone())
        };
        let reference = override_for(Some(&name))
            .or_else(|| override_for(None))
            .or_else(|| agent.model.clone())
            .or_else(|| opts.default_model.clone())
            .ok_or_else(|| {
                SetupError::Config(format!(
                    "agent `{name}` has no `model`; set one in the file or pass `--model PROVIDER/MODEL`"
                ))
            })?;
        let (model, provider) = build_model(file, &name, &reference, env)?;
        // The agent's own compaction settings, else its model's (or the model's provider's).
        let model_cfg = file.resolve_model(&reference);
        let compaction_model = agent
            .compaction_model
            .clone()
            .or_else(|| model_cfg.as_ref().and_then(|m| m.compaction_model.clone()));
        let compaction_provider = match &compaction_model {
            Some(reference) => Some(build_model(file, &name, reference, env)?.1),
            None => None,
        };
        let compaction_threshold = model_cfg
            .as_ref()
            .and_then(|m| m.compaction_threshold)
            .or(agent.compaction_threshold)
            .unwrap_or(crate::compaction::THRESHOLD);
        let fallback = match &agent.fallback {
            None => None,
            Some(f) => {
                let mut models = Vec::new();
                for reference in &f.models {
                    let (spec, provider) = build_model(file, &name, reference, env)?;
                    models.push(ToolModel {
                        id: spec.id(),
                        provider,
                    });
                }
                Some(FallbackChain::new(models, f.retries, f.cooldown))
            }
        };
        let mut system_prompt = vec![agent.instruction.clone()];
        let mut slots = Vec::new();
        let mut background_tools = Vec::new();
        let mut tool_models: Vec<ToolModel> = Vec::new();
        let picked = crate::model_picker::Picked::default();
        for toolset in &agent.toolsets {
            if toolset.kind == tether_config::ToolsetKind::BackgroundAgents {
                background_tools.extend(crate::background::definitions(
                    toolset.tools.as_deref(),
                    toolset.readonly,
                ));
                if let Some(text) = toolbox::instruction(
                    toolset.instruction.as_deref(),
                    Some(crate::background::INSTRUCTION),
                ) {
                    system_prompt.push(text);
                }
                continue;
            }
            let set = tether_tools::build_toolset_with(toolset, &opts.shell, &shared);
            let mut instruct = |original: &str| {
                if let Some(text) =
                    toolbox::instruction(toolset.instruction.as_deref(), Some(original))
                {
                    system_prompt.push(text);
                }
            };
            let source = match &toolset.mcp {
                Some(cfg) => Source::Mcp(mcp_server(&mut servers, cfg, toolset, &mcp_ctx)),
                None if toolset.kind == tether_config::ToolsetKind::UserPrompt => {
                    instruct(crate::user_prompt::USER_PROMPT_INSTRUCTION);
                    Source::Builtin(vec![Arc::new(crate::user_prompt::UserPromptTool::new(
                        Arc::clone(&interaction),
                    ))])
                }
                None if toolset.kind == tether_config::ToolsetKind::OpenApi => {
                    let doc = tether_tools::OpenApiToolset::new(toolset).ok_or_else(|| {
                        SetupError::Config(format!(
                            "agent `{name}`: an `openapi` toolset without `url`"
                        ))
                    })?;
                    instruct(&doc.instruction());
                    Source::OpenApi(Arc::new(doc))
                }
                None if toolset.kind == tether_config::ToolsetKind::ModelPicker => {
                    let described: Vec<(&str, Option<&str>)> = toolset
                        .models
                        .iter()
                        .map(|m| {
                            let d = file.model(m).and_then(|c| c.description.as_deref());
                            (m.as_str(), d)
                        })
                        .collect();
                    instruct(&crate::model_picker::instruction(&described));
                    let models = toolset
                        .models
                        .iter()
                        .map(|m| {
                            tool_model(file, &name, m, env, &mut tool_models)
                                .map(|i| (m.clone(), i))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Source::Builtin(crate::model_picker::ModelPickerTool::pair(models, &picked))
                }
                None => {
                    if let Some(text) = toolbox::instruction(
                        toolset.instruction.as_deref(),
                        set.instruction.as_deref(),
                    ) && !set.tools.is_empty()
                    {
                        system_prompt.push(text);
                    }
                    Source::Builtin(set.tools)
                }
            };
            let toon = toolset
                .toon
                .iter()
                .map(|p| {
                    regex::Regex::new(p).map_err(|e| {
                        SetupError::Config(format!(
                            "agent `{name}`: invalid `toon` regex `{p}`: {e}"
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let model = match &toolset.model {
                None => None,
                Some(reference) => Some(tool_model(file, &name, reference, env, &mut tool_models)?),
            };
            slots.push(Slot {
                source,
                prefix: toolset.name.clone(),
                allow: toolset.tools.clone(),
                readonly: toolset.readonly,
                defer: toolset.defer.clone(),
                toon,
                model,
                instruction: toolset.instruction.clone(),
            });
        }
        let mut runtime_tools = Vec::new();
        if !agent.sub_agents.is_empty() {
            runtime_tools.push(transfer_task_definition(&agent.sub_agents));
        }
        if !agent.handoffs.is_empty() {
            runtime_tools.push(handoff_definition(&agent.handoffs));
        }
        runtime_tools.append(&mut background_tools);
        let mut skills = Vec::new();
        if let Some(config) = &agent.skills {
            skills = agent_skills(
                config,
                opts.home.as_deref(),
                &opts.working_dir,
                &mut warnings,
            );
            if let Some(text) = tether_tools::skills_instruction(&skills) {
                system_prompt.push(text);
            }
            let tools = tether_tools::skill_tools(skills.clone());
            if !tools.is_empty() {
                slots.push(Slot {
                    source: Source::Builtin(tools),
                    prefix: None,
                    allow: None,
                    readonly: false,
                    defer: tether_config::Defer::default(),
                    toon: Vec::new(),
                    model: None,
                    instruction: None,
                });
            }
        }
        let mut toolbox = Toolbox::new(slots, runtime_tools);
        if agent.add_description_parameter {
            toolbox = toolbox.describing_calls();
        }
        if agent.code_mode_tools {
            toolbox = toolbox.code_mode();
        }
        if let Some(text) = toolbox.deferred_instruction() {
            system_prompt.push(text.to_owned());
        }
        let agent_servers: Vec<Arc<McpServer>> = toolbox.servers().cloned().collect();
        let hooks =
            tether_config::effective_hooks(agent, &opts.global_hooks, &opts.cli_hooks, opts.inject);
        let mut exec_opts = ExecutorOptions::new(opts.working_dir.clone());
        exec_opts.observers.clone_from(&observers);
        if !agent_servers.is_empty() {
            exec_opts.mcp = Some(Arc::new(HookCaller {
                servers: agent_servers,
                working_dir: opts.working_dir.clone(),
            }));
        }
        let executor =
            Executor::new(&hooks, Arc::clone(&registry), exec_opts).map_err(|diags| {
                let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
                SetupError::Config(format!("invalid hooks\n{}", text.join("\n")))
            })?;
        agents.push(Arc::new(AgentRuntime {
            name: name.clone(),
            model_id: model.id(),
            model,
            provider,
            system_prompt,
            toolbox,
            tool_models,
            picked_model: picked,
            executor: Arc::new(executor),
            max_iterations: agent.max_iterations,
            max_consecutive_tool_calls: agent.max_consecutive_tool_calls,
            num_history_items: agent.num_history_items,
            sub_agents: agent.sub_agents.clone(),
            handoffs: agent.handoffs.clone(),
            force_handoff: agent.force_handoff.clone(),
            commands: agent.commands.clone(),
            welcome_message: agent.welcome_message.clone(),
            max_tool_result_tokens: agent.max_tool_result_tokens,
            max_old_tool_call_tokens: agent.max_old_tool_call_tokens,
            budget_pots: budgets.pots_of(agent),
            cache: agent
                .cache
                .as_ref()
                .map(|c| crate::response_cache::ResponseCache::open(c, &mut warnings)),
            compaction: opts.compaction && agent.session_compaction,
            compaction_provider,
            compaction_threshold,
            safety: agent
                .safety
                .or(opts.default_safety)
                .or(file.default_safety)
                .unwrap_or_default(),
            routing: agent.routing.clone(),
            fallback,
            skills,
            response_schema: agent.structured_output.as_ref().map(|o| ResponseSchema {
                name: o.name.clone(),
                description: o.description.clone(),
                schema: o.schema.clone(),
                strict: o.strict,
            }),
        }));
    }
    let mut permissions = file.permissions.clone();
    permissions.extend(opts.global_permissions);
    Ok(Runtime(Arc::new(Shared {
        agents,
        permissions,
        sink,
        interaction,
        working_dir: opts.working_dir,
        yolo: opts.yolo,
        non_interactive: opts.non_interactive,
        store: opts.store,
        queues: Queues::default(),
        async_hook_grace: opts.async_hook_grace,
        script_limits: tether_codemode::Limits {
            time: opts.script_time_limit,
            ..tether_codemode::Limits::default()
        },
        mcp_notified: crate::mcp::Notified::default(),
        warnings,
        background: crate::background::Tasks::default(),
        budgets,
    })))
}

/// An agent's skills: the local ones (when asked for), then its inline ones, kept to the
/// names it lists.
fn agent_skills(
    config: &tether_config::Skills,
    home: Option<&std::path::Path>,
    cwd: &std::path::Path,
    warnings: &mut Vec<String>,
) -> Vec<tether_tools::Skill> {
    let mut skills = Vec::new();
    if config.local {
        let (found, problems) = tether_tools::discover(&tether_tools::skill_dirs(home, cwd));
        skills = found;
        warnings.extend(problems.into_iter().map(|p| format!("skill skipped: {p}")));
    }
    for inline in &config.inline {
        skills.retain(|s: &tether_tools::Skill| s.name != inline.name);
        skills.push(tether_tools::Skill {
            name: inline.name.clone(),
            description: inline.description.clone(),
            body: tether_tools::SkillBody::Inline(inline.instructions.clone()),
        });
    }
    if !config.only.is_empty() {
        skills.retain(|s| {
            config.only.contains(&s.name) || config.inline.iter().any(|i| i.name == s.name)
        });
    }
    skills
}

impl Runtime {
    /// Problems setup worked around (a malformed `SKILL.md`, …).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn agent(&self, name: &str) -> Option<&Arc<AgentRuntime>> {
        self.agents.iter().find(|a| a.name == name)
    }

    pub fn working_dir(&self) -> &std::path::Path {
        &self.working_dir
    }

    /// A new, time-ordered session id.
    pub fn new_session_id(&self) -> String {
        new_session_id()
    }

    /// Queues a steering message for the running turn (drained at the next drain point).
    pub fn steer(&self, text: impl Into<String>) -> Result<(), crate::QueueError> {
        self.queues.steer(text.into())
    }

    /// Queues a follow-up, taken at the end of a turn.
    pub fn follow_up(&self, text: impl Into<String>) -> Result<(), crate::QueueError> {
        self.queues.follow_up(text.into())
    }

    pub(crate) fn emit(&self, session_id: &str, event: RuntimeEvent) {
        if self.background.forward(session_id, &event) {
            self.sink.emit(session_id, event);
        }
    }

    /// Fills the common Input fields.
    pub(crate) fn input(&self, agent: &AgentRuntime, session_id: &str) -> HookInput {
        HookInput {
            session_id: session_id.to_owned(),
            cwd: self.working_dir.display().to_string(),
            agent_name: agent.name.clone(),
            ..HookInput::default()
        }
    }

    /// Dispatches an event on the default lane and surfaces warnings and system messages.
    pub(crate) async fn fire(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        event: HookEvent,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult {
        let r = agent
            .executor
            .dispatch(event, Lane::Default, input, cancel)
            .await;
        self.surface(session_id, &r);
        r
    }

    /// Shows a result's warnings and `system_message` to the user.
    pub(crate) fn surface(&self, session_id: &str, r: &HookResult) {
        for w in &r.warnings {
            self.emit(session_id, RuntimeEvent::Warning { message: w.clone() });
        }
        if !r.system_message.is_empty() {
            self.emit(
                session_id,
                RuntimeEvent::Warning {
                    message: r.system_message.clone(),
                },
            );
        }
    }
}
