//! The user config, `$XDG_CONFIG_HOME/tether/config.yaml`: settings for every run, validated as
//! strictly as agent files.
//!
//! ```yaml
//! settings:
//!   snapshot: true            # inject the `snapshot` builtin into every agent (docs/design.md D17)
//!   hooks:                    # global hooks, after each agent file's own
//!     pre_tool_use:
//!       - matcher: shell
//!         hooks: [{type: command, command: ~/bin/audit.sh}]
//! model: openai/gpt-4o-mini   # for agents without a `model`
//! permissions:                # checked after the agent file's own (docs/design.md, the approval ladder)
//!   deny: ["shell:cmd=*sudo*"]
//! ```
//!
//! Hook drop-ins: every `*.yaml` / `*.yml` file of `hooks.d/` beside the config is a hooks
//! section of its own (events at the top level, or under `hooks:`), loaded in lexicographic
//! order after `settings.hooks`. A drop-in that does not load is skipped with a warning: a
//! broken file one tool dropped there never stops a run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::ConfigError;
use crate::diagnostic::Diagnostics;
use crate::hooks::{HookSource, HooksConfig};
use crate::load::{Validator, parse};
use crate::permissions::Permissions;
use crate::raw::{RawHooks, RawPermissions};

/// The validated user config; `Default` when there is no file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserConfig {
    /// Where it was read from, if anywhere.
    pub path: Option<PathBuf>,
    /// `settings.snapshot`.
    pub snapshot: bool,
    /// `provider/model` for agents that name none.
    pub model: Option<String>,
    /// Global permissions, appended after each agent file's.
    pub permissions: Permissions,
    /// `settings.hooks`, then each drop-in's, in order: run after the agent file's hooks.
    pub hooks: HooksConfig,
    /// `settings.safety`: the mode for agents that set none.
    pub safety: Option<crate::agent::Safety>,
    /// `settings.hooks_sandbox`: the sandbox of command hooks that do not say.
    pub hooks_sandbox: crate::SandboxDefault,
    /// Drop-ins that were skipped, and why.
    pub warnings: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUserConfig {
    settings: Option<RawSettings>,
    model: Option<Spanned<String>>,
    permissions: Option<RawPermissions>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    snapshot: Option<bool>,
    safety: Option<Spanned<String>>,
    hooks: Option<RawHooks>,
    hooks_sandbox: Option<Spanned<serde_json::Value>>,
}

/// Where Tether keeps its data (sessions, logs, memories): `$TETHER_HOME`, else
/// `$XDG_DATA_HOME/tether`, else `~/.local/share/tether`.
pub fn data_dir() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("TETHER_HOME")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("tether")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/tether")))
        .unwrap_or_else(|| PathBuf::from(".tether"))
}

impl UserConfig {
    /// `$XDG_CONFIG_HOME/tether/config.yaml`, else `~/.config/tether/config.yaml`.
    pub fn default_path(xdg_config_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
        let base = xdg_config_home
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                home.filter(|h| !h.is_empty())
                    .map(|h| Path::new(h).join(".config"))
            })?;
        Some(base.join("tether").join("config.yaml"))
    }

    /// Reads the file if it exists, then the drop-ins of `hooks.d/` beside it.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let mut config = match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, path)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(e) => {
                return Err(ConfigError::Io {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
            }
        };
        let dir = path.parent().unwrap_or(Path::new(".")).join("hooks.d");
        config.load_drop_ins(&dir);
        Ok(config)
    }

    /// Appends the drop-ins of `dir` in lexicographic order; a broken one becomes a warning.
    pub fn load_drop_ins(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        files.sort();
        for file in files {
            match drop_in(&file) {
                Ok(hooks) => self.hooks.append(hooks),
                Err(e) => self.warnings.push(format!("hook drop-in skipped: {e}")),
            }
        }
    }

    /// Parses and validates user-config text.
    pub fn parse(source: &str, path: &Path) -> Result<Self, ConfigError> {
        let file: Arc<str> = Arc::from(path.display().to_string());
        let raw: Option<RawUserConfig> =
            parse(source, &file).map_err(|d| ConfigError::Invalid(Diagnostics(vec![*d])))?;
        let Some(raw) = raw else {
            return Ok(Self {
                path: Some(path.to_path_buf()),
                ..Self::default()
            });
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut v = Validator {
            file,
            source,
            dir,
            diags: Vec::new(),
            evaluators: Vec::new(),
            externals: Vec::new(),
            rag: Vec::new(),
        };
        let permissions = raw
            .permissions
            .map(|p| v.permissions(p))
            .unwrap_or_default();
        if let Some(m) = &raw.model {
            let ok = m
                .value
                .split_once('/')
                .is_some_and(|(p, n)| !p.is_empty() && !n.is_empty());
            if !ok {
                v.error_hint(
                    v.origin(&m.referenced, "model"),
                    format!("invalid model `{}`", m.value),
                    "write `provider/model`, e.g. `openai/gpt-4o-mini`",
                );
            }
        }
        let (snapshot, raw_hooks, raw_safety, raw_sandbox) =
            raw.settings.map_or((None, None, None, None), |s| {
                (s.snapshot, s.hooks, s.safety, s.hooks_sandbox)
            });
        let hooks_sandbox = match raw_sandbox {
            None => crate::SandboxDefault::Off,
            Some(s) => crate::sandbox::parse_default(&s.value).unwrap_or_else(|e| {
                v.error(v.origin(&s.referenced, "settings.hooks_sandbox"), e);
                crate::SandboxDefault::Off
            }),
        };
        let safety = raw_safety.and_then(|s| v.safety("settings.safety", &s));
        let mut hooks = raw_hooks
            .map(|h| v.hooks("settings.hooks", h))
            .unwrap_or_default();
        hooks.set_source(HookSource::User);
        if !v.diags.is_empty() {
            return Err(ConfigError::Invalid(Diagnostics(v.diags)));
        }
        Ok(Self {
            path: Some(path.to_path_buf()),
            snapshot: snapshot.unwrap_or(false),
            model: raw.model.map(|m| m.value),
            permissions,
            hooks,
            safety,
            hooks_sandbox,
            warnings: Vec::new(),
        })
    }
}

/// A drop-in written as `hooks: {...}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWrappedDropIn {
    hooks: RawHooks,
}

/// One drop-in file, validated like an agent's `hooks:` section.
fn drop_in(path: &Path) -> Result<HooksConfig, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: Arc<str> = Arc::from(path.display().to_string());
    // A hooks section, bare or under `hooks:` (not an event name, so never ambiguous).
    let shape: Option<serde_json::Value> = parse(&source, &file).map_err(|d| d.to_string())?;
    let wrapped = shape
        .as_ref()
        .and_then(serde_json::Value::as_object)
        .is_some_and(|m| m.contains_key("hooks"));
    let raw = if wrapped {
        parse::<RawWrappedDropIn>(&source, &file)
            .map_err(|d| d.to_string())?
            .hooks
    } else if shape.is_none() {
        return Ok(HooksConfig::default());
    } else {
        parse::<RawHooks>(&source, &file).map_err(|d| d.to_string())?
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut v = Validator {
        file,
        source: &source,
        dir,
        diags: Vec::new(),
        evaluators: Vec::new(),
        externals: Vec::new(),
        rag: Vec::new(),
    };
    let mut hooks = v.hooks("hooks", raw);
    if !v.diags.is_empty() {
        return Err(Diagnostics(v.diags).to_string());
    }
    hooks.set_source(HookSource::DropIn);
    Ok(hooks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<UserConfig, String> {
        UserConfig::parse(text, Path::new("config.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn settings_model_and_permissions() {
        let c = parse_str("settings:\n  snapshot: true\nmodel: openai/gpt-4o-mini\npermissions:\n  deny: [\"shell:cmd=*sudo*\"]\n").unwrap();
        assert!(c.snapshot);
        assert_eq!(c.model.as_deref(), Some("openai/gpt-4o-mini"));
        assert_eq!(c.permissions.deny[0].source, "shell:cmd=*sudo*");
        assert_eq!(
            parse_str("").unwrap(),
            UserConfig {
                path: Some("config.yaml".into()),
                ..UserConfig::default()
            }
        );
    }

    #[test]
    fn it_is_as_strict_as_agent_files() {
        let e = parse_str("settings:\n  snapshots: true\n").unwrap_err();
        assert!(
            e.starts_with("config.yaml:2:3: settings: unknown field `snapshots`"),
            "{e}"
        );
        assert!(e.contains("did you mean `snapshot`?"), "{e}");
        let e = parse_str("model: gpt-4o\n").unwrap_err();
        assert!(
            e.starts_with("config.yaml:1:8: model: invalid model `gpt-4o`"),
            "{e}"
        );
        let e = parse_str("permissions:\n  allow: [\"read_[\"]\n").unwrap_err();
        assert!(
            e.starts_with("config.yaml:2:11: permissions.allow[0]: invalid glob"),
            "{e}"
        );
    }

    #[test]
    fn the_default_path_follows_xdg() {
        assert_eq!(
            UserConfig::default_path(Some("/x"), Some("/h")),
            Some(PathBuf::from("/x/tether/config.yaml"))
        );
        assert_eq!(
            UserConfig::default_path(None, Some("/h")),
            Some(PathBuf::from("/h/.config/tether/config.yaml"))
        );
        assert_eq!(UserConfig::default_path(Some(""), None), None);
    }

    #[test]
    fn a_missing_file_is_the_default() {
        assert_eq!(
            UserConfig::load(Path::new("/nonexistent/config.yaml")).unwrap(),
            UserConfig::default()
        );
    }
}
