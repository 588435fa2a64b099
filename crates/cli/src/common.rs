//! What several commands share: loading an agent file, choosing the agent, building its
//! executor with the effective hooks.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_config::{Agent, AgentFile, CliHooks, ConfigError, HooksConfig, InjectOptions};
use tether_exec::Shell;
use tether_hooks::{Executor, ExecutorOptions, HookObserver, Registry};

/// A mistake by the user (bad flag value, invalid agent file): exit status 1.
#[derive(Debug)]
pub(crate) struct UserError(pub(crate) String);

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UserError {}

pub(crate) fn user_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UserError(message.into()))
}

/// A hook stopped the command before it ran (exit status 2).
#[derive(Debug)]
pub(crate) struct BlockedByHook(pub(crate) String);

impl fmt::Display for BlockedByHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BlockedByHook {}

/// Loads an agent file and the external agents it names.
pub(crate) fn load(path: &Path) -> anyhow::Result<AgentFile> {
    let mut file = tether_config::load_file(path).map_err(|e| match e {
        ConfigError::Io { .. } => user_error(e.to_string()),
        ConfigError::Invalid(d) => user_error(format!("invalid agent file\n{d}")),
    })?;
    crate::external::resolve(&mut file, &tether_home().join("cache"))?;
    Ok(file)
}

/// As [`load`], for commands that check a file without running it: an external agent that
/// cannot be fetched is a warning (returned) rather than an error.
pub(crate) fn load_offline(path: &Path) -> anyhow::Result<(AgentFile, Vec<String>)> {
    let mut file = tether_config::load_file(path).map_err(|e| match e {
        ConfigError::Io { .. } => user_error(e.to_string()),
        ConfigError::Invalid(d) => user_error(format!("invalid agent file\n{d}")),
    })?;
    let warnings = crate::external::resolve_offline(&mut file, &tether_home().join("cache"))?;
    Ok((file, warnings))
}

/// The named agent, else `root`, else the first.
pub(crate) fn pick_agent<'a>(file: &'a AgentFile, name: Option<&str>) -> anyhow::Result<&'a Agent> {
    match name {
        Some(n) => file.agent(n).ok_or_else(|| {
            user_error(format!(
                "no agent `{n}` in `{}` (agents: {})",
                file.source_name,
                file.agent_names().join(", ")
            ))
        }),
        None => file
            .default_agent()
            .ok_or_else(|| user_error(format!("`{}` defines no agents", file.source_name))),
    }
}

/// The registry every command uses: all builtins, command hooks run by the resolved shell,
/// model hooks through the providers (names resolved against `file`'s `models:`, keys from
/// the environment, clients built on first use).
pub(crate) fn registry(file: Option<&AgentFile>) -> Registry {
    registry_with_snapshots(file).0
}

/// The registry, with a handle on its `snapshot` builtin for `/undo` and `/snapshots`.
pub(crate) fn registry_with_snapshots(
    file: Option<&AgentFile>,
) -> (Registry, Arc<tether_hooks::builtins::Snapshot>) {
    let mut registry = tether_hooks::default_registry(Shell::from_env());
    registry.set_model_runner(Arc::new(tether_core::ProviderModelRunner::new(
        file,
        Arc::new(tether_providers::ProcessEnv),
    )));
    let snapshots = Arc::new(tether_hooks::builtins::Snapshot::new());
    registry.register(snapshots.clone());
    (registry, snapshots)
}

pub(crate) fn effective(
    agent: &Agent,
    cli: &CliHooks,
    user: &tether_config::UserConfig,
) -> HooksConfig {
    tether_config::effective_hooks(
        agent,
        &user.hooks,
        cli,
        InjectOptions {
            snapshot: user.snapshot,
            hooks_sandbox: user.hooks_sandbox,
        },
    )
}

pub(crate) fn executor(
    hooks: &HooksConfig,
    registry: Arc<Registry>,
    working_dir: PathBuf,
    observers: Vec<Arc<dyn HookObserver>>,
) -> anyhow::Result<Executor> {
    let mut opts = ExecutorOptions::new(working_dir);
    opts.observers = observers;
    Executor::new(hooks, registry, opts).map_err(|diags| {
        let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
        user_error(format!("invalid hooks\n{}", text.join("\n")))
    })
}

pub(crate) fn current_dir() -> anyhow::Result<PathBuf> {
    std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))
}

/// The text of `--input FILE|-` (`-` reads standard input); `None` when absent or blank.
pub(crate) fn read_input_text(arg: Option<&str>) -> anyhow::Result<Option<String>> {
    let text = match arg {
        None => return Ok(None),
        Some("-") => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| user_error(format!("cannot read the input from stdin: {e}")))?;
            s
        }
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| user_error(format!("cannot read `{path}`: {e}")))?,
    };
    Ok(Some(text).filter(|t| !t.trim().is_empty()))
}

/// `$TETHER_HOME`, else `$XDG_DATA_HOME/tether`, else `~/.local/share/tether`.
pub(crate) fn tether_home() -> PathBuf {
    tether_config::data_dir()
}

/// A `$TETHER_HOME` that others can read was left so by an older Tether: everything in it is
/// tightened now rather than as each file is next opened, except the worktrees' checkouts
/// (the user's files; the directory holding them is private).
fn tighten_old_home(home: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(home).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
        let worktrees = home.join("worktrees");
        tether_exec::private::tighten_tree(home, &|p| p == worktrees);
    }
}

/// Opens the session database (`--session-db`, else `$TETHER_HOME/sessions.db`): a SQLite path
/// or a `postgres://` URL.
pub(crate) fn open_store(path: Option<&Path>) -> anyhow::Result<Arc<tether_store::Store>> {
    if let Some(url) = path.filter(|p| tether_store::Store::is_postgres_url(p)) {
        return tether_store::Store::open(url)
            .map(Arc::new)
            .map_err(|e| anyhow::anyhow!("cannot open the session database: {e}"));
    }
    let home = tether_home();
    let path = path.map_or_else(|| home.join("sessions.db"), Path::to_path_buf);
    tighten_old_home(&home);
    // `$TETHER_HOME` and the directories in it are private; a `--session-db` elsewhere gets a
    // private file but its directories are the user's (`tether_exec::private`).
    if let Some(dir) = path.parent() {
        tether_exec::private::create_dir(&home, dir).map_err(|e| {
            anyhow::anyhow!(
                "cannot open the session database: cannot create `{}` as a private directory: {e}",
                dir.display()
            )
        })?;
    }
    tether_store::Store::open(&path)
        .map(Arc::new)
        .map_err(|e| anyhow::anyhow!("cannot open the session database: {e}"))
}

/// The user config (`$XDG_CONFIG_HOME/tether/config.yaml`); the default when there is none.
pub(crate) fn user_config() -> anyhow::Result<tether_config::UserConfig> {
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let home = std::env::var("HOME").ok();
    let Some(path) = tether_config::UserConfig::default_path(xdg.as_deref(), home.as_deref())
    else {
        return Ok(tether_config::UserConfig::default());
    };
    let user = tether_config::UserConfig::load(&path).map_err(|e| match e {
        ConfigError::Invalid(d) => user_error(format!("invalid user config\n{d}")),
        ConfigError::Io { .. } => user_error(e.to_string()),
    })?;
    for w in &user.warnings {
        crate::out::warning(w);
    }
    Ok(user)
}
