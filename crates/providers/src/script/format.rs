//! The script file format: strict YAML (unknown keys and wrong shapes are errors with
//! `file:line:col` and the key path), validated into compiled rules. See `SCRIPT.md`.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use tether_protocol::chat::Usage;

use crate::ProviderError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptWire {
    #[serde(default)]
    replies: Vec<ReplyWire>,
    #[serde(default)]
    rules: Vec<RuleWire>,
    after_tool: Option<ReplyWire>,
    default: Option<ReplyWire>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleWire {
    #[serde(rename = "match")]
    pattern: serde_saphyr::Spanned<String>,
    reply: ReplyWire,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplyWire {
    #[serde(default)]
    text: String,
    #[serde(default)]
    reasoning: String,
    #[serde(default)]
    tool_calls: Vec<ToolCallWire>,
    usage: Option<UsageWire>,
    error: Option<ErrorWire>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallWire {
    name: String,
    #[serde(default)]
    arguments: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageWire {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    cached_write_tokens: u64,
    reasoning_tokens: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorWire {
    kind: ErrorKind,
    #[serde(default)]
    message: String,
}

/// Errors a script can make the model raise, to exercise the runtime's error paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorKind {
    Auth,
    RateLimited,
    Server,
    ContextOverflow,
    BadRequest,
}

/// A validated script.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    pub replies: Vec<Reply>,
    pub rules: Vec<Rule>,
    pub after_tool: Option<Reply>,
    pub default: Option<Reply>,
}

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub pattern: Regex,
    pub reply: Reply,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub text: String,
    pub reasoning: String,
    /// `(name, arguments object)`; strings inside get placeholders substituted.
    pub tool_calls: Vec<(String, Value)>,
    pub usage: Option<Usage>,
    pub error: Option<(ErrorKind, String)>,
}

impl From<ReplyWire> for Reply {
    fn from(w: ReplyWire) -> Self {
        Self {
            text: w.text,
            reasoning: w.reasoning,
            tool_calls: w
                .tool_calls
                .into_iter()
                .map(|c| (c.name, Value::Object(c.arguments)))
                .collect(),
            usage: w.usage.map(|u| Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cached_input_tokens: u.cached_input_tokens,
                cached_write_tokens: u.cached_write_tokens,
                reasoning_tokens: u.reasoning_tokens,
            }),
            error: w.error.map(|e| (e.kind, e.message)),
        }
    }
}

/// Parses and validates a script; `path` is only used in error locations.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Script, ProviderError> {
    let file = path.display().to_string();
    let mut key_path = String::new();
    let wire: ScriptWire = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            key_path = e.path().to_string();
            e.into_inner()
        })
    })
    .map_err(|e| {
        let (line, col) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        let message = e.without_snippet().to_string();
        let message = first_line(&message);
        let message = if key_path.is_empty() || key_path == "." {
            message
        } else {
            format!("{message} (at `{key_path}`)")
        };
        ProviderError::Script {
            location: format!("{file}:{line}:{col}"),
            message,
        }
    })?;
    let mut rules = Vec::with_capacity(wire.rules.len());
    for (i, rule) in wire.rules.into_iter().enumerate() {
        let pattern = Regex::new(&rule.pattern.value).map_err(|e| {
            let at = rule.pattern.referenced;
            ProviderError::Script {
                location: format!("{file}:{}:{}", at.line(), at.column()),
                message: format!(
                    "invalid regex in `rules[{i}].match`: {}",
                    first_line(&e.to_string())
                ),
            }
        })?;
        rules.push(Rule {
            pattern,
            reply: rule.reply.into(),
        });
    }
    Ok(Script {
        replies: wire.replies.into_iter().map(Reply::from).collect(),
        rules,
        after_tool: wire.after_tool.map(Reply::from),
        default: wire.default.map(Reply::from),
    })
}

/// serde-saphyr messages may carry the location again on later lines; one line reads better.
fn first_line(message: &str) -> String {
    let line = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid script");
    // Drop the location suffix serde-saphyr appends: ours is already in front.
    let line = line.split(" at line ").next().unwrap_or(line);
    line.trim_end_matches('.').to_owned()
}
