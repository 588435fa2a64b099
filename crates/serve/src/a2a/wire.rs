//! A2A on the wire, in both generations: 0.3 (`message/send`, `"kind"` discriminators,
//! lower-case states) and 1.0 (`SendMessage`, ProtoJSON: no `kind`, oneof wrappers such as
//! `{"task": …}`, enums like `TASK_STATE_COMPLETED`). Requests are parsed into one shape;
//! answers are rendered in the version the request came in.

use serde::Deserialize;
use serde_json::{Value, json};

/// The protocol generation of a request, told by its method name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V03,
    V10,
}

/// What a request asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Send,
    Stream,
    Get,
    Cancel,
}

/// The method `name` and its generation; `Err` with the JSON-RPC error for the rest.
pub(crate) fn method(name: &str) -> Result<(Method, Version), RpcError> {
    Ok(match name {
        "message/send" => (Method::Send, Version::V03),
        "message/stream" => (Method::Stream, Version::V03),
        "tasks/get" => (Method::Get, Version::V03),
        "tasks/cancel" => (Method::Cancel, Version::V03),
        "SendMessage" => (Method::Send, Version::V10),
        "SendStreamingMessage" => (Method::Stream, Version::V10),
        "GetTask" => (Method::Get, Version::V10),
        "CancelTask" => (Method::Cancel, Version::V10),
        _ if name.contains("ushNotification") => {
            return Err(RpcError::new(
                PUSH_NOT_SUPPORTED,
                format!("`{name}`: push notifications are not supported"),
            ));
        }
        "tasks/resubscribe"
        | "tasks/list"
        | "agent/getAuthenticatedExtendedCard"
        | "SubscribeToTask"
        | "ListTasks"
        | "GetExtendedAgentCard" => {
            return Err(RpcError::new(
                UNSUPPORTED,
                format!("`{name}` is not supported by this agent"),
            ));
        }
        _ => {
            return Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method `{name}` not found"),
            ));
        }
    })
}

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL: i64 = -32603;
pub(crate) const TASK_NOT_FOUND: i64 = -32001;
pub(crate) const TASK_NOT_CANCELABLE: i64 = -32002;
pub(crate) const PUSH_NOT_SUPPORTED: i64 = -32003;
pub(crate) const UNSUPPORTED: i64 = -32004;
pub(crate) const VERSION_NOT_SUPPORTED: i64 = -32009;

/// A JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
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

/// A JSON-RPC response carrying `error`.
pub(crate) fn error_response(id: &Value, e: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
}

/// A JSON-RPC response carrying `result`.
pub(crate) fn result_response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The JSON-RPC envelope, checked by hand so each fault gets its own code.
#[derive(Debug)]
pub(crate) struct Request {
    pub id: Value,
    pub method: String,
    pub params: Value,
}

impl Request {
    /// Parses a request body: `Err((id, error))` answers it.
    pub(crate) fn parse(body: &[u8]) -> Result<Self, (Value, RpcError)> {
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            (
                Value::Null,
                RpcError::new(PARSE_ERROR, format!("invalid JSON: {e}")),
            )
        })?;
        let Value::Object(mut obj) = value else {
            return Err((
                Value::Null,
                RpcError::new(INVALID_REQUEST, "a request must be one JSON object"),
            ));
        };
        let id = obj.remove("id").unwrap_or(Value::Null);
        let invalid = |m: String| Err((id.clone(), RpcError::new(INVALID_REQUEST, m)));
        if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
            return invalid(format!("`id` must be a string or a number, not {id}"));
        }
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            other => {
                return invalid(format!(
                    "`jsonrpc` must be \"2.0\", not {}",
                    other.map_or_else(|| "missing".to_owned(), ToString::to_string)
                ));
            }
        }
        let method = match obj.remove("method") {
            Some(Value::String(m)) => m,
            other => {
                return invalid(format!(
                    "`method` must be a string, not {}",
                    other.map_or_else(|| "missing".to_owned(), |v| v.to_string())
                ));
            }
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        Ok(Self { id, method, params })
    }
}

/// `message/send` and `SendMessage` params (the fields we read; the rest is ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SendParamsWire {
    pub message: MessageWire,
    #[serde(default)]
    pub configuration: Option<ConfigurationWire>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConfigurationWire {
    /// 0.3: `false` answers at once with the task still working.
    #[serde(default)]
    pub blocking: Option<bool>,
    /// 1.0's spelling of `blocking: false`.
    #[serde(default)]
    pub return_immediately: Option<bool>,
    #[serde(default)]
    pub history_length: Option<usize>,
}

impl ConfigurationWire {
    pub(crate) fn blocking(&self) -> bool {
        self.blocking != Some(false) && self.return_immediately != Some(true)
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MessageWire {
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub context_id: Option<String>,
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default)]
    pub parts: Vec<PartWire>,
}

/// A part: 0.3 tags it (`"kind":"text"`), 1.0 names the field set (`"text"`).
#[derive(Debug, Deserialize)]
pub(crate) struct PartWire {
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
}

impl MessageWire {
    /// The text parts joined by newlines, as docker-agent reads a message.
    pub(crate) fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.kind.as_deref().is_none_or(|k| k == "text"))
            .filter_map(|p| p.text.as_deref())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// `tasks/get`, `tasks/cancel`, `GetTask`, `CancelTask` params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskIdWire {
    pub id: String,
    #[serde(default)]
    pub history_length: Option<usize>,
}

/// Parses `params` as `T`, or says what is wrong with them.
pub(crate) fn params<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Value,
) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::params(format!("`{method}` params: {e}")))
}

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Submitted,
    Working,
    Completed,
    Failed,
    Canceled,
    Rejected,
}

impl State {
    pub(crate) fn wire(self, v: Version) -> &'static str {
        match (self, v) {
            (Self::Submitted, Version::V03) => "submitted",
            (Self::Working, Version::V03) => "working",
            (Self::Completed, Version::V03) => "completed",
            (Self::Failed, Version::V03) => "failed",
            (Self::Canceled, Version::V03) => "canceled",
            (Self::Rejected, Version::V03) => "rejected",
            (Self::Submitted, Version::V10) => "TASK_STATE_SUBMITTED",
            (Self::Working, Version::V10) => "TASK_STATE_WORKING",
            (Self::Completed, Version::V10) => "TASK_STATE_COMPLETED",
            (Self::Failed, Version::V10) => "TASK_STATE_FAILED",
            (Self::Canceled, Version::V10) => "TASK_STATE_CANCELED",
            (Self::Rejected, Version::V10) => "TASK_STATE_REJECTED",
        }
    }

    pub(crate) fn terminal(self) -> bool {
        match self {
            Self::Submitted | Self::Working => false,
            Self::Completed | Self::Failed | Self::Canceled | Self::Rejected => true,
        }
    }
}

/// A text message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Msg {
    pub id: String,
    /// The user's (or the agent's).
    pub user: bool,
    pub text: String,
}

/// An answer the agent produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    pub id: String,
    pub text: String,
}

/// A task as the server keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Task {
    pub id: String,
    pub context_id: String,
    pub state: State,
    /// The status message: the answer, or why the task failed.
    pub status_message: Option<Msg>,
    /// RFC 3339, when the state last changed.
    pub timestamp: String,
    pub artifacts: Vec<Artifact>,
    pub history: Vec<Msg>,
}

/// Renders the task's pieces in one protocol generation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Render(pub Version);

impl Render {
    fn text_part(self, text: &str) -> Value {
        match self.0 {
            Version::V03 => json!({"kind": "text", "text": text}),
            Version::V10 => json!({"text": text}),
        }
    }

    pub(crate) fn message(self, m: &Msg, task: &Task) -> Value {
        let role = match (self.0, m.user) {
            (Version::V03, true) => "user",
            (Version::V03, false) => "agent",
            (Version::V10, true) => "ROLE_USER",
            (Version::V10, false) => "ROLE_AGENT",
        };
        let mut v = json!({
            "messageId": m.id,
            "role": role,
            "parts": [self.text_part(&m.text)],
            "taskId": task.id,
            "contextId": task.context_id,
        });
        self.kind(&mut v, "message");
        v
    }

    fn status(self, task: &Task) -> Value {
        let mut v = json!({"state": task.state.wire(self.0), "timestamp": task.timestamp});
        if let Some(m) = &task.status_message {
            v["message"] = self.message(m, task);
        }
        v
    }

    fn artifact(self, a: &Artifact) -> Value {
        json!({"artifactId": a.id, "name": "answer", "parts": [self.text_part(&a.text)]})
    }

    /// A task; `history_length` keeps only the latest messages.
    pub(crate) fn task(self, task: &Task, history_length: Option<usize>) -> Value {
        let skip = history_length.map_or(0, |n| task.history.len().saturating_sub(n));
        let history: Vec<Value> = task.history[skip..]
            .iter()
            .map(|m| self.message(m, task))
            .collect();
        let artifacts: Vec<Value> = task.artifacts.iter().map(|a| self.artifact(a)).collect();
        let mut v = json!({
            "id": task.id,
            "contextId": task.context_id,
            "status": self.status(task),
            "artifacts": artifacts,
            "history": history,
        });
        self.kind(&mut v, "task");
        v
    }

    /// The result of a send: 1.0 wraps the task in a oneof.
    pub(crate) fn send_result(self, task: &Task, history_length: Option<usize>) -> Value {
        self.wrap("task", self.task(task, history_length))
    }

    /// The stream's first event.
    pub(crate) fn task_event(self, task: &Task) -> Value {
        self.wrap("task", self.task(task, None))
    }

    /// A status change; `last` is 0.3's `final` (1.0 ends the stream instead).
    pub(crate) fn status_event(self, task: &Task, last: bool) -> Value {
        let mut v = json!({
            "taskId": task.id,
            "contextId": task.context_id,
            "status": self.status(task),
        });
        if self.0 == Version::V03 {
            v["final"] = Value::Bool(last);
        }
        self.kind(&mut v, "status-update");
        self.wrap("statusUpdate", v)
    }

    /// A piece of an artifact (`last`: the whole of it, replacing the pieces sent before).
    pub(crate) fn artifact_event(
        self,
        task_id: &str,
        context_id: &str,
        a: &Artifact,
        append: bool,
        last: bool,
    ) -> Value {
        let mut v = json!({
            "taskId": task_id,
            "contextId": context_id,
            "artifact": self.artifact(a),
            "append": append,
            "lastChunk": last,
        });
        self.kind(&mut v, "artifact-update");
        self.wrap("artifactUpdate", v)
    }

    fn kind(self, v: &mut Value, kind: &str) {
        if self.0 == Version::V03 {
            v["kind"] = Value::String(kind.to_owned());
        }
    }

    fn wrap(self, field: &str, v: Value) -> Value {
        match self.0 {
            Version::V03 => v,
            Version::V10 => json!({ field: v }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Task {
        Task {
            id: "t1".to_owned(),
            context_id: "c1".to_owned(),
            state: State::Completed,
            status_message: None,
            timestamp: "2026-01-01T00:00:00Z".to_owned(),
            artifacts: vec![Artifact {
                id: "a1".to_owned(),
                text: "4".to_owned(),
            }],
            history: vec![Msg {
                id: "m1".to_owned(),
                user: true,
                text: "2+2?".to_owned(),
            }],
        }
    }

    #[test]
    fn both_generations_of_method_names_are_known() {
        assert_eq!(method("message/send"), Ok((Method::Send, Version::V03)));
        assert_eq!(
            method("SendStreamingMessage"),
            Ok((Method::Stream, Version::V10))
        );
        assert_eq!(method("tasks/cancel"), Ok((Method::Cancel, Version::V03)));
        assert_eq!(method("GetTask"), Ok((Method::Get, Version::V10)));
        let code = |m: &str| method(m).map_err(|e| e.code).err();
        assert_eq!(
            code("tasks/pushNotificationConfig/set"),
            Some(PUSH_NOT_SUPPORTED)
        );
        assert_eq!(code("SubscribeToTask"), Some(UNSUPPORTED));
        assert_eq!(code("message/explode"), Some(METHOD_NOT_FOUND));
    }

    #[test]
    fn envelopes_are_checked_field_by_field() {
        let err = |body: &str| {
            Request::parse(body.as_bytes())
                .map_err(|(id, e)| (id, e.code))
                .err()
        };
        assert_eq!(err("{"), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(err("[]"), Some((Value::Null, INVALID_REQUEST)));
        assert_eq!(
            err(r#"{"id":1,"method":"x"}"#),
            Some((json!(1), INVALID_REQUEST))
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).map(|e| e.1),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":"a","method":3}"#),
            Some((json!("a"), INVALID_REQUEST))
        );
        let ok =
            Request::parse(br#"{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"t"}}"#);
        assert!(ok.is_ok_and(|r| r.method == "GetTask" && r.params == json!({"id": "t"})));
    }

    #[test]
    fn a_message_reads_the_text_parts_of_either_shape() {
        let v03: SendParamsWire = serde_json::from_value(json!({"message": {"kind": "message",
            "messageId": "m", "role": "user", "contextId": "c",
            "parts": [{"kind": "text", "text": "a"}, {"kind": "data", "data": {}}, {"kind": "text", "text": "b"}]}}))
        .unwrap();
        assert_eq!(v03.message.text(), "a\nb");
        assert_eq!(v03.message.context_id.as_deref(), Some("c"));
        assert!(v03.configuration.unwrap_or_default().blocking());
        let v10: SendParamsWire = serde_json::from_value(json!({"message": {"messageId": "m",
            "role": "ROLE_USER", "parts": [{"text": "hi"}, {"url": "http://x"}]},
            "configuration": {"returnImmediately": true}}))
        .unwrap();
        assert_eq!(v10.message.text(), "hi");
        assert!(!v10.configuration.unwrap_or_default().blocking());
    }

    #[test]
    fn a_task_renders_in_the_shapes_of_its_generation() {
        let t = task();
        assert_eq!(
            Render(Version::V03).send_result(&t, None),
            json!({"kind": "task", "id": "t1", "contextId": "c1",
                "status": {"state": "completed", "timestamp": "2026-01-01T00:00:00Z"},
                "artifacts": [{"artifactId": "a1", "name": "answer", "parts": [{"kind": "text", "text": "4"}]}],
                "history": [{"kind": "message", "messageId": "m1", "role": "user", "taskId": "t1",
                    "contextId": "c1", "parts": [{"kind": "text", "text": "2+2?"}]}]})
        );
        assert_eq!(
            Render(Version::V10).send_result(&t, Some(0)),
            json!({"task": {"id": "t1", "contextId": "c1",
                "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-01-01T00:00:00Z"},
                "artifacts": [{"artifactId": "a1", "name": "answer", "parts": [{"text": "4"}]}],
                "history": []}})
        );
        assert_eq!(
            Render(Version::V03).status_event(&t, true)["final"],
            json!(true)
        );
        let v10 = Render(Version::V10).status_event(&t, true);
        assert!(
            v10["statusUpdate"].get("final").is_none() && v10["statusUpdate"].get("kind").is_none()
        );
        assert_eq!(
            Render(Version::V10).artifact_event("t1", "c1", &t.artifacts[0], false, true)["artifactUpdate"]
                ["lastChunk"],
            json!(true)
        );
    }
}
