//! How a server gets runtimes: the binary builds them exactly as `tether run` does (user
//! config, `hooks.d`, `--hook-*` flags, the session store), so a served session is guarded by
//! every hook a terminal run would be.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_config::AgentFile;
use tether_core::{EventSink, Interaction, Runtime};

/// What one runtime is built for.
#[derive(Debug, Clone)]
pub struct BuildSpec {
    /// The agent the runtime starts with (every agent it can reach is built too).
    pub agent: String,
    /// Where the runtime's events go: the hub's router.
    pub sink: Arc<dyn EventSink>,
    /// Where it asks: the hub's router, which asks the client owning the session.
    pub interaction: Arc<dyn Interaction>,
    /// Where its tools and hooks run when not the server's `--working-dir` (an editor
    /// session's `cwd`).
    pub working_dir: Option<PathBuf>,
}

/// Loads agent files and builds runtimes for a server.
pub trait Factory: Send + Sync + std::fmt::Debug {
    /// Loads and validates an agent file (with the external agents it names).
    fn load(&self, path: &Path) -> Result<AgentFile, String>;

    /// Builds a runtime for `file` as `tether run` would, with the server's options (working
    /// directory, safety, session store).
    fn build(&self, file: &AgentFile, spec: BuildSpec) -> Result<Runtime, String>;

    /// The session store the runtimes write to; `None` keeps sessions in memory.
    fn store(&self) -> Option<Arc<tether_store::Store>>;
}
