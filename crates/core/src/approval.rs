//! The approval ladder: one function decides whether a tool call runs, and both the runtime
//! and `tether hooks decide` use it, so they cannot disagree. The steps, in order (see
//! docs/design.md, "The approval ladder"):
//!
//! 0. the arguments must be a JSON object with only keys the tool declares, none twice in
//!    different case (a hook's rewrite is checked again), so that every later step and the
//!    tool read the same object,
//! 1. `tool_input_transform` hooks rewrite the arguments, one after another (under `--yolo`
//!    too); every later step sees the rewritten call,
//! 2. `tool_guard` hooks: deny ends here in every mode; ask makes any later allow a question,
//! 3. the preempt lane of `pre_tool_use` (deny ends here, ask goes straight to the user),
//! 4. permission rules: deny (it holds under `--yolo`), the session's and the team's allows,
//!    then ask,
//! 5. the safety mode: `--yolo` and `autonomous` approve,
//! 6. the default lane of `pre_tool_use` (its `updated_input` rewrites the call),
//! 7. the tool's read-only hint (not in `strict` mode),
//! 8. `restricted` mode denies what nothing allowed,
//! 9. `permission_request` hooks, answering for the user,
//! 10. the user.
//!
//! The runtime fires `on_tool_approval_decision` with the ladder's source, and asks the user
//! when the ladder says ask.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};
use tether_config::{PermissionVerdict, Safety};
use tether_hooks::HookResult;
use tether_hooks::events::{PermissionRequestOutcome, PreToolUseOutcome, ToolVerdict};
use tether_protocol::{HookEvent, HookInput, Lane, RuntimeEvent, ToolCall};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::calls::Target;
use crate::interaction::{Confirmation, ConfirmationRequest};
use crate::runtime::Runtime;
use crate::session::Session;

/// What the chain decided for one call.
#[derive(Debug)]
pub(crate) enum Approval {
    /// Run the tool with these arguments (after any hook rewrite).
    Run(Map<String, Value>),
    /// Do not run it; the model gets this error text.
    Synthesised(String),
    /// The user cancelled; the rest of the batch is cancelled too.
    Cancelled,
}

/// The ladder's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    /// A person must confirm (after `permission_request` hooks left it open).
    Ask,
    Deny,
}

/// The hook step that refused a call, for the notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blocked {
    pub event: &'static str,
    pub hook: String,
    pub message: String,
}

/// The ladder's decision for one call, with everything that led to it.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub decision: Decision,
    /// The `approval_source` `on_tool_approval_decision` gets (`yolo`,
    /// `team_permissions_deny`, `pre_tool_use_hook_allow`, `readonly_hint`, …); for an ask,
    /// what asks: `preempt_hook_ask`, `team_permissions_ask`, `pre_tool_use_hook_ask` or
    /// `user_confirmation` (no step decided).
    pub source: &'static str,
    /// Why, in the deciding hook's words (empty for rules).
    pub reason: String,
    /// The arguments the tool would run with.
    pub arguments: Map<String, Value>,
    /// Annotations for the confirmation.
    pub metadata: BTreeMap<String, String>,
    pub blocked: Option<Blocked>,
    /// Every hook dispatch of the ladder, in order (kept only when asked for).
    pub dispatches: Vec<HookResult>,
    /// The model's text for a denied call.
    denial: String,
}

/// The `approval_source` of a call whose arguments do not fit the tool.
const INVALID_ARGUMENTS: &str = "invalid_arguments";

/// Arguments the runtime adds to a tool's own: `add_description_parameter`'s `description`.
fn extra_arguments(agent: &AgentRuntime, target: Target<'_>) -> &'static [&'static str] {
    if agent.toolbox.describe_calls && !crate::toolbox::owns_why(target.def) {
        &[crate::toolbox::WHY]
    } else {
        &[]
    }
}

/// The model's text when a hook's rewrite left arguments the tool does not take.
fn rewritten(e: &tether_tools::ToolError) -> String {
    format!("A hook rewrote the tool call's arguments into ones the tool does not take: {e}")
}

fn with_reason(base: &str, reason: &str) -> String {
    if reason.is_empty() {
        base.to_owned()
    } else {
        format!("{base} Reason: {reason}")
    }
}

/// Whether the ladder reports hook results as it goes (the runtime) or keeps them for the
/// caller (`hooks decide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Live,
    DryRun,
}

/// Where a hook step runs.
struct Step<'a> {
    agent: &'a AgentRuntime,
    session_id: &'a str,
    mode: Mode,
    cancel: &'a CancellationToken,
}

impl Verdict {
    /// What the model is told when the call is denied (empty otherwise).
    pub fn denial(&self) -> &str {
        &self.denial
    }

    fn end(mut self, decision: Decision, source: &'static str) -> Self {
        self.decision = decision;
        self.source = source;
        self
    }

    fn deny(
        self,
        source: &'static str,
        reason: String,
        denial: String,
        blocked: Option<Blocked>,
    ) -> Self {
        let mut v = self.end(Decision::Deny, source);
        v.reason = reason;
        v.denial = denial;
        v.blocked = blocked;
        v
    }

    /// A hook step's deny.
    fn denied_by(
        self,
        event: &'static str,
        source: &'static str,
        reason: String,
        hook: String,
        denial: String,
    ) -> Self {
        let blocked = Blocked {
            event,
            hook,
            message: reason.clone(),
        };
        self.deny(source, reason, denial, Some(blocked))
    }
}

impl Runtime {
    fn tool_input(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        call: &ToolCall,
        target: Target<'_>,
        args: &Map<String, Value>,
    ) -> HookInput {
        let mut input = self.input(agent, &session.id);
        target.def.category.clone_into(&mut input.tool_category);
        target.qualified.clone_into(&mut input.tool_qualified_name);
        input.tool_name.clone_from(&call.function.name);
        input.tool_use_id.clone_from(&call.id);
        input.tool_input = (!args.is_empty()).then(|| args.clone());
        input
    }

    /// Fires `on_tool_approval_decision`.
    async fn decided(
        &self,
        agent: &AgentRuntime,
        mut input: HookInput,
        decision: &str,
        source: &str,
    ) {
        decision.clone_into(&mut input.approval_decision);
        source.clone_into(&mut input.approval_source);
        input.tool_category.clear();
        let session_id = input.session_id.clone();
        self.fire(
            agent,
            &session_id,
            HookEvent::OnToolApprovalDecision,
            input,
            &CancellationToken::new(),
        )
        .await;
    }

    /// One hook step: dispatches, then shows its warnings (live) or keeps it (dry run).
    async fn step(
        &self,
        at: &Step<'_>,
        event: HookEvent,
        lane: Lane,
        input: HookInput,
        v: &mut Verdict,
    ) -> HookResult {
        let r = at
            .agent
            .executor
            .dispatch(event, lane, input, at.cancel)
            .await;
        match at.mode {
            Mode::Live => self.surface(at.session_id, &r),
            Mode::DryRun => v.dispatches.push(r.clone()),
        }
        r
    }

    /// The approval ladder (see the module doc). Runs every hook the decision needs, never
    /// the tool and never a prompt.
    pub(crate) async fn ladder(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        call: &ToolCall,
        target: Target<'_>,
        mode: Mode,
        cancel: &CancellationToken,
    ) -> Verdict {
        let name = call.function.name.as_str();
        let names: &[&str] = if target.qualified.is_empty() {
            &[name]
        } else {
            &[name, target.qualified]
        };
        let parsed = tether_tools::parse_arguments(name, &call.function.arguments);
        let mut v = Verdict {
            decision: Decision::Ask,
            source: "user_confirmation",
            reason: String::new(),
            arguments: parsed.clone().unwrap_or_default(),
            metadata: BTreeMap::new(),
            blocked: None,
            dispatches: Vec::new(),
            denial: String::new(),
        };
        let at = Step {
            agent,
            session_id: &session.id,
            mode,
            cancel,
        };
        // 0. The arguments, before any rule or hook reads them.
        let extra = extra_arguments(agent, target);
        if let Err(e) = parsed.and_then(|a| tether_tools::check_arguments(target.def, &a, extra)) {
            return v.deny(INVALID_ARGUMENTS, String::new(), e.to_string(), None);
        }

        // 1. tool_input_transform: rewrites the arguments every later step sees (--yolo too).
        if agent
            .executor
            .has(HookEvent::ToolInputTransform, Lane::Default)
        {
            let input = self.tool_input(agent, session, call, target, &v.arguments);
            let r = self
                .step(
                    &at,
                    HookEvent::ToolInputTransform,
                    Lane::Default,
                    input,
                    &mut v,
                )
                .await;
            if let Some(updates) = &r.updated_input {
                for (k, value) in updates {
                    v.arguments.insert(k.clone(), value.clone());
                }
                if let Err(e) = tether_tools::check_arguments(target.def, &v.arguments, extra) {
                    return v.deny(INVALID_ARGUMENTS, String::new(), rewritten(&e), None);
                }
            }
            if !r.allowed {
                let reason = r.message.clone();
                let denial = with_reason(
                    "The tool call was rejected by a tool_input_transform hook.",
                    &reason,
                );
                let hook = r.blocking_hook();
                return v.denied_by(
                    "tool_input_transform",
                    "tool_input_transform_hook_deny",
                    reason,
                    hook,
                    denial,
                );
            }
        }
        // 2. tool_guard: its deny holds under every mode; its ask forces a confirmation.
        let mut guard_ask = false;
        if agent.executor.has(HookEvent::ToolGuard, Lane::Default) {
            let input = self.tool_input(agent, session, call, target, &v.arguments);
            let r = self
                .step(&at, HookEvent::ToolGuard, Lane::Default, input, &mut v)
                .await;
            let o = PreToolUseOutcome::of(&r);
            match o.verdict {
                ToolVerdict::Deny { reason, hook } => {
                    let denial =
                        with_reason("The tool call was rejected by a tool_guard hook.", &reason);
                    return v.denied_by("tool_guard", "tool_guard_deny", reason, hook, denial);
                }
                ToolVerdict::Ask => {
                    guard_ask = true;
                    v.metadata.extend(o.metadata);
                }
                ToolVerdict::Allow | ToolVerdict::Pass => {}
            }
        }
        let v = self
            .ladder_rest(agent, session, call, target, &at, names, v)
            .await;
        // A tool_guard ask turns every allow into a question for the user.
        if guard_ask && v.decision == Decision::Allow {
            return v.end(Decision::Ask, "tool_guard_ask");
        }
        v
    }

    /// The ladder after the guards: preempt lane, permission rules, safety mode,
    /// `pre_tool_use`, read-only hint, `permission_request`.
    #[expect(
        clippy::too_many_lines,
        clippy::too_many_arguments,
        reason = "the ladder reads best as one flat sequence of steps"
    )]
    async fn ladder_rest(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        call: &ToolCall,
        target: Target<'_>,
        at: &Step<'_>,
        names: &[&str],
        mut v: Verdict,
    ) -> Verdict {
        let name = call.function.name.as_str();
        // 3. The preempt lane.
        if agent.executor.has(HookEvent::PreToolUse, Lane::Preempt) {
            let input = self.tool_input(agent, session, call, target, &v.arguments);
            let r = self
                .step(at, HookEvent::PreToolUse, Lane::Preempt, input, &mut v)
                .await;
            let o = PreToolUseOutcome::of(&r);
            match o.verdict {
                ToolVerdict::Deny { reason, hook } => {
                    let denial = with_reason(
                        "The tool call was rejected by a pre_tool_use hook.",
                        &reason,
                    );
                    return v.denied_by(
                        "pre_tool_use",
                        "pre_tool_use_hook_deny",
                        reason,
                        hook,
                        denial,
                    );
                }
                ToolVerdict::Ask => {
                    v.metadata.extend(o.metadata);
                    return v.end(Decision::Ask, "preempt_hook_ask");
                }
                ToolVerdict::Allow | ToolVerdict::Pass => {}
            }
        }
        // 4. Permission rules: deny first (it holds under --yolo), then the session's and the
        // team's allows, then ask.
        let rules = self.permissions.check_names(names, &v.arguments);
        if rules == Some(PermissionVerdict::Deny) {
            let denial = format!("Tool '{name}' is denied by permissions configuration.");
            return v.deny("team_permissions_deny", String::new(), denial, None);
        }
        if tether_config::approvals_allow(&session.approved_tools, names, &v.arguments) {
            return v.end(Decision::Allow, "session_permissions_allow");
        }
        if rules == Some(PermissionVerdict::Allow) {
            return v.end(Decision::Allow, "team_permissions_allow");
        }
        let mut ask: Option<&'static str> =
            (rules == Some(PermissionVerdict::Ask)).then_some("team_permissions_ask");
        // 5. The safety mode: --yolo ("all" answered earlier) and `autonomous` approve.
        if ask.is_none() {
            if session.tools_approved {
                return v.end(Decision::Allow, "yolo");
            }
            if agent.safety == Safety::Autonomous {
                return v.end(Decision::Allow, "safety_autonomous");
            }
        }
        if ask.is_none() {
            // 6. The default lane (read-only tools reach it too).
            if agent.executor.has(HookEvent::PreToolUse, Lane::Default) {
                let input = self.tool_input(agent, session, call, target, &v.arguments);
                let r = self
                    .step(at, HookEvent::PreToolUse, Lane::Default, input, &mut v)
                    .await;
                let o = PreToolUseOutcome::of(&r);
                o.apply(&mut v.arguments);
                if o.updated_input.is_some()
                    && let Err(e) = tether_tools::check_arguments(
                        target.def,
                        &v.arguments,
                        extra_arguments(agent, target),
                    )
                {
                    return v.deny(INVALID_ARGUMENTS, String::new(), rewritten(&e), None);
                }
                match o.verdict {
                    ToolVerdict::Deny { reason, hook } => {
                        let denial = format!("Tool call blocked by hook: {reason}");
                        return v.denied_by(
                            "pre_tool_use",
                            "pre_tool_use_hook_deny",
                            reason,
                            hook,
                            denial,
                        );
                    }
                    ToolVerdict::Allow => return v.end(Decision::Allow, "pre_tool_use_hook_allow"),
                    ToolVerdict::Ask => ask = Some("pre_tool_use_hook_ask"),
                    ToolVerdict::Pass => {}
                }
            }
            // 7. Read-only tools need no confirmation (except in `strict` mode).
            if ask.is_none() && target.def.read_only && agent.safety != Safety::Strict {
                return v.end(Decision::Allow, "readonly_hint");
            }
        }
        // 8. `restricted`: nobody is asked; what nothing allowed is denied.
        if agent.safety == Safety::Restricted {
            let denial = format!(
                "Tool '{name}' is not allowed in restricted mode: only read-only tools and calls a rule or hook allows run."
            );
            return v.deny("safety_restricted_deny", String::new(), denial, None);
        }

        // 9. permission_request hooks may answer for the user.
        let input = self.tool_input(agent, session, call, target, &v.arguments);
        let r = self
            .step(
                at,
                HookEvent::PermissionRequest,
                Lane::Default,
                input,
                &mut v,
            )
            .await;
        let o = PermissionRequestOutcome::of(&r);
        match o.verdict {
            ToolVerdict::Deny { reason, hook } => {
                let denial = with_reason(
                    "The tool call was rejected by a permission_request hook.",
                    &reason,
                );
                v.denied_by(
                    "permission_request",
                    "permission_request_hook_deny",
                    reason,
                    hook,
                    denial,
                )
            }
            ToolVerdict::Allow => v.end(Decision::Allow, "permission_request_hook_allow"),
            ToolVerdict::Ask | ToolVerdict::Pass => {
                v.metadata.extend(o.metadata);
                v.end(Decision::Ask, ask.unwrap_or("user_confirmation"))
            }
        }
    }

    /// Boxed: keeps the callers' futures (and debug-build stack frames) small.
    pub(crate) fn approve<'a>(
        &'a self,
        agent: &'a AgentRuntime,
        session: &'a mut Session,
        call: &'a ToolCall,
        target: Target<'a>,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, Approval> {
        Box::pin(self.approve_inner(agent, session, call, target, cancel))
    }

    /// The ladder, then its consequences: the notice of a hook's deny, the
    /// `on_tool_approval_decision` hooks, and for an ask, the user.
    async fn approve_inner(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        call: &ToolCall,
        target: Target<'_>,
        cancel: &CancellationToken,
    ) -> Approval {
        let v = self
            .ladder(agent, session, call, target, Mode::Live, cancel)
            .await;
        if let Some(b) = &v.blocked {
            self.emit(
                &session.id,
                RuntimeEvent::HookBlocked {
                    event: b.event.to_owned(),
                    hook: b.hook.clone(),
                    message: b.message.clone(),
                },
            );
        }
        let input = self.tool_input(agent, session, call, target, &v.arguments);
        match v.decision {
            Decision::Allow => {
                self.decided(agent, input, "allow", v.source).await;
                return Approval::Run(v.arguments);
            }
            Decision::Deny => {
                self.decided(agent, input, "deny", v.source).await;
                return Approval::Synthesised(v.denial);
            }
            Decision::Ask if session.background => {
                // Nobody watches a background task to answer the question.
                self.decided(agent, input, "deny", "background_agent").await;
                return Approval::Synthesised(format!(
                    "Tool '{}' needs the user's confirmation, which a background task cannot ask for.",
                    call.function.name
                ));
            }
            Decision::Ask => {}
        }

        // The user decides.
        let request = ConfirmationRequest {
            agent: agent.name.clone(),
            tool_call_id: call.id.clone(),
            tool_name: call.function.name.clone(),
            arguments: Value::Object(v.arguments.clone()),
            metadata: (!v.metadata.is_empty()).then_some(v.metadata),
        };
        self.emit(
            &session.id,
            RuntimeEvent::ToolConfirmation {
                id: request.tool_call_id.clone(),
                name: request.tool_name.clone(),
                arguments: request.arguments.clone(),
                metadata: request.metadata.clone(),
            },
        );
        self.waiting_for_user(session, cancel).await;
        let answer = tokio::select! {
            a = self.interaction.confirm_tool(&request) => a,
            () = cancel.cancelled() => Confirmation::Cancelled,
        };
        match answer {
            Confirmation::Yes => {
                self.decided(agent, input, "allow", "user_approved").await;
                Approval::Run(v.arguments)
            }
            Confirmation::All => {
                session.tools_approved = true;
                self.decided(agent, input, "allow", "user_approved_session")
                    .await;
                Approval::Run(v.arguments)
            }
            Confirmation::No { reason } => {
                self.decided(agent, input, "deny", "user_rejected").await;
                Approval::Synthesised(with_reason(
                    "The user rejected the tool call.",
                    reason.as_deref().unwrap_or(""),
                ))
            }
            Confirmation::Cancelled => {
                self.decided(agent, input, "canceled", "context_canceled")
                    .await;
                Approval::Cancelled
            }
        }
    }

    /// The approval ladder as a dry run for one call of `session`'s agent: every hook the
    /// real call would run up to the decision, never the tool, never a prompt, and no
    /// `on_tool_approval_decision`. `Err` for a tool the agent does not have.
    pub async fn decide(
        &self,
        session: &Session,
        tool: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Verdict, String> {
        let agent = self.current(session).map_err(|e| format!("{e:?}"))?;
        if agent.tool(tool).is_none() && agent.runtime_tool(tool).is_none() {
            // MCP tools are known once their servers run.
            self.prepare_tools(&agent, &session.id)
                .await
                .map_err(|e| format!("{e:?}"))?;
        }
        let entry = agent.tool(tool);
        let view = agent.toolbox.view();
        let script = view.code_mode.as_ref().filter(|d| d.name == tool);
        let def = match (&entry, agent.runtime_tool(tool), script) {
            (_, _, Some(d)) => d,
            (Some(e), _, None) => e.tool.definition(),
            (None, Some(d), None) => d,
            (None, None, None) => {
                return Err(format!(
                    "agent `{}` has no tool `{tool}` (tools: {})",
                    agent.name,
                    agent.tool_names().join(", ")
                ));
            }
        };
        let target = Target {
            def,
            qualified: entry
                .as_ref()
                .and_then(|e| e.tool.qualified_name())
                .unwrap_or(""),
        };
        let call = ToolCall::new("call_decide", tool, Value::Object(args.clone()).to_string());
        Ok(self
            .ladder(&agent, session, &call, target, Mode::DryRun, cancel)
            .await)
    }
}
