//! Validation of agent `commands:` and of `type: script` toolsets' named commands.

use serde_saphyr::Spanned;

use super::Validator;
use crate::raw::{OrderedMap, RawScript};
use crate::toolset::Script;
use crate::{Command, ToolsetKind};

impl Validator<'_> {
    /// `commands:` as docker-agent accepts it: a map, or a list of one-entry maps; each value
    /// a string (the instruction) or `{description, instruction, agent}`.
    pub(super) fn commands(&mut self, path: &str, raw: Spanned<serde_json::Value>) -> Vec<Command> {
        let origin = self.origin(&raw.referenced, path);
        let entries: Vec<(String, serde_json::Value)> = match raw.value {
            serde_json::Value::Object(m) => m.into_iter().collect(),
            serde_json::Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        serde_json::Value::Object(m) => out.extend(m),
                        other => {
                            self.error(
                                origin.clone(),
                                format!(
                                    "a `commands` list holds `NAME: prompt` entries, not `{other}`"
                                ),
                            );
                        }
                    }
                }
                out
            }
            serde_json::Value::Null => Vec::new(),
            other => {
                self.error_hint(
                    origin,
                    format!("`commands` must be a map of names to prompts, not `{other}`"),
                    "e.g. `commands: {df: \"Check the free disk space\"}`",
                );
                return Vec::new();
            }
        };
        let mut out: Vec<Command> = Vec::new();
        for (name, value) in entries {
            let mut agent = None;
            let (description, instruction) = match value {
                serde_json::Value::String(s) => (String::new(), s),
                serde_json::Value::Object(mut m) => {
                    let mut text = |key: &str| match m.remove(key) {
                        Some(serde_json::Value::String(s)) => Ok(s),
                        None | Some(serde_json::Value::Null) => Ok(String::new()),
                        Some(other) => Err(format!("`{key}` must be a string, not `{other}`")),
                    };
                    let (d, i, a) = match (text("description"), text("instruction"), text("agent"))
                    {
                        (Ok(d), Ok(i), Ok(a)) => (d, i, a),
                        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                            self.error(origin.clone(), format!("command `{name}`: {e}"));
                            continue;
                        }
                    };
                    if m.contains_key("url") {
                        self.error_hint(
                            origin.clone(),
                            format!("command `{name}`: the field `url` is not supported yet"),
                            "give the command an `instruction` or an `agent` instead",
                        );
                        continue;
                    }
                    if let Some(key) = m.keys().next() {
                        self.error(
                            origin.clone(),
                            format!("command `{name}`: unknown field `{key}`, expected description, instruction or agent"),
                        );
                        continue;
                    }
                    if d.is_empty() && i.is_empty() && a.is_empty() {
                        self.error(
                            origin.clone(),
                            format!(
                                "command `{name}` must have an `instruction`, a `description` or an `agent`"
                            ),
                        );
                        continue;
                    }
                    // Switching agents alone forwards what is typed after the command.
                    let i = if i.is_empty() && a.is_empty() {
                        d.clone()
                    } else {
                        i
                    };
                    agent = Some(a).filter(|a| !a.is_empty());
                    (d, i)
                }
                other => {
                    self.error(
                        origin.clone(),
                        format!("command `{name}` must be a prompt string or `{{description, instruction}}`, not `{other}`"),
                    );
                    continue;
                }
            };
            if out.iter().any(|c| c.name == name) {
                self.error(origin.clone(), format!("command `{name}` is defined twice"));
                continue;
            }
            match crate::commands::parse(&instruction) {
                Ok(parts) => out.push(Command {
                    name,
                    description,
                    instruction,
                    parts,
                    agent,
                }),
                Err(e) => self.error(origin.clone(), format!("command `{name}`: {e}")),
            }
        }
        out
    }

    /// `shell:` of a `type: script` toolset (and only of one).
    pub(super) fn scripts(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        origin: &crate::Origin,
        raw: Option<Spanned<OrderedMap<Spanned<RawScript>>>>,
    ) -> Vec<Script> {
        let Some(raw) = raw else {
            if kind == ToolsetKind::Script {
                self.error_hint(
                    origin.clone(),
                    "a `type: script` toolset needs `shell:` (its named commands)",
                    "e.g. `shell: {run_tests: {cmd: \"task test\", description: \"Run the tests\"}}`",
                );
            }
            return Vec::new();
        };
        if kind != ToolsetKind::Script {
            self.error(
                self.origin(&raw.referenced, format!("{path}.shell")),
                format!(
                    "`shell` only applies to `type: script` toolsets, not `type: {}`",
                    kind.type_name()
                ),
            );
            return Vec::new();
        }
        let mut out = Vec::new();
        for (name, s) in raw.value.0 {
            let at = self.origin(&s.referenced, format!("{path}.shell.{name}"));
            let s = s.value;
            let Some(cmd) = s.cmd.filter(|c| !c.trim().is_empty()) else {
                self.error(at, format!("script `{name}` needs `cmd`"));
                continue;
            };
            let args: Vec<(String, serde_json::Value)> = s.args.map(|a| a.0).unwrap_or_default();
            // Every `$NAME` / `${NAME}` in the command must be one of its arguments: they reach
            // the command as environment variables.
            let undefined: Vec<String> = shell_variables(&cmd)
                .into_iter()
                .filter(|v| !args.iter().any(|(a, _)| a == v))
                .collect();
            if !undefined.is_empty() {
                self.error_hint(
                    at.clone(),
                    format!(
                        "script `{name}` uses undefined args: {}",
                        undefined.join(", ")
                    ),
                    "declare them under `args:` (they are passed as environment variables)",
                );
                continue;
            }
            let required = match s.required {
                Some(r) => r,
                None => args.iter().map(|(a, _)| a.clone()).collect(),
            };
            if let Some(bad) = required.iter().find(|r| !args.iter().any(|(a, _)| a == *r)) {
                self.error(
                    at,
                    format!(
                        "script `{name}` has required arg `{bad}` which is not defined in args"
                    ),
                );
                continue;
            }
            out.push(Script {
                name,
                description: s.description.unwrap_or_default(),
                cmd,
                args,
                required,
                env: s
                    .env
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect(),
                working_dir: s.working_dir,
            });
        }
        out
    }
}

/// The variables `$NAME` and `${NAME}` of a shell command (as Go's `os.Expand` finds them).
fn shell_variables(cmd: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = cmd.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' || i + 1 >= bytes.len() {
            i += 1;
            continue;
        }
        let rest = &cmd[i + 1..];
        let (name, used) = if let Some(inner) = rest.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 1),
            }
        } else {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..len], len)
        };
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
        i += 1 + used.max(1);
    }
    out
}
