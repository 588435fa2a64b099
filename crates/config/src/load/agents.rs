//! Validation of agents, models, toolsets and permissions.

use regex::Regex;
use serde_saphyr::{Location, Spanned};

use crate::agent::{
    Agent, AgentFile, AgentRouting, Defer, External, ExternalSource, InlineSkill, Safety, Skills,
    StructuredOutput, Toolset, ToolsetKind, UNSUPPORTED_TOOLSETS,
};
use crate::hooks::{HookKind, HooksConfig};
use crate::mcp::McpDef;
use crate::permissions::{PermissionPattern, Permissions};
use crate::raw::{
    RawAgent, RawAgentRouting, RawDefer, RawPermissions, RawStructuredOutput, RawToolset,
};
use tether_protocol::HookEvent;

use super::Validator;

impl Validator<'_> {
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

    pub(super) fn agent(
        &mut self,
        name: &str,
        raw: Spanned<RawAgent>,
        names: &[String],
        file: &AgentFile,
        defs: &[(String, Option<McpDef>)],
        shared: &super::Shared,
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
                    if names.contains(&r.value) {
                        // Defined in this file.
                    } else if let Some(source) = ExternalSource::parse(&r.value) {
                        let at = self.origin(&r.referenced, format!("{path}.{key}[{i}]"));
                        match source {
                            Ok(source) => {
                                if !self.externals.iter().any(|e| e.reference == r.value) {
                                    self.externals.push(External {
                                        reference: r.value.clone(),
                                        source,
                                        origin: at,
                                        file: None,
                                    });
                                }
                            }
                            Err(why) => self.error_hint(
                                at,
                                format!("invalid agent reference `{}`: {why}", r.value),
                                "an external agent is an OCI reference (`namespace/name[:tag]`), an http(s) URL or a `.yaml` file",
                            ),
                        }
                    } else {
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
        let mut toolsets: Vec<Toolset> = a
            .toolsets
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, t)| self.toolset(&format!("{path}.toolsets[{i}]"), t, file, defs))
            .collect();
        for (i, r) in a.use_toolsets.unwrap_or_default().into_iter().enumerate() {
            match shared.toolsets.iter().find(|(n, _)| *n == r.value) {
                Some((_, Some(t))) => toolsets.push(t.clone()),
                Some((_, None)) => {}
                None => self.error_hint(
                    self.origin(&r.referenced, format!("{path}.use_toolsets[{i}]")),
                    format!("unknown toolset `{}`", r.value),
                    "define it under the top-level `toolsets:`",
                ),
            }
        }
        if sub_agents.is_empty()
            && let Some(t) = toolsets
                .iter()
                .find(|t| t.kind == ToolsetKind::BackgroundAgents)
        {
            self.error_hint(
                t.origin.clone(),
                "a `background_agents` toolset needs `sub_agents` to dispatch to",
                "list the agents it may run, e.g. `sub_agents: [researcher]`",
            );
        }
        // `readonly` on the agent: every toolset keeps only its read-only tools.
        if a.readonly == Some(true) {
            for t in &mut toolsets {
                t.readonly = true;
            }
        }
        let hooks = a
            .hooks
            .map(|h| self.hooks(&format!("{path}.hooks"), h))
            .unwrap_or_default();
        self.mcp_hook_servers(&toolsets, &hooks);
        self.route_agents(name, &hooks, names);
        if let Some(rag) = &a.rag {
            self.rag_unsupported(&rag.referenced, &format!("{path}.rag"));
        }
        let fallback = a.fallback.map(|f| self.fallback(&path, f, file));
        let safety = a
            .safety
            .and_then(|s| self.safety(&format!("{path}.safety"), &s));
        let routing = a.routing.map(|r| self.agent_routing(&path, name, r, names));
        let compaction_model = a.compaction_model.map(|m| {
            self.model_ref(&format!("{path}.compaction_model"), &m, file);
            m.value
        });
        let compaction_threshold = a
            .compaction_threshold
            .and_then(|t| self.threshold(&format!("{path}.compaction_threshold"), &t));
        self.routing_hooks(
            &path,
            &hooks,
            routing.as_ref(),
            force_handoff.is_some(),
            &origin,
        );
        let structured_output = a
            .structured_output
            .and_then(|o| self.structured_output(&path, o));
        let own = a
            .skills
            .and_then(|s| self.skills_at(&format!("{path}.skills"), s));
        let mut groups = Vec::new();
        for (i, g) in a.use_skills.unwrap_or_default().into_iter().enumerate() {
            match shared.skills.iter().find(|(n, _)| *n == g.value) {
                Some((_, Some(s))) => groups.push(s.clone()),
                Some((_, None)) => {}
                None => self.error_hint(
                    self.origin(&g.referenced, format!("{path}.use_skills[{i}]")),
                    format!("unknown skill group `{}`", g.value),
                    "define it under the top-level `skills:`",
                ),
            }
        }
        let skills = merge_skills(groups, own);
        let mut commands = a
            .commands
            .map(|c| self.commands(&format!("{path}.commands"), c))
            .unwrap_or_default();
        // Inline commands win over a group's of the same name.
        for (i, g) in a.use_commands.unwrap_or_default().into_iter().enumerate() {
            match shared.commands.iter().find(|(n, _)| *n == g.value) {
                Some((_, group)) => {
                    for c in group {
                        if !commands
                            .iter()
                            .any(|mine: &crate::Command| mine.name == c.name)
                        {
                            commands.push(c.clone());
                        }
                    }
                }
                None => self.error_hint(
                    self.origin(&g.referenced, format!("{path}.use_commands[{i}]")),
                    format!("unknown command group `{}`", g.value),
                    "define it under the top-level `commands:`",
                ),
            }
        }
        let max_tool_result_tokens = a.max_tool_result_tokens.and_then(|t| match t.value {
            -1 | 0 => None,
            n if n > 0 => u64::try_from(n).ok(),
            n => {
                self.error(
                    self.origin(&t.referenced, format!("{path}.max_tool_result_tokens")),
                    format!("max_tool_result_tokens must be positive (or 0 / -1: no cap), got {n}"),
                );
                None
            }
        });
        let max_old_tool_call_tokens = a.max_old_tool_call_tokens.and_then(|t| match t.value {
            -1 | 0 => None,
            n if n > 0 => u64::try_from(n).ok(),
            n => {
                self.error(
                    self.origin(&t.referenced, format!("{path}.max_old_tool_call_tokens")),
                    format!(
                        "max_old_tool_call_tokens must be positive (or 0 / -1: keep every tool call), got {n}"
                    ),
                );
                None
            }
        });
        let budgets = a
            .budgets
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, b)| {
                if file.budgets.iter().any(|(n, _)| *n == b.value) {
                    return Some(b.value);
                }
                self.error_hint(
                    self.origin(&b.referenced, format!("{path}.budgets[{i}]")),
                    format!("unknown budget `{}`", b.value),
                    "define it under the top-level `budgets:`",
                );
                None
            })
            .collect();
        let cache = a.cache.and_then(|c| {
            let c = c.value;
            c.enabled
                .unwrap_or(false)
                .then(|| crate::agent::ResponseCache {
                    case_sensitive: c.case_sensitive.unwrap_or(false),
                    trim_spaces: c.trim_spaces.unwrap_or(false),
                    path: c
                        .path
                        .filter(|p| !p.trim().is_empty())
                        .map(|p| self.dir.join(p)),
                })
        });
        let no_prompt_files = a.add_prompt_files.as_ref().is_none_or(Vec::is_empty);
        let add_prompt_files_depth = match a.add_prompt_files_depth {
            Some(d) if d.value > 0 && no_prompt_files => {
                self.error_hint(
                    self.origin(&d.referenced, format!("{path}.add_prompt_files_depth")),
                    "`add_prompt_files_depth` lists `add_prompt_files` names found below the working directory, and `add_prompt_files` is empty",
                    "e.g. `add_prompt_files: [AGENTS.md]`",
                );
                0
            }
            d => self.count(&path, "add_prompt_files_depth", d),
        };
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
            commands,
            welcome_message: a.welcome_message.filter(|w| !w.trim().is_empty()),
            max_tool_result_tokens,
            max_old_tool_call_tokens,
            add_prompt_files_depth,
            budgets,
            cache,
            add_description_parameter: a.add_description_parameter.unwrap_or(false),
            code_mode_tools: a.code_mode_tools.unwrap_or(false),
            session_compaction: a.session_compaction.unwrap_or(true),
            compaction_threshold,
            compaction_model,
            safety,
            routing,
            fallback,
            structured_output,
            skills,
            hooks,
            origin,
        }
    }

    /// An `mcp` hook must name one of the agent's MCP servers. A server without a `name` or
    /// `ref` is known by the name it reports, so then only its absence can be told at load.
    pub(super) fn mcp_hook_servers(&mut self, toolsets: &[Toolset], hooks: &HooksConfig) {
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

    pub(super) fn instruction(
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

    /// A safety mode (`safety:`, `settings.safety`).
    pub(crate) fn safety(&mut self, path: &str, s: &Spanned<String>) -> Option<Safety> {
        let parsed = Safety::parse(&s.value);
        if parsed.is_none() {
            self.error_hint(
                self.origin(&s.referenced, path),
                format!("unknown safety mode `{}`", s.value),
                format!("use one of {}", Safety::NAMES.join(", ")),
            );
        }
        parsed
    }

    fn agent_routing(
        &mut self,
        path: &str,
        name: &str,
        raw: Spanned<RawAgentRouting>,
        names: &[String],
    ) -> AgentRouting {
        let path = format!("{path}.routing");
        let r = raw.value;
        let mut allowed = Vec::new();
        for (i, a) in r.allowed_agents.unwrap_or_default().into_iter().enumerate() {
            let at = self.origin(&a.referenced, format!("{path}.allowed_agents[{i}]"));
            if a.value == name {
                self.error(at, "an agent cannot route to itself");
            } else if !names.contains(&a.value) {
                self.error(
                    at,
                    format!("unknown agent `{}` (agents: {})", a.value, names.join(", ")),
                );
            }
            allowed.push(a.value);
        }
        if allowed.is_empty() {
            self.error(
                self.origin(&raw.referenced, &path),
                "routing needs `allowed_agents`: the agents its hooks may send the run to",
            );
        }
        let default_agent = r.default_agent.map(|d| {
            if !allowed.contains(&d.value) {
                self.error(
                    self.origin(&d.referenced, format!("{path}.default_agent")),
                    format!("default_agent `{}` must be one of allowed_agents", d.value),
                );
            }
            d.value
        });
        AgentRouting {
            allowed_agents: allowed,
            default_agent,
        }
    }

    /// before_agent_run / after_agent_complete: one hook each, and only with `routing:`.
    fn routing_hooks(
        &mut self,
        path: &str,
        hooks: &HooksConfig,
        routing: Option<&AgentRouting>,
        force_handoff: bool,
        origin: &crate::diagnostic::Origin,
    ) {
        for event in [HookEvent::BeforeAgentRun, HookEvent::AfterAgentComplete] {
            let defs: Vec<_> = hooks
                .entries(event)
                .iter()
                .flat_map(|e| e.hooks.iter())
                .collect();
            let Some(first) = defs.first() else { continue };
            if defs.len() > 1 {
                self.error(
                    defs[1].origin.clone(),
                    format!("an agent takes at most one `{event}` hook"),
                );
            }
            if routing.is_none() {
                self.error_hint(
                    first.origin.clone(),
                    format!("`{event}` needs the agent's `routing:`"),
                    format!("add `routing: {{allowed_agents: [...]}}` to {path}"),
                );
            }
            if event == HookEvent::AfterAgentComplete && force_handoff {
                self.error(
                    origin.clone(),
                    "`after_agent_complete` cannot be combined with `force_handoff`",
                );
            }
        }
    }

    fn structured_output(
        &mut self,
        path: &str,
        raw: Spanned<RawStructuredOutput>,
    ) -> Option<StructuredOutput> {
        let path = format!("{path}.structured_output");
        let o = raw.value;
        if let Some(mode) = o.mode.filter(|m| m.value != "native") {
            self.error_hint(
                self.origin(&mode.referenced, format!("{path}.mode")),
                format!(
                    "structured_output mode `{}` is not supported yet",
                    mode.value
                ),
                "use `mode: native` (the provider enforces the schema)",
            );
        }
        let Some(name) = o.name else {
            self.error(
                self.origin(&raw.referenced, &path),
                "structured_output needs `name`",
            );
            return None;
        };
        let Some(schema) = o.schema else {
            self.error(
                self.origin(&raw.referenced, &path),
                "structured_output needs `schema`",
            );
            return None;
        };
        if schema.value.get("type").and_then(|t| t.as_str()) != Some("object") {
            self.error_hint(
                self.origin(&schema.referenced, format!("{path}.schema")),
                "the schema of structured output must have `type: object`",
                "describe the answer as an object with `properties` (and `required`)",
            );
        }
        Some(StructuredOutput {
            name: name.value,
            description: o.description.unwrap_or_default(),
            schema: schema.value,
            strict: o.strict.unwrap_or(false),
        })
    }

    /// `skills: true | false | [sources, names, inline skills]`, at `path`.
    pub(super) fn skills_at(
        &mut self,
        path: &str,
        raw: Spanned<serde_json::Value>,
    ) -> Option<Skills> {
        use serde_json::Value;
        let origin = self.origin(&raw.referenced, path);
        match raw.value {
            Value::Bool(false) | Value::Null => None,
            Value::Bool(true) => Some(Skills {
                local: true,
                ..Skills::default()
            }),
            Value::Array(items) => {
                let mut out = Skills::default();
                let mut sources = false;
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) if s == "local" => {
                            out.local = true;
                            sources = true;
                        }
                        Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => {
                            self.error_hint(
                                origin.clone(),
                                format!("{path}[{i}]: remote skill sources (`{s}`) are not supported yet"),
                                "install the skill under ~/.agents/skills or .agents/skills and list `local`",
                            );
                        }
                        Value::String(name) => out.only.push(name),
                        Value::Object(o) => match inline_skill(&o) {
                            Ok(skill) => out.inline.push(skill),
                            Err(e) => self.error(origin.clone(), format!("{path}[{i}]: {e}")),
                        },
                        other => self.error(
                            origin.clone(),
                            format!("{path}[{i}]: expected a source, a skill name or a skill, got {other}"),
                        ),
                    }
                }
                // Names alone filter the local skills.
                if !sources && !out.only.is_empty() {
                    out.local = true;
                }
                Some(out)
            }
            other => {
                self.error(
                    origin,
                    format!("skills must be true, false or a list, got {other}"),
                );
                None
            }
        }
    }

    pub(super) fn count(&mut self, path: &str, key: &str, value: Option<Spanned<i64>>) -> u32 {
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

    pub(super) fn toolset(
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
                format!("toolset type `{}` is not supported yet", kind_name.value)
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
        if kind == ToolsetKind::BackgroundAgents {
            // The runtime runs these tools itself: no model, deferral or TOON rewriting.
            let given = [
                ("model", t.model.as_ref().map(|v| &v.referenced)),
                ("defer", t.defer.as_ref().map(|v| &v.referenced)),
                ("toon", t.toon.as_ref().map(|v| &v.referenced)),
            ];
            for (key, at) in given {
                if let Some(at) = at {
                    self.error(
                        self.origin(at, format!("{path}.{key}")),
                        format!("`{key}` does not apply to `type: background_agents` toolsets"),
                    );
                }
            }
        } else if let Some(m) = &t.model {
            self.model_ref(&format!("{path}.model"), m, file);
        }
        let http = matches!(
            kind,
            ToolsetKind::Fetch | ToolsetKind::Api | ToolsetKind::OpenApi
        );
        let allow_private_ips = t
            .allow_private_ips
            .as_ref()
            .is_some_and(|a| http && a.value);
        if let Some(a) = t
            .allow_private_ips
            .as_ref()
            .filter(|_| kind == ToolsetKind::Mcp)
        {
            self.error_hint(
                self.origin(&a.referenced, format!("{path}.allow_private_ips")),
                "`allow_private_ips` is not supported yet: it governs OAuth helper requests, and Tether has no OAuth flow",
                "remove it; Tether connects to the `remote.url` you give, private addresses included",
            );
        } else if let Some(a) = t.allow_private_ips.as_ref().filter(|_| !http) {
            self.error(
                self.origin(&a.referenced, format!("{path}.allow_private_ips")),
                format!(
                    "`allow_private_ips` applies to `type: fetch`, `api` and `openapi` (and, not yet, `type: mcp`) toolsets, not `type: {}`",
                    kind.type_name()
                ),
            );
        }
        let timeout = match t.timeout.take() {
            Some(v) if !http => {
                self.error(
                    self.origin(&v.referenced, format!("{path}.timeout")),
                    format!(
                        "`timeout` applies to `type: fetch`, `api` and `openapi` toolsets, not `type: {}`",
                        kind.type_name()
                    ),
                );
                None
            }
            Some(v) if v.value <= 0 => None,
            Some(v) => Some(std::time::Duration::from_secs(v.value.unsigned_abs())),
            None => None,
        };
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
            if !matches!(
                kind,
                ToolsetKind::Mcp | ToolsetKind::Script | ToolsetKind::Api | ToolsetKind::OpenApi
            ) && !known.contains(&tool)
            {
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
        let safer = match t.safer.take() {
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
        if !env.is_empty()
            && !matches!(
                kind,
                ToolsetKind::Shell | ToolsetKind::Mcp | ToolsetKind::Script
            )
        {
            self.error(
                origin.clone(),
                "env can only be used with type 'shell', 'script' or 'mcp'",
            );
        }
        let scripts = self.scripts(path, kind, &origin, t.shell.take());
        let extra = self.toolset_extra(path, kind, &origin, &mut t, file);
        let memory_path = match t.path.take() {
            Some(p) if kind != ToolsetKind::Memory => {
                self.error(
                    self.origin(&p.referenced, format!("{path}.path")),
                    format!(
                        "`path` only applies to `type: memory` toolsets, not `type: {}`",
                        kind.type_name()
                    ),
                );
                None
            }
            Some(p) if p.value.split('/').any(|c| c == "..") => {
                self.error_hint(
                    self.origin(&p.referenced, format!("{path}.path")),
                    format!("the memory path `{}` leaves the working directory", p.value),
                    "give a path inside the working directory, or an absolute one",
                );
                None
            }
            p => p.map(|p| p.value),
        };
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
            scripts,
            path: memory_path,
            timeout,
            allow_private_ips,
            api: extra.api,
            url: extra.url,
            headers: extra.headers,
            max_output_bytes: extra.max_output_bytes,
            shared: extra.shared,
            post_edit: extra.post_edit,
            ignore_vcs: extra.ignore_vcs,
            allow_list: extra.allow_list,
            deny_list: extra.deny_list,
            allowed_domains: extra.allowed_domains,
            blocked_domains: extra.blocked_domains,
            escape_html: extra.escape_html,
            models: extra.models,
            origin,
        })
    }

    /// The fields only `type: mcp` toolsets take, on another type: one error each.
    pub(super) fn only_mcp_fields(&mut self, path: &str, kind: ToolsetKind, t: &RawToolset) {
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
}

/// `use_skills` groups, in order, then the agent's own `skills`: local discovery if any asks
/// for it, the union of their name filters (none when one of them keeps every local skill),
/// and inline skills where a later one of the same name wins (the agent's own last).
fn merge_skills(groups: Vec<Skills>, own: Option<Skills>) -> Option<Skills> {
    let all: Vec<Skills> = groups.into_iter().chain(own).collect();
    if all.is_empty() {
        return None;
    }
    let every_local = all.iter().any(|s| s.local && s.only.is_empty());
    let mut out = Skills::default();
    for s in all {
        out.local |= s.local;
        for name in s.only {
            if !out.only.contains(&name) {
                out.only.push(name);
            }
        }
        for skill in s.inline {
            out.inline.retain(|i| i.name != skill.name);
            out.inline.push(skill);
        }
    }
    if every_local {
        out.only.clear();
    }
    Some(out)
}

/// An inline skill: `name`, `description`, `instructions`; fork-mode fields are not supported.
fn inline_skill(o: &serde_json::Map<String, serde_json::Value>) -> Result<InlineSkill, String> {
    const FORK: [&str; 4] = ["context", "model", "allowed_tools", "toolsets"];
    for key in o.keys() {
        if FORK.contains(&key.as_str()) {
            return Err(format!("`{key}` (fork-mode skills) is not supported yet"));
        }
        if !["name", "description", "instructions"].contains(&key.as_str()) {
            return Err(format!(
                "unknown field `{key}`, expected one of name, description, instructions"
            ));
        }
    }
    let text = |key: &str| {
        o.get(key)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("an inline skill needs `{key}`"))
    };
    let name = text("name")?;
    if name.contains(char::is_whitespace) {
        return Err(format!("a skill name has no spaces, got `{name}`"));
    }
    Ok(InlineSkill {
        name,
        description: text("description")?,
        instructions: text("instructions")?,
    })
}
