//! Routes each session's events and questions to the client that owns it. One router is the
//! sink and the interaction of every runtime a hub builds; a client attaches a [`Route`] for
//! the session it drives, and detaches when it goes.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use tether_core::{Confirmation, ConfirmationRequest, EventSink, Interaction};
use tether_protocol::RuntimeEvent;
use tokio::sync::mpsc;

/// Who answers a session's questions.
pub trait Asker: Send + Sync + std::fmt::Debug {
    /// Whether a tool call may run.
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation>;
}

/// Nobody can answer (MCP, A2A and chat clients): every question is a denial that says why.
#[derive(Debug, Clone)]
pub struct Nobody {
    /// How the agent is served, for the reason (`tether serve chat`).
    pub mode: &'static str,
}

impl Nobody {
    pub fn reason(&self, tool: &str) -> String {
        format!(
            "tool `{tool}` needs the user's approval, and nobody can answer here ({}): denied",
            self.mode
        )
    }
}

impl Asker for Nobody {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        let reason = self.reason(&request.tool_name);
        Box::pin(async move {
            Confirmation::No {
                reason: Some(reason),
            }
        })
    }
}

/// Where one session's events and questions go.
#[derive(Debug, Clone)]
pub struct Route {
    pub events: mpsc::UnboundedSender<RuntimeEvent>,
    pub asker: Arc<dyn Asker>,
}

/// The sessions' routes.
#[derive(Debug, Default)]
pub struct Router {
    routes: RwLock<HashMap<String, Route>>,
}

/// A route while it is attached; dropping it detaches.
#[derive(Debug)]
pub struct Attached {
    router: Arc<Router>,
    session_id: String,
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Ok(mut routes) = self.router.routes.write() {
            routes.remove(&self.session_id);
        }
    }
}

impl Router {
    /// Sends `session_id`'s events (and its sub-agents') to `route` until the guard drops.
    pub fn attach(self: &Arc<Self>, session_id: &str, route: Route) -> Attached {
        if let Ok(mut routes) = self.routes.write() {
            routes.insert(session_id.to_owned(), route);
        }
        Attached {
            router: Arc::clone(self),
            session_id: session_id.to_owned(),
        }
    }

    fn route(&self, session_id: &str) -> Option<Route> {
        self.routes.read().ok()?.get(session_id).cloned()
    }

    /// Sessions with a client attached.
    pub fn attached(&self) -> usize {
        self.routes.read().map_or(0, |r| r.len())
    }
}

impl EventSink for Router {
    fn emit(&self, session_id: &str, event: RuntimeEvent) {
        if let Some(route) = self.route(session_id) {
            // A client that went away just misses the event; its turn is cancelled elsewhere.
            let _ = route.events.send(event);
        }
    }

    fn emit_for(&self, conversation: &str, _session_id: &str, event: RuntimeEvent) {
        self.emit(conversation, event);
    }
}

impl Interaction for Router {
    fn confirm_tool<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        match self.route(&request.session_id) {
            Some(route) => Box::pin(async move { route.asker.confirm(request).await }),
            None => Box::pin(async move {
                Confirmation::No {
                    reason: Some(format!(
                        "tool `{}` needs the user's approval, and no client is attached to session {}: denied",
                        request.tool_name, request.session_id
                    )),
                }
            }),
        }
    }

    /// Servers stop at `max_iterations`: nobody is asked to go on.
    fn approve_more_iterations(&self, _limit: u32) -> BoxFuture<'_, bool> {
        Box::pin(std::future::ready(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(session: &str) -> ConfirmationRequest {
        ConfirmationRequest {
            session_id: session.to_owned(),
            agent: "root".to_owned(),
            tool_call_id: "c1".to_owned(),
            tool_name: "shell".to_owned(),
            arguments: serde_json::json!({}),
            metadata: None,
        }
    }

    #[derive(Debug)]
    struct Yes;

    impl Asker for Yes {
        fn confirm<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
            Box::pin(std::future::ready(Confirmation::Yes))
        }
    }

    #[tokio::test]
    async fn events_and_questions_reach_only_the_attached_session() {
        let router = Arc::new(Router::default());
        let (tx, mut rx) = mpsc::unbounded_channel();
        let guard = router.attach(
            "a",
            Route {
                events: tx,
                asker: Arc::new(Yes),
            },
        );
        router.emit("b", RuntimeEvent::TurnStarted { iteration: 1 });
        router.emit_for("a", "child", RuntimeEvent::TurnStarted { iteration: 2 });
        assert_eq!(
            rx.try_recv().ok(),
            Some(RuntimeEvent::TurnStarted { iteration: 2 })
        );
        assert!(rx.try_recv().is_err());
        assert_eq!(router.confirm_tool(&request("a")).await, Confirmation::Yes);
        assert!(matches!(
            router.confirm_tool(&request("b")).await,
            Confirmation::No { reason: Some(r) } if r.contains("no client is attached")
        ));
        drop(guard);
        assert_eq!(router.attached(), 0);
        assert!(matches!(
            router.confirm_tool(&request("a")).await,
            Confirmation::No { .. }
        ));
    }

    #[tokio::test]
    async fn nobody_denies_with_the_reason() {
        let nobody = Nobody {
            mode: "tether serve chat",
        };
        assert_eq!(
            nobody.confirm(&request("a")).await,
            Confirmation::No {
                reason: Some(
                    "tool `shell` needs the user's approval, and nobody can answer here (tether serve chat): denied"
                        .to_owned()
                )
            }
        );
    }
}
