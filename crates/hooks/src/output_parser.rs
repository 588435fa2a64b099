//! Parsing a command hook's stdout (docs/hooks.md, Exit codes and output; docs/design.md D13).
//!
//! Go's `encoding/json` semantics: a JSON object is the Output, keys are matched
//! case-insensitively, unknown keys are ignored, `null` is the zero value, and any type
//! mismatch or trailing garbage makes the whole stdout plain text. We also accept Claude Code's
//! camelCase spellings so its hook scripts work unchanged.

use serde_json::{Map, Value};
use tether_protocol::HookOutput;

/// What stdout turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Output(HookOutput),
    /// Not a JSON Output object: the trimmed text.
    PlainText(String),
}

/// Canonical snake_case keys of the Output object and their accepted camelCase spellings.
pub(crate) const TOP_KEYS: [(&str, &str); 7] = [
    ("continue", "continue"),
    ("stop_reason", "stopreason"),
    ("suppress_output", "suppressoutput"),
    ("system_message", "systemmessage"),
    ("decision", "decision"),
    ("reason", "reason"),
    ("hook_specific_output", "hookspecificoutput"),
];

pub(crate) const SPECIFIC_KEYS: [(&str, &str); 10] = [
    ("hook_event_name", "hookeventname"),
    ("permission_decision", "permissiondecision"),
    ("permission_decision_reason", "permissiondecisionreason"),
    ("updated_input", "updatedinput"),
    ("additional_context", "additionalcontext"),
    ("summary", "summary"),
    ("updated_messages", "updatedmessages"),
    ("updated_tool_response", "updatedtoolresponse"),
    ("metadata", "metadata"),
    ("transition", "transition"),
];

/// Parses stdout as a hook Output, falling back to plain text.
pub fn parse(stdout: &str) -> Parsed {
    let trimmed = stdout.trim();
    if !trimmed.starts_with('{') {
        return Parsed::PlainText(trimmed.to_owned());
    }
    match parse_object(trimmed) {
        Some(out) => Parsed::Output(out),
        None => Parsed::PlainText(trimmed.to_owned()),
    }
}

/// The Output if `text` is a JSON object of the right shape.
pub fn parse_object(text: &str) -> Option<HookOutput> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let mut top = canonicalize(map, &TOP_KEYS);
    if let Some(specific) = top.remove("hook_specific_output") {
        match specific {
            Value::Object(m) => {
                top.insert(
                    "hook_specific_output".to_owned(),
                    Value::Object(canonicalize(m, &SPECIFIC_KEYS)),
                );
            }
            Value::Null => {}
            _ => return None,
        }
    }
    serde_json::from_value(Value::Object(top)).ok()
}

/// Renames known keys to their snake_case spelling (case-insensitively, camelCase accepted),
/// drops unknown keys and nulls. When two spellings collide, the later one wins, as in Go.
fn canonicalize(map: Map<String, Value>, keys: &[(&str, &str)]) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in map {
        let lower = k.to_ascii_lowercase();
        let Some((canonical, _)) = keys
            .iter()
            .find(|(snake, camel)| lower == *snake || lower == *camel)
        else {
            continue;
        };
        if v.is_null() {
            out.remove(*canonical);
        } else {
            out.insert((*canonical).to_owned(), v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tether_protocol::{HookSpecificOutput, Message};

    use super::*;

    fn out(text: &str) -> HookOutput {
        match parse(text) {
            Parsed::Output(o) => o,
            Parsed::PlainText(t) => panic!("plain text: {t}"),
        }
    }

    #[test]
    fn plain_text_is_trimmed() {
        assert_eq!(parse("  hello\n"), Parsed::PlainText("hello".into()));
        assert_eq!(parse(""), Parsed::PlainText(String::new()));
    }

    #[test]
    fn a_full_object_parses() {
        let o = out(
            r#"{"continue": false, "stop_reason": "s", "suppress_output": true, "system_message": "w",
                "decision": "block", "reason": "r", "hook_specific_output": {
                  "hook_event_name": "pre_tool_use", "permission_decision": "deny",
                  "permission_decision_reason": "no", "updated_input": {"cmd": "ls"},
                  "additional_context": "ctx", "summary": "sum",
                  "updated_messages": [{"role": "user", "content": "hi"}],
                  "updated_tool_response": "", "metadata": {"risk": "high"}}}"#,
        );
        assert_eq!(
            o,
            HookOutput {
                continue_: Some(false),
                stop_reason: "s".into(),
                suppress_output: true,
                system_message: "w".into(),
                decision: "block".into(),
                reason: "r".into(),
                hook_specific_output: Some(Box::new(HookSpecificOutput {
                    hook_event_name: "pre_tool_use".into(),
                    permission_decision: "deny".into(),
                    permission_decision_reason: "no".into(),
                    updated_input: json!({"cmd": "ls"}).as_object().cloned(),
                    additional_context: "ctx".into(),
                    summary: "sum".into(),
                    updated_messages: Some(vec![Message::user("hi")]),
                    updated_tool_response: Some(String::new()),
                    metadata: Some(BTreeMap::from([("risk".to_owned(), "high".to_owned())])),
                    transition: None,
                })),
            }
        );
    }

    #[test]
    fn keys_match_case_insensitively() {
        let o = out(
            r#"{"Decision": "block", "REASON": "r", "Hook_Specific_Output": {"Additional_Context": "c"}}"#,
        );
        assert_eq!(o.decision, "block");
        assert_eq!(o.reason, "r");
        assert_eq!(o.hook_specific_output.unwrap().additional_context, "c");
    }

    #[test]
    fn claude_code_camel_case_is_accepted() {
        let o = out(
            r#"{"systemMessage": "w", "stopReason": "s", "suppressOutput": true,
                "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                "permissionDecisionReason": "ok", "updatedInput": {"a": 1}, "additionalContext": "c",
                "updatedToolResponse": "t", "updatedMessages": []}}"#,
        );
        assert_eq!(o.system_message, "w");
        assert_eq!(o.stop_reason, "s");
        assert!(o.suppress_output);
        let h = o.hook_specific_output.unwrap();
        assert_eq!(h.permission_decision, "allow");
        assert_eq!(h.permission_decision_reason, "ok");
        assert_eq!(h.updated_input, json!({"a": 1}).as_object().cloned());
        assert_eq!(h.additional_context, "c");
        assert_eq!(h.updated_tool_response.as_deref(), Some("t"));
        assert_eq!(h.updated_messages, Some(vec![]));
    }

    #[test]
    fn seed_004_custom_summary_example_is_understood() {
        let o = out(
            "{\n\"hookSpecificOutput\": {\n\"hookEventName\": \"before_compaction\",\n\"summary\": \"S\"\n}\n}\n",
        );
        assert_eq!(o.hook_specific_output.unwrap().summary, "S");
    }

    #[test]
    fn unknown_keys_and_nulls_are_ignored() {
        let o = out(r#"{"whatever": 1, "decision": null, "hook_specific_output": null}"#);
        assert_eq!(o, HookOutput::default());
    }

    #[test]
    fn type_mismatch_makes_it_plain_text() {
        for text in [
            r#"{"continue": "yes"}"#,
            r#"{"decision": 2}"#,
            r#"{"hook_specific_output": "x"}"#,
            r#"{"hook_specific_output": {"metadata": {"a": 1}}}"#,
            r#"{"hook_specific_output": {"updated_input": [1]}}"#,
        ] {
            assert_eq!(parse(text), Parsed::PlainText(text.into()), "{text}");
        }
    }

    #[test]
    fn trailing_garbage_and_two_objects_are_plain_text() {
        for text in ["{} {}", r#"{"decision":"block"} trailing"#, "{not json"] {
            assert_eq!(parse(text), Parsed::PlainText(text.into()), "{text}");
        }
    }

    #[test]
    fn non_object_json_is_plain_text() {
        assert_eq!(parse("[1,2]"), Parsed::PlainText("[1,2]".into()));
        assert_eq!(parse("\"s\""), Parsed::PlainText("\"s\"".into()));
    }
}
