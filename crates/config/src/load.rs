//! Loading: parse strictly (`raw`), then validate in a separate pass into the public types.
//! Parse errors stop at the first problem (the YAML may be broken); validation collects every
//! problem it finds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_saphyr::{Location, Spanned};
use tether_protocol::HookEvent;

use crate::agent::{
    Agent, AgentFile, Defer, KNOWN_PROVIDERS, ModelConfig, Toolset, ToolsetKind,
    UNSUPPORTED_TOOLSETS,
};
use crate::diagnostic::{Diagnostic, Diagnostics, Origin, TextOrigin};
use crate::hooks::{
    ArgsTemplate, DEFAULT_HOOK_TIMEOUT, Dialect, HookKind, HookSource, HookSpec, HooksConfig,
    MODEL_HOOK_SCHEMAS, Matcher, MatcherEntry, OnError, env_references, is_env_name,
};
use crate::mcp::McpDef;
use crate::permissions::{PermissionPattern, Permissions};
use crate::raw::{
    RawAgent, RawAgentFile, RawDefer, RawEventHooks, RawHookDef, RawHooks, RawMatcherEntry,
    RawModel, RawPermissions, RawToolset,
};
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
    let message = if message == "expected string scalar" {
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
    if let Some(caps) = UNKNOWN_FIELD.as_ref().and_then(|re| re.captures(&message)) {
        // The path may end with the unknown key itself; the message already names it.
        if let Some((parent, last)) = path.rsplit_once('.')
            && last == &caps[1]
        {
            path = parent.to_owned();
        }
        hint = unknown_field_hint(&path, &caps[1], &caps[2]);
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

pub(crate) struct Validator<'a> {
    pub(crate) file: Arc<str>,
    pub(crate) source: &'a str,
    pub(crate) dir: &'a Path,
    pub(crate) diags: Vec<Diagnostic>,
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

    fn file(&mut self, raw: RawAgentFile) -> AgentFile {
        let models = self.models(raw.models.map(|m| m.0).unwrap_or_default());
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
        };
        let Some(agents) = raw.agents.filter(|a| !a.value.0.is_empty()) else {
            self.error_hint(
                Origin::new(Some(self.file.clone()), 1, 1, "agents"),
                "no agents defined",
                "add an `agents:` map with at least one agent, e.g. `agents: {root: {model: openai/gpt-4o}}`",
            );
            return file;
        };
        let names: Vec<String> = agents.value.0.iter().map(|(n, _)| n.clone()).collect();
        for (name, agent) in agents.value.0 {
            let agent = self.agent(&name, agent, &names, &file, &defs);
            file.agents.push(agent);
        }
        file
    }

    fn models(&mut self, raw: Vec<(String, Spanned<RawModel>)>) -> Vec<(String, ModelConfig)> {
        let mut out = Vec::new();
        for (name, m) in raw {
            let path = format!("models.{name}");
            let origin = self.origin(&m.referenced, &path);
            let m = m.value;
            let Some(provider) = m.provider else {
                self.error(origin, "provider is required");
                continue;
            };
            let Some(model) = m.model else {
                self.error(origin, "model is required");
                continue;
            };
            if !KNOWN_PROVIDERS.contains(&provider.value.as_str()) && m.base_url.is_none() {
                self.error_hint(
                    self.origin(&provider.referenced, format!("{path}.provider")),
                    format!("unknown provider `{}`", provider.value),
                    format!(
                        "use one of {}, or set `base_url` for an OpenAI-compatible server",
                        KNOWN_PROVIDERS.join(", ")
                    ),
                );
            }
            let max_tokens = match m.max_tokens {
                Some(t) if t.value <= 0 => {
                    self.error(
                        self.origin(&t.referenced, format!("{path}.max_tokens")),
                        format!("max_tokens must be positive, got {}", t.value),
                    );
                    None
                }
                Some(t) => u64::try_from(t.value).ok(),
                None => None,
            };
            out.push((
                name,
                ModelConfig {
                    provider: provider.value,
                    model: model.value,
                    base_url: m.base_url,
                    max_tokens,
                    temperature: m.temperature,
                    top_p: m.top_p,
                    provider_opts: m.provider_opts.unwrap_or_default(),
                },
            ));
        }
        out
    }

    pub(crate) fn permissions(&mut self, raw: RawPermissions) -> Permissions {
        let mut list = |key: &str, items: Option<Vec<Spanned<String>>>| {
            let mut out = Vec::new();
            for (i, item) in items.unwrap_or_default().into_iter().enumerate() {
                match PermissionPattern::parse(&item.value) {
                    Ok(p) => out.push(p),
                    Err(e) => self.error(
                        self.origin(&item.referenced, format!("permissions.{key}[{i}]")),
                        e,
                    ),
                }
            }
            out
        };
        Permissions {
            allow: list("allow", raw.allow),
            ask: list("ask", raw.ask),
            deny: list("deny", raw.deny),
        }
    }

    fn agent(
        &mut self,
        name: &str,
        raw: Spanned<RawAgent>,
        names: &[String],
        file: &AgentFile,
        defs: &[(String, Option<McpDef>)],
    ) -> Agent {
        let path = format!("agents.{name}");
        let origin = self.origin(&raw.referenced, &path);
        let a = raw.value;
        let instruction = self.instruction(&path, a.instruction, a.instruction_file);
        let model = a.model.map(|m| {
            self.model_ref(&format!("{path}.model"), &m, file);
            m.value
        });
        let mut agent_ref = |key: &str, items: Vec<Spanned<String>>| -> Vec<String> {
            items
                .into_iter()
                .enumerate()
                .map(|(i, r)| {
                    if !names.contains(&r.value) {
                        self.error(
                            self.origin(&r.referenced, format!("{path}.{key}[{i}]")),
                            format!("unknown agent `{}` (agents: {})", r.value, names.join(", ")),
                        );
                    }
                    r.value
                })
                .collect()
        };
        let sub_agents = agent_ref("sub_agents", a.sub_agents.unwrap_or_default());
        let handoffs = agent_ref("handoffs", a.handoffs.unwrap_or_default());
        let force_handoff = a.force_handoff.map(|r| {
            if !names.contains(&r.value) {
                self.error(
                    self.origin(&r.referenced, format!("{path}.force_handoff")),
                    format!("unknown agent `{}` (agents: {})", r.value, names.join(", ")),
                );
            }
            r.value
        });
        let toolsets: Vec<Toolset> = a
            .toolsets
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, t)| self.toolset(&format!("{path}.toolsets[{i}]"), t, file, defs))
            .collect();
        let hooks = a
            .hooks
            .map(|h| self.hooks(&format!("{path}.hooks"), h))
            .unwrap_or_default();
        self.mcp_hook_servers(&toolsets, &hooks);
        Agent {
            name: name.to_owned(),
            model,
            description: a.description.unwrap_or_default(),
            instruction,
            toolsets,
            sub_agents,
            handoffs,
            force_handoff,
            max_iterations: self.count(&path, "max_iterations", a.max_iterations),
            max_consecutive_tool_calls: self.count(
                &path,
                "max_consecutive_tool_calls",
                a.max_consecutive_tool_calls,
            ),
            num_history_items: self.count(&path, "num_history_items", a.num_history_items),
            add_date: a.add_date.unwrap_or(false),
            add_environment_info: a.add_environment_info.unwrap_or(false),
            add_prompt_files: a.add_prompt_files.unwrap_or_default(),
            redact_secrets: a.redact_secrets.unwrap_or(false),
            hooks,
            origin,
        }
    }

    /// An `mcp` hook must name one of the agent's MCP servers. A server without a `name` or
    /// `ref` is known by the name it reports, so then only its absence can be told at load.
    fn mcp_hook_servers(&mut self, toolsets: &[Toolset], hooks: &HooksConfig) {
        let servers: Vec<Option<&str>> = toolsets
            .iter()
            .filter_map(|t| t.mcp.as_ref().map(|m| m.label.as_deref()))
            .collect();
        let all_named = servers.iter().all(Option::is_some);
        let names: Vec<&str> = servers.iter().flatten().copied().collect();
        for (_, _, hook) in hooks.iter() {
            let HookKind::Mcp { server, .. } = &hook.kind else {
                continue;
            };
            if servers.is_empty() {
                self.error_hint(
                    hook.origin.clone(),
                    format!(
                        "mcp hook calls server `{server}`, but the agent has no `type: mcp` toolset"
                    ),
                    "add the server to the agent's `toolsets:`",
                );
            } else if all_named && !names.contains(&server.as_str()) {
                self.error_hint(
                    hook.origin.clone(),
                    format!("mcp hook calls unknown server `{server}`"),
                    format!("the agent's MCP servers: {}", names.join(", ")),
                );
            }
        }
    }

    fn instruction(
        &mut self,
        path: &str,
        inline: Option<String>,
        file: Option<Spanned<String>>,
    ) -> String {
        match (inline, file) {
            (Some(_), Some(f)) => {
                self.error(
                    self.origin(&f.referenced, format!("{path}.instruction_file")),
                    "`instruction` and `instruction_file` are mutually exclusive",
                );
                String::new()
            }
            (Some(text), None) => text,
            (None, Some(f)) => {
                let full = self.dir.join(&f.value);
                std::fs::read_to_string(&full).unwrap_or_else(|e| {
                    self.error(
                        self.origin(&f.referenced, format!("{path}.instruction_file")),
                        format!("cannot read `{}`: {e}", full.display()),
                    );
                    String::new()
                })
            }
            (None, None) => String::new(),
        }
    }

    fn count(&mut self, path: &str, key: &str, value: Option<Spanned<i64>>) -> u32 {
        let Some(v) = value else { return 0 };
        match u32::try_from(v.value) {
            Ok(n) => n,
            Err(_) => {
                self.error(
                    self.origin(&v.referenced, format!("{path}.{key}")),
                    format!("{key} must be between 0 and {}, got {}", u32::MAX, v.value),
                );
                0
            }
        }
    }

    fn toolset(
        &mut self,
        path: &str,
        raw: Spanned<RawToolset>,
        file: &AgentFile,
        defs: &[(String, Option<McpDef>)],
    ) -> Option<Toolset> {
        let origin = self.origin(&raw.referenced, path);
        let mut t = raw.value;
        let supported: Vec<&str> = ToolsetKind::ALL.iter().map(|k| k.type_name()).collect();
        let Some(kind_name) = t.kind.take() else {
            self.error(origin, "type is required");
            return None;
        };
        let Some(kind) = ToolsetKind::parse(&kind_name.value) else {
            let type_origin = self.origin(&kind_name.referenced, format!("{path}.type"));
            let message = if UNSUPPORTED_TOOLSETS.contains(&kind_name.value.as_str()) {
                format!(
                    "toolset type `{}` is not supported by tether",
                    kind_name.value
                )
            } else {
                format!("unknown toolset type `{}`", kind_name.value)
            };
            self.error_hint(
                type_origin,
                message,
                format!("supported: {}", supported.join(", ")),
            );
            return None;
        };
        let before = self.diags.len();
        if let Some(m) = &t.model {
            self.model_ref(&format!("{path}.model"), m, file);
        }
        if let Some(a) = &t.allow_private_ips {
            self.error_hint(
                self.origin(&a.referenced, format!("{path}.allow_private_ips")),
                "`allow_private_ips` is not supported yet: it governs OAuth helper requests, and Tether has no OAuth flow",
                "remove it; Tether connects to the `remote.url` you give, private addresses included",
            );
        }
        let mcp = if kind == ToolsetKind::Mcp {
            self.mcp_toolset(path, &origin, &mut t, defs)
        } else {
            self.only_mcp_fields(path, kind, &t);
            None
        };
        let (tools, instruction, name, defer, env, server) = match mcp {
            Some(parts) => (
                parts.tools,
                parts.instruction,
                parts.name,
                parts.defer,
                parts.env,
                Some(parts.server),
            ),
            None if kind == ToolsetKind::Mcp => return None,
            None => (
                t.tools.take(),
                t.instruction.take(),
                t.name.take(),
                t.defer.take(),
                t.env
                    .take()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect(),
                None,
            ),
        };
        let known = kind.tool_names();
        let check_tool = |this: &mut Self, at: &Location, key: &str, tool: &str| {
            if kind != ToolsetKind::Mcp && !known.contains(&tool) {
                this.error_hint(
                    this.origin(at, format!("{path}.{key}")),
                    format!("unknown tool `{tool}` in a `{}` toolset", kind.type_name()),
                    format!("its tools are {}", known.join(", ")),
                );
            }
        };
        let tools = tools.map(|tools| {
            tools
                .into_iter()
                .enumerate()
                .map(|(i, tool)| {
                    check_tool(self, &tool.referenced, &format!("tools[{i}]"), &tool.value);
                    tool.value
                })
                .collect()
        });
        let defer = match defer.map(|d| (d.value, d.referenced)) {
            None | Some((RawDefer::All(false), _)) => Defer::None,
            Some((RawDefer::All(true), _)) => Defer::All,
            Some((RawDefer::Tools(list), at)) => {
                for tool in &list {
                    check_tool(self, &at, "defer", tool);
                }
                if list.is_empty() {
                    Defer::None
                } else {
                    Defer::Tools(list)
                }
            }
        };
        let toon = t.toon.as_ref().map_or_else(Vec::new, |toon| {
            let patterns: Vec<String> = toon
                .value
                .split(',')
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect();
            for p in &patterns {
                if let Err(e) = Regex::new(p) {
                    let detail = e.to_string();
                    let last = detail.lines().last().unwrap_or_default().trim();
                    let last = last.strip_prefix("error: ").unwrap_or(last).to_owned();
                    self.error_hint(
                        self.origin(&toon.referenced, format!("{path}.toon")),
                        format!("invalid regex `{p}` in `toon`: {last}"),
                        "`toon` is a comma-separated list of regexes over tool names, e.g. `list_.*,get_.*`",
                    );
                }
            }
            patterns
        });
        let safer = match t.safer {
            Some(s) if kind != ToolsetKind::Shell => {
                self.error(
                    self.origin(&s.referenced, format!("{path}.safer")),
                    "safer can only be used with type 'shell'",
                );
                false
            }
            Some(s) => s.value,
            None => false,
        };
        if !env.is_empty() && !matches!(kind, ToolsetKind::Shell | ToolsetKind::Mcp) {
            self.error(
                origin.clone(),
                "env can only be used with type 'shell' or 'mcp'",
            );
        }
        if self.diags.len() > before {
            return None;
        }
        Some(Toolset {
            kind,
            tools,
            safer,
            instruction,
            env,
            name: name.map(|n| n.value),
            defer,
            readonly: t.readonly.is_some_and(|r| r.value),
            toon,
            model: t.model.map(|m| m.value),
            mcp: server,
            origin,
        })
    }

    /// The fields only `type: mcp` toolsets take, on another type: one error each.
    fn only_mcp_fields(&mut self, path: &str, kind: ToolsetKind, t: &RawToolset) {
        let given = [
            ("ref", t.reference.as_ref().map(|v| &v.referenced)),
            ("command", t.command.as_ref().map(|v| &v.referenced)),
            ("remote", t.remote.as_ref().map(|v| &v.referenced)),
            ("config", t.config.as_ref().map(|v| &v.referenced)),
            ("version", t.version.as_ref().map(|v| &v.referenced)),
            ("working_dir", t.working_dir.as_ref().map(|v| &v.referenced)),
            ("lifecycle", t.lifecycle.as_ref().map(|v| &v.referenced)),
            ("name", t.name.as_ref().map(|v| &v.referenced)),
        ];
        for (key, at) in given {
            if let Some(at) = at {
                self.error(
                    self.origin(at, format!("{path}.{key}")),
                    format!(
                        "`{key}` only applies to `type: mcp` toolsets, not `type: {}`",
                        kind.type_name()
                    ),
                );
            }
        }
        if let Some(args) = t.args.as_ref().filter(|a| !a.value.is_empty()) {
            self.error(
                self.origin(&args.referenced, format!("{path}.args")),
                format!(
                    "`args` only applies to `type: mcp` toolsets, not `type: {}`",
                    kind.type_name()
                ),
            );
        }
    }

    /// Checks a model reference (`provider/model` or a `models:` name).
    fn model_ref(&mut self, path: &str, m: &Spanned<String>, file: &AgentFile) {
        if file.resolve_model(&m.value).is_none() {
            self.error_hint(
                self.origin(&m.referenced, path),
                format!("unknown model `{}`", m.value),
                "write `provider/model` (e.g. `openai/gpt-4o`) or the name of an entry under `models:`",
            );
        } else if let Some((provider, _)) = m.value.split_once('/')
            && file.model(&m.value).is_none()
            && !KNOWN_PROVIDERS.contains(&provider)
        {
            self.error_hint(
                self.origin(&m.referenced, path),
                format!("unknown provider `{provider}`"),
                format!(
                    "use one of {}, or define the model under `models:` with a `base_url`",
                    KNOWN_PROVIDERS.join(", ")
                ),
            );
        }
    }

    fn hooks(&mut self, path: &str, raw: RawHooks) -> HooksConfig {
        let mut out = HooksConfig::default();
        for (event, hooks) in raw.0 {
            let event_path = format!("{path}.{event}");
            match hooks {
                RawEventHooks::Matched(entries) => {
                    for (m, entry) in entries.into_iter().enumerate() {
                        if let Some(entry) =
                            self.matcher_entry(event, &format!("{event_path}[{m}]"), entry)
                        {
                            out.push(event, entry);
                        }
                    }
                }
                RawEventHooks::Flat(defs) => {
                    let Some(first) = defs.first() else { continue };
                    let origin = self.origin(&first.referenced, &event_path);
                    let hooks: Vec<HookSpec> = defs
                        .into_iter()
                        .enumerate()
                        .filter_map(|(i, d)| self.hook_def(event, &format!("{event_path}[{i}]"), d))
                        .collect();
                    if !hooks.is_empty() {
                        out.push(event, MatcherEntry::any(hooks, origin));
                    }
                }
            }
        }
        out
    }

    fn matcher_entry(
        &mut self,
        event: HookEvent,
        path: &str,
        raw: Spanned<RawMatcherEntry>,
    ) -> Option<MatcherEntry> {
        let origin = self.origin(&raw.referenced, path);
        let entry: RawMatcherEntry = raw.value;
        let matcher = match entry.matcher {
            None => Matcher::Any,
            Some(m) => match Matcher::compile(&m.value) {
                Ok(matcher) => matcher,
                Err(e) => {
                    let detail = e.to_string();
                    let last = detail.lines().last().unwrap_or_default().trim();
                    let last = last.strip_prefix("error: ").unwrap_or(last).to_owned();
                    self.error_hint(
                        self.origin(&m.referenced, format!("{path}.matcher")),
                        format!("invalid matcher regex `{}`: {last}", m.value),
                        "a matcher is a regex over the tool name, e.g. `shell|edit_file`; `*` matches every tool",
                    );
                    return None;
                }
            },
        };
        let defs = entry.hooks.unwrap_or_default();
        if defs.is_empty() {
            self.error(origin, "at least one hook is required");
            return None;
        }
        let hooks: Vec<HookSpec> = defs
            .into_iter()
            .enumerate()
            .filter_map(|(i, d)| self.hook_def(event, &format!("{path}.hooks[{i}]"), d))
            .collect();
        Some(MatcherEntry {
            matcher,
            preempt_yolo: entry.preempt_yolo.unwrap_or(false),
            hooks,
            origin,
        })
    }

    fn hook_def(
        &mut self,
        event: HookEvent,
        path: &str,
        raw: Spanned<RawHookDef>,
    ) -> Option<HookSpec> {
        let origin = self.origin(&raw.referenced, path);
        let mut d = raw.value;
        let Some(kind) = d.kind.take() else {
            self.error(origin, "type is required");
            return None;
        };
        let text = |v: &Option<Spanned<String>>| {
            v.as_ref()
                .map(|s| s.value.clone())
                .filter(|s| !s.trim().is_empty())
        };
        let kind = match kind.value.as_str() {
            "command" => match text(&d.command) {
                Some(command) => HookKind::Command { command },
                None => {
                    self.error(origin, "command is required for command hooks");
                    return None;
                }
            },
            "builtin" => match text(&d.command) {
                Some(name) => HookKind::Builtin {
                    name: name.trim().to_owned(),
                },
                None => {
                    self.error(origin, "command must name the builtin to invoke");
                    return None;
                }
            },
            "model" => {
                let Some(model) = text(&d.model) else {
                    self.error(
                        origin,
                        "model is required for model hooks (e.g. 'openai/gpt-4o-mini')",
                    );
                    return None;
                };
                let Some(prompt) = text(&d.prompt) else {
                    self.error(origin, "prompt is required for model hooks");
                    return None;
                };
                let prompt_origin = d.prompt.as_ref().map_or_else(
                    || TextOrigin::unmapped(origin.clone()),
                    |p| {
                        let at = self.origin(&p.referenced, format!("{path}.prompt"));
                        TextOrigin::new(at, self.source, &p.value)
                    },
                );
                let schema = match d.schema.take() {
                    Some(s) if s.value.is_empty() => None,
                    Some(s) if MODEL_HOOK_SCHEMAS.contains(&s.value.as_str()) => Some(s.value),
                    Some(s) => {
                        self.error_hint(
                            self.origin(&s.referenced, format!("{path}.schema")),
                            format!("unknown schema `{}`", s.value),
                            format!("known schemas: {}", MODEL_HOOK_SCHEMAS.join(", ")),
                        );
                        return None;
                    }
                    None => None,
                };
                HookKind::Model {
                    model,
                    prompt,
                    schema,
                    prompt_origin,
                }
            }
            "http" => self.http_hook(path, &origin, &mut d)?,
            "mcp" | "mcp_tool" => {
                let Some(server) = text(&d.server) else {
                    self.error(
                        origin,
                        "server is required for mcp hooks (the `name` of one of the agent's `type: mcp` toolsets)",
                    );
                    return None;
                };
                let Some(tool) = text(&d.tool) else {
                    self.error(origin, "tool is required for mcp hooks");
                    return None;
                };
                let input = match d.input.take() {
                    None => None,
                    Some(v) if v.value.is_object() => Some(ArgsTemplate(v.value)),
                    Some(v) => {
                        self.error_hint(
                            self.origin(&v.referenced, format!("{path}.input")),
                            "input must be a map of the tool's arguments",
                            "e.g. `input: {path: \"${tool_input.path}\"}`; leave it out to send the whole hook Input",
                        );
                        return None;
                    }
                };
                let (server, tool) = (server.trim().to_owned(), tool.trim().to_owned());
                HookKind::Mcp {
                    target: format!("mcp:{server}:{tool}"),
                    server,
                    tool,
                    input,
                }
            }
            other => {
                self.error(
                    self.origin(&kind.referenced, format!("{path}.type")),
                    format!(
                        "unsupported hook type '{other}' (supported: 'command', 'builtin', 'model', 'http', 'mcp')"
                    ),
                );
                return None;
            }
        };
        if !matches!(kind, HookKind::Http { .. }) && !self.no_http_fields(path, &d) {
            return None;
        }
        if !matches!(kind, HookKind::Mcp { .. }) && !self.no_mcp_fields(path, &d) {
            return None;
        }
        let run_async = match d.run_async {
            Some(a) if a.value && event.can_block() => {
                self.error_hint(
                    self.origin(&a.referenced, format!("{path}.async")),
                    format!("`async: true` is not allowed on `{event}`: its hooks can block, so they must be awaited"),
                    format!("async hooks run only on events that cannot block: {}", observational_events()),
                );
                return None;
            }
            Some(a) => a.value,
            None => false,
        };
        let dialect = match d.dialect.take() {
            None => Dialect::DockerAgent,
            Some(v) => match Dialect::parse(&v.value) {
                Some(_) if !matches!(kind, HookKind::Command { .. } | HookKind::Http { .. }) => {
                    self.error(
                        self.origin(&v.referenced, format!("{path}.dialect")),
                        "dialect applies only to command and http hooks",
                    );
                    return None;
                }
                Some(dialect) => dialect,
                None => {
                    self.error(
                        self.origin(&v.referenced, format!("{path}.dialect")),
                        format!(
                            "invalid dialect '{}' (supported: 'docker-agent', 'claude')",
                            v.value
                        ),
                    );
                    return None;
                }
            },
        };
        let on_error = match d.on_error {
            None => OnError::Warn,
            Some(v) => match OnError::parse(&v.value) {
                Some(o) => o,
                None => {
                    self.error(
                        self.origin(&v.referenced, format!("{path}.on_error")),
                        format!(
                            "invalid on_error '{}' (supported: 'warn', 'ignore', 'block')",
                            v.value
                        ),
                    );
                    return None;
                }
            },
        };
        let timeout = match d.timeout {
            Some(t) if t > 0 => std::time::Duration::from_secs(t.unsigned_abs()),
            _ => DEFAULT_HOOK_TIMEOUT,
        };
        Some(HookSpec {
            kind,
            args: d
                .args
                .unwrap_or_default()
                .into_iter()
                .map(|a| a.0)
                .collect(),
            timeout,
            name: d.name.filter(|n| !n.trim().is_empty()),
            working_dir: d.working_dir.filter(|w| !w.is_empty()),
            env: d
                .env
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.0))
                .collect(),
            on_error,
            run_async,
            dialect,
            source: HookSource::Yaml,
            origin,
        })
    }

    /// `type: http`: `url` (http or https), `headers` whose `${VAR}`s are all in `allowed_env`.
    fn http_hook(&mut self, path: &str, origin: &Origin, d: &mut RawHookDef) -> Option<HookKind> {
        let Some(url) = d.url.take().filter(|u| !u.value.trim().is_empty()) else {
            self.error(origin.clone(), "url is required for http hooks");
            return None;
        };
        if let Err(why) = check_url(url.value.trim()) {
            self.error_hint(
                self.origin(&url.referenced, format!("{path}.url")),
                format!("invalid url `{}`: {why}", url.value),
                "write an absolute URL such as `https://hooks.example.com/audit`",
            );
            return None;
        }
        let mut ok = true;
        let mut allowed_env = Vec::new();
        for (i, name) in d
            .allowed_env
            .take()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            if !is_env_name(&name.value) {
                self.error(
                    self.origin(&name.referenced, format!("{path}.allowed_env[{i}]")),
                    format!("invalid variable name `{}`", name.value),
                );
                ok = false;
            }
            allowed_env.push(name.value);
        }
        let mut headers = Vec::new();
        for (key, value) in d.headers.take().map(|h| h.0).unwrap_or_default() {
            let at = self.origin(&value.referenced, format!("{path}.headers.{key}"));
            if key.is_empty() || !key.bytes().all(is_header_token) {
                self.error(at.clone(), format!("invalid header name `{key}`"));
                ok = false;
            }
            match env_references(&value.value) {
                Err(why) => {
                    self.error(at, why);
                    ok = false;
                }
                Ok(names) => {
                    for name in names
                        .into_iter()
                        .filter(|n| !allowed_env.iter().any(|a| a == n))
                    {
                        self.error_hint(
                            at.clone(),
                            format!(
                                "header `{key}` uses `${{{name}}}`, which is not in `allowed_env`"
                            ),
                            format!(
                                "list the variables a header may read: `allowed_env: [{name}]`"
                            ),
                        );
                        ok = false;
                    }
                }
            }
            headers.push((key, value.value));
        }
        ok.then(|| HookKind::Http {
            url: url.value.trim().to_owned(),
            headers,
            allowed_env,
        })
    }

    /// `server`, `tool` and `input` belong to mcp hooks only; false when one was given.
    fn no_mcp_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
        let given = [
            ("server", d.server.as_ref().map(|v| &v.referenced)),
            ("tool", d.tool.as_ref().map(|v| &v.referenced)),
            ("input", d.input.as_ref().map(|v| &v.referenced)),
        ];
        let mut ok = true;
        for (key, at) in given {
            if let Some(at) = at {
                self.error(
                    self.origin(at, format!("{path}.{key}")),
                    format!("`{key}` only applies to `type: mcp` hooks"),
                );
                ok = false;
            }
        }
        ok
    }

    /// `url`, `headers` and `allowed_env` belong to http hooks only; false when one was given.
    fn no_http_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
        let given = [
            ("url", d.url.as_ref().map(|u| &u.referenced)),
            (
                "allowed_env",
                d.allowed_env
                    .as_ref()
                    .and_then(|a| a.first())
                    .map(|a| &a.referenced),
            ),
            (
                "headers",
                d.headers
                    .as_ref()
                    .and_then(|h| h.0.first())
                    .map(|(_, v)| &v.referenced),
            ),
        ];
        let mut ok = true;
        for (key, at) in given {
            if let Some(at) = at {
                self.error(
                    self.origin(at, format!("{path}.{key}")),
                    format!("`{key}` only applies to `type: http` hooks"),
                );
                ok = false;
            }
        }
        ok
    }
}

/// Checks that `url` is an absolute http(s) URL with a host.
pub(crate) fn check_url(url: &str) -> Result<(), &'static str> {
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err("only `http://` and `https://` URLs are supported");
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit('@').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return Err("the URL has no host");
    }
    if url.chars().any(char::is_whitespace) {
        return Err("the URL contains whitespace");
    }
    Ok(())
}

/// RFC 9110 token characters (header names).
pub(crate) const fn is_header_token(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// The events whose hooks may be `async: true`.
fn observational_events() -> String {
    let names: Vec<&str> = HookEvent::ALL
        .into_iter()
        .filter(|e| !e.can_block())
        .map(HookEvent::wire_name)
        .collect();
    names.join(", ")
}
