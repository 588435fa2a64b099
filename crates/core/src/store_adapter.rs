//! The SQLite store behind the runtime's [`SessionStore`], and restoring a stored session
//! (with its transcript repaired so a provider accepts it after a crash).

use std::collections::HashSet;

use serde_json::json;
use tether_protocol::{Message, Role, Usage};
use tether_store::{NewSession, SessionUpdate, Store, StoredSession, UsageRecord};

use crate::session::Session;
use crate::store::{SessionStore, StoredInfo};

/// The text given to a tool call that has no result (the process died while it ran).
pub const INTERRUPTED: &str =
    "The tool call was interrupted before it finished (the session was resumed).";

impl SessionStore for Store {
    fn create(
        &self,
        session: &Session,
        working_dir: &str,
        first_prompt: Option<&str>,
    ) -> Result<(), String> {
        self.create_session(&NewSession {
            id: session.id.clone(),
            parent_id: session.parent_id.clone(),
            agent: session.agent.clone(),
            working_dir: working_dir.into(),
            first_prompt: first_prompt.map(str::to_owned),
        })
        .map_err(|e| e.to_string())?;
        SessionStore::update(self, session)
    }

    fn append(&self, session_id: &str, message: &Message) -> Result<(), String> {
        self.append_message(session_id, message)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn update(&self, session: &Session) -> Result<(), String> {
        // The runtime's own keys win over a server's of the same name.
        let mut extra = session.extra.clone();
        extra.insert("instruction".to_owned(), json!(session.instruction));
        extra.insert("agent_file".to_owned(), json!(session.agent_file));
        let update = SessionUpdate {
            agent: Some(session.agent.clone()),
            session_context: Some(Some(session.session_context.clone()).filter(|c| !c.is_empty())),
            summary: Some(session.summary.clone()),
            input_tokens: Some(session.input_tokens),
            output_tokens: Some(session.output_tokens),
            cost: Some(session.cost),
            extra: Some(serde_json::Value::Object(extra)),
            ..SessionUpdate::default()
        };
        Self::update(self, &session.id, &update).map_err(|e| e.to_string())
    }

    fn replace_messages(&self, session_id: &str, messages: &[Message]) -> Result<(), String> {
        Self::replace_messages(self, session_id, messages).map_err(|e| e.to_string())
    }

    fn record_usage(
        &self,
        session_id: &str,
        model_id: &str,
        usage: &Usage,
        cost: Option<f64>,
    ) -> Result<(), String> {
        Self::record_usage(
            self,
            session_id,
            &UsageRecord {
                model_id: model_id.to_owned(),
                usage: *usage,
                cost,
                at: jiff::Timestamp::now(),
            },
        )
        .map_err(|e| e.to_string())
    }

    fn history(&self, limit: usize) -> Result<Vec<StoredInfo>, String> {
        let summaries = self.list().map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(limit.min(summaries.len()));
        // Each is loaded for its message count: only as many as asked.
        for s in summaries.into_iter().take(limit) {
            if let Some((info, _)) = SessionStore::transcript(self, &s.id)? {
                out.push(info);
            }
        }
        Ok(out)
    }

    fn transcript(&self, id: &str) -> Result<Option<(StoredInfo, Vec<Message>)>, String> {
        let Some(stored) = self.load(id).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let title: String = stored
            .meta
            .first_prompt
            .as_deref()
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(80)
            .collect();
        let info = StoredInfo {
            id: stored.meta.id,
            title,
            created_at: stored
                .meta
                .created_at
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
            num_messages: stored.messages.len(),
        };
        Ok(Some((info, stored.messages)))
    }
}

/// Gives every tool call without a result a synthesised "interrupted" result, right after the
/// results it does have, so the transcript is one a provider accepts. Returns whether it changed.
pub fn repair_transcript(messages: &mut Vec<Message>) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < messages.len() {
        if messages[i].role != Role::Assistant || messages[i].tool_calls.is_empty() {
            i += 1;
            continue;
        }
        let calls = messages[i].tool_calls.clone();
        let mut j = i + 1;
        let mut answered = HashSet::new();
        while j < messages.len() && messages[j].role == Role::Tool {
            answered.insert(messages[j].tool_call_id.clone());
            j += 1;
        }
        for call in calls.iter().filter(|c| !answered.contains(&c.id)) {
            messages.insert(
                j,
                Message::tool_result(
                    call.id.clone(),
                    call.function.name.clone(),
                    INTERRUPTED,
                    true,
                ),
            );
            j += 1;
            changed = true;
        }
        i = j;
    }
    changed
}

/// A stored session, back in memory (transcript repaired).
pub fn restore(stored: StoredSession) -> Session {
    let meta = stored.meta;
    let mut session = Session::new(meta.id, meta.agent);
    session.parent_id = meta.parent_id;
    session.session_context = meta.session_context.unwrap_or_default();
    session.summary = meta.summary;
    session.instruction = meta
        .extra
        .get("instruction")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    session.agent_file = meta
        .extra
        .get("agent_file")
        .and_then(|v| v.as_str())
        .map(std::path::PathBuf::from);
    if let serde_json::Value::Object(mut extra) = meta.extra {
        extra.remove("instruction");
        extra.remove("agent_file");
        session.extra = extra;
    }
    session.input_tokens = meta.input_tokens;
    session.output_tokens = meta.output_tokens;
    session.cost = meta.cost;
    session.messages = stored.messages;
    repair_transcript(&mut session.messages);
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use tether_protocol::ToolCall;

    #[test]
    fn dangling_tool_calls_get_an_interrupted_result() {
        let mut assistant = Message::assistant("");
        assistant.tool_calls = vec![
            ToolCall::new("a", "shell", "{}"),
            ToolCall::new("b", "shell", "{}"),
        ];
        let mut msgs = vec![
            Message::user("go"),
            assistant,
            Message::tool_result("a", "shell", "done", false),
        ];
        assert!(repair_transcript(&mut msgs));
        assert_eq!(msgs.len(), 4);
        assert_eq!(msgs[3].tool_call_id, "b");
        assert_eq!(msgs[3].content, INTERRUPTED);
        assert!(msgs[3].is_error);
        assert!(
            !repair_transcript(&mut msgs),
            "a repaired transcript stays as it is"
        );
    }

    #[test]
    fn what_a_server_keeps_with_a_session_survives_the_store() {
        let store = Store::open_in_memory().unwrap();
        let mut session = Session::new("s1", "root");
        session.instruction = Some("mind the gap".into());
        session
            .extra
            .insert("api".into(), json!({"title": "Trains"}));
        SessionStore::create(&store, &session, "/tmp", None).unwrap();
        let back = restore(store.load("s1").unwrap().unwrap());
        assert_eq!(back.extra.get("api"), Some(&json!({"title": "Trains"})));
        assert_eq!(back.extra.len(), 1, "the runtime's own keys stay its own");
        assert_eq!(back.instruction.as_deref(), Some("mind the gap"));
    }
}
