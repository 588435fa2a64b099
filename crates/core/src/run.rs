//! One submission (a prompt, or a resumed conversation) run to its end, and the session
//! lifecycle around it: `session_start` once per session (docs/design.md D1), `session_end` exactly once (D4).

use std::sync::Arc;

use tether_hooks::events::{Flow, SubmitOutcome};
use tether_protocol::{
    BarePayload, HookEvent, HookInput, Message, NotificationPayload, Payload, PromptPayload,
    ReasonPayload, ResumePayload, RuntimeEvent, SourcePayload, SteeringPayload,
};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::loop_detector::LoopDetector;
use crate::outcome::{Next, Route, RunOutcome, RunState, StopReason};
use crate::runtime::Runtime;
use crate::session::Session;

/// Hook processes of an ended session that are still exiting: [`Exiting::wait`] for them.
#[derive(Debug, Default)]
#[must_use = "wait for the processes before the program exits"]
pub struct Exiting(Vec<tokio::task::JoinHandle<()>>);

impl Exiting {
    /// Returns when every process is gone (stopped within its grace periods).
    pub async fn wait(self) {
        for task in self.0 {
            // A panicked stop task dropped its process, which kills its group.
            let _ = task.await;
        }
    }
}

impl Runtime {
    pub(crate) fn current(&self, session: &Session) -> Result<Arc<AgentRuntime>, StopReason> {
        self.agent(&session.agent)
            .cloned()
            .ok_or_else(|| StopReason::Error {
                code: "unknown_agent".to_owned(),
                message: format!("no agent `{}` in this runtime", session.agent),
            })
    }

    /// Fires `session_start` (`startup`, `resume`, `clear` or `compact`); its context replaces
    /// the session's persisted context (docs/design.md D1).
    pub async fn start_session(
        &self,
        session: &mut Session,
        source: &str,
        cancel: &CancellationToken,
    ) {
        let Ok(agent) = self.current(session) else {
            return;
        };
        self.emit(
            &session.id,
            RuntimeEvent::SessionStarted {
                agent: agent.name.clone(),
                resumed: source == "resume",
                model: agent.model_id.clone(),
            },
        );
        let input = SourcePayload {
            source: source.to_owned(),
        }
        .into_input(self.input(&agent, &session.id));
        let r = self
            .fire(&agent, &session.id, HookEvent::SessionStart, input, cancel)
            .await;
        session.session_context = r.additional_context;
    }

    /// Fires `session_end` with a fresh token: it runs even after Ctrl-C, bounded by each
    /// hook's timeout.
    pub async fn end_session(&self, session: &Session, reason: &str) {
        self.end_session_exiting(session, reason).await.wait().await;
    }

    /// [`Self::end_session`], returning while its persistent hook processes are still exiting
    /// (stdin closed, TERM and KILL to follow): a program that exits next closes the rest of
    /// what it holds meanwhile, then waits.
    pub async fn end_session_exiting(&self, session: &Session, reason: &str) -> Exiting {
        // Its background tasks end first, their own session_end hooks included.
        self.stop_background(session).await;
        if let Ok(agent) = self.current(session) {
            let input = ReasonPayload {
                reason: reason.to_owned(),
            }
            .into_input(self.input(&agent, &session.id));
            self.fire(
                &agent,
                &session.id,
                HookEvent::SessionEnd,
                input,
                &CancellationToken::new(),
            )
            .await;
        }
        for file in &session.spool_files {
            // Tool results referred to it until now; nothing reads it after the session.
            let _ = std::fs::remove_file(file);
        }
        // `async` hooks (session_end's included) get a grace period, then are killed.
        let grace = self.async_hook_grace;
        let exiting = futures::future::join_all(self.agents.iter().map(|a| {
            a.executor
                .shutdown_session_in_background(&session.id, grace)
        }))
        .await;
        self.emit(
            &session.id,
            RuntimeEvent::SessionEnded {
                reason: reason.to_owned(),
            },
        );
        Exiting(exiting.into_iter().flatten().collect())
    }

    /// Fires `on_user_input`: the agent waits for the user.
    pub async fn waiting_for_user(&self, session: &Session, cancel: &CancellationToken) {
        if let Ok(agent) = self.current(session) {
            let input = BarePayload.into_input(self.input(&agent, &session.id));
            self.fire(&agent, &session.id, HookEvent::OnUserInput, input, cancel)
                .await;
        }
    }

    /// `notification` then `on_error` (level error) or `on_max_iterations` (warning).
    pub(crate) async fn notify(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        level: &str,
        message: &str,
    ) {
        let cancel = CancellationToken::new();
        let input = NotificationPayload {
            notification_level: level.to_owned(),
            notification_message: message.to_owned(),
        }
        .into_input(self.input(agent, session_id));
        self.fire(
            agent,
            session_id,
            HookEvent::Notification,
            input.clone(),
            &cancel,
        )
        .await;
        let second = if level == "error" {
            HookEvent::OnError
        } else {
            HookEvent::OnMaxIterations
        };
        self.fire(agent, session_id, second, input, &cancel).await;
    }

    /// A hook stopped the run (`reason`, `hook` of a [`Flow::Stop`]): error event,
    /// notification and on_error.
    pub(crate) async fn shutdown(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        event: HookEvent,
        reason: String,
        hook: String,
    ) -> StopReason {
        let message = if reason.is_empty() {
            "Agent terminated by a hook.".to_owned()
        } else {
            reason
        };
        self.emit(
            session_id,
            RuntimeEvent::HookBlocked {
                event: event.wire_name().to_owned(),
                hook,
                message: message.clone(),
            },
        );
        self.emit(
            session_id,
            RuntimeEvent::Error {
                code: "hook_blocked".to_owned(),
                message: message.clone(),
            },
        );
        self.notify(agent, session_id, "error", &message).await;
        StopReason::HookBlocked { message }
    }

    /// Runs one submission: records `prompt` (if any) as a user message, then calls the model
    /// and tools until the agent stops. A question the agent's `cache` knows is answered from
    /// it; the answer of one it does not know is stored when the run ends normally.
    pub async fn run(
        &self,
        session: &mut Session,
        prompt: Option<String>,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        // Only an agent with a cache keeps a copy of the question.
        let cached = prompt.as_ref().and_then(|q| {
            let agent = self.current(session).ok().filter(|a| a.cache.is_some())?;
            Some((agent, q.clone()))
        });
        let outcome = self.run_submission(session, prompt, cancel).await;
        if let Some((agent, question)) = cached
            && outcome.reason == StopReason::Normal
            && let Some(cache) = &agent.cache
            && let Err(message) = cache.put(&question, &session.last_assistant_message())
        {
            self.emit(&session.id, RuntimeEvent::Warning { message });
        }
        outcome
    }

    /// Records `text` as the agent's message without a model call and streams it to the
    /// renderers (a cached answer, a budget's stop).
    fn say(&self, agent: &AgentRuntime, session: &mut Session, text: &str) {
        let mut message = Message::assistant(text);
        message.name.clone_from(&agent.name);
        self.record(session, message);
        self.emit(
            &session.id,
            RuntimeEvent::AgentTextDelta {
                agent: agent.name.clone(),
                text: text.to_owned(),
            },
        );
    }

    /// A cached `answer` becomes the assistant's message, without a model call.
    fn replay(&self, agent: &AgentRuntime, session: &mut Session, answer: String) {
        self.emit(
            &session.id,
            RuntimeEvent::AgentChanged {
                agent: agent.name.clone(),
            },
        );
        self.say(agent, session, &answer);
        self.emit(
            &session.id,
            RuntimeEvent::AgentMessage {
                agent: agent.name.clone(),
                text: answer,
                usage: None,
                cost: None,
                finish_reason: Some("cached".to_owned()),
            },
        );
    }

    async fn run_submission(
        &self,
        session: &mut Session,
        prompt: Option<String>,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let stop = |reason| RunOutcome { reason };
        let agent = match self.current(session) {
            Ok(a) => a,
            Err(reason) => return stop(reason),
        };
        session.tools_approved |= self.yolo;
        let mut state = RunState {
            prompt_ctx: String::new(),
            iterations: 0,
            max_iterations: agent.max_iterations,
            detector: LoopDetector::new(agent.max_consecutive_tool_calls),
            overflow_retried: false,
            stop_continuations: 0,
            routed_model: None,
        };
        if let Some(text) = prompt {
            self.record_user(session, &text);
            let answer = agent.cache.as_ref().and_then(|c| c.get(&text));
            let input = PromptPayload { prompt: text }.into_input(self.input(&agent, &session.id));
            if let Err(reason) = self
                .submit(
                    &agent,
                    &session.id,
                    &mut state,
                    HookEvent::UserPromptSubmit,
                    input,
                    cancel,
                )
                .await
            {
                return stop(reason);
            }
            if let Some(answer) = answer {
                self.replay(&agent, session, answer);
                return stop(StopReason::Normal);
            }
        }
        let mut shown_agent = String::new();
        let mut activated = String::new();
        let mut routes = 0;
        loop {
            let agent = match self.current(session) {
                Ok(a) => a,
                Err(reason) => return stop(reason),
            };
            // A new activation: its before_agent_run hook may route the run elsewhere.
            if activated != agent.name {
                agent.name.clone_into(&mut activated);
                let input = PromptPayload {
                    prompt: session.last_user_message(),
                }
                .into_input(self.input(&agent, &session.id));
                match self
                    .route(&agent, session, HookEvent::BeforeAgentRun, input, cancel)
                    .await
                {
                    Route::Stay => {}
                    Route::Stop(reason) => return stop(reason),
                    Route::To(target) => {
                        routes += 1;
                        if routes > crate::outcome::MAX_ROUTES {
                            let message = format!(
                                "routing hooks moved the run {} times in a row; stopping",
                                crate::outcome::MAX_ROUTES
                            );
                            return stop(
                                self.fail(&agent, &session.id, "routing_loop", message)
                                    .await,
                            );
                        }
                        self.agent_switch(&agent, &session.id, &agent, &target, "route")
                            .await;
                        session.agent = target;
                        continue;
                    }
                }
            }
            if shown_agent != agent.name {
                agent.name.clone_into(&mut shown_agent);
                self.emit(
                    &session.id,
                    RuntimeEvent::AgentChanged {
                        agent: agent.name.clone(),
                    },
                );
            }
            if state.max_iterations > 0
                && state.iterations >= state.max_iterations
                && let Some(reason) = self
                    .max_iterations_reached(&agent, session, &mut state, cancel)
                    .await
            {
                return stop(reason);
            }
            if cancel.is_cancelled() {
                return stop(StopReason::Cancelled);
            }
            if let Some(message) = self
                .budgets
                .exceeded(&session.household.spending, &agent.budget_pots)
            {
                self.say(&agent, session, &message);
                return stop(
                    self.fail(&agent, &session.id, "budget_exceeded", message)
                        .await,
                );
            }
            if self.over_threshold(&agent, session) {
                self.compact(session, crate::compaction::Compaction::Threshold, cancel)
                    .await;
            }
            if let Err(reason) = self
                .drain_steering(&agent, session, &mut state, cancel)
                .await
            {
                return stop(reason);
            }
            state.iterations += 1;
            self.emit(
                &session.id,
                RuntimeEvent::TurnStarted {
                    iteration: state.iterations,
                },
            );
            let started = std::time::Instant::now();
            let (turn_end, next) = self.turn(&agent, session, &mut state, cancel).await;
            self.budgets.charge_time(
                &session.household.spending,
                &agent.budget_pots,
                started.elapsed(),
            );
            let input = ReasonPayload {
                reason: turn_end.to_owned(),
            }
            .into_input(self.input(&agent, &session.id));
            self.fire(
                &agent,
                &session.id,
                HookEvent::TurnEnd,
                input,
                &CancellationToken::new(),
            )
            .await;
            self.emit(
                &session.id,
                RuntimeEvent::TurnEnded {
                    reason: turn_end.to_owned(),
                },
            );
            self.persist_meta(session);
            match next {
                Next::Continue => {}
                Next::Stop(reason) => return stop(reason),
            }
        }
    }

    /// The agent's `max_iterations` was reached (docs/design.md, max_iterations): `None` to go on.
    async fn max_iterations_reached(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> Option<StopReason> {
        let limit = state.max_iterations;
        let message = format!("Maximum iterations reached ({limit})");
        self.emit(
            &session.id,
            RuntimeEvent::Warning {
                message: message.clone(),
            },
        );
        self.notify(agent, &session.id, "warning", &message).await;
        let resume = if self.non_interactive || session.background {
            false
        } else {
            self.waiting_for_user(session, cancel).await;
            self.interaction.approve_more_iterations(limit).await
        };
        if resume && !cancel.is_cancelled() {
            let new_max = state.iterations + 10;
            let input = ResumePayload {
                previous_max_iterations: i64::from(limit),
                new_max_iterations: i64::from(new_max),
            }
            .into_input(self.input(agent, &session.id));
            self.fire(
                agent,
                &session.id,
                HookEvent::OnSessionResume,
                input,
                cancel,
            )
            .await;
            state.max_iterations = new_max;
            return None;
        }
        let text = format!(
            "Execution stopped after reaching the configured max_iterations limit ({limit})."
        );
        let mut msg = Message::assistant(text.clone());
        msg.name.clone_from(&agent.name);
        self.record(session, msg);
        self.emit(
            &session.id,
            RuntimeEvent::AgentMessage {
                agent: agent.name.clone(),
                text,
                usage: None,
                cost: None,
                finish_reason: None,
            },
        );
        Some(StopReason::MaxIterations { limit })
    }

    /// Records a message the user typed and shows it.
    fn record_user(&self, session: &mut Session, text: &str) {
        self.record(session, Message::user(text));
        self.emit(
            &session.id,
            RuntimeEvent::UserMessage {
                text: text.to_owned(),
            },
        );
    }

    /// Fires a submission event (`user_prompt_submit`, `user_steering_messages_submit`,
    /// `user_followup_submit`): a block stops the run; the context becomes this run's prompt
    /// context (U).
    async fn submit(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        state: &mut RunState,
        event: HookEvent,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> Result<(), StopReason> {
        let o = SubmitOutcome::from(self.fire(agent, session_id, event, input, cancel).await);
        if let Flow::Stop { reason, hook } = o.flow {
            return Err(self.shutdown(agent, session_id, event, reason, hook).await);
        }
        state.prompt_ctx = o.context;
        Ok(())
    }

    /// Drains the steering queue: the messages join the session and
    /// `user_steering_messages_submit` fires. `Ok(true)` if anything was drained.
    pub(crate) async fn drain_steering(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> Result<bool, StopReason> {
        if session.background {
            return Ok(false);
        }
        let drained = session.household.queues.drain_steering();
        if drained.is_empty() {
            return Ok(false);
        }
        for text in &drained {
            self.record_user(session, text);
        }
        let input = SteeringPayload {
            steering_messages: drained,
        }
        .into_input(self.input(agent, &session.id));
        self.submit(
            agent,
            &session.id,
            state,
            HookEvent::UserSteeringMessagesSubmit,
            input,
            cancel,
        )
        .await?;
        Ok(true)
    }

    /// Takes one follow-up: it joins the session and `user_followup_submit` fires.
    /// `Ok(true)` if there was one.
    pub(crate) async fn take_followup(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> Result<bool, StopReason> {
        if session.background {
            return Ok(false);
        }
        let Some(text) = session.household.queues.next_followup() else {
            return Ok(false);
        };
        self.record_user(session, &text);
        let input = PromptPayload { prompt: text }.into_input(self.input(agent, &session.id));
        self.submit(
            agent,
            &session.id,
            state,
            HookEvent::UserFollowupSubmit,
            input,
            cancel,
        )
        .await?;
        Ok(true)
    }
}
