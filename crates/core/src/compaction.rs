//! Compaction (docs/design.md, Compaction; D1, D5): when the conversation nears the model's
//! context window (or overflows it, or the user asks), older messages are replaced by a
//! summary and a recent tail is kept verbatim. `pre_compact` can steer or veto,
//! `before_compaction` can veto or supply the summary itself, `after_compaction` observes, and
//! `session_start` fires again with `source: compact`.

use tether_hooks::events::{BeforeCompactionOutcome, Flow};
use tether_protocol::{
    CompactedPayload, CompactionPayload, HookEvent, Message, Payload, Role, RuntimeEvent,
    SourcePayload,
};
use tether_providers::{ChatRequest, complete};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::runtime::Runtime;
use crate::session::Session;

/// Compact past this share of the context window.
pub(crate) const THRESHOLD: f64 = 0.9;
/// The verbatim tail is at most this many tokens (and a fifth of the window).
const TAIL_TOKENS: u64 = 20_000;

const SYSTEM: &str = "You summarize a conversation between a user and an AI agent so that the agent can continue it without the original messages.";
const PROMPT: &str = "Summarize the conversation so far. Keep the user's goals and constraints, the decisions made, the files, commands and tool results that still matter, and the tasks still open. Be concise but complete, and write it so the agent can continue from it alone.";

/// Why a compaction runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compaction {
    /// The context passed the threshold at the start of an iteration.
    Threshold,
    /// Tool results pushed the context past the threshold.
    ToolOverflow,
    /// The model refused the request as too long.
    Overflow,
    /// The user asked (`/compact [instructions]`).
    Manual(Option<String>),
}

impl Compaction {
    /// `pre_compact.source`.
    fn source(&self) -> &'static str {
        match self {
            Self::Threshold => "auto",
            Self::ToolOverflow => "tool_overflow",
            Self::Overflow => "overflow",
            Self::Manual(_) => "manual",
        }
    }

    /// `before_compaction.compaction_reason`.
    fn reason(&self) -> &'static str {
        match self {
            Self::Threshold | Self::ToolOverflow => "threshold",
            Self::Overflow => "overflow",
            Self::Manual(_) => "manual",
        }
    }
}

/// Estimated tokens of one message: characters / 4, plus 5 for the framing.
pub(crate) fn estimate(m: &Message) -> u64 {
    let mut chars = m.content.len() + m.reasoning_content.len();
    for part in &m.multi_content {
        if let tether_protocol::ContentPart::Text { text } = part {
            chars += text.len();
        }
    }
    for call in &m.tool_calls {
        chars += call.function.name.len() + call.function.arguments.len();
    }
    (chars / 4) as u64 + 5
}

/// Where the verbatim tail starts: the first user message within the last `budget` tokens,
/// but never before the latest user message (something must be summarized).
fn tail_start(messages: &[Message], budget: u64) -> usize {
    let mut used = 0;
    let mut start = messages.len();
    for (i, m) in messages.iter().enumerate().rev() {
        used += estimate(m);
        if used > budget {
            break;
        }
        start = i;
    }
    let last_user = messages.iter().rposition(|m| m.role == Role::User);
    let start = start.max(last_user.unwrap_or(0));
    (start..messages.len())
        .find(|&i| messages[i].role == Role::User)
        .unwrap_or(messages.len())
}

impl Runtime {
    /// Whether the session is past the threshold of its model's window.
    pub(crate) fn over_threshold(&self, agent: &AgentRuntime, session: &Session) -> bool {
        let Some(limit) = agent.model.context_window().filter(|l| *l > 0) else {
            return false;
        };
        agent.compaction
            && (session.input_tokens + session.output_tokens) as f64
                > agent.compaction_threshold * limit as f64
    }

    /// Compacts the session; `true` if it was compacted.
    ///
    /// Boxed: keeps the callers' futures (and debug-build stack frames) small.
    pub fn compact<'a>(
        &'a self,
        session: &'a mut Session,
        why: Compaction,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(self.compact_inner(session, why, cancel))
    }

    async fn compact_inner(
        &self,
        session: &mut Session,
        why: Compaction,
        cancel: &CancellationToken,
    ) -> bool {
        let Ok(agent) = self.current(session) else {
            return false;
        };
        let limit = agent.model.context_window().unwrap_or(0);

        let input = SourcePayload {
            source: why.source().to_owned(),
        }
        .into_input(self.input(&agent, &session.id));
        let pre = self
            .fire(&agent, &session.id, HookEvent::PreCompact, input, cancel)
            .await;
        if !pre.allowed {
            if !pre.message.is_empty() {
                self.emit(
                    &session.id,
                    RuntimeEvent::Warning {
                        message: format!("compaction skipped: {}", pre.message),
                    },
                );
            }
            return false;
        }

        let tokens = (session.input_tokens, session.output_tokens);
        let common = self.input(&agent, &session.id);
        let compaction = CompactionPayload {
            input_tokens: i64::try_from(tokens.0).unwrap_or(i64::MAX),
            output_tokens: i64::try_from(tokens.1).unwrap_or(i64::MAX),
            context_limit: i64::try_from(limit).unwrap_or(0),
            compaction_reason: why.reason().to_owned(),
        };
        let before = BeforeCompactionOutcome::from(
            self.fire(
                &agent,
                &session.id,
                HookEvent::BeforeCompaction,
                compaction.clone().into_input(common.clone()),
                cancel,
            )
            .await,
        );
        if before.flow != Flow::Continue {
            return false;
        }

        let budget = if limit > 0 {
            TAIL_TOKENS.min(limit / 5)
        } else {
            TAIL_TOKENS
        };
        let (summary, cut) = if let Some(summary) = before.summary {
            (summary, session.messages.len())
        } else {
            let cut = tail_start(&session.messages, budget);
            if cut == 0 {
                return false;
            }
            let extra = match &why {
                Compaction::Manual(Some(text)) => text.as_str(),
                _ => "",
            };
            match self
                .summarize(&agent, session, cut, extra, &pre.additional_context, cancel)
                .await
            {
                Ok(s) => (s, cut),
                Err(e) => {
                    self.emit(
                        &session.id,
                        RuntimeEvent::Warning {
                            message: format!("compaction failed: {e}"),
                        },
                    );
                    return false;
                }
            }
        };

        let tail = session.messages.split_off(cut);
        let summarized = session.messages.len();
        session.messages = tail;
        session.summary = Some(summary.clone());
        session.input_tokens = estimate(&Message::system(summary.clone()))
            + session.messages.iter().map(estimate).sum::<u64>();
        session.output_tokens = 0;
        self.persist_history(session);
        self.persist_meta(session);
        self.emit(
            &session.id,
            RuntimeEvent::Warning {
                message: format!("compacted the conversation: {summarized} messages summarized"),
            },
        );

        let input = CompactedPayload {
            compaction,
            summary,
        }
        .into_input(common);
        self.fire(
            &agent,
            &session.id,
            HookEvent::AfterCompaction,
            input,
            cancel,
        )
        .await;
        self.start_session(session, "compact", cancel).await;
        self.persist_meta(session);
        true
    }

    async fn summarize(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        cut: usize,
        extra: &str,
        hook_context: &str,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        let mut messages = vec![Message::system(SYSTEM)];
        if let Some(previous) = &session.summary {
            messages.push(Message::system(format!(
                "Summary of the conversation before this part:\n\n{previous}"
            )));
        }
        messages.extend(session.messages[..cut].iter().cloned());
        let mut prompt = PROMPT.to_owned();
        for more in [extra, hook_context] {
            if !more.trim().is_empty() {
                prompt.push_str("\n\n");
                prompt.push_str(more.trim());
            }
        }
        messages.push(Message::user(prompt));
        let request = ChatRequest {
            messages,
            tools: Vec::new(),
            response_schema: None,
            tool_choice: None,
        };
        let response = tokio::select! {
            r = complete(
                agent.compaction_provider.as_ref().unwrap_or(&agent.provider).as_ref(),
                &request,
            ) => r.map_err(|e| e.to_string())?,
            () = cancel.cancelled() => return Err("cancelled".to_owned()),
        };
        let text = response.message.text().trim().to_owned();
        if text.is_empty() {
            return Err("the model wrote an empty summary".to_owned());
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_starts_at_a_user_message_within_budget() {
        let msgs = vec![
            Message::user("a".repeat(400)),
            Message::assistant("b".repeat(400)),
            Message::user("c".repeat(40)),
            Message::assistant("d".repeat(40)),
            Message::tool_result("x", "t", "e".repeat(40), false),
        ];
        // Each of the last three is 15 tokens: a budget of 50 reaches back to index 2.
        assert_eq!(tail_start(&msgs, 50), 2);
        assert_eq!(
            tail_start(&msgs, 10),
            5,
            "no user message in range: nothing is kept"
        );
        assert_eq!(
            tail_start(&msgs, 10_000),
            2,
            "the latest user message bounds the tail"
        );
    }
}
