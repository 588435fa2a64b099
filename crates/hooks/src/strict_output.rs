//! `strict_output: true`: a hook's stdout must be empty or one JSON Output object holding only
//! keys the dispatching event reads. Anything else — plain text, trailing text, an unknown key,
//! a value of the wrong type, an output the event ignores (`updated_messages` on
//! `pre_tool_use`, a block on an event that cannot block) — turns a successful run into a
//! hook failure, so `on_error` applies and fail-closed events deny. Keys are still matched
//! case-insensitively with Claude Code's camelCase accepted, as the lenient parser does.

use serde_json::{Map, Value};
use tether_protocol::{ContextLifetime, HookEvent, SpecificOutput};

use crate::output_parser::{self, SPECIFIC_KEYS, TOP_KEYS};
use crate::result::Outcome;

/// Turns an exit-0 outcome whose stdout breaks the contract into a failure.
pub(crate) fn enforce(event: HookEvent, name: &str, outcome: &mut Outcome) {
    let Outcome::Exited {
        code: 0,
        stdout,
        stderr,
        ..
    } = outcome
    else {
        return;
    };
    if let Err(why) = check(event, stdout) {
        *outcome = Outcome::Failed {
            error: format!("hook {name:?} broke strict_output: {why}"),
            stdout: std::mem::take(stdout),
            stderr: std::mem::take(stderr),
            timed_out: false,
        };
    }
}

/// `Ok` when `stdout` is empty or a JSON Output object `event` fully understands.
pub(crate) fn check(event: HookEvent, stdout: &str) -> Result<(), String> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(());
    }
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) else {
        return Err("stdout is not a single JSON object".to_owned());
    };
    for (key, value) in &top {
        let canonical =
            canonical(key, &TOP_KEYS).ok_or_else(|| format!("unknown output field `{key}`"))?;
        match canonical {
            "decision" if value.as_str().is_some_and(|d| !d.is_empty()) && !event.can_block() => {
                return Err(format!(
                    "`decision` is not supported on `{event}`: it cannot block"
                ));
            }
            "continue" if *value == Value::Bool(false) && !event.can_block() => {
                return Err(format!(
                    "`continue: false` is not supported on `{event}`: it cannot block"
                ));
            }
            "hook_specific_output" => {
                if let Value::Object(specific) = value {
                    check_specific(event, specific)?;
                }
            }
            _ => {}
        }
    }
    // Types: the lenient parser rejects a mismatch by reading the whole text as plain text.
    if output_parser::parse_object(text).is_none() {
        return Err("the JSON does not match the hook Output shape".to_owned());
    }
    Ok(())
}

fn check_specific(event: HookEvent, specific: &Map<String, Value>) -> Result<(), String> {
    for key in specific.keys() {
        let lower = key.to_ascii_lowercase();
        // Routing hooks answer with `transition`, which the lenient parser does not read.
        let canonical = if lower == "transition" {
            "transition"
        } else {
            canonical(key, &SPECIFIC_KEYS)
                .ok_or_else(|| format!("unknown field `hook_specific_output.{key}`"))?
        };
        if !event_reads(event, canonical) {
            return Err(format!(
                "`hook_specific_output.{canonical}` is not supported on `{event}`"
            ));
        }
    }
    Ok(())
}

fn canonical(key: &str, keys: &[(&'static str, &'static str)]) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    keys.iter()
        .find(|(snake, camel)| lower == *snake || lower == *camel)
        .map(|(snake, _)| *snake)
}

/// Whether `event` reads `hook_specific_output.KEY`.
fn event_reads(event: HookEvent, key: &str) -> bool {
    match key {
        "hook_event_name" => true,
        "additional_context" => event.context_lifetime() != ContextLifetime::Ignored,
        "transition" => event.specific_output() == SpecificOutput::Transition,
        _ => match event.specific_output() {
            // Only pre_tool_use takes rewrites; tool_guard's metadata reaches the prompt.
            SpecificOutput::ToolDecision => match key {
                "permission_decision" | "permission_decision_reason" => true,
                "updated_input" => event == HookEvent::PreToolUse,
                "metadata" => matches!(event, HookEvent::PreToolUse | HookEvent::ToolGuard),
                _ => false,
            },
            SpecificOutput::InputRewrite => key == "updated_input",
            SpecificOutput::Transition => false,
            SpecificOutput::PermissionAnswer => matches!(
                key,
                "permission_decision" | "permission_decision_reason" | "metadata"
            ),
            SpecificOutput::Summary => key == "summary",
            SpecificOutput::Messages => key == "updated_messages",
            SpecificOutput::ToolResponse => key == "updated_tool_response",
            SpecificOutput::Nothing => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn empty_stdout_and_understood_objects_pass() {
        for (event, text) in [
            (HookEvent::PreToolUse, ""),
            (HookEvent::PreToolUse, "  \n"),
            (
                HookEvent::PreToolUse,
                r#"{"hook_specific_output": {"hook_event_name": "pre_tool_use", "permission_decision": "deny", "permission_decision_reason": "no"}}"#,
            ),
            (
                HookEvent::PreToolUse,
                r#"{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"cmd": "ls"}}}"#,
            ),
            (
                HookEvent::PostToolUse,
                r#"{"decision": "block", "reason": "r"}"#,
            ),
            (
                HookEvent::SessionStart,
                r#"{"system_message": "hi", "hook_specific_output": {"additional_context": "c"}}"#,
            ),
            (
                HookEvent::BeforeLlmCall,
                r#"{"hook_specific_output": {"updated_messages": []}}"#,
            ),
        ] {
            assert_eq!(check(event, text), Ok(()), "{event} {text}");
        }
    }

    #[test]
    fn anything_else_is_a_violation_with_its_reason() {
        let cases = [
            (
                HookEvent::PreToolUse,
                "allow",
                "stdout is not a single JSON object",
            ),
            (
                HookEvent::PreToolUse,
                "{} {}",
                "stdout is not a single JSON object",
            ),
            (
                HookEvent::PreToolUse,
                "[1]",
                "stdout is not a single JSON object",
            ),
            (
                HookEvent::PreToolUse,
                r#"{"verdict": "allow"}"#,
                "unknown output field `verdict`",
            ),
            (
                HookEvent::PreToolUse,
                r#"{"hook_specific_output": {"permission": "allow"}}"#,
                "unknown field `hook_specific_output.permission`",
            ),
            (
                HookEvent::PreToolUse,
                r#"{"hook_specific_output": {"updated_messages": []}}"#,
                "`hook_specific_output.updated_messages` is not supported on `pre_tool_use`",
            ),
            (
                HookEvent::PreToolUse,
                r#"{"hook_specific_output": {"additional_context": "x"}}"#,
                "`hook_specific_output.additional_context` is not supported on `pre_tool_use`",
            ),
            (
                HookEvent::Stop,
                r#"{"hook_specific_output": {"transition": {"action": "default"}}}"#,
                "`hook_specific_output.transition` is not supported on `stop`",
            ),
            (
                HookEvent::TurnEnd,
                r#"{"decision": "block"}"#,
                "`decision` is not supported on `turn_end`: it cannot block",
            ),
            (
                HookEvent::SessionEnd,
                r#"{"continue": false}"#,
                "`continue: false` is not supported on `session_end`: it cannot block",
            ),
            (
                HookEvent::PreToolUse,
                r#"{"continue": "yes"}"#,
                "the JSON does not match the hook Output shape",
            ),
        ];
        for (event, text, why) in cases {
            assert_eq!(check(event, text), Err(why.to_owned()), "{event} {text}");
        }
    }

    #[test]
    fn a_violation_becomes_a_failure_keeping_the_output() {
        let mut outcome = Outcome::Exited {
            code: 0,
            stdout: "looks fine to me".into(),
            stderr: "e".into(),
            output: None,
        };
        enforce(HookEvent::PreToolUse, "judge", &mut outcome);
        assert_eq!(
            outcome,
            Outcome::Failed {
                error: "hook \"judge\" broke strict_output: stdout is not a single JSON object"
                    .into(),
                stdout: "looks fine to me".into(),
                stderr: "e".into(),
                timed_out: false,
            }
        );
        let mut blocked = Outcome::Exited {
            code: 2,
            stdout: "nope".into(),
            stderr: String::new(),
            output: None,
        };
        let before = blocked.clone();
        enforce(HookEvent::PreToolUse, "judge", &mut blocked);
        assert_eq!(blocked, before);
    }
}
