//! A server's agents and their runtimes: one runtime per agent, built on first use and shared
//! by every session that runs it; the router that sends each session's events to its client.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tether_core::{RunOutcome, Runtime, Session};
use tether_protocol::Message;
use tokio_util::sync::CancellationToken;

use crate::catalog::{Catalog, CatalogEntry};
use crate::factory::{BuildSpec, Factory};
use crate::router::{Route, Router};

/// A runtime's agent file, agent and working directory (`None`: the server's).
type RuntimeKey = (String, String, Option<PathBuf>);

/// What a server serves.
#[derive(Debug)]
pub struct Hub {
    catalog: Catalog,
    factory: Arc<dyn Factory>,
    router: Arc<Router>,
    runtimes: Mutex<HashMap<RuntimeKey, Runtime>>,
}

/// A finished one-shot session.
#[derive(Debug)]
pub struct Turn {
    pub outcome: RunOutcome,
    pub session: Session,
}

impl Hub {
    pub fn new(catalog: Catalog, factory: Arc<dyn Factory>) -> Arc<Self> {
        Arc::new(Self {
            catalog,
            factory,
            router: Arc::new(Router::default()),
            runtimes: Mutex::new(HashMap::new()),
        })
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn router(&self) -> &Arc<Router> {
        &self.router
    }

    pub fn factory(&self) -> &Arc<dyn Factory> {
        &self.factory
    }

    /// The entry `id`, or the only/first one when `id` is `None`.
    pub fn entry(&self, id: Option<&str>) -> Result<&CatalogEntry, String> {
        match id {
            Some(id) => self
                .catalog
                .get(id)
                .ok_or_else(|| format!("no agent file `{id}`")),
            None => self
                .catalog
                .first()
                .ok_or_else(|| "no agent file to serve".to_owned()),
        }
    }

    /// The runtime that starts with `agent` (default: the entry's `root`, else its first), and
    /// that agent's name. Built on first use; later calls share it.
    pub fn runtime(
        &self,
        entry: &CatalogEntry,
        agent: Option<&str>,
    ) -> Result<(Runtime, String), String> {
        self.runtime_in(entry, agent, None)
    }

    /// [`Hub::runtime`] with its tools and hooks running in `working_dir` (default: the
    /// server's); one runtime per directory, shared as well.
    pub fn runtime_in(
        &self,
        entry: &CatalogEntry,
        agent: Option<&str>,
        working_dir: Option<&Path>,
    ) -> Result<(Runtime, String), String> {
        let agent = match agent {
            Some(a) if entry.file.agent(a).is_some() => a.to_owned(),
            Some(a) => {
                return Err(format!(
                    "no agent `{a}` in `{}` (agents: {})",
                    entry.id,
                    entry.file.agent_names().join(", ")
                ));
            }
            None => entry
                .default_agent()
                .ok_or_else(|| format!("`{}` defines no agent", entry.id))?,
        };
        let key = (
            entry.id.clone(),
            agent.clone(),
            working_dir.map(Path::to_path_buf),
        );
        let mut runtimes = self
            .runtimes
            .lock()
            .map_err(|_| "the runtime cache is poisoned".to_owned())?;
        if let Some(rt) = runtimes.get(&key) {
            return Ok((rt.clone(), agent));
        }
        let spec = BuildSpec {
            agent: agent.clone(),
            sink: self.router.clone(),
            interaction: self.router.clone(),
            working_dir: working_dir.map(Path::to_path_buf),
        };
        let rt = self.factory.build(&entry.file, spec)?;
        runtimes.insert(key, rt.clone());
        Ok((rt, agent))
    }

    /// A new session of `agent`, saved to the store.
    pub fn new_session(
        &self,
        runtime: &Runtime,
        entry: &CatalogEntry,
        agent: &str,
        first_prompt: Option<&str>,
    ) -> Session {
        let mut session = Session::new(runtime.new_session_id(), agent);
        session.agent_file = std::fs::canonicalize(&entry.path).ok();
        runtime.save_session(&mut session, first_prompt, false);
        session
    }

    /// Runs a fresh session to its end, as the clients that keep no session want it (MCP,
    /// A2A, chat): `session_start`, the earlier `history` as the conversation so far, the
    /// prompt, `session_end`. The session stays stored.
    pub async fn one_shot(
        &self,
        entry: &CatalogEntry,
        agent: Option<&str>,
        history: Vec<Message>,
        prompt: String,
        route: Route,
        cancel: &CancellationToken,
    ) -> Result<Turn, String> {
        let (runtime, agent) = self.runtime(entry, agent)?;
        let mut session = self.new_session(&runtime, entry, &agent, Some(&prompt));
        if !history.is_empty() {
            session.messages = history;
            runtime.save_session(&mut session, None, true);
        }
        let outcome = self
            .run(
                &runtime,
                &mut session,
                Some(prompt),
                "startup",
                route,
                cancel,
            )
            .await;
        Ok(Turn { outcome, session })
    }

    /// Runs one submission of `session` with its events and questions going to `route`, from
    /// `session_start` (`source`: `startup` or `resume`) to `session_end`.
    pub async fn run(
        &self,
        runtime: &Runtime,
        session: &mut Session,
        prompt: Option<String>,
        source: &str,
        route: Route,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let _attached = self.router.attach(&session.id, route);
        runtime.start_session(session, source, cancel).await;
        let prompt = match prompt {
            Some(p) => Some(
                runtime
                    .resolve_command(session, &p, cancel)
                    .await
                    .unwrap_or(p),
            ),
            None => None,
        };
        let outcome = runtime.run(session, prompt, cancel).await;
        // As in `tether run`: one session_start and one session_end per submission.
        runtime.end_session(session, "other").await;
        outcome
    }

    /// Stops every runtime's MCP servers (the server is going down).
    pub async fn shutdown(&self) {
        let runtimes: Vec<Runtime> = self
            .runtimes
            .lock()
            .map(|r| r.values().cloned().collect())
            .unwrap_or_default();
        for rt in runtimes {
            rt.stop_servers().await;
        }
    }
}
