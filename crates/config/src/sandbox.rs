//! `sandbox:` of a command hook, and the user default `settings.hooks_sandbox`.

use serde_json::Value;

/// A command hook's sandbox as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HookSandbox {
    /// `sandbox: false`: the hook runs with Tether's rights.
    Off,
    /// `sandbox: true`, `best_effort` or a profile.
    On(SandboxProfile),
}

/// `settings.hooks_sandbox`: the sandbox of command hooks that do not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SandboxDefault {
    /// No sandbox unless the hook asks (the default).
    #[default]
    Off,
    /// The default profile, required.
    On,
    /// The default profile, as far as the kernel offers it.
    BestEffort,
}

impl SandboxDefault {
    pub const NAMES: [&'static str; 3] = ["true", "best_effort", "false"];

    /// The sandbox a command hook without `sandbox:` gets.
    pub fn hook_sandbox(self) -> HookSandbox {
        match self {
            Self::Off => HookSandbox::Off,
            Self::On => HookSandbox::On(SandboxProfile::default()),
            Self::BestEffort => HookSandbox::On(SandboxProfile {
                best_effort: true,
                ..SandboxProfile::default()
            }),
        }
    }
}

/// Network access of a sandboxed hook.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum SandboxNetwork {
    #[default]
    Off,
    On,
    /// TCP to these ports (written `*:PORT`).
    TcpPorts(Vec<u16>),
}

/// The sandbox profile: the default one, extended by what the hook lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SandboxProfile {
    /// Run with what the kernel offers instead of failing.
    pub best_effort: bool,
    /// More paths nothing may read below (`~/` is the home directory; relative paths join
    /// the hook's working directory).
    pub deny_read: Vec<String>,
    /// Paths the hook may write, besides its temporary directory.
    pub write: Vec<String>,
    pub network: SandboxNetwork,
    pub cpu_seconds: Option<u64>,
    pub address_space_mb: Option<u64>,
    pub open_files: Option<u64>,
    pub processes: Option<u64>,
}

impl SandboxProfile {
    /// One line for listings: `default profile`, or what differs from it
    /// (`best_effort; write ./logs; network *:443`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.best_effort {
            parts.push("best_effort".to_owned());
        }
        if !self.write.is_empty() {
            parts.push(format!("write {}", self.write.join(", ")));
        }
        if !self.deny_read.is_empty() {
            parts.push(format!("deny_read {}", self.deny_read.join(", ")));
        }
        match &self.network {
            SandboxNetwork::Off => {}
            SandboxNetwork::On => parts.push("network on".to_owned()),
            SandboxNetwork::TcpPorts(ports) => {
                let ports: Vec<String> = ports.iter().map(|p| format!("*:{p}")).collect();
                parts.push(format!("network {}", ports.join(", ")));
            }
        }
        for (key, value) in [
            ("cpu_seconds", self.cpu_seconds),
            ("address_space_mb", self.address_space_mb),
            ("open_files", self.open_files),
            ("processes", self.processes),
        ] {
            if let Some(v) = value {
                parts.push(format!("{key} {v}"));
            }
        }
        if parts.is_empty() {
            "default profile".to_owned()
        } else {
            parts.join("; ")
        }
    }
}

/// The keys of a profile map.
pub const PROFILE_KEYS: [&str; 8] = [
    "write",
    "deny_read",
    "network",
    "best_effort",
    "cpu_seconds",
    "address_space_mb",
    "open_files",
    "processes",
];

/// `settings.hooks_sandbox`: `true`, `best_effort` or `false`.
pub(crate) fn parse_default(value: &Value) -> Result<SandboxDefault, String> {
    match value {
        Value::Bool(true) => Ok(SandboxDefault::On),
        Value::Bool(false) => Ok(SandboxDefault::Off),
        Value::String(s) if s == "best_effort" => Ok(SandboxDefault::BestEffort),
        other => Err(format!(
            "hooks_sandbox must be `true`, `best_effort` or `false`, not `{other}`"
        )),
    }
}

/// A hook's `sandbox:` value.
pub(crate) fn parse(value: &Value) -> Result<HookSandbox, String> {
    match value {
        Value::Bool(false) => Ok(HookSandbox::Off),
        Value::Bool(true) => Ok(HookSandbox::On(SandboxProfile::default())),
        Value::String(s) if s == "best_effort" => Ok(HookSandbox::On(SandboxProfile {
            best_effort: true,
            ..SandboxProfile::default()
        })),
        Value::Object(map) => {
            let mut p = SandboxProfile::default();
            for (key, v) in map {
                match key.as_str() {
                    "write" => p.write = paths(key, v)?,
                    "deny_read" => p.deny_read = paths(key, v)?,
                    "network" => p.network = network(v)?,
                    "best_effort" => {
                        p.best_effort = v
                            .as_bool()
                            .ok_or("sandbox.best_effort must be true or false")?;
                    }
                    "cpu_seconds" => p.cpu_seconds = Some(count(key, v)?),
                    "address_space_mb" => p.address_space_mb = Some(count(key, v)?),
                    "open_files" => p.open_files = Some(count(key, v)?),
                    "processes" => p.processes = Some(count(key, v)?),
                    other => {
                        return Err(format!(
                            "unknown sandbox key `{other}` (known: {})",
                            PROFILE_KEYS.join(", ")
                        ));
                    }
                }
            }
            Ok(HookSandbox::On(p))
        }
        other => Err(format!(
            "sandbox must be `true`, `best_effort`, `false` or a map ({}), not `{other}`",
            PROFILE_KEYS.join(", ")
        )),
    }
}

fn paths(key: &str, v: &Value) -> Result<Vec<String>, String> {
    let list = v
        .as_array()
        .ok_or_else(|| format!("sandbox.{key} must be a list of paths"))?;
    list.iter()
        .map(|p| match p.as_str() {
            Some(s) if !s.trim().is_empty() && !s.contains('\0') => Ok(s.to_owned()),
            _ => Err(format!("sandbox.{key}: `{p}` is not a path")),
        })
        .collect()
}

fn count(key: &str, v: &Value) -> Result<u64, String> {
    v.as_u64()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("sandbox.{key} must be a whole number above 0, not `{v}`"))
}

fn network(v: &Value) -> Result<SandboxNetwork, String> {
    match v {
        Value::Bool(true) => Ok(SandboxNetwork::On),
        Value::Bool(false) => Ok(SandboxNetwork::Off),
        Value::Array(list) => list
            .iter()
            .map(|item| {
                let text = item.as_str().unwrap_or_default();
                let (host, port) = text.rsplit_once(':').ok_or_else(|| {
                    format!("sandbox.network: `{item}` is not `HOST:PORT`")
                })?;
                let port = port
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| format!("sandbox.network: `{text}` has no valid port"))?;
                if host != "*" {
                    return Err(format!(
                        "sandbox.network: a host (`{host}` in `{text}`) is not supported yet: the sandbox filters TCP by port (Landlock); write `*:{port}`"
                    ));
                }
                Ok(port)
            })
            .collect::<Result<Vec<u16>, String>>()
            .map(SandboxNetwork::TcpPorts),
        other => Err(format!(
            "sandbox.network must be `true`, `false` or a list of `*:PORT`, not `{other}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_forms_of_sandbox_parse_and_bad_ones_say_why() {
        assert_eq!(parse(&json!(false)).unwrap(), HookSandbox::Off);
        assert_eq!(
            parse(&json!(true)).unwrap(),
            HookSandbox::On(SandboxProfile::default())
        );
        let HookSandbox::On(p) = parse(&json!("best_effort")).unwrap() else {
            panic!()
        };
        assert!(p.best_effort);
        assert_eq!(p.describe(), "best_effort");
        let HookSandbox::On(p) =
            parse(&json!({"write": ["./logs"], "network": ["*:443"], "processes": 4})).unwrap()
        else {
            panic!()
        };
        assert_eq!(p.write, ["./logs"]);
        assert_eq!(p.network, SandboxNetwork::TcpPorts(vec![443]));
        assert_eq!(p.processes, Some(4));
        assert_eq!(p.describe(), "write ./logs; network *:443; processes 4");
        assert_eq!(SandboxProfile::default().describe(), "default profile");
        let err = |v: Value| parse(&v).unwrap_err();
        assert!(err(json!({"Write": []})).contains("unknown sandbox key `Write`"));
        assert!(err(json!({"network": ["example.com:443"]})).contains("is not supported yet"));
        assert!(err(json!({"network": ["*:0"]})).contains("no valid port"));
        assert!(err(json!({"processes": 0})).contains("above 0"));
        assert!(err(json!("yes")).contains("sandbox must be"));
        assert_eq!(
            parse_default(&json!("best_effort")).unwrap(),
            SandboxDefault::BestEffort
        );
        assert!(parse_default(&json!("on")).is_err());
    }

    #[test]
    fn sandbox_is_for_command_hooks_and_its_errors_point_at_the_field() {
        let load = |hook: &str| {
            let yaml = format!("agents:\n  root:\n    hooks:\n      stop:\n        - {hook}\n");
            crate::load::load_str(&yaml, "a.yaml", std::path::Path::new("."))
        };
        let file = load("{type: command, command: x, sandbox: {write: [./logs]}}").unwrap();
        let (_, _, spec) = file.agents[0].hooks.iter().next().unwrap();
        let Some(HookSandbox::On(p)) = &spec.sandbox else {
            panic!("{spec:?}")
        };
        assert_eq!(p.write, ["./logs"]);
        let e = load("{type: builtin, command: add_date, sandbox: true}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("only applies to `type: command` hooks"), "{e}");
        let e = load("{type: command, command: x, sandbox: {network: [\"a.com:80\"]}}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a.yaml:5:") && e.contains("not supported yet"),
            "{e}"
        );
        let user = |text: &str| crate::UserConfig::parse(text, std::path::Path::new("c.yaml"));
        assert_eq!(
            user("settings:\n  hooks_sandbox: best_effort\n")
                .unwrap()
                .hooks_sandbox,
            SandboxDefault::BestEffort
        );
        let e = user("settings:\n  hooks_sandbox: maybe\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("c.yaml:2:") && e.contains("hooks_sandbox must be"),
            "{e}"
        );
    }
}
