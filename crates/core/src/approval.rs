//! The tool-approval chain (hooks-spec §6.1 with DECISIONS X2, X6, X8, X9): preempt lane,
//! `--yolo`, permission rules, default-lane `pre_tool_use`, read-only hint, `permission_request`,
//! then the user. Every decision fires `on_tool_approval_decision` with its source.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tether_config::PermissionVerdict;
use tether_protocol::{HookEvent, HookInput, Lane, PermissionDecision, RuntimeEvent, ToolCall};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::run::blocking_hook;
use crate::session::Session;
use crate::setup::Runtime;
use crate::tool_call::{Target, arguments};
use crate::{Confirmation, ConfirmationRequest};

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

fn with_reason(base: &str, reason: &str) -> String {
    if reason.is_empty() {
        base.to_owned()
    } else {
        format!("{base} Reason: {reason}")
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

    async fn approve_inner(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        call: &ToolCall,
        target: Target<'_>,
        cancel: &CancellationToken,
    ) -> Approval {
        let name = call.function.name.as_str();
        let names: &[&str] = if target.qualified.is_empty() {
            &[name]
        } else {
            &[name, target.qualified]
        };
        let mut args = arguments(call);
        let mut metadata: BTreeMap<String, String> = BTreeMap::new();

        // 1. The preempt lane runs before --yolo and the permission rules.
        let mut forced_ask = false;
        if agent.executor.has(HookEvent::PreToolUse, Lane::Preempt) {
            let input = self.tool_input(agent, session, call, target, &args);
            let r = agent
                .executor
                .dispatch(HookEvent::PreToolUse, Lane::Preempt, input.clone(), cancel)
                .await;
            self.surface(&session.id, &r);
            match r.decision {
                Some(PermissionDecision::Deny) => {
                    self.emit(
                        &session.id,
                        RuntimeEvent::HookBlocked {
                            event: "pre_tool_use".to_owned(),
                            hook: blocking_hook(&r),
                            message: r.decision_reason.clone(),
                        },
                    );
                    self.decided(agent, input, "deny", "pre_tool_use_hook_deny")
                        .await;
                    return Approval::Synthesised(with_reason(
                        "The tool call was rejected by a pre_tool_use hook.",
                        &r.decision_reason,
                    ));
                }
                Some(PermissionDecision::Ask) => {
                    forced_ask = true;
                    metadata = r.metadata;
                }
                Some(PermissionDecision::Allow) | None => {}
            }
        }

        if !forced_ask {
            let input = self.tool_input(agent, session, call, target, &args);
            // 2. --yolo, then session permissions, then the team's.
            if session.tools_approved {
                self.decided(agent, input, "allow", "yolo").await;
                return Approval::Run(args);
            }
            if session
                .approved_tools
                .iter()
                .any(|p| names.iter().any(|n| p.matches(n, &args)))
            {
                self.decided(agent, input, "allow", "session_permissions_allow")
                    .await;
                return Approval::Run(args);
            }
            let mut ask = false;
            match self.permissions.check_names(names, &args) {
                Some(PermissionVerdict::Deny) => {
                    self.decided(agent, input, "deny", "team_permissions_deny")
                        .await;
                    return Approval::Synthesised(format!(
                        "Tool '{name}' is denied by permissions configuration."
                    ));
                }
                Some(PermissionVerdict::Allow) => {
                    self.decided(agent, input, "allow", "team_permissions_allow")
                        .await;
                    return Approval::Run(args);
                }
                Some(PermissionVerdict::Ask) => ask = true,
                None => {}
            }
            if !ask {
                // 3. Default-lane pre_tool_use (read-only tools reach it too: X6).
                if agent.executor.has(HookEvent::PreToolUse, Lane::Default) {
                    let r = agent
                        .executor
                        .dispatch(HookEvent::PreToolUse, Lane::Default, input, cancel)
                        .await;
                    self.surface(&session.id, &r);
                    if let Some(merged) = r.apply_updated_input(Some(&args)) {
                        args = merged;
                    }
                    let input = self.tool_input(agent, session, call, target, &args);
                    if !r.allowed {
                        self.emit(
                            &session.id,
                            RuntimeEvent::HookBlocked {
                                event: "pre_tool_use".to_owned(),
                                hook: blocking_hook(&r),
                                message: r.message.clone(),
                            },
                        );
                        self.decided(agent, input, "deny", "pre_tool_use_hook_deny")
                            .await;
                        return Approval::Synthesised(format!(
                            "Tool call blocked by hook: {}",
                            r.message
                        ));
                    }
                    match r.decision {
                        Some(PermissionDecision::Allow) => {
                            self.decided(agent, input, "allow", "pre_tool_use_hook_allow")
                                .await;
                            return Approval::Run(args);
                        }
                        Some(PermissionDecision::Ask) => ask = true,
                        Some(PermissionDecision::Deny) | None => {}
                    }
                }
                // 4. Read-only tools need no confirmation.
                if !ask && target.def.read_only {
                    let input = self.tool_input(agent, session, call, target, &args);
                    self.decided(agent, input, "allow", "readonly_hint").await;
                    return Approval::Run(args);
                }
            }
            // 5–6. Ask: a permission_request hook may answer for the user.
            let input = self.tool_input(agent, session, call, target, &args);
            let r = self
                .fire(
                    agent,
                    &session.id,
                    HookEvent::PermissionRequest,
                    input.clone(),
                    cancel,
                )
                .await;
            if !r.allowed {
                self.emit(
                    &session.id,
                    RuntimeEvent::HookBlocked {
                        event: "permission_request".to_owned(),
                        hook: blocking_hook(&r),
                        message: r.message.clone(),
                    },
                );
                self.decided(agent, input, "deny", "permission_request_hook_deny")
                    .await;
                return Approval::Synthesised(with_reason(
                    "The tool call was rejected by a permission_request hook.",
                    &r.message,
                ));
            }
            if r.permission_allowed {
                self.decided(agent, input, "allow", "permission_request_hook_allow")
                    .await;
                return Approval::Run(args);
            }
            let preempt = std::mem::take(&mut metadata);
            metadata = r.metadata;
            metadata.extend(preempt);
        }

        // The user decides.
        let input = self.tool_input(agent, session, call, target, &args);
        let request = ConfirmationRequest {
            agent: agent.name.clone(),
            tool_call_id: call.id.clone(),
            tool_name: name.to_owned(),
            arguments: Value::Object(args.clone()),
            metadata: (!metadata.is_empty()).then_some(metadata),
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
                Approval::Run(args)
            }
            Confirmation::All => {
                session.tools_approved = true;
                self.decided(agent, input, "allow", "user_approved_session")
                    .await;
                Approval::Run(args)
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
}
