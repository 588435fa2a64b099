//! The approval ladder's questions as `session/request_permission` requests to the editor:
//! its choice is the user's answer.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tether_core::{Confirmation, ConfirmationRequest};
use tokio_util::sync::CancellationToken;

use super::rpc::Peer;
use super::updates;
use crate::router::Asker;

/// Asks the editor on behalf of one session's running prompt.
#[derive(Debug)]
pub(crate) struct EditorAsker {
    pub(crate) peer: Arc<Peer>,
    pub(crate) session_id: String,
    /// Tools the user chose "always reject" for in this session: denied without asking.
    pub(crate) rejected: Arc<Mutex<HashSet<String>>>,
    /// The session's `auto` mode: allow once without asking.
    pub(crate) auto: Arc<AtomicBool>,
    /// The prompt's cancellation: a question still open is answered `Cancelled`.
    pub(crate) cancel: CancellationToken,
}

/// The four choices every question offers.
pub(crate) fn options() -> Value {
    json!([
        {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "allow_always", "name": "Allow for this session", "kind": "allow_always"},
        {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
        {"optionId": "reject_always", "name": "Reject for this session", "kind": "reject_always"},
    ])
}

/// The answer a `session/request_permission` response means. `Err`: the editor's answer
/// makes no sense (then the call is denied, never run).
pub(crate) fn answer(response: &Value, tool: &str) -> Result<(Confirmation, bool), String> {
    let outcome = &response["outcome"];
    match outcome["outcome"].as_str() {
        Some("cancelled") => Ok((Confirmation::Cancelled, false)),
        Some("selected") => match outcome["optionId"].as_str() {
            Some("allow_once") => Ok((Confirmation::Yes, false)),
            Some("allow_always") => Ok((Confirmation::All, false)),
            Some(id @ ("reject_once" | "reject_always")) => Ok((
                Confirmation::No {
                    reason: Some(format!("the user rejected `{tool}` in the editor")),
                },
                id == "reject_always",
            )),
            other => Err(format!("the editor chose an unknown option {other:?}")),
        },
        _ => Err(format!("the editor answered with no outcome: {response}")),
    }
}

impl Asker for EditorAsker {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        Box::pin(async move {
            let tool = &request.tool_name;
            if self.auto.load(Ordering::SeqCst) {
                return Confirmation::Yes;
            }
            if self.rejected.lock().is_ok_and(|r| r.contains(tool)) {
                return Confirmation::No {
                    reason: Some(format!("the user rejected `{tool}` for this session")),
                };
            }
            let mut call =
                updates::tool_call(&request.tool_call_id, tool, &request.arguments, "pending");
            if let Value::Object(map) = &mut call {
                map.remove("sessionUpdate");
            }
            let params = json!({
                "sessionId": self.session_id,
                "toolCall": call,
                "options": options(),
            });
            let asked = self.peer.request("session/request_permission", params);
            let response = tokio::select! {
                r = asked => r,
                () = self.cancel.cancelled() => return Confirmation::Cancelled,
            };
            match response.and_then(|r| answer(&r, tool)) {
                Ok((confirmation, always)) => {
                    if always && let Ok(mut r) = self.rejected.lock() {
                        r.insert(tool.clone());
                    }
                    confirmation
                }
                Err(e) => Confirmation::No {
                    reason: Some(format!("tool `{tool}` was not approved: {e}")),
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_choice_is_the_matching_answer() {
        let selected = |id: &str| json!({"outcome": {"outcome": "selected", "optionId": id}});
        assert_eq!(
            answer(&selected("allow_once"), "shell"),
            Ok((Confirmation::Yes, false))
        );
        assert_eq!(
            answer(&selected("allow_always"), "shell"),
            Ok((Confirmation::All, false))
        );
        let no = Confirmation::No {
            reason: Some("the user rejected `shell` in the editor".into()),
        };
        assert_eq!(
            answer(&selected("reject_once"), "shell"),
            Ok((no.clone(), false))
        );
        assert_eq!(answer(&selected("reject_always"), "shell"), Ok((no, true)));
        assert_eq!(
            answer(&json!({"outcome": {"outcome": "cancelled"}}), "shell"),
            Ok((Confirmation::Cancelled, false))
        );
        assert!(answer(&selected("sure"), "shell").is_err());
        assert!(answer(&json!({}), "shell").is_err());
    }
}
