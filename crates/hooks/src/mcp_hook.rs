//! `type: mcp` hooks: call a tool of one of the agent's MCP servers with the hook Input (or
//! arguments built from it) and read the tool's text result exactly like a command hook's
//! stdout. An `isError` result, an unreachable server or the timeout is a hook failure, so
//! `pre_tool_use` fails closed.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tether_protocol::HookInput;

use crate::output_parser::{self, Parsed};
use crate::result::Outcome;

/// Reaches the agent's MCP servers (the runtime provides it).
pub trait McpCaller: Send + Sync + fmt::Debug {
    /// Calls `tool` (its name on the server) on `server` (`SERVER` of `mcp:SERVER:TOOL`).
    /// `Ok` is the result's text; `Err` an `isError` result or why the call failed.
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<String, String>>;
}

/// A compiled mcp hook.
#[derive(Debug)]
pub(crate) struct McpHook {
    pub(crate) server: String,
    pub(crate) tool: String,
    pub(crate) input: Option<Value>,
    pub(crate) caller: Arc<dyn McpCaller>,
}

impl McpHook {
    pub(crate) async fn run(&self, name: &str, input: &HookInput) -> Outcome {
        let data = serde_json::to_value(input).unwrap_or(Value::Null);
        let args = match &self.input {
            None => data.as_object().cloned().unwrap_or_default(),
            Some(template) => match fill(template, &data) {
                Value::Object(m) => m,
                other => {
                    return Outcome::failed(format!(
                        "mcp hook {name}: `input` must build an object, got {other}"
                    ));
                }
            },
        };
        match self.caller.call(&self.server, &self.tool, args).await {
            Ok(text) => {
                let output = match output_parser::parse(&text) {
                    Parsed::Output(o) => Some(o),
                    Parsed::PlainText(_) => None,
                };
                Outcome::Exited {
                    code: 0,
                    stdout: text,
                    stderr: String::new(),
                    output,
                }
            }
            Err(e) => Outcome::failed(format!("mcp hook {name}: {e}")),
        }
    }
}

/// The value at a dotted path of the Input (`tool_input.path`); `None` when absent.
fn lookup<'a>(data: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(data, |v, key| v.get(key))
}

/// Replaces `${path}` references: a string that is exactly one reference becomes the value
/// itself (objects and numbers keep their type), references inside text become text, and a
/// missing value is empty.
fn fill(template: &Value, data: &Value) -> Value {
    match template {
        Value::String(s) => {
            if let Some(path) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
                && !path.contains("${")
            {
                return lookup(data, path.trim()).cloned().unwrap_or(Value::Null);
            }
            Value::String(interpolate(s, data))
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, data)).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), fill(v, data))).collect())
        }
        other => other.clone(),
    }
}

fn interpolate(s: &str, data: &Value) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        match lookup(data, after[..end].trim()) {
            Some(Value::String(v)) => out.push_str(v),
            Some(Value::Null) | None => {}
            Some(v) => out.push_str(&v.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_keep_their_type_alone_and_become_text_inside_text() {
        let data = json!({"tool_name": "write_note", "tool_input": {"name": "a", "n": 3}});
        let t = json!({
            "args": "${tool_input}",
            "n": "${tool_input.n}",
            "label": "tool ${tool_name} on ${tool_input.name} x${tool_input.n}${missing}",
            "list": ["${tool_name}", 1],
            "gone": "${nope.nope}"
        });
        assert_eq!(
            fill(&t, &data),
            json!({
                "args": {"name": "a", "n": 3},
                "n": 3,
                "label": "tool write_note on a x3",
                "list": ["write_note", 1],
                "gone": null
            })
        );
    }
}
