//! JSON-RPC 2.0 over newline-delimited stdio, in both directions: the editor's requests get
//! responses, and ours (`session/request_permission`) wait for the editor's answer by id.
//! Every message goes through one writer task, so stdout carries whole protocol lines only.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// The longest line we read (a prompt with embedded files fits; a runaway client does not).
pub(crate) const MAX_LINE: u64 = 16 * 1024 * 1024;

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// ACP's "resource not found" (an unknown session).
pub(crate) const NOT_FOUND: i64 = -32002;

/// A JSON-RPC error answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }
}

/// One line from the editor, sorted.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to one of our requests.
    Response {
        id: Value,
        result: Result<Value, Value>,
    },
    /// Not JSON, or JSON that is no JSON-RPC message: answered with this error.
    Invalid {
        id: Value,
        error: RpcError,
    },
}

pub(crate) fn classify(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("parse error: {e}")),
            };
        }
    };
    let Value::Object(mut map) = value else {
        return Incoming::Invalid {
            id: Value::Null,
            error: RpcError::new(INVALID_REQUEST, "a JSON-RPC message must be an object"),
        };
    };
    let id = map.remove("id");
    let params = map.remove("params").unwrap_or(Value::Null);
    match (map.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(other), id) => Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            error: RpcError::new(
                INVALID_REQUEST,
                format!("`method` must be a string, not {other}"),
            ),
        },
        (None, Some(id)) => match (map.remove("result"), map.remove("error")) {
            (_, Some(error)) => Incoming::Response {
                id,
                result: Err(error),
            },
            (Some(result), None) => Incoming::Response {
                id,
                result: Ok(result),
            },
            (None, None) => Incoming::Invalid {
                id,
                error: RpcError::new(
                    INVALID_REQUEST,
                    "a message needs `method`, `result` or `error`",
                ),
            },
        },
        (None, None) => Incoming::Invalid {
            id: Value::Null,
            error: RpcError::new(
                INVALID_REQUEST,
                "a message needs `method`, `result` or `error`",
            ),
        },
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes. `Ok(None)` at the end of input;
/// `Ok(Some(Err(len)))` for a longer line, skipped to its end.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> std::io::Result<Option<Result<String, u64>>> {
    let mut buf = Vec::new();
    let n = (&mut *reader)
        .take(MAX_LINE + 1)
        .read_until(b'\n', &mut buf)
        .await?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() as u64 > MAX_LINE && buf.last() != Some(&b'\n') {
        let mut skipped = buf.len() as u64;
        loop {
            buf.clear();
            let n = (&mut *reader)
                .take(MAX_LINE)
                .read_until(b'\n', &mut buf)
                .await?;
            skipped += n as u64;
            if n == 0 || buf.last() == Some(&b'\n') {
                return Ok(Some(Err(skipped)));
            }
        }
    }
    Ok(Some(Ok(String::from_utf8_lossy(&buf).into_owned())))
}

/// Writes each message as one line until every sender is gone.
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: mpsc::UnboundedReceiver<Value>,
) {
    while let Some(msg) = rx.recv().await {
        let mut line = msg.to_string();
        line.push('\n');
        if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
            // The editor closed our stdout: nothing more can reach it.
            return;
        }
    }
}

/// Our side of the connection: sends, and matches the editor's answers to our requests.
#[derive(Debug)]
pub(crate) struct Peer {
    out: mpsc::UnboundedSender<Value>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, Value>>>>,
}

impl Peer {
    pub(crate) fn new(out: mpsc::UnboundedSender<Value>) -> Self {
        Self {
            out,
            next_id: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
        }
    }

    fn send(&self, msg: Value) {
        // The writer stops only when stdout is gone; then nobody hears anything.
        let _ = self.out.send(msg);
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub(crate) fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        match result {
            Ok(result) => self.send(json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Err(e) => self.send(json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": e.code, "message": e.message},
            })),
        }
    }

    /// Sends a request to the editor and waits for its answer (`Err` with the error object,
    /// or a message when the connection closed first).
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        match self.pending.lock() {
            Ok(mut p) => {
                p.insert(id, tx);
            }
            Err(_) => return Err("the request table is poisoned".to_owned()),
        }
        // A question given up on (its prompt cancelled) leaves no waiter behind.
        let _forget = Forget { peer: self, id };
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(format!("the editor answered `{method}` with an error: {e}")),
            Err(_) => Err(format!(
                "the editor closed the connection before answering `{method}`"
            )),
        }
    }

    /// Hands the editor's answer to the request waiting for it.
    pub(crate) fn resolve(&self, id: &Value, result: Result<Value, Value>) -> bool {
        let Some(id) = id.as_u64() else {
            return false;
        };
        let waiter = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        match waiter {
            Some(tx) => {
                let _ = tx.send(result);
                true
            }
            None => false,
        }
    }

    /// The editor is gone: every request still waiting fails.
    pub(crate) fn close(&self) {
        if let Ok(mut p) = self.pending.lock() {
            p.clear();
        }
    }
}

/// Removes a request's waiter when the request is dropped, answered or not.
struct Forget<'a> {
    peer: &'a Peer,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Ok(mut p) = self.peer.pending.lock() {
            p.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_sort_into_requests_notifications_responses_and_errors() {
        assert_eq!(
            classify(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#
            ),
            Incoming::Request {
                id: json!(1),
                method: "initialize".into(),
                params: json!({"protocolVersion": 1})
            }
        );
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#),
            Incoming::Notification {
                method: "session/cancel".into(),
                params: json!({"sessionId": "s"})
            }
        );
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}}"#),
            Incoming::Response {
                id: json!(3),
                result: Ok(json!({"outcome": {"outcome": "cancelled"}}))
            }
        );
        assert!(matches!(
            classify("{not json"),
            Incoming::Invalid { id: Value::Null, error } if error.code == PARSE_ERROR
        ));
        assert!(matches!(
            classify(r#"{"id":4}"#),
            Incoming::Invalid { id, error } if id == json!(4) && error.code == INVALID_REQUEST
        ));
        assert!(matches!(
            classify("[1]"),
            Incoming::Invalid { error, .. } if error.code == INVALID_REQUEST
        ));
    }

    #[tokio::test]
    async fn an_overlong_line_is_skipped_and_the_next_one_read() {
        let mut data = vec![b'x'; (MAX_LINE + 10) as usize];
        data.extend_from_slice(b"\n{\"ok\":1}\n");
        let mut reader = tokio::io::BufReader::new(&data[..]);
        assert_eq!(
            read_line(&mut reader).await.unwrap(),
            Some(Err(MAX_LINE + 11))
        );
        assert_eq!(
            read_line(&mut reader).await.unwrap(),
            Some(Ok("{\"ok\":1}\n".to_owned()))
        );
        assert_eq!(read_line(&mut reader).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_request_gets_the_answer_with_its_id_and_fails_when_the_peer_closes() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let peer = std::sync::Arc::new(Peer::new(tx));
        let p = std::sync::Arc::clone(&peer);
        let asked = tokio::spawn(async move { p.request("x", json!({})).await });
        let sent = rx.recv().await.unwrap();
        assert!(peer.resolve(&sent["id"], Ok(json!("yes"))));
        assert_eq!(asked.await.unwrap(), Ok(json!("yes")));
        let p = std::sync::Arc::clone(&peer);
        let asked = tokio::spawn(async move { p.request("y", json!({})).await });
        let _ = rx.recv().await.unwrap();
        peer.close();
        assert!(
            asked
                .await
                .unwrap()
                .unwrap_err()
                .contains("closed the connection")
        );
    }
}
