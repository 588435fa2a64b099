//! What is sent on each model call (docs/design.md, Events): the invariant system messages, then the
//! hook contexts — session (S, persisted), prompt (U), turn (T), then the next-call contexts of
//! `post_tool_use` and `stop` (docs/design.md D3) — each as one system message, then the compaction summary,
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
    let start = out.len();
    out.extend(history.iter().cloned());
    if let Some(budget) = agent.max_old_tool_call_tokens {
        elide_old_tool_calls(&mut out[start..], budget);
    }
    out
}

/// What an elided tool result says.
pub(crate) const ELIDED_RESULT: &str =
    "[Content of an older tool call removed to save context (max_old_tool_call_tokens).]";

/// `max_old_tool_call_tokens`: walking from the newest, tool-call arguments and results count
/// against `budget` (bytes / 4); once it is spent, each older call's arguments become `{}` and
/// its result a placeholder. The latest batch of calls is always sent whole: the model is
/// working on it.
fn elide_old_tool_calls(history: &mut [Message], budget: u64) {
    let Some(latest) = history
        .iter()
        .rposition(|m| m.role == Role::Assistant && !m.tool_calls.is_empty())
    else {
        return;
    };
    let mut spent: u64 = 0;
    let mut over = false;
    for m in history[..latest].iter_mut().rev() {
        let size: usize = match m.role {
            Role::Tool => m.content.len(),
            _ => m
                .tool_calls
                .iter()
                .map(|c| c.function.arguments.len())
                .sum(),
        };
        if size == 0 {
            continue;
        }
        spent += (size / 4) as u64;
        over |= spent > budget;
        if !over {
            continue;
        }
        if m.role == Role::Tool {
            ELIDED_RESULT.clone_into(&mut m.content);
            m.multi_content.clear();
        } else {
            for c in &mut m.tool_calls {
                "{}".clone_into(&mut c.function.arguments);
            }
        }
    }
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

    fn call(id: &str, args: &str) -> Message {
        let mut m = Message::assistant("");
        m.tool_calls
            .push(tether_protocol::ToolCall::new(id, "shell", args));
        m
    }

    #[test]
    fn old_tool_calls_past_the_budget_become_placeholders_newest_first() {
        let big = "x".repeat(400); // 100 tokens
        let mut msgs = vec![
            Message::user("go"),
            call("c1", &format!("{{\"cmd\":\"{big}\"}}")),
            Message::tool_result("c1", "shell", big.clone(), false),
            call("c2", "{\"cmd\":\"ls\"}"),
            Message::tool_result("c2", "shell", big.clone(), false),
            call("c3", &format!("{{\"cmd\":\"{big}\"}}")),
            Message::tool_result("c3", "shell", big.clone(), false),
        ];
        elide_old_tool_calls(&mut msgs, 150);
        // The latest batch (c3) is whole; c2's result (100) and arguments (3) fit; c1 is over.
        assert_eq!(msgs[6].content, big);
        assert!(msgs[5].tool_calls[0].function.arguments.len() > 400);
        assert_eq!(msgs[4].content, big);
        assert_eq!(msgs[3].tool_calls[0].function.arguments, "{\"cmd\":\"ls\"}");
        assert_eq!(msgs[2].content, ELIDED_RESULT);
        assert_eq!(msgs[1].tool_calls[0].function.arguments, "{}");
        assert_eq!(msgs[0].content, "go");
    }

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
