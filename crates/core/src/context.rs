//! What is sent on each model call (docs/design.md, Events): the invariant system messages, then the
//! hook contexts — session (S, persisted), prompt (U), turn (T), then the next-call contexts of
//! `post_tool_use` and `stop` (X3) — each as one system message, then the compaction summary,
//! then the history.

use tether_protocol::{Message, Role};

use crate::agent::AgentRuntime;
use crate::session::Session;

/// The outgoing messages for one call.
pub(crate) fn outgoing(
    agent: &AgentRuntime,
    session: &Session,
    tool_instructions: &[String],
    prompt_ctx: &str,
    turn_ctx: &str,
) -> Vec<Message> {
    let history = history(&session.messages, agent.num_history_items);
    let mut out = Vec::with_capacity(agent.system_prompt.len() + 4 + history.len());
    out.extend(
        agent
            .system_prompt
            .iter()
            .chain(tool_instructions)
            .filter(|s| !s.is_empty())
            .map(|s| Message::system(s.clone())),
    );
    if let Some(instruction) = session.instruction.as_deref().filter(|s| !s.is_empty()) {
        out.push(Message::system(instruction));
    }
    for ctx in [session.session_context.as_str(), prompt_ctx, turn_ctx]
        .into_iter()
        .chain(session.pending_context.iter().map(String::as_str))
    {
        if !ctx.is_empty() {
            out.push(Message::system(ctx));
        }
    }
    if let Some(summary) = session.summary.as_deref().filter(|s| !s.is_empty()) {
        out.push(Message::system(format!(
            "Summary of the conversation so far:\n\n{summary}"
        )));
    }
    out.extend(history.iter().cloned());
    out
}

/// The last `limit` messages (all when 0), never starting with an orphan tool result.
fn history(messages: &[Message], limit: u32) -> &[Message] {
    let limit = limit as usize;
    if limit == 0 || messages.len() <= limit {
        return messages;
    }
    let mut start = messages.len() - limit;
    while start < messages.len() && messages[start].role == Role::Tool {
        start += 1;
    }
    &messages[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_history_never_starts_with_a_tool_result() {
        let msgs = vec![
            Message::user("u1"),
            Message::assistant("a1"),
            Message::tool_result("c1", "shell", "r1", false),
            Message::tool_result("c2", "shell", "r2", false),
            Message::assistant("a2"),
        ];
        let h = history(&msgs, 3);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].content, "a2");
        assert_eq!(history(&msgs, 0).len(), 5);
        assert_eq!(history(&msgs, 9).len(), 5);
        assert_eq!(history(&msgs, 4)[0].content, "a1");
    }
}
