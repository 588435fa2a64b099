//! Building a [`Runtime`] from an agent file: every agent the run can reach gets its model
//! client, tools and hooks executor up front, so a missing key or a bad hook is reported before
//! any request.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use tether_config::{Agent, AgentFile, CliHooks, InjectOptions, Permissions, Toolset, ToolsetKind};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookObserver, Registry};
use tether_mcp::{McpContext, McpServer};
use tether_providers::{Env, Provider, ResponseSchema};
use tether_tools::ToolDefinition;

use crate::agent::{AgentRuntime, FallbackChain, ToolModel};
use crate::budget::Budgets;
use crate::error::SetupError;
use crate::hook_bridge::EventObserver;
use crate::interaction::{Interaction, LineageSink, Sink};
use crate::mcp_host::{HookCaller, Host, Notified};
use crate::model_picker::{ModelPickerTool, Picked};
use crate::models::{build_model, tool_model};
use crate::response_cache::ResponseCache;
use crate::runtime::{Runtime, Shared};
use crate::runtime_tools::{
    BACKGROUND_INSTRUCTION, background_definitions, handoff_definition, transfer_task_definition,
};
use crate::store::SessionStore;
use crate::tasks::TaskRouter;
use crate::toolbox::{self, Slot, Source, Toolbox};
use crate::user_prompt::{USER_PROMPT_INSTRUCTION, UserPromptTool};

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

/// The default [`RuntimeOptions::async_hook_grace`].
pub const ASYNC_HOOK_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

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

/// The agents reachable from `start`: sub-agents, handoffs, `force_handoff`, commands' agents.
fn reachable(file: &AgentFile, start: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut stack = vec![start.to_owned()];
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some((_, a)) = file.member(&name) {
            stack.extend(a.linked_agents().cloned());
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
    let (sink, lineage) = LineageSink::wrap(sink);
    let mut builder = Builder::new(file, registry, env, &opts, &sink, &interaction);
    let mut agents = Vec::new();
    for name in reachable(file, start) {
        agents.push(Arc::new(builder.agent(&name)?));
    }
    let (warnings, budgets, jobs) = (builder.warnings, builder.budgets, builder.tool_state.jobs);
    let mut permissions = file.permissions.clone();
    permissions.extend(opts.global_permissions);
    Ok(Runtime::new(Shared {
        agents,
        permissions,
        sink,
        interaction,
        working_dir: opts.working_dir,
        yolo: opts.yolo,
        non_interactive: opts.non_interactive,
        store: opts.store,
        async_hook_grace: opts.async_hook_grace,
        script_limits: tether_codemode::Limits {
            time: opts.script_time_limit,
            ..tether_codemode::Limits::default()
        },
        mcp_notified: Notified::default(),
        warnings,
        background: TaskRouter::default(),
        budgets,
        lineage,
        jobs,
    }))
}

/// What building each agent shares: the file, the options, and the MCP servers and warnings
/// gathered so far.
struct Builder<'a> {
    file: &'a AgentFile,
    registry: Arc<Registry>,
    env: &'a dyn Env,
    opts: &'a RuntimeOptions,
    interaction: Arc<dyn Interaction>,
    observers: Vec<Arc<dyn HookObserver>>,
    mcp: McpContext,
    servers: Vec<SharedServer>,
    warnings: Vec<String>,
    budgets: Budgets,
    tool_state: tether_tools::SharedState,
}

/// What an agent's toolsets add besides their tools.
#[derive(Default)]
struct Extras {
    system_prompt: Vec<String>,
    runtime_tools: Vec<ToolDefinition>,
    tool_models: Vec<ToolModel>,
    picked: Picked,
}

impl<'a> Builder<'a> {
    fn new(
        file: &'a AgentFile,
        registry: Arc<Registry>,
        env: &'a dyn Env,
        opts: &'a RuntimeOptions,
        sink: &Sink,
        interaction: &Arc<dyn Interaction>,
    ) -> Self {
        let mut observers: Vec<Arc<dyn HookObserver>> = vec![Arc::new(EventObserver {
            sink: Arc::clone(sink),
        })];
        observers.extend(opts.observers.iter().cloned());
        let mcp = McpContext {
            working_dir: opts.working_dir.clone(),
            log_dir: opts.mcp_log_dir.clone(),
            cache_dir: opts.cache_dir.clone(),
            host: Arc::new(Host {
                interaction: Arc::clone(interaction),
            }),
            lookup: Arc::new(tether_mcp::ProcessEnv),
        };
        Self {
            file,
            registry,
            env,
            opts,
            interaction: Arc::clone(interaction),
            observers,
            mcp,
            servers: Vec::new(),
            warnings: Vec::new(),
            budgets: Budgets::new(file),
            tool_state: tether_tools::SharedState::default(),
        }
    }

    /// One agent with its model, fallbacks, tools and hooks.
    fn agent(&mut self, name: &str) -> Result<AgentRuntime, SetupError> {
        // An external agent's models and paths resolve against its own file.
        let (file, agent) = self.file.member(name).ok_or_else(|| {
            SetupError::Config(format!(
                "no agent `{name}` (agents: {})",
                self.file.agent_names().join(", ")
            ))
        })?;
        let reference = self.model_reference(name, agent)?;
        let (model, provider) = build_model(file, name, &reference, self.env)?;
        let (compaction_provider, compaction_threshold) =
            self.compaction(file, name, agent, &reference)?;
        let fallback = self.fallback(file, name, agent)?;
        let mut extras = Extras {
            system_prompt: vec![agent.instruction.clone()],
            ..Extras::default()
        };
        let (toolbox, skills) = self.toolbox(file, name, agent, &mut extras)?;
        let executor = self.executor(agent, &toolbox)?;
        Ok(AgentRuntime {
            name: name.to_owned(),
            model_id: model.id(),
            model,
            provider,
            system_prompt: extras.system_prompt,
            toolbox,
            tool_models: extras.tool_models,
            picked_model: extras.picked,
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
            budget_pots: self.budgets.pots_of(agent),
            cache: agent
                .cache
                .as_ref()
                .map(|c| ResponseCache::open(c, &mut self.warnings)),
            compaction: self.opts.compaction && agent.session_compaction,
            compaction_provider,
            compaction_threshold,
            safety: self.safety(agent),
            routing: agent.routing.clone(),
            fallback,
            skills,
            response_schema: agent.structured_output.as_ref().map(|o| ResponseSchema {
                name: o.name.clone(),
                description: o.description.clone(),
                schema: o.schema.clone(),
                strict: o.strict,
            }),
            tool_choice: agent.tool_choice.map(crate::models::tool_choice),
            inject_memories: agent.inject_memories.clone(),
        })
    }

    /// The agent's model: `--model AGENT=…`, then `--model …`, its own, the user config's.
    fn model_reference(&self, name: &str, agent: &Agent) -> Result<String, SetupError> {
        let override_for = |target: Option<&str>| {
            self.opts
                .model_overrides
                .iter()
                .rev()
                .find(|(a, _)| a.as_deref() == target)
                .map(|(_, m)| m.clone())
        };
        override_for(Some(name))
            .or_else(|| override_for(None))
            .or_else(|| agent.model.clone())
            .or_else(|| self.opts.default_model.clone())
            .ok_or_else(|| {
                SetupError::Config(format!(
                    "agent `{name}` has no `model`; set one in the file or pass `--model PROVIDER/MODEL`"
                ))
            })
    }

    /// The agent's own compaction model and threshold, else its model's (or the model's
    /// provider's).
    fn compaction(
        &self,
        file: &AgentFile,
        name: &str,
        agent: &Agent,
        reference: &str,
    ) -> Result<(Option<Arc<dyn Provider>>, f64), SetupError> {
        let model_cfg = file.resolve_model(reference);
        let compaction_model = agent
            .compaction_model
            .clone()
            .or_else(|| model_cfg.as_ref().and_then(|m| m.compaction_model.clone()));
        let provider = match &compaction_model {
            Some(reference) => Some(build_model(file, name, reference, self.env)?.1),
            None => None,
        };
        let threshold = model_cfg
            .as_ref()
            .and_then(|m| m.compaction_threshold)
            .or(agent.compaction_threshold)
            .unwrap_or(crate::compaction::THRESHOLD);
        Ok((provider, threshold))
    }

    fn fallback(
        &self,
        file: &AgentFile,
        name: &str,
        agent: &Agent,
    ) -> Result<Option<FallbackChain>, SetupError> {
        let Some(f) = &agent.fallback else {
            return Ok(None);
        };
        let mut models = Vec::new();
        for reference in &f.models {
            let (spec, provider) = build_model(file, name, reference, self.env)?;
            models.push(ToolModel {
                id: spec.id(),
                provider,
            });
        }
        Ok(Some(FallbackChain::new(models, f.retries, f.cooldown)))
    }

    /// The agent's toolbox (a slot per toolset, then its skills) and skills.
    fn toolbox(
        &mut self,
        file: &AgentFile,
        name: &str,
        agent: &Agent,
        extras: &mut Extras,
    ) -> Result<(Toolbox, Vec<tether_tools::Skill>), SetupError> {
        let mut slots = Vec::new();
        for (toolset, lsp) in crate::lsp::first_of_each(&agent.toolsets) {
            if let Some(mut slot) = self.slot(file, name, toolset, extras)? {
                if lsp {
                    slot = crate::lsp::merged(slot, agent, self.opts, &mut extras.system_prompt);
                }
                slots.push(slot);
            }
        }
        let mut runtime_tools = Vec::new();
        if !agent.sub_agents.is_empty() {
            runtime_tools.push(transfer_task_definition(&agent.sub_agents));
        }
        if !agent.handoffs.is_empty() {
            runtime_tools.push(handoff_definition(&agent.handoffs));
        }
        runtime_tools.append(&mut extras.runtime_tools);
        let skills = self.skills(agent, &mut slots, extras);
        let mut toolbox = Toolbox::new(slots, runtime_tools);
        if agent.add_description_parameter {
            toolbox = toolbox.describing_calls();
        }
        if agent.code_mode_tools {
            toolbox = toolbox.code_mode();
        }
        if let Some(text) = toolbox.deferred_instruction() {
            extras.system_prompt.push(text.to_owned());
        }
        Ok((toolbox, skills))
    }

    /// One toolset's slot; `None` for `background_agents`, whose tools the runtime answers.
    fn slot(
        &mut self,
        file: &AgentFile,
        name: &str,
        toolset: &Toolset,
        extras: &mut Extras,
    ) -> Result<Option<Slot>, SetupError> {
        if toolset.kind == ToolsetKind::BackgroundAgents {
            extras.runtime_tools.extend(background_definitions(
                toolset.tools.as_deref(),
                toolset.readonly,
            ));
            if let Some(text) =
                toolbox::instruction(toolset.instruction.as_deref(), Some(BACKGROUND_INSTRUCTION))
            {
                extras.system_prompt.push(text);
            }
            return Ok(None);
        }
        let source = self.source(file, name, toolset, extras)?;
        let toon = toolset
            .toon
            .iter()
            .map(|p| {
                regex::Regex::new(p).map_err(|e| {
                    SetupError::Config(format!("agent `{name}`: invalid `toon` regex `{p}`: {e}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let model = match &toolset.model {
            None => None,
            Some(reference) => Some(tool_model(
                file,
                name,
                reference,
                self.env,
                &mut extras.tool_models,
            )?),
        };
        Ok(Some(Slot {
            source,
            prefix: toolset.name.clone(),
            allow: toolset.tools.clone(),
            readonly: toolset.readonly,
            defer: toolset.defer.clone(),
            toon,
            model,
            instruction: toolset.instruction.clone(),
        }))
    }

    /// Where a toolset's tools come from, with its system-prompt text added to `extras`.
    fn source(
        &mut self,
        file: &AgentFile,
        name: &str,
        toolset: &Toolset,
        extras: &mut Extras,
    ) -> Result<Source, SetupError> {
        let mut instruct = |original: &str| {
            if let Some(text) = toolbox::instruction(toolset.instruction.as_deref(), Some(original))
            {
                extras.system_prompt.push(text);
            }
        };
        if let Some(cfg) = &toolset.mcp {
            return Ok(Source::Mcp(mcp_server(
                &mut self.servers,
                cfg,
                toolset,
                &self.mcp,
            )));
        }
        Ok(match toolset.kind {
            ToolsetKind::UserPrompt => {
                instruct(USER_PROMPT_INSTRUCTION);
                Source::Builtin(vec![Arc::new(UserPromptTool::new(Arc::clone(
                    &self.interaction,
                )))])
            }
            ToolsetKind::SessionContext => {
                crate::session_context::source(&self.opts.store, instruct)
            }
            ToolsetKind::OpenApi => toolbox::openapi_source(name, toolset, &mut instruct)?,
            ToolsetKind::Rag => crate::rag::source(file, toolset, self.env, &mut instruct)?,
            ToolsetKind::A2a => toolbox::a2a_source(name, toolset)?,
            ToolsetKind::McpCatalog => toolbox::catalog_source(toolset, &self.mcp, &mut instruct),
            ToolsetKind::ModelPicker => {
                let described: Vec<(&str, Option<&str>)> = toolset
                    .models
                    .iter()
                    .map(|m| {
                        (
                            m.as_str(),
                            file.model(m).and_then(|c| c.description.as_deref()),
                        )
                    })
                    .collect();
                instruct(&crate::model_picker::instruction(&described));
                let models = toolset
                    .models
                    .iter()
                    .map(|m| {
                        tool_model(file, name, m, self.env, &mut extras.tool_models)
                            .map(|i| (m.clone(), i))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Source::Builtin(ModelPickerTool::pair(models, &extras.picked))
            }
            _ => {
                let set =
                    tether_tools::build_toolset_with(toolset, &self.opts.shell, &self.tool_state);
                if let Some(text) =
                    toolbox::instruction(toolset.instruction.as_deref(), set.instruction.as_deref())
                    && !set.tools.is_empty()
                {
                    extras.system_prompt.push(text);
                }
                Source::Builtin(set.tools)
            }
        })
    }

    /// The agent's skills, as a slot of their own when they bring tools.
    fn skills(
        &mut self,
        agent: &Agent,
        slots: &mut Vec<Slot>,
        extras: &mut Extras,
    ) -> Vec<tether_tools::Skill> {
        let Some(config) = &agent.skills else {
            return Vec::new();
        };
        let skills = agent_skills(
            config,
            self.opts.home.as_deref(),
            &self.opts.working_dir,
            &mut self.warnings,
        );
        if let Some(text) = tether_tools::skills_instruction(&skills) {
            extras.system_prompt.push(text);
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
        skills
    }

    fn safety(&self, agent: &Agent) -> tether_config::Safety {
        let defaults = self.opts.default_safety.or(self.file.default_safety);
        agent.safety.or(defaults).unwrap_or_default()
    }

    /// The agent's hooks (its own, the user's, the flags') compiled, with its MCP servers for
    /// `type: mcp` hooks.
    fn executor(&self, agent: &Agent, toolbox: &Toolbox) -> Result<Executor, SetupError> {
        let servers: Vec<Arc<McpServer>> = toolbox.servers().cloned().collect();
        let hooks = tether_config::effective_hooks(
            agent,
            &self.opts.global_hooks,
            &self.opts.cli_hooks,
            self.opts.inject,
        );
        let mut exec_opts = ExecutorOptions::new(self.opts.working_dir.clone());
        exec_opts.observers.clone_from(&self.observers);
        exec_opts.safety = self.safety(agent).as_str().to_owned();
        if !servers.is_empty() {
            exec_opts.mcp = Some(Arc::new(HookCaller {
                servers,
                working_dir: self.opts.working_dir.clone(),
            }));
        }
        Executor::new(&hooks, Arc::clone(&self.registry), exec_opts).map_err(|diags| {
            let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
            SetupError::Config(format!("invalid hooks\n{}", text.join("\n")))
        })
    }
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
