//! Several agents (docs/design.md, Several agents): `transfer_task` runs a child session on a sub-agent and
//! returns its answer; `handoff` gives the conversation to another agent; `force_handoff` does
//! so on every natural stop. Each move fires `on_agent_switch` on the departing agent's hooks;
//! a finished child fires `subagent_stop` on the caller's.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};
use tether_protocol::{
    AgentSwitchPayload, HookEvent, Message, Payload, RuntimeEvent, SubagentPayload,
};
use tether_tools::ToolResult;
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::calls::CANCELED_BY_USER;
use crate::outcome::{RunOutcome, StopReason};
use crate::runtime::Runtime;
use crate::runtime_tools::{HANDOFF, TRANSFER_TASK};
use crate::session::Session;
use crate::toolbox::{ADD_TOOL, SEARCH_TOOL};

/// The implicit user message of a child session.
pub(crate) const PROCEED: &str = "Please proceed.";
/// The implicit user message after a forced handoff.
pub(crate) const FORCED_CONTINUE: &str = "Please continue from here.";

/// The child session's own instruction.
pub(crate) fn task_instruction(task: &str, expected_output: &str) -> String {
    let mut text = format!(
        "You are a member of a team of agents. Another agent transferred this task to you; complete it and answer with the result.\n\n<task>\n{task}\n</task>"
    );
    if !expected_output.trim().is_empty() {
        text.push_str(&format!(
            "\n\n<expected_output>\n{expected_output}\n</expected_output>"
        ));
    }
    text
}

fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or("")
}

impl Runtime {
    /// Fires `on_agent_switch` on `executor_of`'s hooks.
    pub(crate) async fn agent_switch(
        &self,
        executor_of: &AgentRuntime,
        session_id: &str,
        from: &AgentRuntime,
        to: &str,
        kind: &str,
    ) {
        let input = AgentSwitchPayload {
            from_agent: from.name.clone(),
            to_agent: to.to_owned(),
            agent_switch_kind: kind.to_owned(),
            from_agent_models: from.model_refs(),
        }
        .into_input(self.input(executor_of, session_id));
        self.fire(
            executor_of,
            session_id,
            HookEvent::OnAgentSwitch,
            input,
            &CancellationToken::new(),
        )
        .await;
    }

    /// Runs a runtime-managed tool (`transfer_task`, `handoff`).
    pub(crate) async fn call_runtime_tool(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let target = arg(args, "agent");
        match name {
            crate::runtime_tools::RUN
            | crate::runtime_tools::LIST
            | crate::runtime_tools::VIEW
            | crate::runtime_tools::STOP
            | crate::runtime_tools::WAIT => {
                self.call_background_tool(agent, session, name, args, cancel)
                    .await
            }
            SEARCH_TOOL => agent.toolbox.search(args),
            ADD_TOOL => agent.toolbox.add(args),
            TRANSFER_TASK if agent.sub_agents.iter().any(|a| a == target) => {
                self.transfer_task(
                    agent,
                    session,
                    target,
                    arg(args, "task"),
                    arg(args, "expected_output"),
                    cancel,
                )
                .await
            }
            TRANSFER_TASK => ToolResult::error(format!(
                "Agent {} cannot transfer task to {target}: target agent not in sub-agents list. Available agent IDs are: {}",
                agent.name,
                agent.sub_agents.join(", ")
            )),
            HANDOFF
                if agent.handoffs.iter().any(|a| a == target) && self.agent(target).is_some() =>
            {
                self.agent_switch(agent, &session.id, agent, target, "handoff")
                    .await;
                target.clone_into(&mut session.agent);
                ToolResult::ok(format!(
                    "The conversation was handed off to agent {target}, who continues from here."
                ))
            }
            _ => ToolResult::error(format!(
                "Agent {} cannot hand off to {target}: target agent not in handoffs list. Available agent IDs are: {}",
                agent.name,
                agent.handoffs.join(", ")
            )),
        }
    }

    async fn transfer_task(
        &self,
        caller: &AgentRuntime,
        parent: &mut Session,
        target: &str,
        task: &str,
        expected_output: &str,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let Some(child_agent) = self.agent(target).cloned() else {
            return ToolResult::error(format!("no agent `{target}` in this runtime"));
        };
        self.agent_switch(caller, &parent.id, caller, target, "transfer_task")
            .await;
        let mut child = parent.child(self.new_session_id(), target);
        child.instruction = Some(task_instruction(task, expected_output));
        child.tools_approved = parent.tools_approved;
        child.background = parent.background;
        if parent.background {
            self.background.adopt(&parent.id, &child.id);
        }
        self.lineage.enter(&child.id, child.conversation());
        self.persist_new(&mut child, None);
        self.start_session(&mut child, "startup", cancel).await;
        self.record(&mut child, Message::user(PROCEED));
        let outcome = self.run_child(&mut child, cancel).await;
        self.end_session(&child, "other").await;
        self.background.release(&child.id);
        self.lineage.leave(&child.id);
        let answer = match &outcome.reason {
            StopReason::Normal | StopReason::MaxIterations { .. } => child.last_assistant_message(),
            _ => String::new(),
        };
        let mut common = self.input(caller, &child.id);
        child_agent.name.clone_into(&mut common.agent_name);
        let input = SubagentPayload {
            parent_session_id: parent.id.clone(),
            stop_response: answer.clone(),
        }
        .into_input(common);
        self.fire(
            caller,
            &child.id,
            HookEvent::SubagentStop,
            input,
            &CancellationToken::new(),
        )
        .await;
        self.agent_switch(
            caller,
            &parent.id,
            &child_agent,
            &caller.name,
            "transfer_task_return",
        )
        .await;
        self.emit(
            &parent.id,
            RuntimeEvent::AgentChanged {
                agent: caller.name.clone(),
            },
        );
        match outcome.reason {
            StopReason::Normal | StopReason::MaxIterations { .. } => {
                parent.tools_approved |= child.tools_approved;
                ToolResult::ok(answer)
            }
            StopReason::Cancelled => ToolResult::error(CANCELED_BY_USER),
            StopReason::HookBlocked { message }
            | StopReason::LoopDetected { message }
            | StopReason::Error { message, .. } => {
                ToolResult::error(format!("Agent {target} failed: {message}"))
            }
        }
    }

    /// Boxed behind a plain function: a child run may itself transfer, so the future is
    /// recursive and must be type-erased to have a size.
    fn run_child<'a>(
        &'a self,
        child: &'a mut Session,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = RunOutcome> + Send + 'a>> {
        Box::pin(self.run(child, None, cancel))
    }

    /// On a natural stop: hand the conversation to the agent's `force_handoff` target.
    /// Returns whether it switched.
    pub(crate) async fn force_handoff(&self, agent: &AgentRuntime, session: &mut Session) -> bool {
        let Some(target) = agent.force_handoff.as_deref() else {
            return false;
        };
        if self.agent(target).is_none() || target == agent.name {
            return false;
        }
        self.agent_switch(agent, &session.id, agent, target, "force_handoff")
            .await;
        target.clone_into(&mut session.agent);
        self.record(session, Message::user(FORCED_CONTINUE));
        true
    }
}
