//! `before_agent_run` and `after_agent_complete`: hooks that move the run to another agent
//! (`hook_specific_output.transition`), within the agent's `routing.allowed_agents`.

use tether_protocol::{HookEvent, HookInput};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::outcome::{Route, StopReason};
use crate::runtime::Runtime;
use crate::session::Session;

impl Runtime {
    /// Fires a routing event and reads its transition.
    pub(crate) async fn route(
        &self,
        agent: &AgentRuntime,
        session: &Session,
        event: HookEvent,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> Route {
        if !agent.executor.has(event, tether_protocol::Lane::Default) {
            return Route::Stay;
        }
        let r = self.fire(agent, &session.id, event, input, cancel).await;
        if !r.allowed {
            let hook = r.blocking_hook();
            return Route::Stop(
                self.shutdown(agent, &session.id, event, r.message.clone(), hook)
                    .await,
            );
        }
        let Some(t) = r.transition else {
            return Route::Stay;
        };
        let routing = agent.routing.as_ref();
        let target = match t.action.as_str() {
            "route" => Some(t.agent.clone()),
            "default" => routing.and_then(|r| r.default_agent.clone()),
            _ => None,
        };
        let problem = match &target {
            None if t.action == "default" => Some(format!(
                "a {event} hook asked for the default agent, and agent `{}` has no `routing.default_agent`",
                agent.name
            )),
            None => Some(format!(
                "a {event} hook returned the transition action `{}` (expected `route` or `default`)",
                t.action
            )),
            Some(to) if !routing.is_some_and(|r| r.allowed_agents.contains(to)) => Some(format!(
                "a {event} hook routed agent `{}` to `{to}`, which is not in its routing.allowed_agents",
                agent.name
            )),
            Some(_) => None,
        };
        if let Some(message) = problem {
            return Route::Stop(
                self.fail(agent, &session.id, "routing_error", message)
                    .await,
            );
        }
        target.map_or(Route::Stay, Route::To)
    }

    /// Reports an error that ends the run.
    pub(crate) async fn fail(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        code: &str,
        message: String,
    ) -> StopReason {
        self.emit(
            session_id,
            tether_protocol::RuntimeEvent::Error {
                code: code.to_owned(),
                message: message.clone(),
            },
        );
        self.notify(agent, session_id, "error", &message).await;
        StopReason::Error {
            code: code.to_owned(),
            message,
        }
    }
}
