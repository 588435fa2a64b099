//! Building a [`Runtime`] from an agent file: every agent the run can reach gets its model
//! client, tools and hooks executor up front, so a missing key or a bad hook is reported before
//! any request.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use tether_config::{AgentFile, CliHooks, InjectOptions, ModelConfig, Permissions};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookObserver, HookResult, Registry};
use tether_protocol::{HookEvent, HookInput, Lane, RuntimeEvent};
use tether_providers::{Env, ModelSpec, ProviderError, build_provider};
use tokio_util::sync::CancellationToken;

use tether_mcp::{McpContext, McpServer};

use crate::agent::{AgentRuntime, ToolModel};
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
}

impl RuntimeOptions {
    pub fn new(working_dir: impl Into<PathBuf>) -> Self {
        Self {
            working_dir: working_dir.into(),
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
#[derive(Debug)]
pub struct Runtime {
    pub(crate) agents: Vec<Arc<AgentRuntime>>,
    pub(crate) permissions: Permissions,
    pub(crate) sink: Sink,
    pub(crate) interaction: Arc<dyn Interaction>,
    pub(crate) working_dir: PathBuf,
    pub(crate) yolo: bool,
    pub(crate) non_interactive: bool,
    pub(crate) store: Option<Arc<dyn SessionStore>>,
    pub(crate) queues: Queues,
    pub(crate) compaction: bool,
    pub(crate) async_hook_grace: std::time::Duration,
    /// MCP failures already reported.
    pub(crate) mcp_notified: crate::mcp::Notified,
}

/// A `models:` entry as the providers take it; relative paths in it resolve against `base_dir`.
pub(crate) fn spec_of(cfg: ModelConfig, base_dir: Option<PathBuf>) -> ModelSpec {
    ModelSpec {
        provider: cfg.provider,
        model: cfg.model,
        base_url: cfg.base_url,
        max_tokens: cfg.max_tokens,
        temperature: cfg.temperature,
        top_p: cfg.top_p,
        provider_opts: cfg.provider_opts,
        base_dir,
    }
}

fn model_spec(file: &AgentFile, agent: &str, reference: &str) -> Result<ModelSpec, SetupError> {
    let cfg = file.resolve_model(reference).ok_or_else(|| {
        SetupError::Config(format!("agent `{agent}`: unknown model `{reference}`"))
    })?;
    Ok(spec_of(cfg, Some(file.dir.clone())))
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
    let spec = model_spec(file, agent, reference)?;
    let id = spec.id();
    if let Some(i) = tool_models.iter().position(|m| m.id == id) {
        return Ok(i);
    }
    tool_models.push(ToolModel {
        id,
        provider: build_provider(&spec, env)?,
    });
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
        if let Some(a) = file.agent(&name) {
            stack.extend(a.sub_agents.iter().cloned());
            stack.extend(a.handoffs.iter().cloned());
            stack.extend(a.force_handoff.iter().cloned());
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
    let shared = tether_tools::SharedState::default();
    for name in reachable(file, start) {
        let agent = file.agent(&name).ok_or_else(|| {
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
        let model = model_spec(file, &name, &reference)?;
        let provider = build_provider(&model, env)?;
        let mut system_prompt = vec![agent.instruction.clone()];
        let mut slots = Vec::new();
        let mut tool_models: Vec<ToolModel> = Vec::new();
        let picked = crate::model_picker::Picked::default();
        for toolset in &agent.toolsets {
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
                    instruct(&crate::model_picker::instruction(&toolset.models));
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
        let toolbox = Toolbox::new(slots, runtime_tools);
        if let Some(text) = toolbox.deferred_instruction() {
            system_prompt.push(text.to_owned());
        }
        let agent_servers: Vec<Arc<McpServer>> = toolbox.servers().cloned().collect();
        let hooks = tether_config::effective_hooks(agent, &opts.cli_hooks, opts.inject);
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
        }));
    }
    let mut permissions = file.permissions.clone();
    permissions.extend(opts.global_permissions);
    Ok(Runtime {
        agents,
        permissions,
        sink,
        interaction,
        working_dir: opts.working_dir,
        yolo: opts.yolo,
        non_interactive: opts.non_interactive,
        store: opts.store,
        queues: Queues::default(),
        compaction: opts.compaction,
        async_hook_grace: opts.async_hook_grace,
        mcp_notified: crate::mcp::Notified::default(),
    })
}

impl Runtime {
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
        self.sink.emit(session_id, event);
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
