//! `elide_repeated_tool_results` (before_llm_call): agents re-read the same file and re-run
//! the same listing; every copy of an identical tool result costs its tokens again on every
//! later call. Each tool result whose text equals an earlier one of the outgoing messages
//! becomes a one-line reference to the first (its call id and tool), so the model still
//! sees that the call ran and where its output is. Only this call's messages change: the
//! session keeps every result. Results shorter than `min_chars` (default 200; the reference
//! would save little) and error results stay as they are.

use std::collections::HashMap;

use futures::future::BoxFuture;
use tether_protocol::{HookOutput, HookSpecificOutput, Message, Role};

use crate::registry::{Builtin, BuiltinCall};

/// Results shorter than this many characters are never elided unless `args` say otherwise.
pub const DEFAULT_MIN_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, Default)]
pub struct ElideRepeatedToolResults;

/// `[]` → the default; `["N"]` or `["min_chars=N"]` → N.
fn min_chars(args: &[String]) -> Result<usize, String> {
    match args {
        [] => Ok(DEFAULT_MIN_CHARS),
        [one] => {
            let v = one.trim();
            let v = v.strip_prefix("min_chars=").unwrap_or(v);
            v.parse::<usize>().map_err(|_| {
                format!(
                    "expected a character count (e.g. `args: [\"min_chars=200\"]`), got `{one}`"
                )
            })
        }
        _ => Err("takes at most one argument, `min_chars=N`".to_owned()),
    }
}

/// The text that replaces a repeated result.
pub fn reference(first_call_id: &str, tool: &str) -> String {
    format!("[same output as the earlier `{tool}` call {first_call_id}; elided to save context]")
}

/// The messages with repeated tool results elided, or `None` when nothing repeats.
pub fn elide(messages: &[Message], min_chars: usize) -> Option<Vec<Message>> {
    let mut first: HashMap<&str, (&str, &str)> = HashMap::new();
    let mut out: Option<Vec<Message>> = None;
    for (i, m) in messages.iter().enumerate() {
        if m.role != Role::Tool
            || m.is_error
            || !m.multi_content.is_empty()
            || m.content.chars().count() < min_chars.max(1)
        {
            continue;
        }
        match first.get(m.content.as_str()) {
            None => {
                first.insert(&m.content, (&m.tool_call_id, &m.name));
            }
            Some((id, tool)) => {
                let text = reference(id, tool);
                let copy = out.get_or_insert_with(|| messages.to_vec());
                copy[i].content = text;
            }
        }
    }
    out
}

impl Builtin for ElideRepeatedToolResults {
    fn name(&self) -> &'static str {
        "elide_repeated_tool_results"
    }

    fn check_args(&self, args: &[String]) -> Result<(), String> {
        min_chars(args).map(|_| ())
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let min = min_chars(call.args)?;
            let Some(messages) = elide(&call.input.messages, min) else {
                return Ok(None);
            };
            Ok(Some(HookOutput {
                hook_specific_output: Some(Box::new(HookSpecificOutput {
                    hook_event_name: call.event.wire_name().to_owned(),
                    updated_messages: Some(messages),
                    ..HookSpecificOutput::default()
                })),
                ..HookOutput::default()
            }))
        })
    }
}
