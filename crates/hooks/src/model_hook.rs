//! `type: model` hooks (docs/design.md, Model hooks): render the prompt template over the Input, ask the
//! model through the injected [`ModelRunner`] with a fixed system prompt, and turn the reply
//! into the hook's answer.
//!
//! Two shapes: no `schema` makes the trimmed reply `additional_context` (an empty reply is a
//! no-op); `schema: pre_tool_use_decision` asks for strict `{decision, reason}` JSON and parses
//! the reply tolerantly (fences, prose around the object), with the reference's exact error
//! texts. Every failure — render, model, timeout, unparseable reply — is a hook failure, so
//! `pre_tool_use` fails closed.

use std::sync::LazyLock;

use serde_json::{Value, json};
use tether_config::{Diagnostic, HookKind, HookSpec};
use tether_protocol::{HookInput, HookOutput, HookSpecificOutput};

use crate::registry::{ModelRequest, ModelRunner, StructuredOutput};
use crate::result::Outcome;
use crate::template::PromptTemplate;

/// The system message of every model-hook call (docs/design.md, Model hooks, exact).
pub const SYSTEM_PROMPT: &str = "You are a hook running inside an autonomous agent.
Follow the user's instructions exactly and reply ONLY with content the
hook contract expects: when a JSON schema is supplied, return a single
JSON object matching it with no surrounding prose or markdown fences;
otherwise return concise free-form text suitable for direct injection
as additional context.";

/// The judge shape's name.
pub const PRE_TOOL_USE_DECISION: &str = "pre_tool_use_decision";

static DECISION_SCHEMA: LazyLock<StructuredOutput> = LazyLock::new(|| StructuredOutput {
    name: PRE_TOOL_USE_DECISION.to_owned(),
    description: "Verdict for a single pre_tool_use call".to_owned(),
    schema: json!({
        "type": "object",
        "properties": {
            "decision": {"type": "string", "enum": ["allow", "ask", "deny"]},
            "reason": {"type": "string"},
        },
        "required": ["decision", "reason"],
        "additionalProperties": false,
    }),
    strict: true,
});

/// The structured output requested by `schema: pre_tool_use_decision` (docs/design.md, Model hooks).
pub fn pre_tool_use_decision_schema() -> &'static StructuredOutput {
    &DECISION_SCHEMA
}

/// Compiles and renders `template` over `input` (for tests and `tether hooks fire`).
pub fn render_prompt(template: &str, input: &HookInput) -> Result<String, String> {
    let t = PromptTemplate::compile(template)
        .map_err(|i| format!("line {}, column {}: {}", i.line, i.column, i.message))?;
    t.render(input)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The reply is `additional_context`.
    Context,
    /// The reply is a `{decision, reason}` verdict.
    Decision,
}

/// A compiled model hook.
#[derive(Debug)]
pub(crate) struct ModelHook {
    model: String,
    template: PromptTemplate,
    shape: Shape,
    /// `system_prompt`, else [`SYSTEM_PROMPT`].
    system: Option<String>,
}

impl ModelHook {
    /// Validates the template (at its own line in the file) and, when a runner is there, the
    /// model reference.
    pub(crate) fn compile(
        spec: &HookSpec,
        runner: Option<&dyn ModelRunner>,
    ) -> Result<Self, Box<Diagnostic>> {
        let HookKind::Model {
            model,
            prompt,
            schema,
            prompt_origin,
            system_prompt,
        } = &spec.kind
        else {
            return Err(Box::new(Diagnostic::new(
                spec.origin.clone(),
                "not a model hook",
            )));
        };
        let shape = match schema.as_deref() {
            None | Some("") => Shape::Context,
            Some(PRE_TOOL_USE_DECISION) => Shape::Decision,
            Some(other) => {
                return Err(Box::new(Diagnostic::new(
                    spec.origin.clone(),
                    format!("unknown schema `{other}`"),
                )));
            }
        };
        let template = PromptTemplate::compile(prompt).map_err(|issue| {
            Box::new(
                Diagnostic::new(
                    prompt_origin.at(issue.line, issue.column),
                    format!(
                        "invalid prompt template (line {}, column {} of the prompt): {}",
                        issue.line, issue.column, issue.message
                    ),
                )
                .with_hint(
                    "prompts are Go text/template: `{{ .ToolName }}`, `{{ .ToolInput | toJSON }}`, \
                     `{{ if … }}…{{ end }}`",
                ),
            )
        })?;
        if let Some(runner) = runner {
            runner.check(model).map_err(|e| {
                Box::new(
                    Diagnostic::new(spec.origin.clone(), e).with_hint(
                        "write `provider/model` (e.g. `openai/gpt-4o-mini`) or the name of an entry under `models:`",
                    ),
                )
            })?;
        }
        Ok(Self {
            model: model.clone(),
            template,
            shape,
            system: system_prompt.clone(),
        })
    }

    /// Renders, asks, interprets; the executor bounds it with the hook's timeout and
    /// cancellation.
    pub(crate) async fn run(&self, input: &HookInput, runner: &dyn ModelRunner) -> Outcome {
        let prompt = match self.template.render(input) {
            Ok(p) => p,
            Err(e) => return Outcome::failed(format!("render prompt: {e}")),
        };
        let request = ModelRequest {
            model: &self.model,
            system: self.system.as_deref().unwrap_or(SYSTEM_PROMPT),
            prompt: &prompt,
            schema: (self.shape == Shape::Decision).then(pre_tool_use_decision_schema),
        };
        let reply = match runner.complete(request).await {
            Ok(reply) => reply,
            Err(e) => return Outcome::failed(format!("model {}: {e}", self.model)),
        };
        let event = if input.hook_event_name.is_empty() {
            "pre_tool_use"
        } else {
            input.hook_event_name.as_str()
        };
        match self.shape {
            Shape::Context => {
                let text = reply.trim();
                Outcome::ok((!text.is_empty()).then(|| HookOutput::context(event, text)))
            }
            Shape::Decision => match parse_decision(&reply) {
                Ok((decision, reason)) => {
                    Outcome::ok(Some(decision_output(event, decision, &reason)))
                }
                Err(e) => Outcome::Failed {
                    error: format!("interpret reply: {e}"),
                    stdout: reply,
                    stderr: String::new(),
                    timed_out: false,
                },
            },
        }
    }
}

fn decision_output(event: &str, decision: &str, reason: &str) -> HookOutput {
    HookOutput {
        system_message: format!("🤖 model judge: {decision} — {reason}"),
        hook_specific_output: Some(Box::new(HookSpecificOutput {
            hook_event_name: event.to_owned(),
            permission_decision: decision.to_owned(),
            permission_decision_reason: reason.to_owned(),
            ..HookSpecificOutput::default()
        })),
        ..HookOutput::default()
    }
}

/// Drops a leading ```` ``` ```` fence line and the closing fence.
fn strip_code_fence(s: &str) -> &str {
    if !s.starts_with("```") {
        return s;
    }
    let body = s.find('\n').map_or(s, |nl| &s[nl + 1..]);
    let body = body.trim_end_matches([' ', '\n', '\t']);
    body.strip_suffix("```").unwrap_or(body).trim()
}

/// The tolerant judge-reply parser (docs/design.md, Model hooks): `(decision, reason)`, or the
/// reference's error text.
pub(crate) fn parse_decision(raw: &str) -> Result<(&'static str, String), String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("empty model reply".to_owned());
    }
    let s = strip_code_fence(s);
    let (Some(start), Some(end)) = (s.find('{'), s.rfind('}')) else {
        return Err("no JSON object in reply".to_owned());
    };
    if end <= start {
        return Err("no JSON object in reply".to_owned());
    }
    let object: serde_json::Map<String, Value> =
        serde_json::from_str(&s[start..=end]).map_err(|e| format!("parse decision json: {e}"))?;
    let field = |key: &str| -> Result<String, String> {
        // Go's encoding/json: an exact key first, else a case-insensitive one.
        let value = object.get(key).or_else(|| {
            object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        });
        match value {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "parse decision json: json: cannot unmarshal {} into Go struct field .{key} of type string",
                json_kind(other)
            )),
        }
    };
    let raw_decision = field("decision")?;
    let reason = field("reason")?;
    let decision = match raw_decision.trim().to_lowercase().as_str() {
        "allow" => "allow",
        "ask" => "ask",
        "deny" => "deny",
        _ => {
            return Err(format!(
                "invalid decision {} (want allow|ask|deny)",
                go_quote(&raw_decision)
            ));
        }
    };
    let reason = reason.trim();
    let reason = if reason.is_empty() {
        "no reason provided".to_owned()
    } else {
        reason.to_owned()
    };
    Ok((decision, reason))
}

const fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `%q` for a string: double-quoted with Go escapes.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn judge_replies_parse_tolerantly_with_the_reference_errors() {
        type Parsed = Result<(&'static str, String), String>;
        let cases: Vec<(&str, Parsed)> = vec![
            (r#"{"decision":"allow","reason":"read only"}"#, Ok(("allow", "read only".into()))),
            ("```json\n{\"decision\": \"Deny\", \"reason\": \" writes ~/.ssh \"}\n```", Ok(("deny", "writes ~/.ssh".into()))),
            ("Sure! Here is my verdict: {\"Decision\":\"ASK\"} hope that helps", Ok(("ask", "no reason provided".into()))),
            ("   ", Err("empty model reply".into())),
            ("I cannot decide", Err("no JSON object in reply".into())),
            ("} backwards {", Err("no JSON object in reply".into())),
            (r#"{"decision":"approve","reason":"x"}"#, Err(r#"invalid decision "approve" (want allow|ask|deny)"#.into())),
            (r#"{"decision":1}"#, Err("parse decision json: json: cannot unmarshal number into Go struct field .decision of type string".into())),
        ];
        for (reply, want) in cases {
            assert_eq!(parse_decision(reply), want, "{reply}");
        }
        assert!(
            parse_decision("{not json}")
                .unwrap_err()
                .starts_with("parse decision json: ")
        );
    }

    #[test]
    fn a_decision_becomes_a_verdict_and_a_system_message() {
        let out = decision_output("pre_tool_use", "deny", "touches ~/.aws");
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({
                "system_message": "🤖 model judge: deny — touches ~/.aws",
                "hook_specific_output": {
                    "hook_event_name": "pre_tool_use",
                    "permission_decision": "deny",
                    "permission_decision_reason": "touches ~/.aws",
                },
            })
        );
    }

    #[test]
    fn the_decision_schema_is_the_reference_one() {
        let s = pre_tool_use_decision_schema();
        assert_eq!(
            (s.name.as_str(), s.description.as_str(), s.strict, s.schema.to_string()),
            (
                "pre_tool_use_decision",
                "Verdict for a single pre_tool_use call",
                true,
                r#"{"additionalProperties":false,"properties":{"decision":{"enum":["allow","ask","deny"],"type":"string"},"reason":{"type":"string"}},"required":["decision","reason"],"type":"object"}"#.to_owned()
            )
        );
    }
}
