//! One `type: lsp` toolset's language server, supervised: started with the run, started again
//! by the next call after it died, stopped with the run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tether_config::LspServer as Config;
use tether_config::vars::{ProcessEnv, expand};
use tether_exec::{ServiceSpec, StderrLog};

use crate::client::Client;
use crate::uri;

/// How long `initialize` may take (pyright and friends index the workspace first).
const INIT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a stopping server gets for `shutdown`, then to exit, before its group is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// A server that answered `initialize`.
#[derive(Debug)]
pub(crate) struct Running {
    pub(crate) client: Client,
    /// The `capabilities` of its `initialize` result.
    pub(crate) capabilities: Value,
    /// `serverInfo`: name and version.
    pub(crate) info: Option<String>,
}

impl Running {
    /// Whether the server offers `provider` (a `*Provider` capability that is neither absent,
    /// `null` nor `false`) or registered `method` at run time.
    pub(crate) fn offers(&self, provider: &str, method: &str) -> bool {
        let declared = !matches!(
            self.capabilities.get(provider),
            None | Some(Value::Null | Value::Bool(false))
        );
        declared || self.client.registered().iter().any(|m| m == method)
    }
}

/// One language server of an agent.
#[derive(Debug)]
pub struct LspServer {
    config: Config,
    root: PathBuf,
    log: Option<PathBuf>,
    state: tokio::sync::Mutex<Option<Arc<Running>>>,
    /// Capabilities once known, for listing tools without waiting on the lock.
    known: std::sync::Mutex<Option<Arc<Running>>>,
    /// Successful starts so far.
    starts: AtomicU64,
    /// The toolset's `tools:` filter.
    allow: Option<Vec<String>>,
    /// The toolset's `readonly`: only the tools that write nothing.
    readonly: bool,
}

impl LspServer {
    /// `root` is the run's working directory (the workspace root, and where a relative
    /// `working_dir` resolves); the server's stderr is appended to `log` when given.
    pub fn new(mut config: Config, root: &Path, log: Option<PathBuf>) -> Self {
        for t in &mut config.file_types {
            let ext = t.trim().trim_start_matches('.').to_ascii_lowercase();
            *t = format!(".{ext}");
        }
        Self {
            config,
            root: root.to_path_buf(),
            log,
            state: tokio::sync::Mutex::new(None),
            known: std::sync::Mutex::new(None),
            starts: AtomicU64::new(0),
            allow: None,
            readonly: false,
        }
    }

    /// Only these of its tools (its toolset's `tools:` and `readonly`): the tools of an
    /// agent's servers are the union of what each keeps, and a call goes to a server that
    /// keeps its tool.
    #[must_use]
    pub fn only(mut self, allow: Option<Vec<String>>, readonly: bool) -> Self {
        self.allow = allow;
        self.readonly = readonly;
        self
    }

    /// Whether its toolset keeps the tool `name`.
    pub(crate) fn keeps(&self, name: &str, read_only: bool) -> bool {
        (!self.readonly || read_only)
            && self
                .allow
                .as_ref()
                .is_none_or(|a| a.iter().any(|n| n == name))
    }

    /// How many times it started: a new start may bring other capabilities.
    pub fn starts(&self) -> u64 {
        self.starts.load(Ordering::Relaxed)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The workspace root the server was given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this server takes `path`, by its extension (every file when `file_types` is
    /// empty).
    pub fn handles(&self, path: &Path) -> bool {
        if self.config.file_types.is_empty() {
            return true;
        }
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            return false;
        };
        let ext = format!(".{}", ext.to_ascii_lowercase());
        self.config.file_types.contains(&ext)
    }

    /// The running server, started (and initialized) first if it is not running.
    pub(crate) async fn running(&self) -> Result<Arc<Running>, String> {
        let mut state = self.state.lock().await;
        if let Some(r) = state.as_ref()
            && r.client.is_alive()
        {
            return Ok(Arc::clone(r));
        }
        if let Some(old) = state.take() {
            old.client.stop(Duration::from_millis(100)).await;
        }
        let running = Arc::new(self.start().await?);
        self.starts.fetch_add(1, Ordering::Relaxed);
        *state = Some(Arc::clone(&running));
        *self
            .known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::clone(&running));
        Ok(running)
    }

    /// Starts the server now (the run starts every server together).
    pub async fn ensure_started(&self) -> Result<(), String> {
        self.running().await.map(|_| ())
    }

    /// The server as last started, if it ever was.
    pub(crate) fn last_known(&self) -> Option<Arc<Running>> {
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The process id of the running server.
    pub async fn pid(&self) -> Option<u32> {
        let state = self.state.lock().await;
        match state.as_ref() {
            Some(r) if r.client.is_alive() => r.client.pid().await,
            _ => None,
        }
    }

    /// `shutdown`, `exit`, and the process group gone.
    pub async fn stop(&self) {
        if let Some(r) = self.state.lock().await.take() {
            r.client.stop(STOP_GRACE).await;
        }
    }

    fn spec(&self) -> Result<ServiceSpec, String> {
        // `env` values and `working_dir` expand as an MCP server's do.
        let lookup = ProcessEnv;
        let name = &self.config.command;
        let cwd = match &self.config.working_dir {
            Some(w) => self.root.join(
                expand(w, &lookup, true)
                    .map_err(|e| format!("language server `{name}`: working_dir: {e}"))?,
            ),
            None => self.root.clone(),
        };
        let mut env = Vec::with_capacity(self.config.env.len());
        for (k, v) in &self.config.env {
            let v = expand(v, &lookup, true)
                .map_err(|e| format!("language server `{name}`: env `{k}`: {e}"))?;
            env.push((k.clone(), v));
        }
        let mut program = OsString::from(&self.config.command);
        if !self.config.command.contains('/') {
            let path = env
                .iter()
                .rev()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var("PATH").ok())
                .unwrap_or_default();
            match tether_exec::find_in_path(&self.config.command, &path) {
                Some(found) => program = found.into_os_string(),
                None => {
                    return Err(format!(
                        "`{}` not found on PATH; install it and make sure it is on PATH",
                        self.config.command
                    ));
                }
            }
        }
        Ok(ServiceSpec {
            program,
            args: self.config.args.iter().map(OsString::from).collect(),
            base_env: None,
            env: env
                .into_iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect(),
            cwd,
            stderr: StderrLog {
                path: self.log.clone(),
                cap: 4 * 1024 * 1024,
                header: format!("--- {}", self.config.command),
            },
            direct: None,
            sandbox: None,
        })
    }

    async fn start(&self) -> Result<Running, String> {
        let name = &self.config.command;
        let client = Client::spawn(&self.spec()?)
            .map_err(|e| format!("language server `{name}` cannot start: {e}"))?;
        let root = uri::from_path(&self.root);
        let params = json!({
            "processId": std::process::id(),
            "rootUri": root,
            "rootPath": self.root,
            "workspaceFolders": [{"uri": root, "name": self.root.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()}],
            "capabilities": client_capabilities(),
            "clientInfo": {"name": "tether"},
        });
        let answer = tokio::time::timeout(INIT_TIMEOUT, client.request("initialize", params)).await;
        let result = match answer {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                let tail = client.stderr_tail().await;
                client.stop(Duration::from_millis(200)).await;
                return Err(with_tail(
                    &format!("language server `{name}` did not initialize: {e}"),
                    &tail,
                ));
            }
            Err(_) => {
                client.stop(Duration::from_millis(200)).await;
                return Err(format!(
                    "language server `{name}` did not answer `initialize` within {} s",
                    INIT_TIMEOUT.as_secs()
                ));
            }
        };
        client.notify("initialized", json!({})).await?;
        let info = result.get("serverInfo").and_then(|i| {
            let name = i.get("name")?.as_str()?;
            Some(match i.get("version").and_then(Value::as_str) {
                Some(v) => format!("{name} {v}"),
                None => name.to_owned(),
            })
        });
        Ok(Running {
            client,
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
            info,
        })
    }
}

fn with_tail(text: &str, tail: &str) -> String {
    if tail.trim().is_empty() {
        text.to_owned()
    } else {
        format!("{text}; its stderr ends with:\n{tail}")
    }
}

/// What we can do with what servers answer.
fn client_capabilities() -> Value {
    json!({
        "textDocument": {
            "synchronization": {"didSave": false},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "definition": {"linkSupport": false},
            "references": {},
            "implementation": {"linkSupport": false},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "publishDiagnostics": {},
            "rename": {"prepareSupport": false},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                "quickfix", "refactor", "refactor.extract", "refactor.inline",
                "refactor.rewrite", "source", "source.organizeImports"]}}},
            "formatting": {},
            "callHierarchy": {},
            "typeHierarchy": {},
            "signatureHelp": {"signatureInformation": {
                "documentationFormat": ["markdown", "plaintext"],
                "parameterInformation": {"labelOffsetSupport": true}}},
            "inlayHint": {},
        },
        "workspace": {
            "symbol": {},
            "configuration": true,
            "workspaceFolders": true,
            "workspaceEdit": {"documentChanges": true},
        },
    })
}
