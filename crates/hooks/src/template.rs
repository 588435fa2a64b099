//! Model-hook prompts: Go `text/template` (through `gotmpl`) over the hook Input, with the Go
//! field names docker-agent's templates use (docs/design.md, Model hooks) and its two helpers.
//!
//! The data is built the way Go sees its `Input` struct: every field is present with its Go
//! zero value (`""`, `0`, `false`, `map[]`, `[]`, `<nil>` for the `Usage` and `Cost`
//! pointers), `ToolResponse` (an `any`) is absent when unset so it prints `<no value>`, and
//! every number inside `tool_input` is a float, as Go decodes JSON into `any`.
//!
//! Structs are maps here, so each struct-shaped map also carries its own Go JSON under a key
//! no template can name: `toJSON .`, `toJSON .Usage` or `toJSON .Messages` then print
//! exactly what Go's `json.Marshal` prints (snake_case keys, struct order, `omitempty`).
//!
//! `toJSON` is Go's `json.Marshal`: compact, map keys sorted, `<`, `>`, `&`, U+2028 and
//! U+2029 escaped, floats as Go formats them (`100`, `1e+21`, `1e-7`). `truncate n s` keeps at
//! most `n` bytes of `s` and appends `…`, but — our fix of the reference, which cuts bytes
//! and can split a UTF-8 sequence — it never cuts inside a character: the cut moves back to
//! the previous character boundary.
//!
//! Known gaps (`gotmpl` limitations; `toJSON` is exact in every case): printing a float
//! directly (`{{ .ToolInput.n }}`) uses plain decimal notation where Go switches to exponent
//! form (`1e+06` in Go, `1000000` here); a nil `Usage` or `Cost` prints `<no value>` where Go
//! prints `<nil>` (both are false in `if`); printing a whole struct (`{{ .Usage }}`) shows a
//! map where Go shows `{10 5 0 0 0}`.

use std::collections::BTreeMap;
use std::sync::Arc;

use gotmpl::{Template, TemplateError, Value};
use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use tether_protocol::{HookInput, Message, Usage};

use crate::template_check::{self, TemplateIssue};

/// The key under which a struct-shaped map keeps its Go JSON (unreachable from a template:
/// field names are identifiers).
const STRUCT_JSON: &str = "\u{0}json";

/// The functions a prompt may call besides Go's builtins.
pub(crate) const EXTRA_FUNCS: [&str; 2] = ["toJSON", "truncate"];

/// A parsed and validated prompt template.
#[derive(Clone)]
pub(crate) struct PromptTemplate {
    template: Template,
}

impl std::fmt::Debug for PromptTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptTemplate").finish_non_exhaustive()
    }
}

impl PromptTemplate {
    /// Checks `source` the way Go's parser would (balanced actions, known functions and
    /// variables), then parses it with `gotmpl`.
    pub(crate) fn compile(source: &str) -> Result<Self, TemplateIssue> {
        template_check::check(source)?;
        let template = Template::new("hook-prompt")
            .func("toJSON", to_json_func)
            .func("truncate", truncate_func)
            .parse(source)
            .map_err(|e| match e {
                TemplateError::Parse {
                    line, col, message, ..
                }
                | TemplateError::Lex {
                    line, col, message, ..
                } => TemplateIssue {
                    line,
                    column: col,
                    message,
                },
                other => TemplateIssue {
                    line: 1,
                    column: 1,
                    message: other.to_string(),
                },
            })?;
        Ok(Self { template })
    }

    /// Renders the prompt for `input`; the error is the template's own message.
    pub(crate) fn render(&self, input: &HookInput) -> Result<String, String> {
        self.template
            .execute_to_string(&input_value(input))
            .map_err(|e| e.to_string())
    }
}

fn string(s: &str) -> Value {
    Value::String(Arc::from(s))
}

fn int(n: i64) -> Value {
    Value::Int(n)
}

fn uint(n: u64) -> Value {
    i64::try_from(n).map_or(Value::Uint(n), Value::Int)
}

fn list(items: impl IntoIterator<Item = Value>) -> Value {
    Value::List(items.into_iter().collect::<Vec<_>>().into())
}

/// A struct-shaped map: Go field names plus the struct's own Go JSON.
fn structure<T: Serialize>(json_of: &T, fields: Vec<(&'static str, Value)>) -> Value {
    let mut map: BTreeMap<Arc<str>, Value> =
        fields.into_iter().map(|(k, v)| (Arc::from(k), v)).collect();
    if let Ok(json) = go_json_of(json_of) {
        map.insert(Arc::from(STRUCT_JSON), string(&json));
    }
    Value::Map(Arc::new(map))
}

/// JSON decoded into Go's `any`: every number is a float64.
fn json_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => string(s),
        serde_json::Value::Array(items) => list(items.iter().map(json_value)),
        serde_json::Value::Object(map) => json_map(map),
    }
}

fn json_map(map: &serde_json::Map<String, serde_json::Value>) -> Value {
    Value::Map(Arc::new(
        map.iter()
            .map(|(k, v)| (Arc::from(k.as_str()), json_value(v)))
            .collect(),
    ))
}

fn usage_value(u: &Usage) -> Value {
    structure(
        u,
        vec![
            ("InputTokens", uint(u.input_tokens)),
            ("OutputTokens", uint(u.output_tokens)),
            ("CachedInputTokens", uint(u.cached_input_tokens)),
            ("CachedWriteTokens", uint(u.cached_write_tokens)),
            ("ReasoningTokens", uint(u.reasoning_tokens.unwrap_or(0))),
        ],
    )
}

fn message_value(m: &Message) -> Value {
    let calls = m.tool_calls.iter().map(|c| {
        structure(
            c,
            vec![
                ("ID", string(&c.id)),
                ("Type", string(&c.kind)),
                (
                    "Function",
                    structure(
                        &c.function,
                        vec![
                            ("Name", string(&c.function.name)),
                            ("Arguments", string(&c.function.arguments)),
                        ],
                    ),
                ),
            ],
        )
    });
    structure(
        m,
        vec![
            ("Role", string(m.role.as_str())),
            ("Content", string(&m.content)),
            ("ReasoningContent", string(&m.reasoning_content)),
            ("ToolCalls", list(calls)),
            ("ToolCallID", string(&m.tool_call_id)),
            ("Name", string(&m.name)),
            ("IsError", Value::Bool(m.is_error)),
        ],
    )
}

/// The template data for `input`: Go's `Input` struct (see the module doc).
pub(crate) fn input_value(input: &HookInput) -> Value {
    let i = input;
    let models = i.from_agent_models.iter().map(|m| {
        structure(
            m,
            vec![
                ("Provider", string(&m.provider)),
                ("Model", string(&m.model)),
                ("BaseURL", string(&m.base_url)),
                ("UnloadAPI", string(&m.unload_api)),
            ],
        )
    });
    let mut fields = vec![
        ("SessionID", string(&i.session_id)),
        ("Cwd", string(&i.cwd)),
        ("HookEventName", string(&i.hook_event_name)),
        ("AgentName", string(&i.agent_name)),
        ("ModelID", string(&i.model_id)),
        ("Iteration", int(i.iteration)),
        ("LastUserMessage", string(&i.last_user_message)),
        ("ToolCategory", string(&i.tool_category)),
        ("ToolName", string(&i.tool_name)),
        ("ToolUseID", string(&i.tool_use_id)),
        (
            "ToolInput",
            i.tool_input
                .as_ref()
                .map_or_else(|| Value::Map(Arc::default()), json_map),
        ),
        ("ToolError", Value::Bool(i.tool_error)),
        ("Messages", list(i.messages.iter().map(message_value))),
        ("Source", string(&i.source)),
        ("Reason", string(&i.reason)),
        ("StopResponse", string(&i.stop_response)),
        ("Prompt", string(&i.prompt)),
        (
            "SteeringMessages",
            list(i.steering_messages.iter().map(|s| string(s))),
        ),
        ("ParentSessionID", string(&i.parent_session_id)),
        ("NotificationLevel", string(&i.notification_level)),
        ("NotificationMessage", string(&i.notification_message)),
        ("FromAgent", string(&i.from_agent)),
        ("ToAgent", string(&i.to_agent)),
        ("AgentSwitchKind", string(&i.agent_switch_kind)),
        ("FromAgentModels", list(models)),
        ("PreviousMaxIterations", int(i.previous_max_iterations)),
        ("NewMaxIterations", int(i.new_max_iterations)),
        ("ApprovalDecision", string(&i.approval_decision)),
        ("ApprovalSource", string(&i.approval_source)),
        ("Usage", i.usage.as_ref().map_or(Value::Nil, usage_value)),
        ("Cost", i.cost.map_or(Value::Nil, Value::Float)),
        ("InputTokens", int(i.input_tokens)),
        ("OutputTokens", int(i.output_tokens)),
        ("ContextLimit", int(i.context_limit)),
        ("CompactionReason", string(&i.compaction_reason)),
        ("Summary", string(&i.summary)),
        ("WorktreePath", string(&i.worktree_path)),
        ("WorktreeBranch", string(&i.worktree_branch)),
        ("WorktreeSourceDir", string(&i.worktree_source_dir)),
    ];
    // An unset `any` is a nil interface: Go prints `<no value>`, as for a missing key.
    if let Some(r) = &i.tool_response {
        fields.push(("ToolResponse", string(r)));
    }
    structure(input, fields)
}

/// The Go field names of the Input, for load-time checks of `.Field` references.
pub(crate) const INPUT_FIELDS: [&str; 40] = [
    "SessionID",
    "Cwd",
    "HookEventName",
    "AgentName",
    "ModelID",
    "Iteration",
    "LastUserMessage",
    "ToolCategory",
    "ToolName",
    "ToolUseID",
    "ToolInput",
    "ToolResponse",
    "ToolError",
    "Messages",
    "Source",
    "Reason",
    "StopResponse",
    "Prompt",
    "SteeringMessages",
    "ParentSessionID",
    "NotificationLevel",
    "NotificationMessage",
    "FromAgent",
    "ToAgent",
    "AgentSwitchKind",
    "FromAgentModels",
    "PreviousMaxIterations",
    "NewMaxIterations",
    "ApprovalDecision",
    "ApprovalSource",
    "Usage",
    "Cost",
    "InputTokens",
    "OutputTokens",
    "ContextLimit",
    "CompactionReason",
    "Summary",
    "WorktreePath",
    "WorktreeBranch",
    "WorktreeSourceDir",
];

fn func_error(message: String) -> TemplateError {
    TemplateError::Exec(message)
}

fn to_json_func(args: &[Value]) -> gotmpl::Result<Value> {
    let [v] = args else {
        return Err(func_error(format!(
            "wrong number of args for toJSON: want 1 got {}",
            args.len()
        )));
    };
    let mut out = String::new();
    write_value_json(&mut out, v).map_err(func_error)?;
    Ok(Value::String(out.into()))
}

fn truncate_func(args: &[Value]) -> gotmpl::Result<Value> {
    let [n, s] = args else {
        return Err(func_error(format!(
            "wrong number of args for truncate: want 2 got {}",
            args.len()
        )));
    };
    let n = match n {
        Value::Int(n) => *n,
        Value::Uint(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        other => {
            return Err(func_error(format!(
                "truncate: wrong type for value; expected int; got {}",
                other.type_name()
            )));
        }
    };
    let Value::String(s) = s else {
        return Err(func_error(format!(
            "truncate: wrong type for value; expected string; got {}",
            s.type_name()
        )));
    };
    Ok(string(&truncate(n, s)))
}

/// `s` if `n <= 0` or `s` fits in `n` bytes, else its longest prefix of at most `n` bytes that
/// ends on a character boundary, then `…`.
pub(crate) fn truncate(n: i64, s: &str) -> String {
    let Ok(limit) = usize::try_from(n) else {
        return s.to_owned();
    };
    if limit == 0 || s.len() <= limit {
        return s.to_owned();
    }
    format!("{}…", &s[..s.floor_char_boundary(limit)])
}

/// Go's `encoding/json` float text: shortest digits, exponent form below 1e-6 and from 1e21.
pub(crate) fn go_float(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        return Err(format!("json: unsupported value: {f}"));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        return Ok(if exp < 0 {
            format!("{mantissa}e-{}", -exp)
        } else {
            format!("{mantissa}e+{exp:02}")
        });
    }
    Ok(format!("{f}"))
}

/// A JSON string as Go writes it (`<`, `>`, `&`, U+2028 and U+2029 escaped).
pub(crate) fn go_string(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    escape_html(&json)
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn write_value_json(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Uint(n) => out.push_str(&n.to_string()),
        Value::Float(f) => out.push_str(&go_float(*f)?),
        Value::String(s) => out.push_str(&go_string(s)),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value_json(out, item)?;
            }
            out.push(']');
        }
        Value::Map(map) => {
            if let Some(Value::String(json)) = map.get(STRUCT_JSON) {
                out.push_str(json);
                return Ok(());
            }
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&go_string(k));
                out.push(':');
                write_value_json(out, item)?;
            }
            out.push('}');
        }
        other @ Value::Function(_) => {
            return Err(format!("json: unsupported type: {}", other.type_name()));
        }
    }
    Ok(())
}

/// `serde_json` output with Go's float text and HTML escaping.
struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        let text = go_float(value).map_err(std::io::Error::other)?;
        w.write_all(text.as_bytes())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        w.write_all(escape_html(fragment).as_bytes())
    }

    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> std::io::Result<()> {
        serde_json::ser::CompactFormatter.write_char_escape(w, escape)
    }
}

/// `value` as Go's `json.Marshal` writes it (struct field order kept, as serde writes it).
pub(crate) fn go_json_of<T: Serialize>(value: &T) -> Result<String, String> {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, GoFormatter);
    value.serialize(&mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(buf).map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "template_tests.rs"]
mod tests;
