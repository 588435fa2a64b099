//! One turn: `turn_start`, `before_llm_call`, the model call, `after_llm_call`, then either the
//! tool batch or `stop`. Returns the `turn_end` reason and what the loop does next.

use futures::StreamExt;
use std::sync::Arc;
use tether_hooks::events::{BeforeLlmCallOutcome, Flow, StopOutcome};
use tether_protocol::{
    AnswerPayload, BarePayload, HookEvent, Lane, Message, ModelCallPayload, ModelResponsePayload,
    Payload, RuntimeEvent, StopPayload,
};

use tether_providers::{ChatRequest, ModelResponse, Provider, ProviderError, StreamEvent};
use tokio_util::sync::CancellationToken;

use crate::agent::{AgentRuntime, ToolModel};
use crate::context;
use crate::loop_detector;
use crate::outcome::{MAX_STOP_CONTINUATIONS, Next, Route, RunState, StopReason};
use crate::runtime::Runtime;
use crate::session::Session;
use crate::toolbox::View;

/// Why a model call produced no response.
enum CallError {
    Cancelled,
    Provider(ProviderError),
}

impl Runtime {
    /// `inject_memories`: the memories relevant to the latest user message join the turn's
    /// context, after the `turn_start` hooks' (as docker-agent's builtin runs after them). A
    /// memory file that cannot be read is a warning, never the end of the run.
    fn inject_memories(&self, agent: &AgentRuntime, session: &Session, turn_ctx: &mut String) {
        let Some(inject) = &agent.inject_memories else {
            return;
        };
        let query = session.last_user_message();
        match tether_tools::relevant_memories(
            inject.path.as_deref(),
            &self.working_dir,
            &query,
            inject.limit,
        ) {
            Ok(Some(block)) => {
                if !turn_ctx.is_empty() {
                    turn_ctx.push_str("\n\n");
                }
                turn_ctx.push_str(&block);
            }
            Ok(None) => {}
            Err(e) => self.emit(
                &session.id,
                RuntimeEvent::Warning {
                    message: format!("inject_memories: {e}"),
                },
            ),
        }
    }

    /// Boxed: keeps the callers' futures (and debug-build stack frames) small.
    pub(crate) fn turn<'a>(
        &'a self,
        agent: &'a AgentRuntime,
        session: &'a mut Session,
        state: &'a mut RunState,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, (&'static str, Next)> {
        Box::pin(self.turn_inner(agent, session, state, cancel))
    }

    async fn turn_inner(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> (&'static str, Next) {
        if let Err(message) = self.guard_prompt_files(agent, &session.id, cancel).await {
            let reason = self
                .shutdown(
                    agent,
                    &session.id,
                    HookEvent::PromptFileGuard,
                    message,
                    String::new(),
                )
                .await;
            return ("hook_blocked", Next::Stop(reason));
        }
        let input = BarePayload.into_input(self.input(agent, &session.id));
        let mut turn_ctx = self
            .fire(agent, &session.id, HookEvent::TurnStart, input, cancel)
            .await
            .additional_context;
        self.inject_memories(agent, session, &mut turn_ctx);
        let tools = match self.prepare_tools(agent, &session.id).await {
            Ok(view) => view,
            Err(reason) => {
                if let StopReason::Error { code, message } = &reason {
                    self.emit(
                        &session.id,
                        RuntimeEvent::Error {
                            code: code.clone(),
                            message: message.clone(),
                        },
                    );
                    self.notify(agent, &session.id, "error", message).await;
                }
                return ("error", Next::Stop(reason));
            }
        };
        let messages = context::outgoing(
            agent,
            session,
            &tools.instructions,
            &state.prompt_ctx,
            &turn_ctx,
        );
        session.pending_context.clear();

        // The Input's copy of the whole conversation is made only when a hook will read it.
        let messages = if agent.executor.has(HookEvent::BeforeLlmCall, Lane::Default) {
            let input = ModelCallPayload {
                model_id: agent.model_id.clone(),
                iteration: i64::from(state.iterations),
                messages: messages.clone(),
            }
            .into_input(self.input(agent, &session.id));
            let o = BeforeLlmCallOutcome::from(
                self.fire(agent, &session.id, HookEvent::BeforeLlmCall, input, cancel)
                    .await,
            );
            if let Flow::Stop { reason, hook } = o.flow {
                let reason = self
                    .shutdown(agent, &session.id, HookEvent::BeforeLlmCall, reason, hook)
                    .await;
                return ("hook_blocked", Next::Stop(reason));
            }
            o.messages.unwrap_or(messages)
        } else {
            messages
        };

        let routed = state
            .routed_model
            .take()
            .or_else(|| agent.picked_model())
            .and_then(|i| agent.tool_models.get(i));
        let response = match self
            .call_model(agent, routed, &session.id, messages, &tools, cancel)
            .await
        {
            Ok(r) => r,
            Err(CallError::Cancelled) => return ("canceled", Next::Stop(StopReason::Cancelled)),
            Err(CallError::Provider(e))
                if e.is_context_overflow() && agent.compaction && !state.overflow_retried =>
            {
                state.overflow_retried = true;
                self.emit(
                    &session.id,
                    RuntimeEvent::Warning {
                        message: "The conversation has exceeded the model's context window. Automatically compacting the conversation history...".to_owned(),
                    },
                );
                self.compact(session, crate::compaction::Compaction::Overflow, cancel)
                    .await;
                return ("error", Next::Continue);
            }
            Err(CallError::Provider(e)) => {
                let message = format!("model {}: {e}", agent.model_id);
                self.emit(
                    &session.id,
                    RuntimeEvent::Error {
                        code: "model_error".to_owned(),
                        message: message.clone(),
                    },
                );
                self.notify(agent, &session.id, "error", &message).await;
                let code = if e.is_context_overflow() {
                    "context_overflow"
                } else {
                    "model_error"
                };
                return (
                    "error",
                    Next::Stop(StopReason::Error {
                        code: code.to_owned(),
                        message,
                    }),
                );
            }
        };

        let cost = response.usage.as_ref().and_then(|u| agent.model.cost(u));
        state.overflow_retried = false;
        if let Some(u) = &response.usage {
            session.input_tokens = u.input_tokens + u.cached_input_tokens + u.cached_write_tokens;
            session.output_tokens = u.output_tokens;
            self.persist_usage(session, &agent.model_id, u, cost);
        }
        session.cost += cost.unwrap_or(0.0);
        if !agent.budget_pots.is_empty()
            && let Some(u) = &response.usage
        {
            let tokens =
                u.input_tokens + u.cached_input_tokens + u.cached_write_tokens + u.output_tokens;
            if let Some(message) = self.budgets.charge_call(
                &session.household.spending,
                &agent.budget_pots,
                &agent.model_id,
                tokens,
                cost,
            ) {
                self.emit(&session.id, RuntimeEvent::Warning { message });
            }
        }
        let text = response.message.text();
        let input = ModelResponsePayload {
            model_id: agent.model_id.clone(),
            stop_response: text.clone(),
            last_user_message: session.last_user_message(),
            usage: response.usage,
            cost,
        }
        .into_input(self.input(agent, &session.id));
        self.fire(agent, &session.id, HookEvent::AfterLlmCall, input, cancel)
            .await;

        let mut message = response.message;
        message.name.clone_from(&agent.name);
        crate::generated_media::materialize(&mut message, &self.working_dir);
        let calls = message.tool_calls.clone();
        self.record(session, message);
        self.emit(
            &session.id,
            RuntimeEvent::AgentMessage {
                agent: agent.name.clone(),
                text: text.clone(),
                usage: response.usage,
                cost,
                finish_reason: Some(response.finish_reason.as_str().to_owned()),
            },
        );

        if calls.is_empty() {
            let input = StopPayload {
                stop_response: text.clone(),
                last_user_message: session.last_user_message(),
                stop_hook_active: state.stop_continuations > 0,
            }
            .into_input(self.input(agent, &session.id));
            let r = StopOutcome::from(
                self.fire(agent, &session.id, HookEvent::Stop, input, cancel)
                    .await,
            );
            if !r.context.is_empty() {
                session.pending_context.push(r.context);
            }
            // Claude Code's Stop block: the agent goes on, told why.
            if !r.keep_going.is_empty() && !cancel.is_cancelled() {
                let reason = r.keep_going.join("\n");
                let message = if state.stop_continuations < MAX_STOP_CONTINUATIONS {
                    format!("a stop hook keeps the agent going: {reason}")
                } else {
                    format!(
                        "a stop hook asked to keep going {MAX_STOP_CONTINUATIONS} times in this run; stopping: {reason}"
                    )
                };
                self.emit(&session.id, RuntimeEvent::Warning { message });
                if state.stop_continuations < MAX_STOP_CONTINUATIONS {
                    state.stop_continuations += 1;
                    session
                        .pending_context
                        .push(format!("Stop hook feedback:\n{reason}"));
                    return ("continue", Next::Continue);
                }
            }
            let input = AnswerPayload {
                stop_response: text,
                last_user_message: session.last_user_message(),
            }
            .into_input(self.input(agent, &session.id));
            match self
                .route(agent, session, HookEvent::AfterAgentComplete, input, cancel)
                .await
            {
                Route::Stay => {}
                Route::Stop(reason) => return ("hook_blocked", Next::Stop(reason)),
                Route::To(target) => {
                    self.agent_switch(agent, &session.id, agent, &target, "route")
                        .await;
                    session.agent = target;
                    self.record(session, Message::user(crate::delegation::FORCED_CONTINUE));
                    return ("after_agent_complete", Next::Continue);
                }
            }
            if self.force_handoff(agent, session).await {
                return ("force_handoff", Next::Continue);
            }
            match self.drain_steering(agent, session, state, cancel).await {
                Ok(true) => return ("steered", Next::Continue),
                Ok(false) => {}
                Err(reason) => return ("hook_blocked", Next::Stop(reason)),
            }
            match self.take_followup(agent, session, state, cancel).await {
                Ok(true) => return ("continue", Next::Continue),
                Ok(false) => {}
                Err(reason) => return ("hook_blocked", Next::Stop(reason)),
            }
            return ("normal", Next::Stop(StopReason::Normal));
        }

        let batch = self.run_tool_calls(agent, session, &calls, cancel).await;
        state.routed_model = batch.model;
        if let Some(count) = state.detector.record(&calls) {
            let message = loop_detector::message(count, &calls[0].function.name);
            self.emit(
                &session.id,
                RuntimeEvent::Error {
                    code: "loop_detected".to_owned(),
                    message: message.clone(),
                },
            );
            self.notify(agent, &session.id, "error", &message).await;
            return (
                "loop_detected",
                Next::Stop(StopReason::LoopDetected { message }),
            );
        }
        if let Some((reason, hook)) = batch.post_blocked {
            let reason = self
                .shutdown(agent, &session.id, HookEvent::PostToolUse, reason, hook)
                .await;
            return ("hook_blocked", Next::Stop(reason));
        }
        if cancel.is_cancelled() {
            return ("canceled", Next::Stop(StopReason::Cancelled));
        }
        match self.drain_steering(agent, session, state, cancel).await {
            Ok(true) => return ("steered", Next::Continue),
            Ok(false) => {}
            Err(reason) => return ("hook_blocked", Next::Stop(reason)),
        }
        if self.over_threshold(agent, session) {
            self.compact(session, crate::compaction::Compaction::ToolOverflow, cancel)
                .await;
        }
        ("continue", Next::Continue)
    }

    /// The model call, through the agent's fallback models when it has them: a retryable
    /// error (5xx, timeout) is retried on the same model, anything else moves to the next; a
    /// fallback that answered after a non-retryable error is kept for the cooldown.
    async fn call_model(
        &self,
        agent: &AgentRuntime,
        routed: Option<&ToolModel>,
        session_id: &str,
        messages: Vec<Message>,
        tools: &View,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, CallError> {
        let request = ChatRequest {
            messages,
            tools: tools.definitions.clone(),
            response_schema: agent.response_schema.clone(),
            tool_choice: agent.tool_choice,
        };
        if let Some(m) = routed {
            return self
                .call_once(agent, &m.provider, &m.id, session_id, &request, cancel)
                .await;
        }
        let Some(chain) = &agent.fallback else {
            return self
                .call_once(
                    agent,
                    &agent.provider,
                    &agent.model_id,
                    session_id,
                    &request,
                    cancel,
                )
                .await;
        };
        let candidates: Vec<(&Arc<dyn Provider>, &String)> =
            std::iter::once((&agent.provider, &agent.model_id))
                .chain(chain.models.iter().map(|m| (&m.provider, &m.id)))
                .collect();
        let mut i = chain.start();
        let mut attempt = 0;
        loop {
            let (provider, id) = candidates[i];
            let err = match self
                .call_once(agent, provider, id, session_id, &request, cancel)
                .await
            {
                Ok(r) => return Ok(r),
                Err(CallError::Provider(e)) if !e.is_context_overflow() => e,
                Err(other) => return Err(other),
            };
            let retry_here = err.is_retryable()
                && !matches!(err, ProviderError::RateLimited { .. })
                && attempt < chain.retries;
            if retry_here {
                attempt += 1;
                let wait = std::time::Duration::from_millis(250 << attempt.min(6));
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = cancel.cancelled() => return Err(CallError::Cancelled),
                }
                continue;
            }
            let Some((_, next)) = candidates.get(i + 1) else {
                return Err(CallError::Provider(err));
            };
            let message = format!("model {id} failed: {err}; falling back to {next}");
            self.emit(
                session_id,
                RuntimeEvent::Warning {
                    message: message.clone(),
                },
            );
            self.notify(agent, session_id, "error", &message).await;
            if !err.is_retryable() || matches!(err, ProviderError::RateLimited { .. }) {
                chain.stick(i + 1);
            }
            i += 1;
            attempt = 0;
        }
    }

    async fn call_once(
        &self,
        agent: &AgentRuntime,
        provider: &Arc<dyn Provider>,
        model_id: &str,
        session_id: &str,
        request: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, CallError> {
        self.emit(
            session_id,
            RuntimeEvent::ModelCallStarted {
                agent: agent.name.clone(),
                model: model_id.to_owned(),
            },
        );
        let call = async {
            let mut stream = provider
                .stream(request)
                .await
                .map_err(CallError::Provider)?;
            while let Some(event) = stream.next().await {
                match event.map_err(CallError::Provider)? {
                    StreamEvent::TextDelta(text) => self.emit(
                        session_id,
                        RuntimeEvent::AgentTextDelta {
                            agent: agent.name.clone(),
                            text,
                        },
                    ),
                    StreamEvent::ReasoningDelta(text) => self.emit(
                        session_id,
                        RuntimeEvent::ReasoningDelta {
                            agent: agent.name.clone(),
                            text,
                        },
                    ),
                    StreamEvent::ToolCallStarted { .. } => {}
                    StreamEvent::Completed(response) => return Ok(response),
                }
            }
            Err(CallError::Provider(ProviderError::Protocol {
                provider: agent.model.provider.clone(),
                message: "the stream ended without a complete response".to_owned(),
            }))
        };
        tokio::select! {
            r = call => r,
            () = cancel.cancelled() => Err(CallError::Cancelled),
        }
    }
}
