//! Validating `type: mcp` toolsets and `mcps:` entries into [`super::McpServer`].

use std::time::Duration;

use serde_saphyr::Spanned;

use super::{
    Lifecycle, LifecycleProfile, McpServer, McpTransport, RemoteTransport, Restart,
    parse_go_duration,
};
use crate::diagnostic::Origin;
use crate::hooks::is_env_name;
use crate::load::{Validator, check_url, is_header_token};
use crate::raw::{RawBackoff, RawLifecycle, RawMcpDef, RawRemote, RawToolset, Scalar};

/// Checks the `${…}` references of a remote header or URL: `${env.NAME}` (docker-agent's
/// form) and `${NAME}`.
pub(crate) fn check_references(value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in `{value}`"))?;
        let inner = &after[..end];
        if inner.starts_with("headers.") {
            return Err(format!(
                "`${{{inner}}}` forwards a header of an incoming API request, which Tether does not serve; not supported yet"
            ));
        }
        let name = inner.strip_prefix("env.").unwrap_or(inner);
        if !is_env_name(name) {
            return Err(format!("invalid variable name `{name}` in `${{{inner}}}`"));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}

/// The parts of an MCP source as written, in a toolset or a `mcps:` entry.
#[derive(Clone)]
struct Source {
    command: Option<Spanned<String>>,
    args: Option<Spanned<Vec<Scalar>>>,
    reference: Option<Spanned<String>>,
    remote: Option<Spanned<RawRemote>>,
    config: Option<Spanned<serde_json::Value>>,
    version: Option<Spanned<Scalar>>,
    env: Vec<(String, String)>,
    working_dir: Option<Spanned<String>>,
    lifecycle: Option<Spanned<RawLifecycle>>,
}

impl Source {
    /// Fills what the toolset left empty from a `mcps:` entry; `env` merges, the toolset's
    /// values winning.
    fn fill_from(&mut self, def: Self) {
        self.command = self.command.take().or(def.command);
        self.args = self
            .args
            .take()
            .filter(|a| !a.value.is_empty())
            .or(def.args);
        self.remote = self.remote.take().or(def.remote);
        self.config = self.config.take().or(def.config);
        self.version = self.version.take().or(def.version);
        self.working_dir = self.working_dir.take().or(def.working_dir);
        self.lifecycle = self.lifecycle.take().or(def.lifecycle);
        self.reference = def.reference;
        let mut env = def.env;
        for (k, v) in std::mem::take(&mut self.env) {
            env.retain(|(name, _)| *name != k);
            env.push((k, v));
        }
        self.env = env;
    }
}

/// A validated `mcps:` entry, kept raw until a toolset refers to it (its fields merge
/// field by field).
pub(crate) struct McpDef {
    source: Source,
    tools: Option<Vec<Spanned<String>>>,
    instruction: Option<String>,
    name: Option<Spanned<String>>,
    defer: Option<Spanned<crate::raw::RawDefer>>,
}

/// What a `type: mcp` toolset adds to the generic toolset fields.
pub(crate) struct McpParts {
    pub(crate) server: McpServer,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) tools: Option<Vec<Spanned<String>>>,
    pub(crate) instruction: Option<String>,
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) defer: Option<Spanned<crate::raw::RawDefer>>,
}

fn scalar_env(env: Option<std::collections::BTreeMap<String, Scalar>>) -> Vec<(String, String)> {
    env.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, v.0))
        .collect()
}

impl Validator<'_> {
    /// Validates the `mcps:` section; entries with errors are left out (their errors are
    /// reported here, not again at each use).
    pub(crate) fn mcp_defs(
        &mut self,
        raw: Vec<(String, Spanned<RawMcpDef>)>,
    ) -> Vec<(String, Option<McpDef>)> {
        let mut out = Vec::new();
        for (name, def) in raw {
            let path = format!("mcps.{name}");
            let origin = self.origin(&def.referenced, &path);
            let d = def.value;
            let source = Source {
                command: d.command,
                args: d.args,
                reference: d.reference,
                remote: d.remote,
                config: d.config,
                version: d.version,
                env: scalar_env(d.env),
                working_dir: d.working_dir,
                lifecycle: d.lifecycle,
            };
            let before = self.diags.len();
            if let Some(r) = &source.reference
                && !r.value.starts_with("docker:")
            {
                self.error_hint(
                    self.origin(&r.referenced, format!("{path}.ref")),
                    format!("a `mcps:` entry can only refer to a Docker catalog server, not `{}`", r.value),
                    "write `ref: docker:NAME`, or define the server here with `command` or `remote`",
                );
            }
            // Checked in full (as a toolset of its own), so mistakes point at the definition.
            let _ = self.mcp_server(&path, &origin, &name, Some(&name), &source, true);
            let ok = self.diags.len() == before;
            out.push((
                name,
                ok.then_some(McpDef {
                    source,
                    tools: d.tools,
                    instruction: d.instruction,
                    name: d.name,
                    defer: d.defer,
                }),
            ));
        }
        out
    }

    /// The MCP part of a `type: mcp` toolset. `None` after an error.
    pub(crate) fn mcp_toolset(
        &mut self,
        path: &str,
        origin: &Origin,
        t: &mut RawToolset,
        defs: &[(String, Option<McpDef>)],
    ) -> Option<McpParts> {
        let mut source = Source {
            command: t.command.take(),
            args: t.args.take(),
            reference: t.reference.take(),
            remote: t.remote.take(),
            config: t.config.take(),
            version: t.version.take(),
            env: scalar_env(t.env.take()),
            working_dir: t.working_dir.take(),
            lifecycle: t.lifecycle.take(),
        };
        let mut tools = t.tools.take();
        let mut instruction = t.instruction.take();
        let mut name = t.name.take();
        let mut defer = t.defer.take();
        let mut label = None;
        if let Some(r) = source
            .reference
            .as_ref()
            .filter(|r| !r.value.starts_with("docker:"))
        {
            let given = [
                ("command", source.command.as_ref().map(|c| &c.referenced)),
                ("remote", source.remote.as_ref().map(|c| &c.referenced)),
            ];
            for (key, at) in given {
                if let Some(at) = at {
                    self.error(
                        self.origin(at, format!("{path}.{key}")),
                        format!("`{key}` and `ref` are mutually exclusive"),
                    );
                    return None;
                }
            }
            let key = r.value.clone();
            let at = self.origin(&r.referenced, format!("{path}.ref"));
            match defs.iter().find(|(n, _)| *n == key) {
                None => {
                    let known: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
                    let hint = if known.is_empty() {
                        "define it under a top-level `mcps:` section, or write `ref: docker:NAME` for a Docker catalog server".to_owned()
                    } else {
                        format!("defined servers: {}", known.join(", "))
                    };
                    self.error_hint(at, format!("unknown MCP server `{key}`"), hint);
                    return None;
                }
                // Its own errors were reported where it is defined.
                Some((_, None)) => return None,
                Some((_, Some(def))) => {
                    source.fill_from(def.source.clone());
                    tools = tools.or_else(|| def.tools.clone());
                    instruction = instruction.or_else(|| def.instruction.clone());
                    name = name.or_else(|| def.name.clone());
                    defer = defer.or_else(|| def.defer.clone());
                    label = Some(key);
                }
            }
        }
        let label = name.as_ref().map(|n| n.value.clone()).or(label);
        let server = self.mcp_server(path, origin, "", label.as_deref(), &source, false)?;
        Some(McpParts {
            server,
            env: source.env,
            tools,
            instruction,
            name,
            defer,
        })
    }

    /// Checks one source: exactly one of `command`, `remote`, `ref`, and only the fields that
    /// go with it.
    fn mcp_server(
        &mut self,
        path: &str,
        origin: &Origin,
        def_name: &str,
        label: Option<&str>,
        s: &Source,
        in_defs: bool,
    ) -> Option<McpServer> {
        let kinds: Vec<&str> = [
            s.command.as_ref().map(|_| "command"),
            s.remote.as_ref().map(|_| "remote"),
            s.reference.as_ref().map(|_| "ref"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let what = if in_defs {
            format!("MCP server `{def_name}`")
        } else {
            "an `mcp` toolset".to_owned()
        };
        match kinds.as_slice() {
            [] => {
                self.error_hint(
                    origin.clone(),
                    format!("{what} needs one of `command`, `remote` or `ref`"),
                    "e.g. `command: npx` with `args: [\"-y\", \"@modelcontextprotocol/server-everything\"]`, `remote: {url: https://…/mcp}` or `ref: docker:duckduckgo`",
                );
                return None;
            }
            [_] => {}
            [a, b, ..] => {
                self.error(
                    origin.clone(),
                    format!(
                        "`{a}` and `{b}` are mutually exclusive: {what} has exactly one source"
                    ),
                );
                return None;
            }
        }
        let lifecycle = self.lifecycle(path, s.lifecycle.as_ref());
        let mut ok = lifecycle.is_some();
        let not_with =
            |this: &mut Self, key: &str, at: Option<&serde_saphyr::Location>, with: &str| {
                if let Some(at) = at {
                    this.error(
                        this.origin(at, format!("{path}.{key}")),
                        format!("`{key}` does not apply to {with}"),
                    );
                    false
                } else {
                    true
                }
            };
        // A Docker catalog server's `env` may name its secrets (`brave.api_key`).
        let gateway = s
            .reference
            .as_ref()
            .is_some_and(|r| r.value.starts_with("docker:"));
        for (key, value) in &s.env {
            let secret_name = gateway
                && !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
            if !is_env_name(key) && !secret_name {
                self.error(
                    origin.clone(),
                    format!("invalid environment variable name `{key}` in `env`"),
                );
                ok = false;
            }
            if let Err(e) = check_references(value) {
                self.error(origin.clone(), format!("`env.{key}`: {e}"));
                ok = false;
            }
        }
        let working_dir = s.working_dir.as_ref().map(|w| w.value.clone());
        let transport = if let Some(command) = &s.command {
            ok &= not_with(
                self,
                "config",
                s.config.as_ref().map(|c| &c.referenced),
                "a `command` server (it is the Docker gateway's server configuration)",
            );
            if command.value.trim().is_empty() {
                self.error(
                    self.origin(&command.referenced, format!("{path}.command")),
                    "command is empty",
                );
                ok = false;
            }
            McpTransport::Stdio {
                command: command.value.trim().to_owned(),
                args: s
                    .args
                    .iter()
                    .flat_map(|a| a.value.iter())
                    .map(|a| a.0.clone())
                    .collect(),
                env: s.env.clone(),
                working_dir,
                version: s.version.as_ref().map(|v| v.value.0.clone()),
            }
        } else if let Some(remote) = &s.remote {
            let with = "a `remote` server (there is no local process)";
            ok &= not_with(
                self,
                "args",
                s.args
                    .as_ref()
                    .filter(|a| !a.value.is_empty())
                    .map(|a| &a.referenced),
                with,
            );
            ok &= not_with(
                self,
                "version",
                s.version.as_ref().map(|v| &v.referenced),
                with,
            );
            ok &= not_with(
                self,
                "working_dir",
                s.working_dir.as_ref().map(|w| &w.referenced),
                with,
            );
            ok &= not_with(
                self,
                "config",
                s.config.as_ref().map(|c| &c.referenced),
                with,
            );
            if !s.env.is_empty() {
                self.error(
                    origin.clone(),
                    format!("`env` does not apply to {with}; put values in `remote.headers` with `${{env.NAME}}`"),
                );
                ok = false;
            }
            self.remote(path, remote)?
        } else if let Some(r) = &s.reference {
            // A `mcps:` entry with another ref was reported by `mcp_defs`.
            let server = r.value.strip_prefix("docker:")?.trim();
            if server.is_empty() {
                self.error_hint(
                    self.origin(&r.referenced, format!("{path}.ref")),
                    format!("invalid ref `{}`", r.value),
                    "write `docker:NAME`, e.g. `docker:duckduckgo`",
                );
                return None;
            }
            let with = "a Docker catalog server";
            ok &= not_with(
                self,
                "args",
                s.args
                    .as_ref()
                    .filter(|a| !a.value.is_empty())
                    .map(|a| &a.referenced),
                with,
            );
            ok &= not_with(
                self,
                "version",
                s.version.as_ref().map(|v| &v.referenced),
                with,
            );
            McpTransport::Gateway {
                server: server.to_owned(),
                config: s.config.as_ref().map(|c| c.value.clone()),
                env: s.env.clone(),
                working_dir,
            }
        } else {
            return None;
        };
        let label = label.map(str::to_owned).or_else(|| match &transport {
            McpTransport::Gateway { server, .. } => Some(server.clone()),
            McpTransport::Stdio { .. } | McpTransport::Remote { .. } => None,
        });
        ok.then(|| McpServer {
            label,
            transport,
            lifecycle: lifecycle.unwrap_or_default(),
        })
    }

    fn remote(&mut self, path: &str, raw: &Spanned<RawRemote>) -> Option<McpTransport> {
        let r = &raw.value;
        let rpath = format!("{path}.remote");
        if let Some(o) = &r.oauth {
            self.error_hint(
                self.origin(&o.referenced, format!("{rpath}.oauth")),
                "`remote.oauth` is not supported yet: Tether has no OAuth flow for remote MCP servers",
                "pass a token in a header instead: `headers: {Authorization: \"Bearer ${env.TOKEN}\"}`",
            );
            return None;
        }
        let Some(url) = r.url.as_ref().filter(|u| !u.value.trim().is_empty()) else {
            self.error(
                self.origin(&raw.referenced, &rpath),
                "`remote.url` is required",
            );
            return None;
        };
        let url_at = self.origin(&url.referenced, format!("{rpath}.url"));
        let text = url.value.trim();
        if text.to_ascii_lowercase().starts_with("unix://") {
            self.error(
                url_at,
                format!("invalid url `{text}`: Unix-socket MCP servers are not supported yet"),
            );
            return None;
        }
        if let Err(e) = check_references(text) {
            self.error(url_at, e);
            return None;
        }
        // `${…}` may stand for the host: check the URL's shape with the references blanked.
        let shape = text.replace("${", "x").replace('}', "x");
        if let Err(why) = check_url(&shape) {
            self.error_hint(
                url_at,
                format!("invalid url `{text}`: {why}"),
                "write an absolute URL such as `https://mcp.example.com/mcp`",
            );
            return None;
        }
        let transport = match r.transport_type.as_ref().map(|t| t.value.as_str()) {
            None | Some("streamable" | "streamable-http" | "http") => RemoteTransport::Streamable,
            Some("sse") => RemoteTransport::Sse,
            Some(other) => {
                let at = r.transport_type.as_ref().map_or_else(
                    || self.origin(&raw.referenced, &rpath),
                    |t| self.origin(&t.referenced, format!("{rpath}.transport_type")),
                );
                self.error_hint(
                    at,
                    format!("unsupported transport_type `{other}`"),
                    "use `streamable` (Streamable HTTP) or `sse` (the legacy HTTP+SSE transport)",
                );
                return None;
            }
        };
        let mut ok = true;
        let mut headers = Vec::new();
        for (key, value) in r
            .headers
            .as_ref()
            .map(|h| h.0.as_slice())
            .unwrap_or_default()
        {
            let at = self.origin(&value.referenced, format!("{rpath}.headers.{key}"));
            if key.is_empty() || !key.bytes().all(is_header_token) {
                self.error(at.clone(), format!("invalid header name `{key}`"));
                ok = false;
            }
            if let Err(e) = check_references(&value.value.0) {
                self.error(at, e);
                ok = false;
            }
            headers.push((key.clone(), value.value.0.clone()));
        }
        ok.then(|| McpTransport::Remote {
            url: text.to_owned(),
            transport,
            headers,
        })
    }

    fn lifecycle(&mut self, path: &str, raw: Option<&Spanned<RawLifecycle>>) -> Option<Lifecycle> {
        let Some(raw) = raw else {
            return Some(Lifecycle::default());
        };
        let lpath = format!("{path}.lifecycle");
        let l = &raw.value;
        let profile = match &l.profile {
            None => LifecycleProfile::Resilient,
            Some(p) => match LifecycleProfile::parse(&p.value) {
                Some(p) => p,
                None => {
                    self.error(
                        self.origin(&p.referenced, format!("{lpath}.profile")),
                        format!(
                            "unknown profile `{}` (supported: {})",
                            p.value,
                            LifecycleProfile::NAMES.join(", ")
                        ),
                    );
                    return None;
                }
            },
        };
        let mut out = Lifecycle::for_profile(profile);
        let mut ok = true;
        if let Some(r) = l.required {
            out.required = r;
        }
        if let Some(r) = &l.restart {
            match Restart::parse(&r.value) {
                Some(r) => out.restart = r,
                None => {
                    self.error(
                        self.origin(&r.referenced, format!("{lpath}.restart")),
                        format!(
                            "unknown restart policy `{}` (supported: {})",
                            r.value,
                            Restart::NAMES.join(", ")
                        ),
                    );
                    ok = false;
                }
            }
        }
        if let Some(m) = &l.max_restarts {
            match m.value {
                -1 => out.max_restarts = None,
                // 0 keeps the profile's default, as in docker-agent.
                0 => {}
                n if n > 0 => out.max_restarts = u32::try_from(n).ok(),
                n => {
                    self.error(
                        self.origin(&m.referenced, format!("{lpath}.max_restarts")),
                        format!(
                            "max_restarts must be -1 (unlimited), 0 (the default) or more, got {n}"
                        ),
                    );
                    ok = false;
                }
            }
        }
        let mut duration =
            |this: &mut Self, key: &str, v: &Option<Spanned<Scalar>>| -> Option<Option<Duration>> {
                let v = v.as_ref()?;
                match parse_go_duration(&v.value.0) {
                    Ok(d) => Some((!d.is_zero()).then_some(d)),
                    Err(e) => {
                        this.error(this.origin(&v.referenced, format!("{lpath}.{key}")), e);
                        ok = false;
                        None
                    }
                }
            };
        if let Some(d) = duration(self, "startup_timeout", &l.startup_timeout) {
            out.startup_timeout = d;
        }
        if let Some(d) = duration(self, "call_timeout", &l.call_timeout) {
            out.call_timeout = d;
        }
        if let Some(RawBackoff {
            initial,
            max,
            multiplier,
            jitter,
        }) = &l.backoff
        {
            if let Some(d) = duration(self, "backoff.initial", initial) {
                out.backoff.initial = d.unwrap_or(Duration::ZERO);
            }
            if let Some(d) = duration(self, "backoff.max", max) {
                out.backoff.max = d.unwrap_or(Duration::ZERO);
            }
            if let Some(m) = multiplier {
                if m.value >= 0.0 && m.value.is_finite() {
                    out.backoff.multiplier = m.value;
                } else {
                    self.error(
                        self.origin(&m.referenced, format!("{lpath}.backoff.multiplier")),
                        format!("multiplier must be 0 or more, got {}", m.value),
                    );
                    ok = false;
                }
            }
            if let Some(j) = jitter {
                if (0.0..=1.0).contains(&j.value) {
                    out.backoff.jitter = j.value;
                } else {
                    self.error(
                        self.origin(&j.referenced, format!("{lpath}.backoff.jitter")),
                        format!("jitter must be between 0 and 1, got {}", j.value),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Backoff;

    #[test]
    fn go_durations_parse_like_go() {
        let cases = [
            ("0", Duration::ZERO),
            ("500ms", Duration::from_millis(500)),
            ("30s", Duration::from_secs(30)),
            ("1.5s", Duration::from_millis(1500)),
            ("2m", Duration::from_secs(120)),
            ("1h30m", Duration::from_secs(5400)),
            ("1m0s", Duration::from_secs(60)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_go_duration(text), Ok(want), "{text}");
        }
        for bad in ["", "5", "-1s", "1x", "s", "1.2.3s"] {
            assert!(parse_go_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let b = Backoff::default();
        let secs: Vec<u64> = (0..8).map(|n| b.delay(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 32, 32]);
    }

    #[test]
    fn references_take_env_names_only() {
        assert!(check_references("Bearer ${env.TOKEN}").is_ok());
        assert!(check_references("${HOME}/x").is_ok());
        assert!(check_references("no refs").is_ok());
        assert!(check_references("${env.A-B}").is_err());
        assert!(check_references("${env.X").is_err());
        assert!(
            check_references("${headers.Authorization}")
                .unwrap_err()
                .contains("not supported yet")
        );
    }
}
