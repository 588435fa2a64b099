//! Validation of a toolset entry (`agents.NAME.toolsets[i]`, `toolsets.NAME`): its `type`, the
//! fields every type takes, and which options apply to which type. Each option on a toolset of
//! another type is an error naming both, as docker-agent's loader rejects it. The values of
//! the options of `type: api`, `openapi`, `filesystem` and `fetch` are checked in
//! `toolset_options.rs`; MCP servers in `crate::mcp`.

use regex::Regex;
use serde_saphyr::{Location, Spanned};

use super::Validator;
use crate::access::DomainPattern;
use crate::agent::AgentFile;
use crate::diagnostic::Origin;
use crate::mcp::McpDef;
use crate::raw::{RawDefer, RawToolset};
use crate::toolset::{ApiConfig, Defer, PostEdit, Toolset, ToolsetKind, UNSUPPORTED_TOOLSETS};

/// The options checked here, validated.
#[derive(Debug, Default)]
pub(super) struct Extra {
    pub(super) api: Option<ApiConfig>,
    pub(super) url: Option<String>,
    pub(super) headers: Vec<(String, String)>,
    pub(super) max_output_bytes: Option<usize>,
    pub(super) shared: bool,
    pub(super) post_edit: Vec<PostEdit>,
    pub(super) ignore_vcs: bool,
    pub(super) allow_list: Vec<String>,
    pub(super) deny_list: Vec<String>,
    pub(super) allowed_domains: Vec<DomainPattern>,
    pub(super) blocked_domains: Vec<DomainPattern>,
    pub(super) escape_html: bool,
    pub(super) models: Vec<String>,
}

/// docker-agent's default cut of an OpenAPI response's text.
const OPENAPI_MAX_OUTPUT: usize = 30_000;

impl Validator<'_> {
    /// `key` was given on a toolset whose type does not take it.
    pub(super) fn wrong_type(
        &mut self,
        path: &str,
        at: &Location,
        key: &str,
        owners: &str,
        kind: ToolsetKind,
    ) {
        self.error(
            self.origin(at, format!("{path}.{key}")),
            format!(
                "`{key}` only applies to {owners} toolsets, not `type: {}`",
                kind.type_name()
            ),
        );
    }

    pub(super) fn toolset(
        &mut self,
        path: &str,
        raw: Spanned<RawToolset>,
        file: &AgentFile,
        defs: &[(String, Option<McpDef>)],
    ) -> Option<Toolset> {
        let origin = self.origin(&raw.referenced, path);
        let raw_at = raw.referenced;
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
            ToolsetKind::Fetch
                | ToolsetKind::Api
                | ToolsetKind::OpenApi
                | ToolsetKind::Webhook
                | ToolsetKind::A2a
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
                    "`allow_private_ips` applies to `type: fetch`, `api`, `openapi`, `webhook` and `a2a` (and, not yet, `type: mcp`) toolsets, not `type: {}`",
                    kind.type_name()
                ),
            );
        }
        let timeout = match t.timeout.take() {
            Some(v) if !http => {
                self.error(
                    self.origin(&v.referenced, format!("{path}.timeout")),
                    format!(
                        "`timeout` applies to `type: fetch`, `api`, `openapi`, `webhook` and `a2a` toolsets, not `type: {}`",
                        kind.type_name()
                    ),
                );
                None
            }
            Some(v) if v.value <= 0 => None,
            Some(v) => Some(std::time::Duration::from_secs(v.value.unsigned_abs())),
            None => None,
        };
        let rag = if kind == ToolsetKind::Rag {
            self.rag_ref(path, t.reference.take(), &raw_at)
        } else {
            None
        };
        let lsp = self.lsp_toolset(path, kind, &origin, &mut t);
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
                ToolsetKind::Mcp
                    | ToolsetKind::Script
                    | ToolsetKind::Api
                    | ToolsetKind::OpenApi
                    | ToolsetKind::OpenUrl
                    | ToolsetKind::A2a
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
                ToolsetKind::Shell
                    | ToolsetKind::Mcp
                    | ToolsetKind::Script
                    | ToolsetKind::Lsp
                    | ToolsetKind::BackgroundJobs
            )
        {
            self.error(
                origin.clone(),
                "env can only be used with type 'shell', 'background_jobs', 'script', 'mcp' or 'lsp'",
            );
        }
        let (allowed_servers, blocked_servers) = self.catalog_options(path, kind, &mut t);
        let scripts = self.scripts(path, kind, &origin, t.shell.take());
        let webhook = self.webhook_option(path, kind, &origin, t.webhook_config.take());
        let extra = self.toolset_extra(path, kind, &origin, &mut t, file);
        let memory_path = match t.path.take() {
            Some(p) if !matches!(kind, ToolsetKind::Memory | ToolsetKind::Tasks) => {
                self.error(
                    self.origin(&p.referenced, format!("{path}.path")),
                    format!(
                        "`path` only applies to `type: memory` and `tasks` toolsets, not `type: {}`",
                        kind.type_name()
                    ),
                );
                None
            }
            Some(p) if p.value.split(['/', '\\']).any(|c| c == "..") => {
                self.error_hint(
                    self.origin(&p.referenced, format!("{path}.path")),
                    format!(
                        "the {} path `{}` leaves the working directory",
                        kind.type_name(),
                        p.value
                    ),
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
            name: name.map(|n| n.value),
            defer,
            readonly: t.readonly.is_some_and(|r| r.value),
            toon,
            model: t.model.map(|m| m.value),
            mcp: server,
            lsp: lsp.map(|mut l| {
                l.env.clone_from(&env);
                l
            }),
            env,
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
            webhook,
            rag,
            allowed_servers,
            blocked_servers,
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
            // `open_url` names its one tool; an a2a toolset's `name` prefixes its tools, as an
            // MCP toolset's does.
            (
                "name",
                t.name
                    .as_ref()
                    .filter(|_| kind != ToolsetKind::OpenUrl && kind != ToolsetKind::A2a)
                    .map(|v| &v.referenced),
            ),
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

    pub(super) fn toolset_extra(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        origin: &Origin,
        t: &mut RawToolset,
        file: &AgentFile,
    ) -> Extra {
        let mut out = Extra {
            ignore_vcs: true,
            ..Extra::default()
        };
        if let Some(raw) = t.api_config.take() {
            if kind == ToolsetKind::Api {
                out.api = self.api_config(&format!("{path}.api_config"), raw);
            } else {
                self.wrong_type(path, &raw.referenced, "api_config", "`type: api`", kind);
            }
        } else if kind == ToolsetKind::Api {
            self.error_hint(
                origin.clone(),
                "a `type: api` toolset needs `api_config`",
                "e.g. `api_config: {name: weather, endpoint: \"https://api.example.com/w?city=${city}\", method: GET, args: {city: {type: string}}}`",
            );
        }
        match t.url.take() {
            Some(u) if kind == ToolsetKind::OpenApi => {
                out.url = self.openapi_url(&format!("{path}.url"), &u);
            }
            Some(u) if kind == ToolsetKind::OpenUrl => {
                out.url = self.fixed_url(&format!("{path}.url"), &u);
            }
            Some(u) if kind == ToolsetKind::A2a => {
                out.url = self.a2a_url(&format!("{path}.url"), &u);
            }
            Some(u) => {
                let owners = "`type: openapi`, `open_url` and `a2a`";
                self.wrong_type(path, &u.referenced, "url", owners, kind);
            }
            None if kind == ToolsetKind::A2a => {
                self.error_hint(
                    origin.clone(),
                    "a `type: a2a` toolset needs `url`",
                    "the remote agent's base URL, e.g. `http://localhost:8080`",
                );
            }
            None if kind == ToolsetKind::OpenUrl => {
                self.error_hint(
                    origin.clone(),
                    "open_url toolset requires a url to be set",
                    "the page the tool opens, e.g. `url: https://docs.docker.com`",
                );
            }
            None if kind == ToolsetKind::OpenApi => {
                self.error_hint(
                    origin.clone(),
                    "a `type: openapi` toolset needs `url`",
                    "the OpenAPI document: an `https://` URL or a file path",
                );
            }
            None => {}
        }
        if let Some(h) = t.headers.take() {
            if matches!(kind, ToolsetKind::OpenApi | ToolsetKind::A2a) {
                out.headers = self.headers(&format!("{path}.headers"), h.value);
            } else {
                self.wrong_type(
                    path,
                    &h.referenced,
                    "headers",
                    "`type: openapi` and `a2a`",
                    kind,
                );
            }
        }
        out.max_output_bytes = match t.max_output_bytes.take() {
            Some(m) if kind != ToolsetKind::OpenApi => {
                self.wrong_type(
                    path,
                    &m.referenced,
                    "max_output_bytes",
                    "`type: openapi`",
                    kind,
                );
                None
            }
            Some(m) if m.value < 0 => {
                self.error(
                    self.origin(&m.referenced, format!("{path}.max_output_bytes")),
                    format!("max_output_bytes must be 0 or more, got {}", m.value),
                );
                None
            }
            Some(m) if m.value == 0 => None,
            Some(m) => usize::try_from(m.value).ok(),
            None => Some(OPENAPI_MAX_OUTPUT),
        };
        if let Some(s) = t.shared.take() {
            if kind == ToolsetKind::Todo {
                out.shared = s.value;
            } else {
                self.wrong_type(path, &s.referenced, "shared", "`type: todo`", kind);
            }
        }
        if let Some(v) = t.ignore_vcs.take() {
            if kind == ToolsetKind::Filesystem {
                out.ignore_vcs = v.value;
            } else {
                self.wrong_type(
                    path,
                    &v.referenced,
                    "ignore_vcs",
                    "`type: filesystem`",
                    kind,
                );
            }
        }
        out.allow_list = self.path_list(path, kind, "allow_list", t.allow_list.take());
        out.deny_list = self.path_list(path, kind, "deny_list", t.deny_list.take());
        let allowed = t.allowed_domains.take();
        let blocked = t.blocked_domains.take();
        if let (Some(a), Some(b)) = (&allowed, &blocked)
            && kind == ToolsetKind::Fetch
            && !a.value.is_empty()
            && !b.value.is_empty()
        {
            self.error_hint(
                self.origin(&b.referenced, format!("{path}.blocked_domains")),
                "`allowed_domains` and `blocked_domains` are mutually exclusive",
                "list the hosts to allow, or the hosts to refuse, not both",
            );
        }
        out.allowed_domains = self.domain_list(path, kind, "allowed_domains", allowed);
        out.blocked_domains = self.domain_list(path, kind, "blocked_domains", blocked);
        if let Some(e) = t.escape_html.take() {
            if kind == ToolsetKind::Fetch {
                out.escape_html = e.value;
            } else {
                self.wrong_type(path, &e.referenced, "escape_html", "`type: fetch`", kind);
            }
        }
        if let Some(list) = t.post_edit.take() {
            if matches!(kind, ToolsetKind::Filesystem | ToolsetKind::File) {
                out.post_edit = self.post_edit(&format!("{path}.post_edit"), list.value);
            } else {
                self.wrong_type(
                    path,
                    &list.referenced,
                    "post_edit",
                    "`type: filesystem` and `file`",
                    kind,
                );
            }
        }
        match t.models.take() {
            Some(m) if kind != ToolsetKind::ModelPicker => {
                self.wrong_type(path, &m.referenced, "models", "`type: model_picker`", kind);
            }
            Some(m) if m.value.is_empty() => {
                self.error(
                    self.origin(&m.referenced, format!("{path}.models")),
                    "model_picker toolset requires at least one model in the 'models' list",
                );
            }
            Some(m) => {
                for (i, model) in m.value.into_iter().enumerate() {
                    self.model_ref(&format!("{path}.models[{i}]"), &model, file);
                    out.models.push(model.value);
                }
            }
            None if kind == ToolsetKind::ModelPicker => {
                self.error_hint(
                    origin.clone(),
                    "model_picker toolset requires at least one model in the 'models' list",
                    "e.g. `models: [openai/gpt-4o-mini, anthropic/claude-sonnet-4-0]`",
                );
            }
            None => {}
        }
        out
    }
}
