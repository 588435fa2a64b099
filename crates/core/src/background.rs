//! `background_agents` (docs/design.md, Background agents): sub-agent tasks that run beside
//! the caller's turn. Each task is a child session on its own tokio task, with its own hooks
//! and its caller's safety mode and permissions; where the approval ladder would ask the user,
//! its calls are denied (nobody can answer a question from a task nobody watches). Tasks end
//! with the session that started them.

use std::sync::Arc;

use serde_json::{Map, Value};
use tether_protocol::{HookEvent, Message, Payload, SubagentPayload};
use tether_tools::ToolResult;
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::delegation::{PROCEED, task_instruction};
use crate::outcome::StopReason;
use crate::runtime::Runtime;
use crate::runtime_tools::{RUN, WAIT};
use crate::session::Session;
use crate::tasks::{Task, text};

impl Runtime {
    /// Runs one of the `background_agents` tools for `session`.
    pub(crate) async fn call_background_tool(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ToolResult {
        match name {
            RUN => self.start_background(agent, session, args),
            WAIT => {
                session
                    .household
                    .tasks
                    .wait(&session.id, args, cancel)
                    .await
            }
            _ => session.household.tasks.answer(&session.id, name, args),
        }
    }

    fn start_background(
        &self,
        caller: &AgentRuntime,
        parent: &Session,
        args: &Map<String, Value>,
    ) -> ToolResult {
        let (target, task_text) = (text(args, "agent"), text(args, "task"));
        if target.trim().is_empty() {
            return ToolResult::error("agent name must not be empty");
        }
        if task_text.trim().is_empty() {
            return ToolResult::error("task must not be empty");
        }
        if !caller.sub_agents.iter().any(|a| a == target) || self.agent(target).is_none() {
            return ToolResult::error(format!(
                "agent \"{target}\" is not in the sub-agents list. Available: {}",
                caller.sub_agents.join(", ")
            ));
        }
        let Some(caller) = self.agent(&caller.name).cloned() else {
            return ToolResult::error(format!("no agent `{}` in this runtime", caller.name));
        };
        let task = match parent.household.tasks.start(target, &parent.id) {
            Ok(task) => task,
            Err(e) => return ToolResult::error(e),
        };
        let mut child = parent.child(self.new_session_id(), target);
        child.instruction = Some(task_instruction(task_text, text(args, "expected_output")));
        child.tools_approved = parent.tools_approved;
        child.background = true;
        self.background.bind(&child.id, &task);
        let runtime = self.clone();
        let handle = tokio::spawn({
            let task = Arc::clone(&task);
            async move { runtime.run_background(caller, child, task).await }
        });
        if let Ok(mut h) = task.handle.lock() {
            *h = Some(handle);
        }
        ToolResult::ok(format!(
            "Background agent task started with ID: {}\nAgent: {target}\nTask: {task_text}",
            task.id
        ))
    }

    async fn run_background(&self, caller: Arc<AgentRuntime>, mut child: Session, task: Arc<Task>) {
        let cancel = task.cancel.clone();
        self.persist_new(&mut child, None);
        self.start_session(&mut child, "startup", &cancel).await;
        self.record(&mut child, Message::user(PROCEED));
        let outcome = self.run(&mut child, None, &cancel).await;
        self.end_session(&child, "other").await;
        let answer = match &outcome.reason {
            StopReason::Normal | StopReason::MaxIterations { .. } => child.last_assistant_message(),
            _ => String::new(),
        };
        let mut common = self.input(&caller, &child.id);
        task.agent.clone_into(&mut common.agent_name);
        let input = SubagentPayload {
            parent_session_id: task.owner.clone(),
            stop_response: answer.clone(),
        }
        .into_input(common);
        self.fire(
            &caller,
            &child.id,
            HookEvent::SubagentStop,
            input,
            &CancellationToken::new(),
        )
        .await;
        self.background.unbind(&child.id);
        task.finish(outcome.reason, answer);
    }

    /// Stops the tasks `session` started and waits for them to wind down.
    pub(crate) async fn stop_background(&self, session: &Session) {
        futures::future::join_all(session.household.tasks.stop_all(&session.id)).await;
    }
}
