//! Loading: parse strictly (`raw`), then validate in a separate pass into the public types.
//! Parse errors stop at the first problem (the YAML may be broken); validation collects every
//! problem it finds, one file per part of the agent file: `agents.rs` (agents and permissions),
//! `models.rs`, `toolsets.rs` (and `toolset_options.rs`), `skills.rs`, `commands.rs`,
//! `hooks.rs`, `evaluators.rs`; MCP servers in `crate::mcp`.

mod agents;
mod commands;
mod evaluators;
mod hooks;
mod inject_memories;
mod lsp_toolset;
mod models;
mod persistent;
mod policy;
mod rag;
mod skills;
mod small_toolsets;
mod toolset_options;
mod toolsets;

pub(crate) use hooks::{check_url, is_header_token};

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_saphyr::Location;
use tether_protocol::HookEvent;

use crate::agent::AgentFile;
use crate::diagnostic::{Diagnostic, Diagnostics, Origin};
use crate::raw::RawAgentFile;
use crate::{ConfigError, suggest};

/// Loads and validates an agent file.
pub fn load_file(path: &Path) -> Result<AgentFile, ConfigError> {
    let source = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    load_str(&source, &path.display().to_string(), &dir)
}

/// Loads and validates agent-file text; `name` is used in diagnostics, `dir` resolves paths.
pub fn load_str(source: &str, name: &str, dir: &Path) -> Result<AgentFile, ConfigError> {
    let file: Arc<str> = Arc::from(name);
    let raw: RawAgentFile =
        parse(source, &file).map_err(|d| ConfigError::Invalid(Diagnostics(vec![*d])))?;
    let mut v = Validator {
        file,
        source,
        dir,
        diags: Vec::new(),
        evaluators: Vec::new(),
        externals: Vec::new(),
        rag: Vec::new(),
    };
    let out = v.file(raw);
    if v.diags.is_empty() {
        Ok(out)
    } else {
        Err(ConfigError::Invalid(Diagnostics(v.diags)))
    }
}

static LOCATION_TEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?:error: )?line \d+ column \d+: | at line \d+, column \d+$").ok()
});
static UNKNOWN_FIELD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^unknown field `([^`]*)`, expected (?:one of )?(.*)$").ok());

/// Parses YAML strictly into `T`; the first problem as a diagnostic with its key path.
pub(crate) fn parse<T: for<'de> serde::Deserialize<'de>>(
    source: &str,
    file: &Arc<str>,
) -> Result<T, Box<Diagnostic>> {
    let mut path = String::new();
    let result = serde_saphyr::with_deserializer_from_str(source, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            path = e.path().to_string();
            e.into_inner()
        })
    });
    let err = match result {
        Ok(raw) => return Ok(raw),
        Err(e) => e,
    };
    let (line, column) = err.location().map_or((0, 0), |l| (l.line(), l.column()));
    let rendered = err.without_snippet().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    let message = LOCATION_TEXT.as_ref().map_or(first.to_owned(), |re| {
        re.replace_all(first, "").into_owned()
    });
    let mut message = if message == "expected string scalar" {
        "expected a single value (string, number or boolean), not a list or map".to_owned()
    } else if let Some(kind) = scalar_kind(&message) {
        match scalar_at(source, line, column) {
            Some(found) => format!("expected {kind}, found `{found}`"),
            None => format!("expected {kind}"),
        }
    } else {
        message
    };
    let mut path = clean_path(&path);
    let mut hint = None;
    let unknown = UNKNOWN_FIELD
        .as_ref()
        .and_then(|re| re.captures(&message))
        .map(|caps| (caps[1].to_owned(), caps[2].to_owned()));
    if let Some((field, expected)) = unknown {
        // The path may end with the unknown key itself; the message already names it.
        if let Some((parent, last)) = path.rsplit_once('.')
            && last == field
        {
            path = parent.to_owned();
        }
        if crate::upstream::is_upstream_field(&path, &field) {
            let what = if path.ends_with("hooks") {
                "the hook event"
            } else {
                "the field"
            };
            message = format!("{what} `{field}` is not supported yet");
            hint = Some(
                "docker-agent's format has it; Tether does not implement it yet (docs/agent-files.md \
                 lists what is supported): remove it to run the rest of the file"
                    .to_owned(),
            );
        } else {
            hint = unknown_field_hint(&path, &field, &expected);
        }
    }
    let mut d = Diagnostic::new(Origin::new(Some(file.clone()), line, column, path), message)
        .with_source(source);
    d.hint = hint;
    Err(Box::new(d))
}

/// What a scalar of the type in serde-saphyr's `invalid TYPE` message looks like.
fn scalar_kind(message: &str) -> Option<&'static str> {
    let ty = message.strip_prefix("invalid ")?;
    match ty {
        "bool" | "boolean" => Some("true or false"),
        "f32" | "f64" => Some("a number"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Some("a whole number"),
        _ => None,
    }
}

/// The plain scalar starting at `line`:`column` (1-based), without a trailing comment.
fn scalar_at(source: &str, line: u64, column: u64) -> Option<String> {
    let text = source
        .lines()
        .nth(usize::try_from(line.checked_sub(1)?).ok()?)?;
    let start = text
        .char_indices()
        .nth(usize::try_from(column.checked_sub(1)?).ok()?)?
        .0;
    let rest = &text[start..];
    let end = rest.find(" #").unwrap_or(rest.len());
    let found = rest[..end].trim();
    (!found.is_empty() && found.chars().count() <= 80).then(|| found.to_owned())
}

/// Drops the `value` segments `Spanned` wrappers add to serde paths.
fn clean_path(path: &str) -> String {
    let cleaned: Vec<&str> = path
        .split('.')
        .filter(|s| *s != "value" && *s != "?")
        .collect();
    cleaned.join(".")
}

fn unknown_field_hint(path: &str, field: &str, expected: &str) -> Option<String> {
    let in_hooks = path.contains(".hooks.");
    let event = path
        .rsplit(".hooks.")
        .next()
        .and_then(|rest| rest.split(['[', '.']).next())
        .and_then(HookEvent::from_wire_name);
    match (event, field) {
        (Some(e), "matcher" | "hooks" | "preempt_yolo") if in_hooks && !e.uses_matcher() => {
            return Some(format!(
                "`{e}` takes a flat list of hooks; `{field}` applies only to the tool events \
                 (pre_tool_use, post_tool_use, permission_request, tool_response_transform)"
            ));
        }
        (Some(e), _) if in_hooks && e.uses_matcher() && expected.contains("matcher") => {
            return Some(format!(
                "`{e}` takes a list of `{{matcher, hooks: [...]}}` entries, not bare hooks"
            ));
        }
        _ => {}
    }
    let candidates: Vec<&str> = expected
        .split(',')
        .map(|s| s.trim().trim_matches('`'))
        .filter(|s| !s.is_empty())
        .collect();
    suggest::closest(field, &candidates).map(|c| format!("did you mean `{c}`?"))
}

/// The top-level `toolsets:` and `commands:`, validated once, for `use_toolsets` /
/// `use_commands` (`None`: the definition had errors, already reported).
pub(crate) struct Shared {
    pub(crate) toolsets: Vec<(String, Option<crate::toolset::Toolset>)>,
    pub(crate) commands: Vec<(String, Vec<crate::Command>)>,
    pub(crate) skills: Vec<(String, Option<crate::agent::Skills>)>,
}

pub(crate) struct Validator<'a> {
    pub(crate) file: Arc<str>,
    pub(crate) source: &'a str,
    pub(crate) dir: &'a Path,
    pub(crate) diags: Vec<Diagnostic>,
    /// The file's `evaluators:`, validated before the agents whose hooks name them.
    pub(crate) evaluators: Vec<crate::evaluator::Evaluator>,
    /// Agents from other files, OCI registries or URLs that `sub_agents`/`handoffs` name.
    pub(crate) externals: Vec<crate::agent::External>,
    /// The file's `rag:` sources, validated before the agents that use them.
    pub(crate) rag: Vec<(String, Option<Arc<crate::rag::RagSource>>)>,
}

impl Validator<'_> {
    pub(crate) fn origin(&self, loc: &Location, path: impl Into<String>) -> Origin {
        Origin::new(Some(self.file.clone()), loc.line(), loc.column(), path)
    }

    pub(crate) fn error(&mut self, origin: Origin, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::new(origin, message).with_source(self.source));
    }

    pub(crate) fn error_hint(
        &mut self,
        origin: Origin,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        self.diags.push(
            Diagnostic::new(origin, message)
                .with_hint(hint)
                .with_source(self.source),
        );
    }

    /// A `budget`: non-negative limits (0 or absent: unlimited), `max_time` a Go duration.
    fn budget(
        &mut self,
        path: &str,
        raw: serde_saphyr::Spanned<crate::raw::RawBudget>,
    ) -> crate::agent::Budget {
        let at = |this: &Self, key: &str| this.origin(&raw.referenced, format!("{path}.{key}"));
        let b = raw.value;
        let max_cost = match b.max_cost {
            Some(c) if !c.is_finite() || c < 0.0 => {
                self.error(
                    at(self, "max_cost"),
                    format!("max_cost is USD and cannot be negative, got {c}"),
                );
                None
            }
            c => c.filter(|c| *c > 0.0),
        };
        let max_tokens = match b.max_tokens {
            Some(t) if t < 0 => {
                self.error(
                    at(self, "max_tokens"),
                    format!("max_tokens cannot be negative, got {t}"),
                );
                None
            }
            t => t.and_then(|t| u64::try_from(t).ok()).filter(|t| *t > 0),
        };
        let max_time = match b.max_time.as_deref().map(crate::mcp::parse_go_duration) {
            Some(Err(why)) => {
                self.error(at(self, "max_time"), why);
                None
            }
            Some(Ok(d)) => Some(d).filter(|d| !d.is_zero()),
            None => None,
        };
        crate::agent::Budget {
            max_cost,
            max_tokens,
            max_time,
        }
    }

    /// `runtime:`: the default safety mode. Tether has no sandbox, so asking for one (or for
    /// its network allow-list) is an error rather than a run without it.
    fn runtime(&mut self, r: crate::raw::RawRuntime) -> Option<crate::Safety> {
        if let Some(s) = r.sandbox.filter(|s| s.value) {
            self.error_hint(
                self.origin(&s.referenced, "runtime.sandbox"),
                "`runtime.sandbox` is not supported yet: Tether does not run agents in a Docker sandbox",
                "remove it (or set it to false); `safety: restricted` and permission rules limit what the agent may do",
            );
        }
        if let Some(n) = r.network_allowlist.filter(|n| !n.value.is_empty()) {
            self.error_hint(
                self.origin(&n.referenced, "runtime.network_allowlist"),
                "`runtime.network_allowlist` is not supported yet: it configures the sandbox, which Tether does not have",
                "remove it",
            );
        }
        r.safety.and_then(|s| self.safety("runtime.safety", &s))
    }

    fn file(&mut self, raw: RawAgentFile) -> AgentFile {
        self.rag = self.rag_sources(raw.rag.map(|r| r.0).unwrap_or_default());
        let mut refs = Vec::new();
        let providers = self.providers(raw.providers.map(|p| p.0).unwrap_or_default(), &mut refs);
        let models = self.models(raw.models.map(|m| m.0).unwrap_or_default(), providers, refs);
        let defs = self.mcp_defs(raw.mcps.map(|m| m.0).unwrap_or_default());
        let permissions = raw
            .permissions
            .map(|p| self.permissions(p))
            .unwrap_or_default();
        let mut file = AgentFile {
            source_name: self.file.clone(),
            dir: self.dir.to_path_buf(),
            version: raw.version.map(|v| v.0),
            agents: Vec::new(),
            models,
            permissions,
            metadata: raw.metadata.unwrap_or_default(),
            evaluators: Vec::new(),
            budget: None,
            budgets: Vec::new(),
            externals: Vec::new(),
            default_safety: None,
        };
        if let Some(r) = raw.runtime {
            file.default_safety = self.runtime(r.value);
        }
        file.budget = raw.budget.map(|b| self.budget("budget", b));
        file.budgets = raw
            .budgets
            .map(|b| b.0)
            .unwrap_or_default()
            .into_iter()
            .map(|(name, b)| {
                let budget = self.budget(&format!("budgets.{name}"), b);
                (name, budget)
            })
            .collect();
        let evaluators =
            self.evaluators(raw.evaluators.map(|e| e.0).unwrap_or_default(), &mut file);
        file.evaluators.clone_from(&evaluators);
        self.evaluators = evaluators;
        let Some(agents) = raw.agents.filter(|a| !a.value.0.is_empty()) else {
            self.error_hint(
                Origin::new(Some(self.file.clone()), 1, 1, "agents"),
                "no agents defined",
                "add an `agents:` map with at least one agent, e.g. `agents: {root: {model: openai/gpt-4o}}`",
            );
            return file;
        };
        let names: Vec<String> = agents.value.0.iter().map(|(n, _)| n.clone()).collect();
        let shared = Shared {
            toolsets: raw
                .toolsets
                .map(|t| t.0)
                .unwrap_or_default()
                .into_iter()
                .map(|(name, t)| {
                    let toolset = self.toolset(&format!("toolsets.{name}"), t, &file, &defs);
                    (name, toolset)
                })
                .collect(),
            commands: raw
                .commands
                .map(|c| c.0)
                .unwrap_or_default()
                .into_iter()
                .map(|(name, c)| {
                    let commands = self.commands(&format!("commands.{name}"), c);
                    (name, commands)
                })
                .collect(),
            skills: raw
                .skills
                .map(|s| s.0)
                .unwrap_or_default()
                .into_iter()
                .map(|(name, s)| {
                    let skills = self.skills_at(&format!("skills.{name}"), s);
                    (name, skills)
                })
                .collect(),
        };
        for (name, agent) in agents.value.0 {
            let agent = self.agent(&name, agent, &names, &file, &defs, &shared);
            file.agents.push(agent);
        }
        file.externals = std::mem::take(&mut self.externals);
        file
    }
}
