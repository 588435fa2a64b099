//! Acting on the approval ladder's verdict (`ladder`): the notice of a hook's deny,
//! `on_tool_approval_decision` with the deciding step as its source, and for an ask, the user
//! (or, in a background task, nobody: a deny). `tether hooks decide` runs the same ladder
//! without any of this.

use serde_json::{Map, Value};
use tether_hooks::HookResult;
use tether_protocol::{
    ApprovalDecisionPayload, CommonInput, Decision, HookEvent, Payload, RuntimeEvent, ToolCall,
    ToolCallPayload,
};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::calls::{Target, tool_call};
use crate::interaction::{Confirmation, ConfirmationRequest};
use crate::ladder::{Ladder, Report, Verdict, with_reason};
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

impl Runtime {
    /// The ladder for a call of `agent` in `session`: what it reads, borrowed.
    fn ladder<'a>(
        &'a self,
        agent: &'a AgentRuntime,
        session: &'a Session,
        base: &'a CommonInput,
        report: Report<'a>,
        cancel: &'a CancellationToken,
    ) -> Ladder<'a> {
        Ladder {
            executor: &agent.executor,
            permissions: &self.permissions,
            safety: agent.safety,
            approved: &session.approved_tools,
            tools_approved: session.tools_approved,
            extra: agent.toolbox.extra_arguments(),
            base,
            report,
            cancel,
        }
    }

    /// Fires `on_tool_approval_decision`.
    async fn decided(
        &self,
        agent: &AgentRuntime,
        common: CommonInput,
        call: ToolCallPayload,
        decision: &str,
        source: &str,
    ) {
        let session_id = common.session_id.clone();
        let input = ApprovalDecisionPayload {
            call,
            approval_decision: decision.to_owned(),
            approval_source: source.to_owned(),
        }
        .into_input(common);
        self.fire(
            agent,
            &session_id,
            HookEvent::OnToolApprovalDecision,
            input,
            &CancellationToken::new(),
        )
        .await;
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
        let base = self.input(agent, &session.id);
        let show = |r: &HookResult| self.surface(&session.id, r);
        let v = self
            .ladder(agent, session, &base, Report::Live(&show), cancel)
            .decide(call, target)
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
        let tool = tool_call(call, target, &v.arguments);
        match v.decision {
            Decision::Allow => {
                self.decided(agent, base, tool, "allow", v.source).await;
                return Approval::Run(v.arguments);
            }
            Decision::Deny => {
                self.decided(agent, base, tool, "deny", v.source).await;
                return Approval::Synthesised(v.denial);
            }
            Decision::Ask if session.background => {
                // Nobody watches a background task to answer the question.
                self.decided(agent, base, tool, "deny", "background_agent")
                    .await;
                return Approval::Synthesised(format!(
                    "Tool '{}' needs the user's confirmation, which a background task cannot ask for.",
                    call.function.name
                ));
            }
            Decision::Ask => {}
        }

        // The user decides.
        let request = ConfirmationRequest {
            session_id: session.conversation().to_owned(),
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
                self.decided(agent, base, tool, "allow", "user_approved")
                    .await;
                Approval::Run(v.arguments)
            }
            Confirmation::All => {
                session.tools_approved = true;
                self.decided(agent, base, tool, "allow", "user_approved_session")
                    .await;
                Approval::Run(v.arguments)
            }
            Confirmation::No { reason } => {
                self.decided(agent, base, tool, "deny", "user_rejected")
                    .await;
                Approval::Synthesised(with_reason(
                    "The user rejected the tool call.",
                    reason.as_deref().unwrap_or(""),
                ))
            }
            Confirmation::Cancelled => {
                self.decided(agent, base, tool, "canceled", "context_canceled")
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
        let base = self.input(&agent, &session.id);
        Ok(self
            .ladder(&agent, session, &base, Report::Keep, cancel)
            .decide(&call, target)
            .await)
    }
}
