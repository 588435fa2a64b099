//! One supervised server: started when first needed, restarted by its `lifecycle`, stopped
//! with the session.
//!
//! The connection lives behind a tokio mutex that is held only to start, restart or look at
//! it; calls clone the peer out and run without it, so one slow call never holds up another.
//! A server that dies is noticed on the next call (or listing): that call restarts it, at
//! once the first time and after the backoff for each further attempt, until `max_restarts`
//! failures in a row. The session goes on meanwhile; calls get an error result saying why.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rmcp::Peer;
use rmcp::service::RoleClient;
use serde_json::{Map, Value};
use tether_config::{McpServer as ServerConfig, McpTransport, Restart};
use tether_exec::StderrLog;
use tether_tools::{Tool, ToolContext, ToolResult};
use tokio::sync::Mutex;

use crate::Lookup;
use crate::connect::{ConnectContext, Connection, connect};
use crate::handler::{Handler, Shared};
use crate::host::{McpEvent, McpHost};
use crate::tool::McpTool;

mod call;

/// How long a stopping server gets to exit by itself before its group is signalled.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// Cap on a server's stderr log file.
const STDERR_LOG_CAP: u64 = 10 * 1024 * 1024;

/// What the servers of a run share.
#[derive(Clone)]
pub struct McpContext {
    /// Relative commands and `working_dir`s resolve here.
    pub working_dir: PathBuf,
    /// Each server's stderr and log messages go to `<log_dir>/mcp-<name>.log`.
    pub log_dir: Option<PathBuf>,
    /// Where the Docker MCP catalog is cached.
    pub cache_dir: Option<PathBuf>,
    pub host: Arc<dyn McpHost>,
    /// Variables for `${env.NAME}`.
    pub lookup: Arc<dyn Lookup>,
}

impl std::fmt::Debug for McpContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpContext")
            .field("working_dir", &self.working_dir)
            .field("log_dir", &self.log_dir)
            .field("cache_dir", &self.cache_dir)
            .field("host", &self.host)
            .finish_non_exhaustive()
    }
}

/// How the server is doing (for `tether mcp list` and notices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    NotStarted,
    Ready,
    /// Down: `retrying` says whether a later call will try again.
    Down {
        reason: String,
        retrying: bool,
    },
    Stopped,
}

#[derive(Debug)]
enum State {
    Idle,
    Ready(Box<Connection>),
    Down {
        reason: String,
        /// Failed restarts in a row.
        failures: u32,
        /// Not before this.
        next_try: Instant,
        /// The server exited with status 0 (not restarted under `on_failure`).
        clean: bool,
    },
    Stopped,
}

/// The part tools hold on to (no cycle: it does not hold the tools).
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) cfg: ServerConfig,
    ctx: McpContext,
    pub(crate) shared: Arc<Shared>,
    state: Mutex<State>,
    /// The name the file system sees (log file), fixed before the server first answers.
    file_name: String,
    /// The server's own instructions (from `initialize`).
    instructions: RwLock<Option<String>>,
    pub(crate) call_timeout: Option<Duration>,
}

/// One MCP server and its current tools.
#[derive(Debug)]
pub struct McpServer {
    core: Arc<Core>,
    /// Model-visible name prefix (`NAME_`).
    prefix: Option<String>,
    tools: RwLock<Arc<[Arc<dyn Tool>]>>,
    generation: AtomicU64,
}

/// A short name for logs before the server names itself: its `name`, else its program or host.
fn provisional_name(cfg: &ServerConfig) -> String {
    if let Some(l) = &cfg.label {
        return l.clone();
    }
    match &cfg.transport {
        McpTransport::Stdio { command, args, .. } => {
            let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_owned();
            // `npx -y @scope/pkg` and `uvx pkg` are better known by the package.
            match (
                base(command).as_str(),
                args.iter().find(|a| !a.starts_with('-')),
            ) {
                ("npx" | "uvx" | "bunx" | "pnpx", Some(pkg)) => base(pkg),
                (cmd, _) => cmd.to_owned(),
            }
        }
        McpTransport::Remote { url, .. } => url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split(['/', ':', '?']).next())
            .unwrap_or("remote")
            .to_owned(),
        McpTransport::Gateway { server, .. } => server.clone(),
    }
}

fn safe_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl McpServer {
    /// A server that starts on first use. `prefix` is the toolset's `name`.
    pub fn new(cfg: ServerConfig, prefix: Option<String>, ctx: McpContext) -> Self {
        let name = provisional_name(&cfg);
        let file_name = safe_file_name(&name);
        let log = ctx
            .log_dir
            .as_ref()
            .map(|d| d.join(format!("mcp-{file_name}.log")));
        let shared = Arc::new(Shared::new(name, Arc::clone(&ctx.host), log));
        let call_timeout = cfg.lifecycle.call_timeout;
        Self {
            core: Arc::new(Core {
                cfg,
                ctx,
                shared,
                state: Mutex::new(State::Idle),
                file_name,
                instructions: RwLock::new(None),
                call_timeout,
            }),
            prefix,
            tools: RwLock::new(Arc::from(Vec::new())),
            generation: AtomicU64::new(0),
        }
    }

    /// `SERVER` in `mcp:SERVER:TOOL`: the configured name, else the one the server reported.
    pub fn name(&self) -> String {
        self.core.shared.name()
    }

    pub fn config(&self) -> &ServerConfig {
        &self.core.cfg
    }

    /// The server's log file, if logs are kept.
    pub fn log_file(&self) -> Option<PathBuf> {
        self.core.shared.log.clone()
    }

    /// Starts the server if it is not running and lists its tools. Safe to call again.
    pub async fn start(&self) -> Result<(), String> {
        let started = self.core.peer().await?;
        if started.fresh {
            self.list(&started.peer).await?;
        }
        Ok(())
    }

    /// The tools as the model sees them now.
    pub fn tools(&self) -> Arc<[Arc<dyn Tool>]> {
        Arc::clone(&self.tools.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Bumped whenever [`Self::tools`] changes.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the server said its tools changed since they were last listed.
    pub fn tools_changed(&self) -> bool {
        self.core.shared.tools_changed.load(Ordering::Acquire)
    }

    /// Lists the tools again if the server said they changed (or it was restarted).
    pub async fn refresh(&self) -> Result<(), String> {
        if !self.tools_changed() {
            return Ok(());
        }
        let started = self.core.peer().await?;
        self.list(&started.peer).await
    }

    /// The server's own instructions, from `initialize`.
    pub fn instructions(&self) -> Option<String> {
        self.core
            .instructions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub async fn status(&self) -> Status {
        self.core.status().await
    }

    /// Calls a tool by its raw MCP name (for `type: mcp` hooks and `tether mcp call`).
    pub async fn call(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        ctx: ToolContext<'_>,
    ) -> ToolResult {
        self.core.call(tool, args, ctx).await
    }

    /// Stops the server (and everything it started). Calls after this fail.
    pub async fn stop(&self) {
        let state = std::mem::replace(&mut *self.core.state.lock().await, State::Stopped);
        if let State::Ready(conn) = state {
            conn.close(STOP_GRACE).await;
        }
    }

    async fn list(&self, peer: &Peer<RoleClient>) -> Result<(), String> {
        self.core
            .shared
            .tools_changed
            .store(false, Ordering::Release);
        let listed = peer.list_all_tools().await.map_err(|e| {
            format!(
                "MCP server `{}`: listing its tools failed: {e}",
                self.name()
            )
        })?;
        let server = self.name();
        let tools: Vec<Arc<dyn Tool>> = listed
            .into_iter()
            .map(|t| {
                Arc::new(McpTool::new(
                    Arc::clone(&self.core),
                    &server,
                    self.prefix.as_deref(),
                    t,
                )) as Arc<dyn Tool>
            })
            .collect();
        let count = tools.len();
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = Arc::from(tools);
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.core.shared.host.event(McpEvent::Ready {
            server,
            tools: count,
        });
        Ok(())
    }
}

/// A peer to send to, and whether it was just (re)started.
struct Started {
    peer: Peer<RoleClient>,
    fresh: bool,
}

impl Core {
    async fn status(&self) -> Status {
        let mut state = self.state.lock().await;
        if let State::Ready(conn) = &mut *state
            && !conn.is_alive()
        {
            let reason = conn.death().await;
            return Status::Down {
                reason,
                retrying: self.cfg.lifecycle.restart != Restart::Never,
            };
        }
        match &*state {
            State::Idle => Status::NotStarted,
            State::Ready(_) => Status::Ready,
            State::Down {
                reason,
                failures,
                clean,
                ..
            } => Status::Down {
                reason: reason.clone(),
                retrying: self.may_restart(*failures, *clean),
            },
            State::Stopped => Status::Stopped,
        }
    }

    fn may_restart(&self, failures: u32, clean: bool) -> bool {
        let l = &self.cfg.lifecycle;
        let remote = matches!(self.cfg.transport, McpTransport::Remote { .. });
        let policy_allows = match l.restart {
            Restart::Never => false,
            Restart::Always => true,
            // Remote servers close idle connections: reconnect then too (docker-agent).
            Restart::OnFailure => !clean || remote,
        };
        policy_allows && l.max_restarts.is_none_or(|max| failures < max)
    }

    /// The live peer, starting or restarting the server as its lifecycle allows.
    async fn peer(&self) -> Result<Started, String> {
        let mut state = self.state.lock().await;
        if let State::Ready(conn) = &mut *state {
            if conn.is_alive() {
                return Ok(Started {
                    peer: conn.service.peer().clone(),
                    fresh: false,
                });
            }
            let reason = conn.death().await;
            let clean = conn
                .child
                .as_mut()
                .and_then(tether_exec::Service::try_exit)
                .is_some_and(|s| s.success());
            if let State::Ready(conn) = std::mem::replace(
                &mut *state,
                State::Down {
                    reason: reason.clone(),
                    failures: 0,
                    next_try: Instant::now(),
                    clean,
                },
            ) {
                conn.close(Duration::from_millis(200)).await;
            }
            self.shared.host.event(McpEvent::Failed {
                server: self.shared.name(),
                reason,
            });
        }
        let restart = match &*state {
            // A live connection returned above; a dead one is `Down` by now.
            State::Ready(_) | State::Idle => 0,
            State::Stopped => {
                return Err(format!("MCP server `{}` was stopped", self.shared.name()));
            }
            State::Down {
                reason,
                failures,
                next_try,
                clean,
            } => {
                let name = self.shared.name();
                if !self.may_restart(*failures, *clean) {
                    let why = if *failures > 0 {
                        format!("it was not restarted after {failures} failed attempts")
                    } else if self.cfg.lifecycle.restart == Restart::Never {
                        "it is not restarted (lifecycle: restart never)".to_owned()
                    } else {
                        "it exited cleanly and is not restarted (lifecycle: restart on_failure)"
                            .to_owned()
                    };
                    return Err(format!(
                        "MCP server `{name}` is unavailable: {reason}; {why}"
                    ));
                }
                let now = Instant::now();
                if *next_try > now {
                    let wait = next_try.duration_since(now).as_secs_f64().ceil();
                    return Err(format!(
                        "MCP server `{name}` is unavailable: {reason}; the next restart attempt is in {wait:.0}s"
                    ));
                }
                failures + 1
            }
        };
        self.shared.host.event(McpEvent::Starting {
            server: self.shared.name(),
            restart,
        });
        match self.connect().await {
            Ok(conn) => {
                let peer = conn.service.peer().clone();
                self.adopt(&peer);
                *state = State::Ready(Box::new(conn));
                Ok(Started { peer, fresh: true })
            }
            Err(reason) => {
                let failures = restart;
                let delay = if failures == 0 {
                    Duration::ZERO
                } else {
                    jittered(
                        self.cfg.lifecycle.backoff.delay(failures - 1),
                        self.cfg.lifecycle.backoff.jitter,
                    )
                };
                let message = format!(
                    "MCP server `{}` could not start: {reason}",
                    self.shared.name()
                );
                self.shared.host.event(McpEvent::Failed {
                    server: self.shared.name(),
                    reason: reason.clone(),
                });
                *state = State::Down {
                    reason,
                    failures: failures.max(1),
                    next_try: Instant::now() + delay,
                    clean: false,
                };
                Err(message)
            }
        }
    }

    async fn connect(&self) -> Result<Connection, String> {
        if let Some(dir) = self.shared.log.as_deref().and_then(std::path::Path::parent) {
            // The log is written 0600 (with its directory) either way; this also tightens the
            // directories above it under `$TETHER_HOME` that an older Tether left wide.
            let _ = tether_exec::private::create_dir(&tether_config::data_dir(), dir);
        }
        let handler = Handler {
            shared: Arc::clone(&self.shared),
        };
        let ctx = ConnectContext {
            working_dir: &self.ctx.working_dir,
            lookup: &*self.ctx.lookup,
            stderr: StderrLog {
                path: self.shared.log.clone(),
                cap: STDERR_LOG_CAP,
                header: format!("mcp server {}", self.file_name),
            },
            handler,
            cache_dir: self.ctx.cache_dir.as_deref(),
        };
        let attempt = connect(&self.cfg.transport, ctx);
        match self.cfg.lifecycle.startup_timeout {
            Some(limit) => tokio::time::timeout(limit, attempt)
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no answer to `initialize` within {}s (lifecycle.startup_timeout)",
                        limit.as_secs_f64()
                    ))
                }),
            None => attempt.await,
        }
    }

    /// Takes what the server told us in `initialize`: its name (unless configured) and
    /// instructions.
    fn adopt(&self, peer: &Peer<RoleClient>) {
        let Some(info) = peer.peer_info() else { return };
        if self.cfg.label.is_none()
            && let Some(reported) = info
                .server_info
                .as_ref()
                .map(|s| s.name.trim())
                .filter(|n| !n.is_empty())
        {
            *self
                .shared
                .name
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = reported.to_owned();
        }
        *self
            .instructions
            .write()
            .unwrap_or_else(PoisonError::into_inner) =
            info.instructions.clone().filter(|i| !i.trim().is_empty());
        // A (re)started server's tools are listed again before they are used.
        self.shared.tools_changed.store(true, Ordering::Release);
    }
}

/// `delay` moved by up to `jitter` of itself, either way.
fn jittered(delay: Duration, jitter: f64) -> Duration {
    if jitter <= 0.0 {
        return delay;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // A cheap uniform sample in [-1, 1]: enough to spread restarts.
    let unit = f64::from(nanos % 2001) / 1000.0 - 1.0;
    let factor = (1.0 + jitter * unit).max(0.0);
    Duration::from_secs_f64(delay.as_secs_f64() * factor)
}
