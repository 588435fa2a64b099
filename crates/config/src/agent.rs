//! Validated agent-file types (docker-agent's schema, docs/design.md).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Origin};
use crate::evaluator::Evaluator;
use crate::hooks::HooksConfig;
use crate::model::{ModelCatalog, ModelConfig};
use crate::permissions::Permissions;
use crate::toolset::{Toolset, ToolsetKind};

/// A loaded agent file.
#[derive(Debug, Clone)]
pub struct AgentFile {
    /// The file as the user named it (used in diagnostics).
    pub source_name: Arc<str>,
    /// The directory relative paths resolve against.
    pub dir: PathBuf,
    pub version: Option<String>,
    /// In file order.
    pub agents: Vec<Agent>,
    /// Named models and `providers:` entries.
    pub models: ModelCatalog,
    pub permissions: Permissions,
    pub metadata: BTreeMap<String, Value>,
    /// `evaluators:`, in file order (`type: evaluator` hooks hold their own copy).
    pub evaluators: Vec<Evaluator>,
    /// `runtime.safety`: the safety mode when neither the agent nor the user chose one.
    pub default_safety: Option<Safety>,
    /// `budget`: the run's ceilings, whichever agent spends.
    pub budget: Option<Budget>,
    /// `budgets`: named ceilings; the agents listing a name share its pot.
    pub budgets: Vec<(String, Budget)>,
    /// Agents of other files that `sub_agents` and `handoffs` name, in order of first mention;
    /// the caller fetches and [attaches](AgentFile::attach) them.
    pub externals: Vec<External>,
}

impl AgentFile {
    /// `root` if present, else the first agent.
    pub fn default_agent(&self) -> Option<&Agent> {
        self.agent("root").or_else(|| self.agents.first())
    }

    pub fn agent(&self, name: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.name == name)
    }

    pub fn agent_names(&self) -> Vec<&str> {
        self.agents.iter().map(|a| a.name.as_str()).collect()
    }

    pub fn model(&self, name: &str) -> Option<&ModelConfig> {
        self.models.model(name)
    }

    /// Resolves one model reference: a `models:` entry name, else `provider/model`.
    pub fn resolve_model(&self, reference: &str) -> Option<ModelConfig> {
        self.models.resolve(reference)
    }

    /// A member of the team: an agent of this file, or an attached external agent (the
    /// default agent of its file, which its models and paths resolve against).
    pub fn member(&self, name: &str) -> Option<(&Self, &Agent)> {
        if let Some(a) = self.agent(name) {
            return Some((self, a));
        }
        let file = self
            .externals
            .iter()
            .find(|e| e.reference == name)?
            .file
            .as_deref()?;
        Some((file, file.default_agent()?))
    }

    /// Attaches the loaded file of external agent `reference`. Its default agent joins the
    /// team under the name `reference`; a team of its own or team-wide permissions would need
    /// a runtime per file, so they are errors.
    pub fn attach(&mut self, reference: &str, file: Self) -> Result<(), Box<Diagnostic>> {
        let Some(external) = self.externals.iter_mut().find(|e| e.reference == reference) else {
            return Err(Box::new(Diagnostic::new(
                Origin::synthetic(reference),
                format!("`{reference}` is not an external agent of this file"),
            )));
        };
        let fail =
            |message: String| Err(Box::new(Diagnostic::new(external.origin.clone(), message)));
        let Some(agent) = file.default_agent() else {
            return fail(format!("external agent `{reference}` defines no agents"));
        };
        if !agent.sub_agents.is_empty() || !agent.handoffs.is_empty() {
            return fail(format!(
                "external agent `{reference}`: its agent `{}` has `sub_agents` or `handoffs`; an external agent with a team of its own is not supported yet",
                agent.name
            ));
        }
        if !agent.budgets.is_empty() || file.budget.is_some() {
            return fail(format!(
                "external agent `{reference}`: budgets in its file are not supported yet"
            ));
        }
        if !file.permissions.is_empty() {
            return fail(format!(
                "external agent `{reference}`: top-level `permissions` in its file are not supported yet"
            ));
        }
        external.file = Some(Arc::new(file));
        Ok(())
    }
}

/// An agent's response cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseCache {
    pub case_sensitive: bool,
    pub trim_spaces: bool,
    /// A JSON file keeping the answers across runs (resolved against the agent file's
    /// directory); `None` keeps them in memory.
    pub path: Option<PathBuf>,
}

/// Ceilings on what a run consumes; `None` is unlimited.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Budget {
    /// USD, counting priced model calls.
    pub max_cost: Option<f64>,
    /// Input plus output tokens over the run's lifetime.
    pub max_tokens: Option<u64>,
    /// The sum of turn durations (idle time waiting for the user does not count).
    pub max_time: Option<std::time::Duration>,
}

/// An agent another file defines, named in `sub_agents` or `handoffs` by its reference.
#[derive(Debug, Clone)]
pub struct External {
    pub reference: String,
    pub source: ExternalSource,
    /// Where the reference is written (the first mention).
    pub origin: Origin,
    /// The loaded file, once attached.
    pub file: Option<Arc<AgentFile>>,
}

/// Where an external agent's file comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExternalSource {
    /// An http(s) URL.
    Url(String),
    /// A `.yaml`/`.yml` file, relative to the referring file's directory.
    File(PathBuf),
    /// An OCI artifact, as `docker agent share push` stores agents.
    Oci(OciReference),
}

impl ExternalSource {
    /// `None` for a plain agent name (no `/`, no URL, no `.yaml`); `Some(Err)` for a reference
    /// that is malformed.
    pub fn parse(reference: &str) -> Option<Result<Self, String>> {
        if let Some((scheme, _)) = reference.split_once("://") {
            return Some(if matches!(scheme, "http" | "https") {
                Ok(Self::Url(reference.to_owned()))
            } else {
                Err(format!(
                    "`{scheme}://` URLs are not supported (use http or https)"
                ))
            });
        }
        let lower = reference.to_ascii_lowercase();
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            return Some(Ok(Self::File(PathBuf::from(reference))));
        }
        if !reference.contains('/') {
            return None;
        }
        Some(OciReference::parse(reference).map(Self::Oci))
    }
}

/// `[registry/]repository[:tag][@digest]`, with Docker's defaults (Docker Hub, `library/`
/// for one-part names, tag `latest`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciReference {
    pub registry: String,
    pub repository: String,
    pub tag: String,
    pub digest: Option<String>,
}

impl OciReference {
    pub fn parse(reference: &str) -> Result<Self, String> {
        let (rest, digest) = match reference.split_once('@') {
            Some((rest, d)) => {
                let hex = d.strip_prefix("sha256:").unwrap_or("");
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(format!("`{d}` is not a sha256 digest"));
                }
                (rest, Some(d.to_owned()))
            }
            None => (reference, None),
        };
        let mut parts: Vec<&str> = rest.split('/').collect();
        let first = parts[0];
        let registry = if parts.len() > 1
            && (first.contains('.') || first.contains(':') || first == "localhost")
        {
            parts.remove(0);
            first.to_owned()
        } else {
            "docker.io".to_owned()
        };
        let last = parts.pop().unwrap_or_default();
        let (name, tag) = match last.split_once(':') {
            Some((n, t)) => (n, Some(t)),
            None => (last, None),
        };
        parts.push(name);
        for part in &parts {
            let ok = !part.is_empty()
                && part.split(['.', '_', '-']).all(|w| {
                    !w.is_empty()
                        && w.bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                });
            if !ok {
                return Err(format!(
                    "`{part}` is not a repository name (lowercase letters, digits and `._-` between them)"
                ));
            }
        }
        if let Some(t) = tag {
            let ok = !t.is_empty()
                && t.len() <= 128
                && !t.starts_with(['.', '-'])
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
            if !ok {
                return Err(format!("`{t}` is not a tag"));
            }
        }
        if registry == "docker.io" && parts.len() == 1 {
            parts.insert(0, "library");
        }
        Ok(Self {
            registry,
            repository: parts.join("/"),
            tag: tag.unwrap_or("latest").to_owned(),
            digest,
        })
    }

    /// The host the registry API answers on.
    pub fn api_host(&self) -> &str {
        if self.registry == "docker.io" {
            "registry-1.docker.io"
        } else {
            &self.registry
        }
    }

    /// Local registries speak plain HTTP, as Docker's clients assume.
    pub fn scheme(&self) -> &'static str {
        let host = self
            .registry
            .rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(self.registry.as_str(), |(h, _)| h);
        if matches!(host, "localhost" | "127.0.0.1" | "[::1]") || host.ends_with(".local") {
            "http"
        } else {
            "https"
        }
    }

    /// The digest when given, else the tag.
    pub fn identifier(&self) -> &str {
        self.digest.as_deref().unwrap_or(&self.tag)
    }
}

/// One agent.
#[derive(Debug, Clone)]
pub struct Agent {
    pub name: String,
    /// `provider/model` or the name of a `models:` entry.
    pub model: Option<String>,
    pub description: String,
    /// The system prompt (from `instruction` or the contents of `instruction_file`).
    pub instruction: String,
    pub toolsets: Vec<Toolset>,
    pub sub_agents: Vec<String>,
    pub handoffs: Vec<String>,
    pub force_handoff: Option<String>,
    /// 0 = unlimited.
    pub max_iterations: u32,
    /// Loop-detector threshold; 0 means the default (5).
    pub max_consecutive_tool_calls: u32,
    /// Trim the history sent to the model to this many items; 0 = all.
    pub num_history_items: u32,
    pub add_date: bool,
    pub add_environment_info: bool,
    pub add_prompt_files: Vec<String>,
    pub redact_secrets: bool,
    /// `commands:`, in file order.
    pub commands: Vec<crate::Command>,
    /// Shown when an interactive session starts.
    pub welcome_message: Option<String>,
    /// Every tool takes an optional `description` of why it is called.
    pub add_description_parameter: bool,
    /// The toolsets' tools (but `todo`) reach the model as one `run_tools_with_javascript`
    /// tool whose script calls them.
    pub code_mode_tools: bool,
    /// Tool results longer than this many tokens (len/4) keep their head and tail.
    pub max_tool_result_tokens: Option<u64>,
    /// Older tool calls past this many tokens (len/4, newest first) reach the model as
    /// placeholders.
    pub max_old_tool_call_tokens: Option<u64>,
    /// `add_prompt_files` names found this many directory levels below the working directory
    /// are listed by path (0: none).
    pub add_prompt_files_depth: u32,
    /// Names of `budgets:` entries the agent spends against (besides the file's `budget`).
    pub budgets: Vec<String>,
    /// `cache` (when enabled): a question asked again gets the previous answer.
    pub cache: Option<ResponseCache>,
    /// `session_compaction` (default true): compact near the context window and on overflow.
    pub session_compaction: bool,
    /// The model that writes compaction summaries (a `models:` name or `provider/model`).
    pub compaction_model: Option<String>,
    /// The share of the context window past which the session is compacted (default 0.9).
    pub compaction_threshold: Option<f64>,
    /// The safety mode the agent's sessions start in, when the user chose none.
    pub safety: Option<Safety>,
    /// Where its before_agent_run / after_agent_complete hooks may route.
    pub routing: Option<AgentRouting>,
    /// Models tried in turn when the agent's model fails.
    pub fallback: Option<Fallback>,
    /// The JSON shape every answer of the agent must take.
    pub structured_output: Option<StructuredOutput>,
    /// `tool_choice`: `None` leaves it to the provider's default (`auto`).
    pub tool_choice: Option<ToolChoice>,
    /// `skills:`; `None` = no skills.
    pub skills: Option<Skills>,
    /// `inject_memories: true`: memories injected at every turn start.
    pub inject_memories: Option<InjectMemories>,
    /// The `hooks:` section as written (no CLI flags, no shorthands).
    pub hooks: HooksConfig,
    pub origin: Origin,
}

impl Agent {
    /// The agents this one may pass the session or a task to: sub-agents, handoffs,
    /// `force_handoff`, routing's allowed agents and commands' `agent`.
    pub fn linked_agents(&self) -> impl Iterator<Item = &String> {
        let routed = self.routing.iter().flat_map(|r| &r.allowed_agents);
        let commanded = self.commands.iter().filter_map(|c| c.agent.as_ref());
        self.sub_agents
            .iter()
            .chain(&self.handoffs)
            .chain(&self.force_handoff)
            .chain(routed)
            .chain(commanded)
    }

    /// The command `name` (`/name`).
    pub fn command(&self, name: &str) -> Option<&crate::Command> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// Whether any shell toolset has `safer: true`.
    pub fn has_safer_shell(&self) -> bool {
        self.toolsets
            .iter()
            .any(|t| t.kind == ToolsetKind::Shell && t.safer)
    }
}

/// `inject_memories`: which memories reach the model at the start of every turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectMemories {
    /// `max_inject_memories` (never 0: the default is 5).
    pub limit: usize,
    /// The `path` of the agent's first `type: memory` toolset (`None`: the default file).
    pub path: Option<String>,
}

/// How tool calls no rule or hook decided are approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Safety {
    /// Every such call asks, read-only ones included.
    Strict,
    /// Read-only calls run; others ask (the default).
    #[default]
    Balanced,
    /// Read-only calls run; others are denied without asking (unattended runs).
    Restricted,
    /// Every call runs (`--yolo`); deny rules and `tool_guard` still hold.
    Autonomous,
}

impl Safety {
    pub const NAMES: [&'static str; 4] = ["strict", "balanced", "restricted", "autonomous"];

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "strict" => Self::Strict,
            "balanced" => Self::Balanced,
            "restricted" => Self::Restricted,
            "autonomous" => Self::Autonomous,
            _ => return None,
        })
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Strict => "strict",
            Self::Balanced => "balanced",
            Self::Restricted => "restricted",
            Self::Autonomous => "autonomous",
        }
    }
}

/// `routing:` of an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRouting {
    pub allowed_agents: Vec<String>,
    /// Where an uncertain or failed routing decision goes.
    pub default_agent: Option<String>,
}

/// `fallback:` of an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// `models:` names or `provider/model`, in the order they are tried.
    pub models: Vec<String>,
    /// Extra attempts per model on a retryable error (5xx, timeout, connection).
    pub retries: u32,
    /// How long a fallback that answered after a non-retryable error (e.g. 429) is kept
    /// before the primary is tried again.
    pub cooldown: std::time::Duration,
}

impl Fallback {
    pub const DEFAULT_RETRIES: u32 = 2;
    pub const DEFAULT_COOLDOWN: std::time::Duration = std::time::Duration::from_secs(60);
}

/// `tool_choice`: whether the model must call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    Required,
    None,
}

/// `structured_output:` of an agent.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutput {
    pub name: String,
    pub description: String,
    /// A JSON Schema with `type: object`.
    pub schema: Value,
    pub strict: bool,
}

/// `skills:` of an agent: where skills come from and which are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    /// Discover `SKILL.md` files in the standard local directories.
    pub local: bool,
    /// Keep only these names (empty: all).
    pub only: Vec<String>,
    /// Skills written in the agent file.
    pub inline: Vec<InlineSkill>,
}

/// A skill written in the agent file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineSkill {
    pub name: String,
    pub description: String,
    pub instructions: String,
}
