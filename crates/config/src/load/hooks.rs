//! Validation of hooks: matcher entries and hook definitions of every type.

use serde_saphyr::Spanned;
use tether_protocol::HookEvent;

use crate::diagnostic::{Origin, TextOrigin};
use crate::hooks::{
    ArgsTemplate, DEFAULT_HOOK_TIMEOUT, Dialect, HookKind, HookSource, HookSpec, HooksConfig,
    MODEL_HOOK_SCHEMAS, Matcher, MatcherEntry, OnError, env_references, is_env_name,
};
use crate::raw::{RawEventHooks, RawHookDef, RawHooks, RawMatcherEntry};

use super::Validator;

impl Validator<'_> {
    pub(crate) fn hooks(&mut self, path: &str, raw: RawHooks) -> HooksConfig {
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

    pub(super) fn matcher_entry(
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
        if entry.preempt_yolo == Some(true) && !event.has_preempt_lane() {
            let why = if matches!(event, HookEvent::ToolInputTransform | HookEvent::ToolGuard) {
                format!("`{event}` always runs before every approval step, `--yolo` included")
            } else {
                "only pre_tool_use has a preempt lane".to_owned()
            };
            self.error(
                origin.clone(),
                format!("`preempt_yolo` does not apply to `{event}`: {why}"),
            );
        }
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

    pub(super) fn hook_def(
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
                    system_prompt: d
                        .system_prompt
                        .take()
                        .map(|s| s.value)
                        .filter(|s| !s.trim().is_empty()),
                }
            }
            "evaluator" => self.evaluator_hook(event.wire_name(), path, &origin, &mut d)?,
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
            "policy" => self.policy_hook(event, path, &origin, &mut d)?,
            other => {
                self.error(
                    self.origin(&kind.referenced, format!("{path}.type")),
                    format!(
                        "unsupported hook type '{other}' (supported: 'command', 'builtin', 'model', 'evaluator', 'http', 'mcp', 'policy')"
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
        if !matches!(kind, HookKind::Evaluator { .. }) && !self.no_evaluator_fields(path, &d) {
            return None;
        }
        if !matches!(kind, HookKind::Policy(_)) && !self.no_policy_fields(path, &d) {
            return None;
        }
        if let Some(s) = &d.system_prompt {
            self.error(
                self.origin(&s.referenced, format!("{path}.system_prompt")),
                "`system_prompt` only applies to `type: model` hooks",
            );
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
        let persistent = self.persistent(path, &kind, run_async, d.persistent.take())?;
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
        let sandbox = match d.sandbox.take() {
            None => None,
            Some(s) if !matches!(kind, HookKind::Command { .. }) => {
                self.error(
                    self.origin(&s.referenced, format!("{path}.sandbox")),
                    "`sandbox` only applies to `type: command` hooks",
                );
                return None;
            }
            Some(s) => match crate::sandbox::parse(&s.value) {
                Ok(sandbox) => Some(sandbox),
                Err(e) => {
                    self.error(self.origin(&s.referenced, format!("{path}.sandbox")), e);
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
            strict_output: d.strict_output.is_some_and(|s| s.value),
            persistent,
            sandbox,
            source: HookSource::Yaml,
            origin,
        })
    }

    /// `type: http`: `url` (http or https), `headers` whose `${VAR}`s are all in `allowed_env`.
    pub(super) fn http_hook(
        &mut self,
        path: &str,
        origin: &Origin,
        d: &mut RawHookDef,
    ) -> Option<HookKind> {
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
    pub(super) fn no_mcp_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
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
    pub(super) fn no_http_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
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
