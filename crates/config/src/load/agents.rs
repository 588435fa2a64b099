//! Validation of agents (what they name: other agents, models, toolsets, skills, commands,
//! budgets) and of permissions.

use serde_saphyr::Spanned;

use crate::agent::{
    Agent, AgentFile, AgentRouting, External, ExternalSource, Safety, StructuredOutput,
};
use crate::hooks::{HookKind, HooksConfig};
use crate::mcp::McpDef;
use crate::permissions::{PermissionPattern, Permissions};
use crate::raw::{RawAgent, RawAgentRouting, RawPermissions, RawStructuredOutput};
use crate::toolset::{Toolset, ToolsetKind};
use tether_protocol::HookEvent;

use super::Validator;
use super::skills::merge_skills;

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
        for (i, r) in a.rag.unwrap_or_default().into_iter().enumerate() {
            let at = r.referenced;
            if let Some(source) = self.rag_ref(&format!("{path}.rag[{i}]"), Some(r), &at) {
                toolsets.push(Toolset::of_rag(source));
            }
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
        let tool_choice = a.tool_choice.and_then(|t| {
            use crate::agent::ToolChoice as C;
            match t.value.as_str() {
                "auto" => Some(C::Auto),
                "required" => Some(C::Required),
                "none" => Some(C::None),
                other => {
                    self.error_hint(
                        self.origin(&t.referenced, format!("{path}.tool_choice")),
                        format!("unknown tool_choice `{other}`"),
                        "use auto, required or none",
                    );
                    None
                }
            }
        });
        let inject_memories = self.inject_memories(
            &path,
            &toolsets,
            a.inject_memories,
            a.max_inject_memories,
            a.inject_memories_strategy,
        );
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
        let commands_at = a.commands.as_ref().map_or_else(
            || origin.clone(),
            |c| self.origin(&c.referenced, format!("{path}.commands")),
        );
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
        for c in &commands {
            if let Some(target) = c.agent.as_ref().filter(|t| !names.contains(t)) {
                self.error(
                    commands_at.clone(),
                    format!(
                        "command `{}`: unknown agent `{target}` (agents: {})",
                        c.name,
                        names.join(", ")
                    ),
                );
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
            tool_choice,
            skills,
            inject_memories,
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
}
