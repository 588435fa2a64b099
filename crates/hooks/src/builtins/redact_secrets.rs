//! `redact_secrets`: scrubs secrets from tool arguments (pre_tool_use), outgoing messages
//! (before_llm_call) and tool output (tool_response_transform), dispatching on the event. The
//! detection is `tether-secrets`; only the changed top-level arguments are returned, and the
//! runtime merges them onto the call's own (docs/design.md D9), so untouched arguments survive.

use std::borrow::Cow;
use std::sync::Once;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tether_protocol::{HookEvent, HookOutput, HookSpecificOutput, Message};

use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct RedactSecrets;

fn specific(event: HookEvent, f: impl FnOnce(&mut HookSpecificOutput)) -> HookOutput {
    let mut h = HookSpecificOutput {
        hook_event_name: event.wire_name().to_owned(),
        ..HookSpecificOutput::default()
    };
    f(&mut h);
    HookOutput {
        hook_specific_output: Some(Box::new(h)),
        ..HookOutput::default()
    }
}

/// The top-level arguments whose value changed, redacted.
pub(crate) fn redact_arguments(args: &Map<String, Value>) -> Map<String, Value> {
    args.iter()
        .filter_map(|(k, v)| {
            let mut v = v.clone();
            tether_secrets::redact_json(&mut v).then(|| (k.clone(), v))
        })
        .collect()
}

fn redact_in_place(text: &mut String) -> bool {
    match tether_secrets::redact(text) {
        Cow::Borrowed(_) => false,
        Cow::Owned(r) => {
            *text = r;
            true
        }
    }
}

/// Redacts content, reasoning, text parts and tool-call arguments of every message.
pub(crate) fn redact_messages(messages: &[Message]) -> Option<Vec<Message>> {
    let mut out = messages.to_vec();
    let mut changed = false;
    for m in &mut out {
        changed |= redact_in_place(&mut m.content);
        changed |= redact_in_place(&mut m.reasoning_content);
        for part in &mut m.multi_content {
            if let tether_protocol::ContentPart::Text { text } = part {
                changed |= redact_in_place(text);
            }
        }
        if let Some(f) = &mut m.function_call {
            changed |= redact_in_place(&mut f.arguments);
        }
        for call in &mut m.tool_calls {
            changed |= redact_in_place(&mut call.function.arguments);
        }
    }
    changed.then_some(out)
}

impl Builtin for RedactSecrets {
    fn name(&self) -> &'static str {
        "redact_secrets"
    }

    /// Compiles the rule table on a thread of its own, once per process: a first large tool
    /// output would otherwise wait tens of milliseconds for it, and the caller has other work to
    /// do first (reading the input, a model call).
    fn prepare(&self) {
        static STARTED: Once = Once::new();
        STARTED.call_once(|| {
            // No thread to be had: the first search compiles what it needs, as before.
            let _ = std::thread::Builder::new()
                .name("redact-prepare".to_owned())
                .spawn(tether_secrets::prepare);
        });
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let input = call.input;
            let out = match call.event {
                HookEvent::PreToolUse | HookEvent::ToolInputTransform => {
                    let Some(args) = &input.tool_input else {
                        return Ok(None);
                    };
                    let changed = redact_arguments(args);
                    if changed.is_empty() {
                        return Ok(None);
                    }
                    let mut out = specific(call.event, |h| h.updated_input = Some(changed));
                    out.system_message = format!(
                        "redact_secrets: redacted secret material from arguments of tool \"{}\"",
                        input.tool_name
                    );
                    out
                }
                HookEvent::BeforeLlmCall => {
                    let Some(messages) = redact_messages(&input.messages) else {
                        return Ok(None);
                    };
                    specific(call.event, |h| h.updated_messages = Some(messages))
                }
                HookEvent::ToolResponseTransform => {
                    let Some(text) = &input.tool_response else {
                        return Ok(None);
                    };
                    let Cow::Owned(redacted) = tether_secrets::redact(text) else {
                        return Ok(None);
                    };
                    specific(call.event, |h| h.updated_tool_response = Some(redacted))
                }
                _ => return Ok(None),
            };
            Ok(Some(out))
        })
    }
}
