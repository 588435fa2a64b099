//! `safer_shell` (preempt lane): classifies a `shell` call's command on a real parse
//! (`tether-shell-safety`). Known read-only commands pass silently; everything else asks, with
//! `blast_radius`, `category` and `reason` metadata for the confirmation prompt.

use std::collections::BTreeMap;

use futures::future::BoxFuture;
use serde_json::Value;
use tether_protocol::{HookEvent, HookOutput, HookSpecificOutput};
use tether_shell_safety::Verdict;

use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct SaferShell;

/// `cmd`, else `command`, else empty.
fn command(args: Option<&serde_json::Map<String, Value>>) -> &str {
    let Some(args) = args else { return "" };
    args.get("cmd")
        .and_then(Value::as_str)
        .or_else(|| args.get("command").and_then(Value::as_str))
        .unwrap_or("")
}

/// The answer for one command: `None` when it may run without an opinion.
pub(crate) fn verdict(command: &str) -> Option<HookOutput> {
    let Verdict::Ask(finding) = tether_shell_safety::classify(command) else {
        return None;
    };
    let mut metadata = BTreeMap::from([
        (
            "blast_radius".to_owned(),
            finding.blast_radius.as_str().to_owned(),
        ),
        ("reason".to_owned(), finding.reason.clone()),
    ]);
    if let Some(category) = finding.category {
        metadata.insert("category".to_owned(), category.to_owned());
    }
    Some(HookOutput {
        hook_specific_output: Some(Box::new(HookSpecificOutput {
            hook_event_name: HookEvent::PreToolUse.wire_name().to_owned(),
            permission_decision: "ask".to_owned(),
            permission_decision_reason: finding.reason,
            metadata: Some(metadata),
            ..HookSpecificOutput::default()
        })),
        ..HookOutput::default()
    })
}

impl Builtin for SaferShell {
    fn name(&self) -> &'static str {
        "safer_shell"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            // A background job is a shell command too: guarding only `shell` would leave a
            // way around the guard.
            let runs_a_command = matches!(
                call.input.tool_name.as_str(),
                "shell" | "run_background_job"
            );
            if call.event != HookEvent::PreToolUse || !runs_a_command {
                return Ok(None);
            }
            Ok(verdict(command(call.input.tool_input.as_ref())))
        })
    }
}
