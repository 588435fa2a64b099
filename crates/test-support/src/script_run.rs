//! Toolsets end to end: the script model calls tools through `tether run --exec --json`, a
//! `pre_tool_use` hook sees (and logs) each call, and the test reads the tool responses.

#![allow(clippy::expect_used, reason = "a test fails loudly on a malformed log")]

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

/// Logs every `pre_tool_use` input to `hooks.jsonl` and blocks the first call of each tool
/// (`first call of NAME blocked`); approves every permission request. Indented to sit under
/// an agent.
pub const BLOCK_FIRST_CALLS: &str = r#"    hooks:
      permission_request:
        - matcher: '.*'
          hooks:
            - type: command
              command: "echo '{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}'"
      pre_tool_use:
        - matcher: '.*'
          hooks:
            - type: command
              command: 'input=$(cat); printf "%s\n" "$input" >> hooks.jsonl; name=$(printf "%s" "$input" | jq -r .tool_name); if [ ! -e "seen-$name" ]; then touch "seen-$name"; echo "first call of $name blocked" >&2; exit 2; fi; exit 0'
"#;

/// A script model that calls each `(tool, arguments)` in its own turn, then ends.
pub fn script(calls: &[(&str, Value)]) -> String {
    let mut s = String::from("replies:\n");
    for (name, args) in calls {
        s.push_str(&format!(
            "  - tool_calls:\n      - {{name: {name}, arguments: {args}}}\n"
        ));
    }
    s.push_str("  - text: done\n");
    s
}

/// `(response text, is_error)` of each `tool_response` event of `tether run --json`.
pub fn tool_responses(stdout: &[u8]) -> Vec<(String, bool)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .map(|e| {
            (
                e["response"].as_str().unwrap_or_default().to_owned(),
                e["is_error"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

/// What the [`BLOCK_FIRST_CALLS`] hook logged in `dir`, in call order.
///
/// # Panics
/// On a line that is not JSON.
pub fn hook_inputs(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("hooks.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a hook input line is JSON"))
        .collect()
}

/// The hook saw every call with its arguments as the model wrote them (a call without
/// arguments reaches hooks as `null`), and blocked the first of each tool.
///
/// # Panics
/// When it did not.
pub fn assert_hooks_saw(
    hook_inputs: &[Value],
    responses: &[(String, bool)],
    calls: &[(&str, Value)],
) {
    let seen: Vec<(String, Value)> = hook_inputs
        .iter()
        .map(|i| {
            (
                i["tool_name"].as_str().unwrap_or_default().to_owned(),
                i["tool_input"].clone(),
            )
        })
        .collect();
    let want: Vec<(String, Value)> = calls
        .iter()
        .map(|(n, a)| {
            let a = if *a == json!({}) {
                Value::Null
            } else {
                a.clone()
            };
            ((*n).to_owned(), a)
        })
        .collect();
    assert_eq!(seen, want);
    let mut first = HashSet::new();
    for ((name, _), (text, is_error)) in calls.iter().zip(responses) {
        if first.insert(*name) {
            assert!(
                text.contains(&format!("first call of {name} blocked")),
                "{name}: {text}"
            );
            assert!(is_error, "{name}: a blocked call is an error");
        }
    }
    assert_eq!(responses.len(), calls.len(), "{responses:?}");
}
