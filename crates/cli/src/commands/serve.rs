//! `tether serve api|mcp|a2a|chat|acp`: agents served to other programs. The runtimes are
//! built exactly as `tether run` builds them (user config, `hooks.d`, flags, the session
//! store), so every hook and rule applies; `tether-serve` speaks the protocols.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tether_config::{AgentFile, Safety, UserConfig};
use tether_core::{Runtime, build_runtime};
use tether_providers::ProcessEnv;
use tether_serve::{BuildSpec, Catalog, Factory, Hub, Listen};
use tokio_util::sync::CancellationToken;

use crate::args::{
    ServeA2aArgs, ServeAcpArgs, ServeApiArgs, ServeChatArgs, ServeCommand, ServeCommon,
    ServeMcpArgs,
};
use crate::common::{self, user_error};
use crate::status;

pub(crate) async fn run(cmd: ServeCommand) -> anyhow::Result<u8> {
    match cmd {
        ServeCommand::Api(args) => api(args).await,
        ServeCommand::Mcp(args) => mcp(args).await,
        ServeCommand::A2a(args) => a2a(args).await,
        ServeCommand::Chat(args) => chat(args).await,
        ServeCommand::Acp(args) => acp(args).await,
    }
}

/// Builds runtimes for a server as `tether run` would.
#[derive(Debug)]
struct CliFactory {
    user: UserConfig,
    common: ServeCommon,
    working_dir: PathBuf,
    store: Option<Arc<tether_store::Store>>,
    safety: Option<Safety>,
    /// Nobody answers past `max_iterations` (mcp, a2a, chat).
    non_interactive: bool,
}

impl Factory for CliFactory {
    fn load(&self, path: &Path) -> Result<AgentFile, String> {
        let file = common::load(path).map_err(|e| format!("{e:#}"))?;
        // Nobody to ask: untrusted command hooks keep the server from starting.
        crate::trust::check(
            path,
            &file,
            &self.working_dir,
            &self.user,
            self.common.trust_hooks,
            crate::trust::Gate::Refuse,
        )
        .map_err(|e| format!("{e:#}"))?;
        Ok(file)
    }

    fn build(&self, file: &AgentFile, spec: BuildSpec) -> Result<Runtime, String> {
        let mut opts = super::run::options(
            &self.user,
            spec.working_dir
                .clone()
                .unwrap_or_else(|| self.working_dir.clone()),
            &self.common.hooks,
            &self.common.model,
            self.common.hook_log.as_deref(),
        )
        .map_err(|e| format!("{e:#}"))?;
        opts.store = self
            .store
            .clone()
            .map(|s| -> Arc<dyn tether_core::SessionStore> { s });
        opts.default_safety = self.safety.or(opts.default_safety);
        opts.non_interactive = self.non_interactive;
        opts.mcp_log_dir = Some(
            common::tether_home()
                .join("logs")
                .join(format!("serve-{}", std::process::id())),
        );
        let registry = common::registry(Some(file));
        let runtime = build_runtime(
            file,
            &spec.agent,
            Arc::new(registry),
            &ProcessEnv,
            opts,
            spec.sink,
            spec.interaction,
        )
        .map_err(|e| e.to_string())?;
        for w in runtime.warnings() {
            crate::out::warning(w);
        }
        Ok(runtime)
    }

    fn store(&self) -> Option<Arc<tether_store::Store>> {
        self.store.clone()
    }
}

/// How a mode runs when nobody says otherwise.
struct Mode {
    /// `tether serve chat`, for messages.
    name: &'static str,
    /// The safety of agents that set none, unless `--safety` says.
    safety: Option<Safety>,
    non_interactive: bool,
}

/// The hub for `source` (an agent file or a directory of them).
fn hub(source: &Path, common: &ServeCommon, mode: &Mode) -> anyhow::Result<Arc<Hub>> {
    let user = common::user_config()?;
    let safety = match &common.safety {
        Some(s) => Some(Safety::parse(s).ok_or_else(|| {
            user_error(format!(
                "invalid `--safety {s}`: use one of {}",
                Safety::NAMES.join(", ")
            ))
        })?),
        None => mode.safety,
    };
    let store = open_store(common.session_db.as_deref())?;
    let factory = Arc::new(CliFactory {
        user,
        common: common.clone(),
        working_dir: super::run::working_dir(common.working_dir.as_ref())?,
        store: Some(store),
        safety,
        non_interactive: mode.non_interactive,
    });
    let catalog = Catalog::load(source, factory.as_ref()).map_err(user_error)?;
    for w in &catalog.warnings {
        crate::out::warning(w);
    }
    if catalog.entries().is_empty() && !source.is_dir() {
        return Err(user_error(format!(
            "{}: no agent file in `{}`",
            mode.name,
            source.display()
        )));
    }
    Ok(Hub::new(catalog, factory))
}

/// `--session-db PATH|URL`.
fn open_store(db: Option<&str>) -> anyhow::Result<Arc<tether_store::Store>> {
    common::open_store(db.map(Path::new))
}

fn listen(addr: &str) -> anyhow::Result<Listen> {
    addr.parse().map_err(user_error)
}

/// Stops on SIGINT/SIGTERM, then stops every runtime's MCP servers.
async fn serving(
    hub: &Arc<Hub>,
    serve: impl std::future::Future<Output = Result<(), String>>,
) -> anyhow::Result<u8> {
    let result = serve.await;
    hub.shutdown().await;
    result.map_err(|e| anyhow::anyhow!(e))?;
    Ok(status::OK)
}

fn announce(mode: &'static str) -> impl FnOnce(&str) + Send {
    move |addr: &str| {
        let url = if addr.starts_with("unix://") {
            addr.to_owned()
        } else {
            format!("http://{addr}")
        };
        crate::out::note(&format!("{mode}: listening on {url}"));
    }
}

fn shutdown() -> CancellationToken {
    let token = CancellationToken::new();
    tether_serve::shutdown_signal(token.clone());
    token
}

async fn api(args: ServeApiArgs) -> anyhow::Result<u8> {
    let mode = Mode {
        name: "tether serve api",
        safety: None,
        non_interactive: false,
    };
    let hub = hub(&args.agents, &args.common, &mode)?;
    let opts = tether_serve::api::ApiOptions {
        listen: listen(&args.listen)?,
    };
    let stop = shutdown();
    let serve = tether_serve::api::serve(Arc::clone(&hub), opts, stop, announce(mode.name));
    serving(&hub, serve).await
}

async fn mcp(args: ServeMcpArgs) -> anyhow::Result<u8> {
    // Over stdio the client is the user's own assistant; over HTTP anyone who reaches it.
    let mode = Mode {
        name: "tether serve mcp",
        safety: Some(if args.http {
            Safety::Restricted
        } else {
            Safety::Autonomous
        }),
        non_interactive: true,
    };
    let hub = hub(&args.agent_file, &args.common, &mode)?;
    let opts = tether_serve::mcp::McpOptions {
        agent: args.agent,
        http: if args.http {
            Some(listen(&args.listen)?)
        } else {
            None
        },
        auth_token: args.auth_token.filter(|t| !t.is_empty()),
    };
    let stop = shutdown();
    let serve = tether_serve::mcp::serve(Arc::clone(&hub), opts, stop, announce(mode.name));
    serving(&hub, serve).await
}

async fn a2a(args: ServeA2aArgs) -> anyhow::Result<u8> {
    let mode = Mode {
        name: "tether serve a2a",
        safety: Some(Safety::Restricted),
        non_interactive: true,
    };
    let addr = listen(&args.listen)?;
    let token = args.auth_token.filter(|t| !t.is_empty());
    if token.is_none() && !args.insecure_no_auth && !tether_serve::is_loopback(&addr) {
        return Err(user_error(format!(
            "refusing to serve A2A on {addr} without a token: anyone who can reach it could run the agent; pass `--auth-token TOKEN` (or TETHER_SERVE_TOKEN), or `--insecure-no-auth`"
        )));
    }
    let hub = hub(&args.agent_file, &args.common, &mode)?;
    let opts = tether_serve::a2a::A2aOptions {
        agent: args.agent,
        listen: addr,
        auth_token: token,
    };
    let stop = shutdown();
    let serve = tether_serve::a2a::serve(Arc::clone(&hub), opts, stop, announce(mode.name));
    serving(&hub, serve).await
}

async fn chat(args: ServeChatArgs) -> anyhow::Result<u8> {
    let mode = Mode {
        name: "tether serve chat",
        safety: Some(Safety::Restricted),
        non_interactive: true,
    };
    let api_key = match (&args.api_key, &args.api_key_env) {
        (Some(k), _) => Some(k.clone()),
        (None, Some(var)) => Some(
            std::env::var(var)
                .ok()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| user_error(format!("`--api-key-env {var}`: `{var}` is not set")))?,
        ),
        (None, None) => None,
    };
    let ttl = parse_duration(&args.conversation_ttl)?;
    let hub = hub(&args.agent_file, &args.common, &mode)?;
    let opts = tether_serve::chat::ChatOptions {
        agent: args.agent,
        listen: listen(&args.listen)?,
        api_key,
        conversations_max: args.conversations_max,
        conversation_ttl: ttl,
    };
    let stop = shutdown();
    let serve = tether_serve::chat::serve(Arc::clone(&hub), opts, stop, announce(mode.name));
    serving(&hub, serve).await
}

async fn acp(args: ServeAcpArgs) -> anyhow::Result<u8> {
    let mode = Mode {
        name: "tether serve acp",
        safety: None,
        non_interactive: false,
    };
    let hub = hub(&args.agent_file, &args.common, &mode)?;
    let opts = tether_serve::acp::AcpOptions { agent: args.agent };
    let serve = tether_serve::acp::serve(Arc::clone(&hub), opts, shutdown());
    serving(&hub, serve).await
}

/// `90s`, `30m`, `2h`, `1h30m`, `250ms` (Go's duration syntax, whole numbers).
fn parse_duration(text: &str) -> anyhow::Result<Duration> {
    let bad = || {
        user_error(format!(
            "invalid duration `{text}`: write e.g. `90s`, `30m`, `2h` or `1h30m`"
        ))
    };
    let mut total = 0u64;
    let mut digits = String::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            digits.push(c);
            rest = &rest[1..];
            continue;
        }
        let (unit, len) = if rest.starts_with("ms") {
            (1, 2)
        } else {
            match c {
                's' => (1000, 1),
                'm' => (60_000, 1),
                'h' => (3_600_000, 1),
                _ => return Err(bad()),
            }
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        total = total.saturating_add(n.saturating_mul(unit));
        digits.clear();
        rest = &rest[len..];
    }
    if !digits.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_millis(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("30m").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("3d").is_err());
    }
}
