//! `type: mcp` toolsets and the top-level `mcps:` section (docker-agent's MCP schema).
//!
//! A toolset names its server one of three ways: `command` (a stdio child), `remote` (an HTTP
//! endpoint) or `ref` (`docker:NAME`, run through the Docker MCP Gateway, or the name of a
//! `mcps:` entry, whose fields fill the ones the toolset leaves empty). Everything here is
//! checked at load; `${env.NAME}` references are only syntax-checked, and expanded when the
//! server starts, so `tether hooks check` needs none of the variables. The types are here;
//! their validation is in `load.rs`.

mod load;

pub(crate) use load::{McpDef, check_references};

use std::time::Duration;

/// One MCP server of an agent.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServer {
    /// The toolset's `name`, else the `ref` name (the `mcps:` key or the Docker catalog
    /// name); `None` leaves it to the name the server reports. It is `SERVER` in
    /// `mcp:SERVER:TOOL`.
    pub label: Option<String>,
    pub transport: McpTransport,
    pub lifecycle: Lifecycle,
}

/// How to reach the server. Text may hold `${env.NAME}` (also `${NAME}`, `$NAME` in `env`
/// and `working_dir`), expanded when the server starts.
#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        /// Relative to the run's working directory.
        working_dir: Option<String>,
        /// docker-agent's auto-install package (`owner/repo[@version]`); named in the error
        /// when `command` is missing. `"false"`/`"off"` say not to install.
        version: Option<String>,
    },
    /// An HTTP endpoint.
    Remote {
        url: String,
        transport: RemoteTransport,
        /// In file order.
        headers: Vec<(String, String)>,
    },
    /// `ref: docker:SERVER`: `docker mcp gateway run --servers SERVER`.
    Gateway {
        server: String,
        /// The server's configuration, written to the gateway's `--config` file.
        config: Option<serde_json::Value>,
        /// Secrets and variables for the server.
        env: Vec<(String, String)>,
        working_dir: Option<String>,
    },
}

impl McpTransport {
    /// `stdio`, `streamable`, `sse` or `docker`.
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Remote { transport, .. } => transport.as_str(),
            Self::Gateway { .. } => "docker",
        }
    }
}

/// `remote.transport_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteTransport {
    /// Streamable HTTP (`streamable`, `streamable-http`; the default).
    Streamable,
    /// The legacy HTTP+SSE transport (`sse`).
    Sse,
}

impl RemoteTransport {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Streamable => "streamable",
            Self::Sse => "sse",
        }
    }
}

/// `lifecycle:`: how the server is supervised.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifecycle {
    pub profile: LifecycleProfile,
    /// The run does not start when the server cannot.
    pub required: bool,
    /// Cap on connect + initialize; `None` = none.
    pub startup_timeout: Option<Duration>,
    /// Cap on one tool call; `None` = none.
    pub call_timeout: Option<Duration>,
    pub restart: Restart,
    /// Consecutive failed restarts before the server is given up; `None` = unlimited.
    pub max_restarts: Option<u32>,
    pub backoff: Backoff,
}

/// The startup timeout when `lifecycle.startup_timeout` is not set (an `npx` server may
/// download itself on first start).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for Lifecycle {
    fn default() -> Self {
        Self::for_profile(LifecycleProfile::Resilient)
    }
}

impl Lifecycle {
    /// The profile's presets.
    pub fn for_profile(profile: LifecycleProfile) -> Self {
        let (restart, required, max_restarts) = match profile {
            LifecycleProfile::Resilient => (Restart::OnFailure, false, Some(5)),
            LifecycleProfile::Strict => (Restart::Never, true, Some(0)),
            LifecycleProfile::BestEffort => (Restart::Never, false, Some(0)),
        };
        Self {
            profile,
            required,
            startup_timeout: Some(DEFAULT_STARTUP_TIMEOUT),
            call_timeout: None,
            restart,
            max_restarts,
            backoff: Backoff::default(),
        }
    }
}

/// `lifecycle.profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifecycleProfile {
    /// Restart on failure with backoff; the run goes on without the server meanwhile.
    Resilient,
    /// Required, never restarted.
    Strict,
    /// One attempt, never restarted.
    BestEffort,
}

impl LifecycleProfile {
    pub const NAMES: [&'static str; 3] = ["resilient", "strict", "best-effort"];

    fn parse(s: &str) -> Option<Self> {
        match s {
            "resilient" => Some(Self::Resilient),
            "strict" => Some(Self::Strict),
            "best-effort" => Some(Self::BestEffort),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Resilient => "resilient",
            Self::Strict => "strict",
            Self::BestEffort => "best-effort",
        }
    }
}

/// `lifecycle.restart`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    Never,
    /// After the server died or the connection broke (remote servers: also after a clean
    /// close, as docker-agent does).
    OnFailure,
    /// Also after the server exited cleanly.
    Always,
}

impl Restart {
    pub const NAMES: [&'static str; 3] = ["never", "on_failure", "always"];

    fn parse(s: &str) -> Option<Self> {
        match s {
            "never" => Some(Self::Never),
            "on_failure" => Some(Self::OnFailure),
            "always" => Some(Self::Always),
            _ => None,
        }
    }
}

/// Waits between restart attempts: `initial × multiplier^n`, capped at `max`, ± `jitter`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
    pub multiplier: f64,
    /// Fraction (0..1) of the delay applied as a random offset.
    pub jitter: f64,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(32),
            multiplier: 2.0,
            jitter: 0.0,
        }
    }
}

impl Backoff {
    /// The wait before attempt `n` (0-based), without jitter.
    pub fn delay(&self, n: u32) -> Duration {
        let factor = self
            .multiplier
            .max(0.0)
            .powi(i32::try_from(n).unwrap_or(i32::MAX));
        let secs = self.initial.as_secs_f64() * factor;
        if !secs.is_finite() || secs >= self.max.as_secs_f64() {
            self.max
        } else {
            Duration::from_secs_f64(secs)
        }
    }
}

/// Parses a Go duration (`300ms`, `1.5s`, `2m`, `1h30m`); a bare `0` is zero.
pub fn parse_go_duration(text: &str) -> Result<Duration, String> {
    let s = text.trim();
    let bad = || format!("invalid duration `{text}` (write e.g. `500ms`, `30s`, `2m`, `1h30m`)");
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    if s.is_empty() || s.starts_with('-') {
        return Err(bad());
    }
    let mut total = 0.0_f64;
    let mut rest = s.strip_prefix('+').unwrap_or(s);
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let number: f64 = rest[..num_len].parse().map_err(|_| bad())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}
