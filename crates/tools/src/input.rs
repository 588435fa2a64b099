//! The check every call's arguments pass before anything looks at them: permission rules,
//! hooks and the tool itself must read one and the same object. A key the tool does not
//! declare could slip past a rule that names another (`command` for `cmd`), and two keys that
//! differ only in case could be read one way by a rule and another by the tool, so both are
//! errors the model sees, never silently dropped or merged.

use serde_json::{Map, Value};

use crate::{ToolDefinition, ToolError};

/// The arguments of a call as the model wrote them: a JSON object, or nothing at all (an empty
/// string or `null` stand for no arguments).
pub fn parse_arguments(tool: &str, raw: &str) -> Result<Map<String, Value>, ToolError> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(ToolError::invalid(
            tool,
            format!("the arguments must be a JSON object, not {}", kind(&other)),
        )),
        Err(e) => Err(ToolError::invalid(
            tool,
            format!("the arguments are not valid JSON: {e}"),
        )),
    }
}

/// Checks `args` against `def`'s input schema: no two keys that differ only in case, and no
/// key the schema does not declare, except those in `extra` (arguments the runtime adds, such
/// as `description`). Tether's own tools declare every argument; an MCP tool's undeclared
/// keys are refused only where its server's schema forbids extra properties, otherwise the
/// server gets them untouched.
pub fn check_arguments(
    def: &ToolDefinition,
    args: &Map<String, Value>,
    extra: &[&str],
) -> Result<(), ToolError> {
    let keys: Vec<&String> = args.keys().collect();
    for (i, a) in keys.iter().enumerate() {
        if let Some(b) = keys[i + 1..]
            .iter()
            .find(|b| a.len() == b.len() && a.eq_ignore_ascii_case(b))
        {
            return Err(ToolError::invalid(
                &def.name,
                format!(
                    "`{a}` and `{b}` differ only in case; send the argument once, as the tool names it"
                ),
            ));
        }
    }
    let closed = def.category != "mcp"
        || def.parameters.get("additionalProperties") == Some(&Value::Bool(false));
    if !closed {
        return Ok(());
    }
    let declared = def.parameters.get("properties").and_then(Value::as_object);
    let known = |k: &str| declared.is_some_and(|p| p.contains_key(k)) || extra.contains(&k);
    let unknown: Vec<&str> = keys
        .iter()
        .map(|k| k.as_str())
        .filter(|k| !known(k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let names = |list: Vec<&str>| {
        list.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut takes: Vec<&str> = declared
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
        .chain(extra.iter().copied())
        .collect();
    takes.sort_unstable();
    takes.dedup();
    let plural = if unknown.len() == 1 { "" } else { "s" };
    let hint = if takes.is_empty() {
        "the tool takes no arguments".to_owned()
    } else {
        format!("the tool takes {}", names(takes))
    };
    Err(ToolError::invalid(
        &def.name,
        format!("unknown argument{plural} {} ({hint})", names(unknown)),
    ))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn def(category: &'static str, parameters: Value) -> ToolDefinition {
        ToolDefinition {
            name: "t".to_owned(),
            description: String::new(),
            parameters,
            read_only: false,
            category,
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn check(d: &ToolDefinition, a: Value, extra: &[&str]) -> Result<(), String> {
        check_arguments(d, &args(a), extra).map_err(|e| e.to_string())
    }

    #[test]
    fn undeclared_keys_are_refused_by_our_tools() {
        let shell = def(
            "shell",
            json!({"type": "object", "properties": {"cmd": {}, "cwd": {}, "timeout": {}}}),
        );
        assert_eq!(check(&shell, json!({"cmd": "ls", "cwd": "."}), &[]), Ok(()));
        assert_eq!(
            check(&shell, json!({"command": "rm -rf victim"}), &[]),
            Err("invalid arguments for `t`: unknown argument `command` (the tool takes `cmd`, `cwd`, `timeout`)".to_owned())
        );
        assert_eq!(
            check(&shell, json!({"cmd": "ls", "BASH_ENV": "x", "PATH": "."}), &[]),
            Err("invalid arguments for `t`: unknown arguments `BASH_ENV`, `PATH` (the tool takes `cmd`, `cwd`, `timeout`)".to_owned())
        );
        assert_eq!(
            check(
                &shell,
                json!({"cmd": "ls", "description": "why"}),
                &["description"]
            ),
            Ok(())
        );
        let none = def("model", json!({"type": "object", "properties": {}}));
        assert_eq!(
            check(&none, json!({"x": 1}), &[]),
            Err(
                "invalid arguments for `t`: unknown argument `x` (the tool takes no arguments)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn keys_differing_only_in_case_are_refused_everywhere() {
        let open = def("mcp", json!({"type": "object"}));
        assert_eq!(
            check(&open, json!({"CMD": "git status", "cmd": "rm -rf victim"}), &[]),
            Err("invalid arguments for `t`: `CMD` and `cmd` differ only in case; send the argument once, as the tool names it".to_owned())
        );
    }

    #[test]
    fn mcp_tools_refuse_extras_only_where_their_schema_does() {
        let open = def("mcp", json!({"type": "object", "properties": {"a": {}}}));
        assert_eq!(check(&open, json!({"a": 1, "b": 2}), &[]), Ok(()));
        let closed = def(
            "mcp",
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
        );
        assert_eq!(
            check(&closed, json!({"a": 1, "b": 2}), &[]),
            Err("invalid arguments for `t`: unknown argument `b` (the tool takes `a`)".to_owned())
        );
    }

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(parse_arguments("t", ""), Ok(Map::new()));
        assert_eq!(parse_arguments("t", " null "), Ok(Map::new()));
        assert_eq!(
            parse_arguments("t", r#"{"a":1}"#),
            Ok(args(json!({"a": 1})))
        );
        assert_eq!(
            parse_arguments("t", "[1]").map_err(|e| e.to_string()),
            Err(
                "invalid arguments for `t`: the arguments must be a JSON object, not an array"
                    .to_owned()
            )
        );
        assert!(parse_arguments("t", "{").is_err());
    }

    #[test]
    fn a_key_written_twice_leaves_one_value_for_rules_hooks_and_the_tool() {
        // The ladder parses once and hands this one map to every rule, hook and the tool,
        // so none can read the other value.
        let once = parse_arguments("shell", r#"{"cmd":"ls","cmd":"rm -rf /"}"#).unwrap();
        assert_eq!(once, args(json!({"cmd": "rm -rf /"})));
    }
}
