//! One running language server: the process, a reader task that routes answers to their
//! requests, answers the server's own requests and keeps its published diagnostics.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tether_exec::{Service, ServiceSpec};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{Notify, oneshot};

use crate::wire;

type Pending = HashMap<i64, oneshot::Sender<Result<Value, String>>>;

/// What the reader task and the callers share.
#[derive(Debug)]
struct Shared {
    stdin: tokio::sync::Mutex<ChildStdin>,
    pending: Mutex<Pending>,
    /// Published diagnostics by document URI.
    diagnostics: Mutex<HashMap<String, Vec<lsp_types::Diagnostic>>>,
    diagnostics_changed: Notify,
    /// Set when the output closed: nothing more will be answered.
    dead: AtomicBool,
    /// Methods the server registered at run time (`client/registerCapability`).
    registered: Mutex<Vec<String>>,
}

impl Shared {
    /// Writes one message. A failed write means the server is gone (its end of the pipe
    /// closed, even if the reader has not seen its output end yet): the connection is marked
    /// dead at once, so the next call starts the server again instead of failing too.
    async fn send(&self, message: &Value) -> Result<(), String> {
        let bytes = wire::frame(message.to_string().as_bytes());
        let mut stdin = self.stdin.lock().await;
        let written = match stdin.write_all(&bytes).await {
            Ok(()) => stdin.flush().await,
            Err(e) => Err(e),
        };
        written.map_err(|e| {
            self.dead.store(true, Ordering::Release);
            format!("cannot write to the server: {e}")
        })
    }

    fn fail_pending(&self, why: &str) {
        let pending: Vec<_> = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .collect();
        for (_, tx) in pending {
            let _ = tx.send(Err(why.to_owned()));
        }
    }
}

/// A started server. Dropping it kills its process group.
#[derive(Debug)]
pub(crate) struct Client {
    shared: Arc<Shared>,
    next_id: AtomicI64,
    service: tokio::sync::Mutex<Option<Service>>,
    reader: tokio::task::JoinHandle<()>,
    /// Open documents: URI → version and the text last sent.
    open: tokio::sync::Mutex<HashMap<String, (i32, String)>>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Client {
    /// Starts the process; nothing is sent yet.
    pub(crate) fn spawn(spec: &ServiceSpec) -> Result<Self, String> {
        let (service, stdin, stdout) = Service::spawn(spec)?;
        let shared = Arc::new(Shared {
            stdin: tokio::sync::Mutex::new(stdin),
            pending: Mutex::new(HashMap::new()),
            diagnostics: Mutex::new(HashMap::new()),
            diagnostics_changed: Notify::new(),
            dead: AtomicBool::new(false),
            registered: Mutex::new(Vec::new()),
        });
        let reader = tokio::spawn(read_loop(Arc::clone(&shared), stdout));
        Ok(Self {
            shared,
            next_id: AtomicI64::new(1),
            service: tokio::sync::Mutex::new(Some(service)),
            reader,
            open: tokio::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Whether requests can still be answered.
    pub(crate) fn is_alive(&self) -> bool {
        !self.shared.dead.load(Ordering::Acquire)
    }

    /// The process's id (its process group), while it runs.
    pub(crate) async fn pid(&self) -> Option<u32> {
        self.service.lock().await.as_ref().and_then(Service::pid)
    }

    /// The last lines the server wrote to stderr.
    pub(crate) async fn stderr_tail(&self) -> String {
        self.service
            .lock()
            .await
            .as_ref()
            .map(Service::stderr_tail)
            .unwrap_or_default()
    }

    /// Sends a request and waits for its answer (an LSP error is `Err` with its message).
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        if !self.is_alive() {
            return Err("the language server is not running".to_owned());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.shared
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, tx);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = self.shared.send(&message).await {
            self.shared
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
            return Err(e);
        }
        rx.await
            .unwrap_or_else(|_| Err("the language server stopped".to_owned()))
    }

    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        self.shared
            .send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Methods registered at run time.
    pub(crate) fn registered(&self) -> Vec<String> {
        self.shared
            .registered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Opens `uri` with `text`, or sends the new text when it changed since last sent; the
    /// diagnostics published before are forgotten when something was sent. Returns whether
    /// something was.
    pub(crate) async fn sync(&self, uri: &str, language: &str, text: &str) -> Result<bool, String> {
        let mut open = self.open.lock().await;
        if let Some((version, last)) = open.get_mut(uri) {
            if last == text {
                return Ok(false);
            }
            *version += 1;
            text.clone_into(last);
            let params = json!({
                "textDocument": {"uri": uri, "version": *version},
                "contentChanges": [{"text": text}],
            });
            self.clear_diagnostics(uri);
            self.notify("textDocument/didChange", params).await?;
            return Ok(true);
        }
        let params = json!({
            "textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text},
        });
        self.clear_diagnostics(uri);
        self.notify("textDocument/didOpen", params).await?;
        open.insert(uri.to_owned(), (1, text.to_owned()));
        Ok(true)
    }

    /// The diagnostics last published for `uri`, if any were.
    pub(crate) fn diagnostics(&self, uri: &str) -> Option<Vec<lsp_types::Diagnostic>> {
        self.shared
            .diagnostics
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(uri)
            .cloned()
    }

    /// Forgets what was published for `uri`, so that the next publication is a fresh one.
    fn clear_diagnostics(&self, uri: &str) {
        self.shared
            .diagnostics
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
    }

    /// Waits up to `within` for diagnostics of `uri` to be published.
    pub(crate) async fn wait_diagnostics(&self, uri: &str, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let notified = self.shared.diagnostics_changed.notified();
            if self.diagnostics(uri).is_some() || !self.is_alive() {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }

    /// `shutdown` then `exit`, then the process is stopped (its group killed if it lingers).
    pub(crate) async fn stop(&self, grace: Duration) {
        if self.is_alive() {
            let _ = tokio::time::timeout(grace, self.request("shutdown", Value::Null)).await;
            let _ = self.notify("exit", Value::Null).await;
        }
        let _ = self.shared.stdin.lock().await.shutdown().await;
        if let Some(service) = self.service.lock().await.take() {
            service.stop(grace).await;
        }
        self.shared.dead.store(true, Ordering::Release);
        self.shared.fail_pending("the language server stopped");
    }
}

async fn read_loop(shared: Arc<Shared>, stdout: ChildStdout) {
    let mut reader = BufReader::new(stdout);
    let why = loop {
        match wire::read_message(&mut reader).await {
            Ok(Some(body)) => {
                if let Ok(message) = serde_json::from_slice::<Value>(&body) {
                    handle(&shared, message).await;
                }
            }
            Ok(None) => break "the language server exited".to_owned(),
            Err(e) => break e,
        }
    };
    shared.dead.store(true, Ordering::Release);
    shared.fail_pending(&why);
    shared.diagnostics_changed.notify_waiters();
}

async fn handle(shared: &Shared, message: Value) {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").cloned();
    match (method, id) {
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else { return };
            let tx = shared
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
            let Some(tx) = tx else { return };
            let answer = match message.get("error") {
                Some(e) => Err(format!(
                    "LSP error {}: {}",
                    e.get("code").and_then(Value::as_i64).unwrap_or_default(),
                    e.get("message").and_then(Value::as_str).unwrap_or_default()
                )),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        }
        (Some(method), Some(id)) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let result = server_request(shared, method, &params);
            let _ = shared
                .send(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
                .await;
        }
        (Some("textDocument/publishDiagnostics"), None) => {
            let Some(params) = message.get("params").cloned() else {
                return;
            };
            let Ok(p) = serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(params)
            else {
                return;
            };
            shared
                .diagnostics
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(p.uri.as_str().to_owned(), p.diagnostics);
            shared.diagnostics_changed.notify_waiters();
        }
        _ => {}
    }
}

/// Answers what a server asks of its client: no settings of our own, progress tokens and
/// registrations accepted, edits it wants applied refused (tools apply their own).
fn server_request(shared: &Shared, method: &str, params: &Value) -> Value {
    match method {
        "workspace/configuration" => {
            let n = params
                .get("items")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Value::Array(vec![Value::Null; n])
        }
        "client/registerCapability" => {
            if let Some(list) = params.get("registrations").and_then(Value::as_array) {
                let mut registered = shared
                    .registered
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                registered.extend(
                    list.iter()
                        .filter_map(|r| r.get("method").and_then(Value::as_str))
                        .map(str::to_owned),
                );
            }
            Value::Null
        }
        "workspace/applyEdit" => json!({"applied": false, "failureReason": "not supported"}),
        "workspace/workspaceFolders" => Value::Null,
        _ => Value::Null,
    }
}
