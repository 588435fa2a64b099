//! The `script` model: deterministic, offline replies from a YAML file, for demos, CI and hook
//! authors. The full format is in `crates/providers/SCRIPT.md`; in short:
//!
//! ```yaml
//! replies:                 # used in order: reply N answers the call that has N assistant
//!   - text: Hello          #   messages before it
//! rules:                   # then: the first rule whose regex matches the latest user message
//!   - match: '^Run: (?P<cmd>.+)$'
//!     reply:
//!       tool_calls: [{name: shell, arguments: {cmd: '${cmd}'}}]
//! after_tool:              # when the last message is a tool result
//!   text: "`{{tool_name}}` said: {{tool_result}}"
//! default:                 # otherwise
//!   text: I have no scripted answer
//! ```
//!
//! Templates (`text`, `reasoning`, and every string inside tool-call `arguments`) expand `$1`,
//! `${name}` (rule captures; `$$` is a literal `$`) and `{{prompt}}`, `{{tool_result}}`,
//! `{{tool_name}}` in one pass, so inserted text is never expanded again. Arguments are JSON
//! objects built from YAML, so inserted text is JSON-escaped by construction.
//!
//! The provider is stateless: everything is derived from the request. The reply cursor is the
//! number of assistant messages so far and tool-call ids are `call_N`, N counting the tool
//! calls in the conversation, so a resumed or replayed session gets the same answers.
//! Usage is the reply's `usage`, else an estimate of one token per four characters.

mod format;
mod template;

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use tether_protocol::chat::{Message, Role, ToolCall, Usage};

use crate::{
    ChatRequest, FinishReason, ModelResponse, ModelSpec, Provider, ProviderError, ResponseStream,
    StreamEvent,
};
use format::{ErrorKind, Reply, Script};
use template::Vars;

/// A model that plays a script file.
#[derive(Debug)]
pub struct ScriptProvider {
    id: String,
    path: PathBuf,
    script: Script,
}

impl ScriptProvider {
    /// Loads `spec.model` (relative to `spec.base_dir`); a malformed file is an error here.
    pub fn from_spec(spec: &ModelSpec) -> Result<Self, ProviderError> {
        let path = Path::new(&spec.model);
        let path = match &spec.base_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        let text = std::fs::read_to_string(&path).map_err(|source| ProviderError::ScriptIo {
            path: path.clone(),
            source,
        })?;
        Self::from_str(&spec.id(), &path, &text)
    }

    /// Parses a script given as text; `path` names it in error messages.
    pub fn from_str(id: &str, path: &Path, text: &str) -> Result<Self, ProviderError> {
        Ok(Self {
            id: id.to_owned(),
            path: path.to_path_buf(),
            script: format::parse(path, text)?,
        })
    }

    /// The assembled response for `req`, or the error the script asks for.
    pub fn respond(&self, req: &ChatRequest) -> Result<ModelResponse, ProviderError> {
        let msgs: Vec<&Message> = req
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .collect();
        let prompt = msgs
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.text())
            .unwrap_or_default();
        let last_tool = msgs.last().filter(|m| m.role == Role::Tool);
        let cursor = msgs.iter().filter(|m| m.role == Role::Assistant).count();
        let mut vars = Vars {
            prompt: &prompt,
            tool_result: last_tool.map(|m| m.text()).unwrap_or_default(),
            tool_name: last_tool.map(|m| tool_name(m, &msgs)).unwrap_or_default(),
            captures: None,
        };
        let reply = if let Some(r) = self.script.replies.get(cursor) {
            r
        } else if let (Some(_), Some(r)) = (last_tool, &self.script.after_tool) {
            r
        } else if let Some((rule, caps)) = last_tool
            .is_none()
            .then(|| {
                self.script
                    .rules
                    .iter()
                    .find_map(|r| r.pattern.captures(&prompt).map(|c| (r, c)))
            })
            .flatten()
        {
            vars.captures = Some(caps);
            &rule.reply
        } else if let Some(r) = &self.script.default {
            r
        } else {
            return Err(ProviderError::Script {
                location: self.path.display().to_string(),
                message: format!("no reply for the prompt `{prompt}` (add a `default` reply)"),
            });
        };
        if let Some((kind, message)) = &reply.error {
            return Err(self.error(*kind, message));
        }
        let first_id = 1 + msgs.iter().map(|m| m.tool_calls.len()).sum::<usize>();
        Ok(self.render(reply, &vars, first_id, req))
    }

    fn render(
        &self,
        reply: &Reply,
        vars: &Vars<'_>,
        first_id: usize,
        req: &ChatRequest,
    ) -> ModelResponse {
        let mut message = Message::assistant(vars.expand(&reply.text));
        message.reasoning_content = vars.expand(&reply.reasoning);
        message.tool_calls = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                let args = vars.expand_value(args);
                ToolCall::new(
                    format!("call_{}", first_id + i),
                    name.clone(),
                    args.to_string(),
                )
            })
            .collect();
        let usage = reply.usage.unwrap_or_else(|| estimate(req, &message));
        let finish_reason = if message.tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        ModelResponse {
            message,
            usage: Some(usage),
            finish_reason,
        }
    }

    fn error(&self, kind: ErrorKind, message: &str) -> ProviderError {
        let provider = self.id.clone();
        let message = if message.is_empty() {
            "scripted error".to_owned()
        } else {
            message.to_owned()
        };
        match kind {
            ErrorKind::Auth => ProviderError::Auth {
                provider,
                status: 401,
                message,
            },
            ErrorKind::RateLimited => ProviderError::RateLimited {
                provider,
                retry_after: None,
                message,
            },
            ErrorKind::Server => ProviderError::Server {
                provider,
                status: 500,
                message,
            },
            ErrorKind::ContextOverflow => ProviderError::ContextOverflow { provider, message },
            ErrorKind::BadRequest => ProviderError::BadRequest {
                provider,
                status: 400,
                message,
            },
        }
    }
}

/// The tool's name: the message's own, else the name of the call it answers.
fn tool_name(m: &Message, msgs: &[&Message]) -> String {
    if !m.name.is_empty() {
        return m.name.clone();
    }
    msgs.iter()
        .flat_map(|x| &x.tool_calls)
        .find(|c| c.id == m.tool_call_id)
        .map(|c| c.function.name.clone())
        .unwrap_or_default()
}

/// One token per four characters, at least one: deterministic and close enough for hooks.
fn estimate(req: &ChatRequest, reply: &Message) -> Usage {
    let chars = |m: &Message| {
        m.text().chars().count()
            + m.tool_calls
                .iter()
                .map(|c| c.function.arguments.len())
                .sum::<usize>()
    };
    let tokens = |n: usize| (n as u64).div_ceil(4).max(1);
    let input: usize = req.messages.iter().map(chars).sum();
    let output = chars(reply) + reply.reasoning_content.chars().count();
    Usage {
        input_tokens: tokens(input),
        output_tokens: tokens(output),
        ..Usage::default()
    }
}

impl Provider for ScriptProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        let result = self.respond(req).map(|resp| {
            let mut events = Vec::new();
            let m = &resp.message;
            if !m.reasoning_content.is_empty() {
                events.push(Ok(StreamEvent::ReasoningDelta(m.reasoning_content.clone())));
            }
            if !m.content.is_empty() {
                events.push(Ok(StreamEvent::TextDelta(m.content.clone())));
            }
            for c in &m.tool_calls {
                events.push(Ok(StreamEvent::ToolCallStarted {
                    id: c.id.clone(),
                    name: c.function.name.clone(),
                }));
            }
            events.push(Ok(StreamEvent::Completed(resp)));
            let stream: ResponseStream = Box::pin(futures::stream::iter(events));
            stream
        });
        Box::pin(futures::future::ready(result))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
