//! Executing one model response's tool calls, in order (docs/design.md, Events): the approval
//! chain, the tool itself, `tool_response_transform`, the recorded result, `post_tool_use`.
//! Synthesised results (denied, rejected, cancelled, unknown tool) also pass the transform and
//! are recorded, so every call gets exactly one result. A code-mode script's calls take the
//! same path ([`Runtime::run_call`] with [`Origin::Script`]); only their results go back to the
//! script instead of into the conversation.

use serde_json::{Map, Value};
use tether_config::CommandPart;
use tether_hooks::events::{Flow, PostToolUseOutcome, TransformOutcome};
use tether_protocol::{
    CommonInput, HookEvent, Lane, Message, Payload, RuntimeEvent, ToolCall, ToolResultPayload,
};
use tether_tools::{ToolContext, ToolDefinition, ToolResult};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::approval::Approval;
use crate::calls::{CANCELED_BY_USER, Origin, Target, arguments, tool_call};
use crate::mcp::CallProgress;
use crate::runtime::Runtime;
use crate::session::Session;
use crate::toolbox::Entry;

const SKIPPED_AFTER_POST_BLOCK: &str =
    "The tool call was skipped because a post_tool_use hook signalled run termination.";
const CANCELED_WITH_BATCH: &str = "The tool call was canceled because a previous tool call in the same batch was canceled by the user.";

/// Where a result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A toolset tool (or a code-mode script) ran.
    Real,
    /// A runtime-managed tool ran (`transfer_task`, `handoff`): no `post_tool_use`.
    Runtime,
    /// The call did not run; the runtime wrote the result.
    Synthesised,
}

/// What one call came to.
#[derive(Debug, Default)]
pub(crate) struct CallEnd {
    /// The result as the caller gets it (after `tool_response_transform`).
    pub(crate) content: String,
    pub(crate) is_error: bool,
    /// A `post_tool_use` hook asked to stop the run: why, and which hook.
    pub(crate) post_blocked: Option<(String, String)>,
    /// The user cancelled: the rest of the batch is cancelled too.
    pub(crate) cancelled: bool,
    /// A tool of a toolset with `model:` ran: that model takes the next turn.
    pub(crate) model: Option<usize>,
}

/// What a batch left for the loop.
#[derive(Debug, Default)]
pub(crate) struct BatchOutcome {
    /// A `post_tool_use` hook asked to stop the run: why, and which hook.
    pub(crate) post_blocked: Option<(String, String)>,
    /// A tool of a toolset with `model:` ran: that model takes the next turn.
    pub(crate) model: Option<usize>,
}

/// One call being run: for which agent, who made it, and what cancels it.
#[derive(Clone, Copy)]
struct Running<'a> {
    agent: &'a AgentRuntime,
    call: &'a ToolCall,
    origin: Origin,
    cancel: &'a CancellationToken,
}

/// How a call is run.
enum Runner<'a> {
    Tool(&'a Entry),
    /// `transfer_task`, `handoff`, `search_tool`, `add_tool`.
    Runtime,
    /// `run_tools_with_javascript`.
    Script,
}

impl Runtime {
    /// Boxed: keeps the callers' futures (and debug-build stack frames) small.
    pub(crate) fn run_tool_calls<'a>(
        &'a self,
        agent: &'a AgentRuntime,
        session: &'a mut Session,
        calls: &'a [ToolCall],
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, BatchOutcome> {
        Box::pin(self.run_tool_calls_inner(agent, session, calls, cancel))
    }

    async fn run_tool_calls_inner(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        calls: &[ToolCall],
        cancel: &CancellationToken,
    ) -> BatchOutcome {
        let mut outcome = BatchOutcome::default();
        let mut skip: Option<&'static str> = None;
        for call in calls {
            if let Some(text) = skip {
                let at = Running {
                    agent,
                    call,
                    origin: Origin::Model,
                    cancel,
                };
                self.synthesise(at, session, "", text).await;
                continue;
            }
            let end = self
                .run_call(agent, session, call, Origin::Model, cancel)
                .await;
            if end.model.is_some() {
                outcome.model = end.model;
            }
            if let Some(blocked) = end.post_blocked {
                outcome.post_blocked = Some(blocked);
                skip = Some(SKIPPED_AFTER_POST_BLOCK);
            } else if end.cancelled || cancel.is_cancelled() {
                skip = Some(CANCELED_WITH_BATCH);
            }
        }
        outcome
    }

    /// One call, model's or script's: the approval chain, the tool, the transform, the
    /// recorded result, `post_tool_use`. Boxed: a script's calls come back here.
    pub(crate) fn run_call<'a>(
        &'a self,
        agent: &'a AgentRuntime,
        session: &'a mut Session,
        call: &'a ToolCall,
        origin: Origin,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, CallEnd> {
        Box::pin(self.run_call_inner(agent, session, call, origin, cancel))
    }

    async fn run_call_inner(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        call: &ToolCall,
        origin: Origin,
        cancel: &CancellationToken,
    ) -> CallEnd {
        let at = Running {
            agent,
            call,
            origin,
            cancel,
        };
        let name = call.function.name.as_str();
        let view = agent.toolbox.view();
        let local = agent.tool(name);
        // In code mode the model calls the script tool and the `todo` tools; the rest only
        // scripts call.
        let code_mode = match (&view.code_mode, origin) {
            (Some(def), Origin::Model) => Some(def),
            _ => None,
        };
        let found = match (code_mode, &local, agent.runtime_tool(name)) {
            (Some(def), _, _) if def.name == name => Some((def, Runner::Script)),
            (Some(_), Some(entry), _)
                if entry.tool.definition().category == tether_codemode::DIRECT_CATEGORY =>
            {
                Some((entry.tool.definition(), Runner::Tool(entry)))
            }
            (Some(_), _, _) => None,
            (None, Some(entry), _) => Some((entry.tool.definition(), Runner::Tool(entry))),
            (None, None, Some(def)) => Some((def, Runner::Runtime)),
            (None, None, None) => None,
        };
        let Some((definition, runner)) = found else {
            let text = format!(
                "Tool '{name}' is not available. You can only use the tools provided to you."
            );
            return self.synthesise(at, session, "", text).await;
        };
        let target = Target {
            def: definition,
            qualified: local
                .as_ref()
                .and_then(|e| e.tool.qualified_name())
                .unwrap_or(""),
        };
        let args = match self.approve(agent, session, call, target, cancel).await {
            Approval::Run(args) => args,
            Approval::Synthesised(text) => {
                return self.synthesise_for(at, session, target, text).await;
            }
            Approval::Cancelled => {
                let mut end = self
                    .synthesise_for(at, session, target, CANCELED_BY_USER)
                    .await;
                end.cancelled = true;
                return end;
            }
        };
        self.emit(
            &session.id,
            RuntimeEvent::ToolCall {
                agent: agent.name.clone(),
                id: call.id.clone(),
                name: name.to_owned(),
                arguments: Value::Object(args.clone()),
            },
        );
        let mut end = CallEnd::default();
        let (result, kind) = match runner {
            Runner::Tool(entry) => {
                let (result, model) = self.call_entry(at, session, entry, &args).await;
                end.model = model;
                (result, Kind::Real)
            }
            Runner::Runtime => (
                self.call_runtime_tool(agent, session, name, &args, cancel)
                    .await,
                Kind::Runtime,
            ),
            Runner::Script => {
                let script = self.run_script(agent, session, call, &args, cancel).await;
                end.model = script.model;
                end.post_blocked = script.post_blocked;
                end.cancelled = script.cancelled;
                (script.result, Kind::Real)
            }
        };
        let result = if cancel.is_cancelled() || end.cancelled {
            ToolResult::error(CANCELED_BY_USER)
        } else {
            result
        };
        let (content, post) = self.finish(at, session, target, &args, result, kind).await;
        end.is_error = content.1;
        end.content = content.0;
        if let Some(PostToolUseOutcome {
            flow: Flow::Stop { reason, hook },
            ..
        }) = post
        {
            end.post_blocked.get_or_insert((reason, hook));
        }
        end
    }

    /// A toolset's tool: the call without the runtime's `description`, the skill guard, TOON
    /// for the model, and the toolset's `model:` for the next turn.
    async fn call_entry(
        &self,
        at: Running<'_>,
        session: &Session,
        entry: &Entry,
        args: &Map<String, Value>,
    ) -> (ToolResult, Option<usize>) {
        let Running {
            agent,
            call,
            origin,
            cancel,
        } = at;
        let name = call.function.name.as_str();
        let progress = CallProgress {
            runtime: self,
            session_id: &session.id,
            id: &call.id,
            name,
        };
        let ctx = ToolContext {
            working_dir: &self.working_dir,
            cancel,
            env: &[],
            progress: Some(&progress),
        };
        // Copied only to drop the `description` the runtime added.
        let args = if agent.toolbox.describe_calls
            && args.contains_key(crate::toolbox::WHY)
            && !crate::toolbox::owns_why(entry.tool.definition())
        {
            let mut own = args.clone();
            own.remove(crate::toolbox::WHY);
            std::borrow::Cow::Owned(own)
        } else {
            std::borrow::Cow::Borrowed(args)
        };
        let mut result = entry.tool.call_in_session(&session.id, &args, ctx).await;
        if entry.tool.definition().category == "skills" && !result.is_error {
            let skill = args
                .get("name")
                .or_else(|| args.get("skill_name"))
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            if let Err(e) = self
                .guard_skill(agent, &session.id, skill, &result.content, cancel)
                .await
            {
                result = ToolResult::error(e);
            }
        }
        let slot = &agent.toolbox.slots[entry.slot];
        // A script parses JSON: TOON is for the model only.
        if origin == Origin::Model
            && !result.is_error
            && slot.toon.iter().any(|r| r.is_match(name))
            && let Some(toon) = tether_tools::toonify(&result.content)
        {
            result.content = toon;
        }
        (result, slot.model)
    }

    /// `tool_response_transform` over a result (every result passes, even after Ctrl-C:
    /// secrets must not leak): `synthesised` for the runtime's own error texts. The Input is
    /// copied only when a transform hook is configured.
    async fn transform_response(
        &self,
        agent: &AgentRuntime,
        common: &CommonInput,
        result: &ToolResultPayload,
        content: String,
        synthesised: bool,
    ) -> String {
        if !agent
            .executor
            .has(HookEvent::ToolResponseTransform, Lane::Default)
        {
            return content;
        }
        let transform = ToolResultPayload {
            tool_response: content.clone(),
            tool_error: synthesised,
            ..result.clone()
        }
        .into_input(common.clone());
        TransformOutcome::from(
            self.fire(
                agent,
                &common.session_id,
                HookEvent::ToolResponseTransform,
                transform,
                &CancellationToken::new(),
            )
            .await,
        )
        .response
        .unwrap_or(content)
    }

    /// Records an error result the runtime wrote for a call to an unknown tool or after the
    /// batch was stopped.
    async fn synthesise(
        &self,
        at: Running<'_>,
        session: &mut Session,
        category: &'static str,
        text: impl Into<String>,
    ) -> CallEnd {
        let def = ToolDefinition {
            name: String::new(),
            description: String::new(),
            parameters: Value::Null,
            read_only: false,
            category,
        };
        let target = Target {
            def: &def,
            qualified: "",
        };
        self.synthesise_for(at, session, target, text).await
    }

    /// Records an error result the runtime wrote for a call that did not run.
    async fn synthesise_for(
        &self,
        at: Running<'_>,
        session: &mut Session,
        target: Target<'_>,
        text: impl Into<String>,
    ) -> CallEnd {
        let args = arguments(at.call);
        let ((content, is_error), _) = self
            .finish(
                at,
                session,
                target,
                &args,
                ToolResult::error(text),
                Kind::Synthesised,
            )
            .await;
        CallEnd {
            content,
            is_error,
            ..CallEnd::default()
        }
    }

    /// Transforms, records (a model's call) and announces a result; runs `post_tool_use` for
    /// real results. Returns the result as its caller gets it, and `post_tool_use`'s outcome.
    async fn finish(
        &self,
        at: Running<'_>,
        session: &mut Session,
        target: Target<'_>,
        args: &Map<String, Value>,
        result: ToolResult,
        kind: Kind,
    ) -> ((String, bool), Option<PostToolUseOutcome>) {
        let Running {
            agent,
            call,
            origin,
            cancel,
        } = at;
        let common = self.input(agent, &session.id);
        let mut about = ToolResultPayload {
            call: tool_call(call, target, args),
            ..ToolResultPayload::default()
        };
        if let Some(file) = &result.spool {
            about.tool_response_file = Some(file.clone());
            session.spool_files.push(file.clone());
        }
        let mut content = self
            .transform_response(
                agent,
                &common,
                &about,
                result.content,
                kind == Kind::Synthesised,
            )
            .await;
        if origin == Origin::Model {
            if let Some(cap) = agent.max_tool_result_tokens {
                cap_middle(&mut content, cap);
            }
            if content.trim().is_empty() {
                "(no output)".clone_into(&mut content);
            }
        }
        self.emit(
            &session.id,
            RuntimeEvent::ToolResponse {
                id: call.id.clone(),
                name: call.function.name.clone(),
                response: content.clone(),
                is_error: result.is_error,
                structured: result.structured,
            },
        );
        if origin == Origin::Model {
            self.record(
                session,
                Message::tool_result(
                    call.id.clone(),
                    call.function.name.clone(),
                    content.clone(),
                    result.is_error,
                ),
            );
        }
        if kind != Kind::Real {
            return ((content, result.is_error), None);
        }
        about.tool_response.clone_from(&content);
        about.tool_error = result.is_error;
        let input = about.into_input(common);
        let mut o = PostToolUseOutcome::from(
            self.fire(agent, &session.id, HookEvent::PostToolUse, input, cancel)
                .await,
        );
        if !o.context.is_empty() {
            session.pending_context.push(std::mem::take(&mut o.context));
        }
        ((content, result.is_error), Some(o))
    }
}

impl Runtime {
    /// Expands `input` if it invokes one of the current agent's `commands` (`/NAME ARGS…`):
    /// `None` when it does not. Tools a command calls go through the approval chain and the
    /// `tool_response_transform` hooks; their output (or the reason they did not run) takes
    /// their place in the prompt.
    pub async fn resolve_command(
        &self,
        session: &mut Session,
        input: &str,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let (name, args) = tether_config::commands::split_invocation(input)?;
        let agent = self.current(session).ok()?;
        session.tools_approved |= self.yolo;
        let rest = input.trim_start()[1 + name.len()..].trim();
        let Some(command) = agent.commands.iter().find(|c| c.name == name).cloned() else {
            let (skill, content) = skill_content(&agent.skills, name)?;
            // A refused skill is not delivered: the text goes to the model as typed.
            if let Err(message) = self
                .guard_skill(&agent, &session.id, &skill, &content, cancel)
                .await
            {
                self.emit(&session.id, RuntimeEvent::Warning { message });
                return None;
            }
            return Some(skill_prompt(&skill, &content, rest));
        };
        let agent = match &command.agent {
            Some(target) if *target != agent.name => {
                self.agent_switch(&agent, &session.id, &agent, target, "command")
                    .await;
                session.agent.clone_from(target);
                self.current(session).ok()?
            }
            _ => agent,
        };
        let mut out = String::new();
        for part in &command.parts {
            match part {
                CommandPart::Text(t) => out.push_str(t),
                CommandPart::Env { name, default } => {
                    let value = std::env::var(name).unwrap_or_default();
                    out.push_str(if value.is_empty() { default } else { &value });
                }
                CommandPart::Args => out.push_str(&args.join(",")),
                CommandPart::Arg(i) => out.push_str(args.get(*i).map_or("", String::as_str)),
                CommandPart::ArgsJoined(sep) => out.push_str(&args.join(sep)),
                CommandPart::ArgCount => out.push_str(&args.len().to_string()),
                CommandPart::Tool { name, args } => {
                    let text = self.command_tool(&agent, session, name, args, cancel).await;
                    out.push_str(&text);
                }
            }
        }
        if !rest.is_empty() && !command.uses_args() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(rest);
        }
        Some(out)
    }

    /// One tool call of a command: approved like a model's, its output transformed.
    async fn command_tool(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> String {
        if let Err(e) = self.prepare_tools(agent, &session.id).await {
            return format!("Error: the tools are not available: {e:?}");
        }
        let Some(entry) = agent.tool(name) else {
            return format!("Error: tool '{name}' not found");
        };
        let call = ToolCall::new(
            format!("cmd_{name}"),
            name,
            Value::Object(args.clone()).to_string(),
        );
        let target = Target {
            def: entry.tool.definition(),
            qualified: entry.tool.qualified_name().unwrap_or(""),
        };
        let args = match self.approve(agent, session, &call, target, cancel).await {
            Approval::Run(args) => args,
            Approval::Synthesised(text) => return format!("Error: {text}"),
            Approval::Cancelled => return format!("Error: {CANCELED_BY_USER}"),
        };
        let ctx = ToolContext {
            working_dir: &self.working_dir,
            cancel,
            env: &[],
            progress: None,
        };
        let result = entry.tool.call_in_session(&session.id, &args, ctx).await;
        let about = ToolResultPayload {
            call: tool_call(&call, target, &args),
            ..ToolResultPayload::default()
        };
        let content = self
            .transform_response(
                agent,
                &self.input(agent, &session.id),
                &about,
                result.content,
                false,
            )
            .await;
        content.trim().to_owned()
    }
}

/// A skill's name and text, by name.
fn skill_content(skills: &[tether_tools::Skill], name: &str) -> Option<(String, String)> {
    let skill = skills.iter().find(|s| s.name == name)?;
    Some((skill.name.clone(), skill.content().ok()?))
}

/// `/SKILL [request]`: the skill's instructions as the prompt.
fn skill_prompt(name: &str, content: &str, request: &str) -> String {
    let block = format!("<skill name={name:?}>\n{content}\n</skill>");
    if request.is_empty() {
        format!("Use the following skill.\n\n{block}")
    } else {
        format!("Use the following skill.\n\nUser's request: {request}\n\n{block}")
    }
}

/// `max_tool_result_tokens`: a result longer than `tokens` × 4 bytes keeps its head and tail,
/// with a marker where the middle was.
fn cap_middle(content: &mut String, tokens: u64) {
    let limit = usize::try_from(tokens.saturating_mul(4)).unwrap_or(usize::MAX);
    if content.len() <= limit {
        return;
    }
    let head = content.floor_char_boundary(limit / 2);
    let tail = content.ceil_char_boundary(content.len() - (limit - head));
    let removed = tail - head;
    *content = format!(
        "{}\n[... {removed} bytes truncated (max_tool_result_tokens) ...]\n{}",
        &content[..head],
        &content[tail..]
    );
}

#[cfg(test)]
mod tests {
    use super::cap_middle;

    #[test]
    fn long_results_keep_head_and_tail() {
        let mut s = format!("{}{}{}", "a".repeat(10), "é".repeat(50), "z".repeat(10));
        cap_middle(&mut s, 5);
        assert!(s.starts_with("aaaaaaaaaa\n[... "), "{s}");
        assert!(s.ends_with("]\nzzzzzzzzzz"), "{s}");
        let mut short = "short".to_owned();
        cap_middle(&mut short, 5);
        assert_eq!(short, "short");
    }
}
