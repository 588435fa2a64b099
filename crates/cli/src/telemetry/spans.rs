//! Turns the runtime's events and hook runs into finished spans.
//!
//! The runtime has no notion of spans, only an ordered stream of events, so the tree is
//! rebuilt from that order with explicit timestamps: session → turn → model call / tool call,
//! and each hook run under the innermost span open when it started. Two facts of the order
//! shape the code:
//! - a tool call is announced (`tool_call`, `tool_response`) only after its `pre_tool_use`
//!   and `permission_request` hooks ran, so the first such hook opens a tool span without an
//!   id, and the call's events adopt it;
//! - `post_tool_use` runs after `tool_response`, so a tool span stays open until something
//!   else happens (the next call, the next model call, the turn's end), and ends when its last
//!   hook did.
//!
//! A session started while another session's tool call runs (`transfer_task`) is that call's
//! child, in the same trace. Spans are `SpanData` values, ready for the OTLP exporter; their
//! names and `gen_ai.*` attributes come from `genai.rs`.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::time::SystemTime;

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks};
use tether_hooks::{RunStatus, duration_ms};
use tether_protocol::{HookEvent, Lane, Usage};

use super::events::{HookDone, HookKey, Observed, ToolStep};
use super::genai;

/// A span still open.
#[derive(Debug)]
struct Open {
    context: SpanContext,
    parent: SpanId,
    name: String,
    kind: SpanKind,
    start: SystemTime,
    attributes: Vec<KeyValue>,
    status: Status,
}

#[derive(Debug)]
struct ToolSpan {
    span: Open,
    id: Option<String>,
    name: Option<String>,
    responded: Option<SystemTime>,
    /// When its latest hook run ended (`post_tool_use` ends after the response).
    children_end: Option<SystemTime>,
    /// Opening order across sessions: the newest running call owns a new child session.
    seq: u64,
}

#[derive(Debug)]
struct ModelSpan {
    span: Open,
    /// When `after_llm_call` began: the response was complete by then.
    done: Option<SystemTime>,
}

#[derive(Debug)]
struct SessionSpans {
    session: Open,
    turn: Option<Open>,
    model: Option<ModelSpan>,
    tool: Option<ToolSpan>,
    /// Where hook runs reported after the session ended go (`subagent_stop`, async hooks).
    after_end: SpanContext,
}

impl SessionSpans {
    /// The open turn, else the session: the parent of model calls, tool calls and hooks.
    fn turn_or_session(&self) -> SpanContext {
        self.turn.as_ref().unwrap_or(&self.session).context.clone()
    }
}

/// A hook run that started: where its span goes (`None`: a trace of its own) and when.
#[derive(Debug)]
struct Started {
    parent: Option<SpanContext>,
    at: SystemTime,
}

/// The span state of every session, fed in event order.
#[derive(Debug)]
pub(crate) struct Tracker {
    ids: RandomIdGenerator,
    scope: InstrumentationScope,
    sessions: HashMap<String, SessionSpans>,
    ended: HashMap<String, SpanContext>,
    /// Hook runs started and not finished, by session and hook, oldest first.
    running: HashMap<(String, HookKey), VecDeque<Started>>,
    seq: u64,
    done: Vec<SpanData>,
}

impl Default for Tracker {
    fn default() -> Self {
        Self {
            ids: RandomIdGenerator::default(),
            scope: InstrumentationScope::builder("tether")
                .with_version(env!("CARGO_PKG_VERSION"))
                .build(),
            sessions: HashMap::new(),
            ended: HashMap::new(),
            running: HashMap::new(),
            seq: 0,
            done: Vec::new(),
        }
    }
}

fn kv(key: &'static str, value: impl Into<opentelemetry::Value>) -> KeyValue {
    KeyValue::new(key, value)
}

impl Tracker {
    /// Finished spans not taken yet.
    pub(crate) fn pending(&self) -> usize {
        self.done.len()
    }

    /// Takes the finished spans.
    pub(crate) fn take(&mut self) -> Vec<SpanData> {
        std::mem::take(&mut self.done)
    }

    fn open(
        &mut self,
        parent: Option<&SpanContext>,
        name: String,
        kind: SpanKind,
        start: SystemTime,
        attributes: Vec<KeyValue>,
    ) -> Open {
        let trace_id = parent.map_or_else(|| self.ids.new_trace_id(), SpanContext::trace_id);
        let context = SpanContext::new(
            trace_id,
            self.ids.new_span_id(),
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        );
        Open {
            context,
            parent: parent.map_or(SpanId::INVALID, SpanContext::span_id),
            name,
            kind,
            start,
            attributes,
            status: Status::Unset,
        }
    }

    fn close(&mut self, span: Open, end: SystemTime) {
        self.done.push(SpanData {
            span_context: span.context,
            parent_span_id: span.parent,
            parent_span_is_remote: false,
            span_kind: span.kind,
            name: Cow::Owned(span.name),
            start_time: span.start,
            end_time: end.max(span.start),
            attributes: span.attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: span.status,
            instrumentation_scope: self.scope.clone(),
        });
    }

    fn close_tool(&mut self, tool: ToolSpan, at: SystemTime) {
        let mut span = tool.span;
        if let Some(name) = &tool.name {
            let (span_name, attrs) = genai::tool_named(name);
            span.name = span_name;
            span.attributes.push(kv("tether.tool.name", name.clone()));
            span.attributes.extend(attrs);
        }
        if let Some(id) = tool.id {
            span.attributes.push(genai::tool_call_id(&id));
            span.attributes.push(kv("tether.tool.id", id));
        }
        let end = match (tool.responded, tool.children_end) {
            (Some(r), Some(c)) => r.max(c),
            (Some(r), None) => r,
            (None, _) => at,
        };
        self.close(span, end);
    }

    fn close_model(&mut self, model: ModelSpan, at: SystemTime, unfinished: Option<&str>) {
        let mut span = model.span;
        if let (Some(why), Status::Unset) = (unfinished, &span.status) {
            span.status = Status::error(format!("no response: {why}"));
        }
        self.close(span, model.done.unwrap_or(at));
    }

    /// Closes the session's tool, model and turn spans, in that order.
    fn close_inner(&mut self, s: &mut SessionSpans, at: SystemTime, why: &str) {
        if let Some(tool) = s.tool.take() {
            self.close_tool(tool, at);
        }
        if let Some(model) = s.model.take() {
            self.close_model(model, at, Some(why));
        }
        if let Some(turn) = s.turn.take() {
            self.close(turn, at);
        }
    }

    /// The newest tool call still running in any session: a session starting now is its child.
    fn running_tool(&self) -> Option<SpanContext> {
        self.sessions
            .values()
            .filter_map(|s| s.tool.as_ref())
            .filter(|t| t.responded.is_none())
            .max_by_key(|t| t.seq)
            .map(|t| t.span.context.clone())
    }

    /// Applies one runtime event.
    pub(crate) fn observe(&mut self, at: SystemTime, session_id: &str, event: Observed) {
        if let Observed::SessionStarted {
            agent,
            resumed,
            model,
        } = event
        {
            self.start_session(at, session_id, agent, resumed, &model);
            return;
        }
        let Some(mut s) = self.sessions.remove(session_id) else {
            return;
        };
        match event {
            Observed::SessionStarted { .. } => {}
            Observed::SessionEnded { reason } => {
                self.close_inner(&mut s, at, &reason);
                s.session
                    .attributes
                    .push(kv("tether.session.end_reason", reason));
                self.ended.insert(session_id.to_owned(), s.after_end);
                self.close(s.session, at);
                return;
            }
            Observed::TurnStarted { iteration } => {
                self.close_inner(&mut s, at, "turn_started");
                let attrs = vec![kv("tether.turn.iteration", i64::from(iteration))];
                let turn = self.open(
                    Some(&s.session.context),
                    "turn".to_owned(),
                    SpanKind::Internal,
                    at,
                    attrs,
                );
                s.turn = Some(turn);
            }
            Observed::TurnEnded { reason } => {
                if let Some(turn) = &mut s.turn {
                    turn.attributes
                        .push(kv("tether.turn.reason", reason.clone()));
                }
                self.close_inner(&mut s, at, &reason);
            }
            Observed::ModelCallStarted { model } => {
                if let Some(tool) = s.tool.take() {
                    self.close_tool(tool, at);
                }
                if let Some(previous) = s.model.take() {
                    self.close_model(previous, at, Some("another call started"));
                }
                let parent = s.turn_or_session();
                let (name, mut attrs) = genai::chat(&model, session_id);
                attrs.push(kv("tether.model.id", model));
                let span = self.open(Some(&parent), name, SpanKind::Client, at, attrs);
                s.model = Some(ModelSpan { span, done: None });
            }
            Observed::ModelResponse {
                usage,
                cost,
                finish_reason,
            } => {
                if let Some(mut model) = s.model.take() {
                    model.span.attributes.extend(usage_attributes(usage, cost));
                    if let Some(reason) = finish_reason {
                        model.span.attributes.push(genai::finish_reason(reason));
                    }
                    self.close_model(model, at, None);
                }
            }
            Observed::Error { code, message } => {
                // The innermost span the error ends: the model call, else the turn, else the
                // session (a prompt blocked before any turn).
                let target = match (&mut s.model, &mut s.turn) {
                    (Some(m), _) => &mut m.span,
                    (None, Some(t)) => t,
                    (None, None) => &mut s.session,
                };
                target.attributes.push(genai::error_type(&code));
                target.attributes.push(kv("tether.error.code", code));
                target.status = Status::error(message);
                if let Some(model) = s.model.take() {
                    self.close_model(model, at, None);
                }
            }
            Observed::Tool { id, name, step } => self.tool_event(&mut s, at, id, name, step),
        }
        self.sessions.insert(session_id.to_owned(), s);
    }

    fn start_session(
        &mut self,
        at: SystemTime,
        session_id: &str,
        agent: String,
        resumed: bool,
        model: &str,
    ) {
        if let Some(mut old) = self.sessions.remove(session_id) {
            self.close_inner(&mut old, at, "restarted");
            self.close(old.session, at);
        }
        let parent = self.running_tool();
        let (name, mut attrs) = genai::invoke_agent(&agent, model, session_id);
        attrs.extend([
            kv("tether.session.id", session_id.to_owned()),
            kv("tether.agent", agent),
            kv("tether.session.resumed", resumed),
        ]);
        let session = self.open(parent.as_ref(), name, SpanKind::Internal, at, attrs);
        let after_end = parent.unwrap_or_else(|| session.context.clone());
        self.ended.remove(session_id);
        self.sessions.insert(
            session_id.to_owned(),
            SessionSpans {
                session,
                turn: None,
                model: None,
                tool: None,
                after_end,
            },
        );
    }

    fn tool_event(
        &mut self,
        s: &mut SessionSpans,
        at: SystemTime,
        id: String,
        name: String,
        step: ToolStep,
    ) {
        let same_call = s
            .tool
            .as_ref()
            .is_some_and(|t| t.id.as_ref().is_none_or(|known| *known == id));
        if !same_call {
            if let Some(previous) = s.tool.take() {
                self.close_tool(previous, at);
            }
            s.tool = Some(self.new_tool(s, at));
        }
        let Some(tool) = &mut s.tool else {
            return;
        };
        tool.id = Some(id);
        tool.name = Some(name);
        if let ToolStep::Response { is_error } = step {
            tool.responded = Some(at);
            tool.span
                .attributes
                .push(kv("tether.tool.is_error", is_error));
            if is_error {
                tool.span.status = Status::error("the tool call failed");
            }
        }
    }

    fn new_tool(&mut self, s: &SessionSpans, at: SystemTime) -> ToolSpan {
        let parent = s.turn_or_session();
        let span = self.open(
            Some(&parent),
            genai::TOOL_SPAN.to_owned(),
            SpanKind::Internal,
            at,
            genai::tool_opened(),
        );
        self.seq += 1;
        ToolSpan {
            span,
            id: None,
            name: None,
            responded: None,
            children_end: None,
            seq: self.seq,
        }
    }

    /// Where a hook run starting now goes; may open or close the session's tool span.
    fn hook_parent(
        &mut self,
        at: SystemTime,
        session_id: &str,
        event: HookEvent,
    ) -> Option<SpanContext> {
        let Some(mut s) = self.sessions.remove(session_id) else {
            return self.ended.get(session_id).cloned();
        };
        if event == HookEvent::AfterLlmCall
            && let Some(model) = &mut s.model
        {
            model.done.get_or_insert(at);
        }
        let parent = match &s.tool {
            Some(t) if t.responded.is_none() || event == HookEvent::PostToolUse => {
                Some(t.span.context.clone())
            }
            _ => None,
        };
        let parent = parent.or_else(|| {
            if let Some(previous) = s.tool.take() {
                self.close_tool(previous, at);
            }
            // These run before the call they belong to is announced.
            let opens_call = matches!(
                event,
                HookEvent::PreToolUse
                    | HookEvent::PermissionRequest
                    | HookEvent::ToolResponseTransform
            );
            if opens_call {
                let tool = self.new_tool(&s, at);
                let context = tool.span.context.clone();
                s.tool = Some(tool);
                Some(context)
            } else {
                Some(s.turn_or_session())
            }
        });
        self.sessions.insert(session_id.to_owned(), s);
        parent
    }

    /// A hook run started.
    pub(crate) fn hook_started(&mut self, at: SystemTime, session_id: &str, key: HookKey) {
        let parent = self.hook_parent(at, session_id, key.event);
        self.running
            .entry((session_id.to_owned(), key))
            .or_default()
            .push_back(Started { parent, at });
    }

    /// A hook run finished: its span is made.
    pub(crate) fn hook_finished(&mut self, at: SystemTime, session_id: &str, run: HookDone) {
        let slot = (session_id.to_owned(), run.key.clone());
        let started = self.running.get_mut(&slot).and_then(VecDeque::pop_front);
        if self.running.get(&slot).is_some_and(VecDeque::is_empty) {
            self.running.remove(&slot);
        }
        let (parent, start) = match started {
            Some(s) => (s.parent, s.at),
            None => {
                let start = at.checked_sub(run.duration).unwrap_or(at);
                (self.hook_parent(start, session_id, run.key.event), start)
            }
        };
        let end = start + run.duration;
        if let (Some(p), Some(s)) = (&parent, self.sessions.get_mut(session_id))
            && let Some(tool) = &mut s.tool
            && tool.span.context.span_id() == p.span_id()
        {
            tool.children_end = Some(tool.children_end.map_or(end, |e| e.max(end)));
        }
        let lane = match run.key.lane {
            Lane::Preempt => "preempt",
            Lane::Default => "default",
        };
        let mut attrs = vec![
            kv("tether.hook.event", run.key.event.wire_name()),
            kv("tether.hook.lane", lane),
            kv("tether.hook.name", run.key.name),
            kv("tether.hook.type", run.kind),
            kv("tether.hook.source", run.source),
            kv("tether.hook.status", run.status.as_str()),
            kv("tether.hook.duration_ms", duration_ms(run.duration)),
            kv("tether.hook.verdict", run.verdict),
        ];
        if let Some(code) = run.exit_code {
            attrs.push(kv("tether.hook.exit_code", i64::from(code)));
        }
        let failed = match run.status {
            RunStatus::Ok | RunStatus::Blocked => false,
            RunStatus::Error | RunStatus::Failed | RunStatus::TimedOut => true,
        };
        let error = run.error.clone();
        if let Some(e) = run.error {
            attrs.push(kv("tether.hook.error", e));
        }
        let mut span = self.open(
            parent.as_ref(),
            format!("hook {}", run.key.event.wire_name()),
            SpanKind::Internal,
            start,
            attrs,
        );
        if failed {
            span.status =
                Status::error(error.unwrap_or_else(|| format!("hook {}", run.status.as_str())));
        }
        self.close(span, end);
    }

    /// Ends every open span (the process is exiting).
    pub(crate) fn finish_all(&mut self, at: SystemTime) {
        let ids: Vec<String> = self.sessions.keys().cloned().collect();
        for id in ids {
            if let Some(mut s) = self.sessions.remove(&id) {
                self.close_inner(&mut s, at, "exit");
                self.close(s.session, at);
            }
        }
    }
}

fn usage_attributes(usage: Option<Usage>, cost: Option<f64>) -> Vec<KeyValue> {
    let mut attrs = Vec::new();
    if let Some(u) = usage {
        attrs.extend(genai::usage(&u));
        let tokens = genai::tokens;
        attrs.push(kv("tether.usage.input_tokens", tokens(u.input_tokens)));
        attrs.push(kv("tether.usage.output_tokens", tokens(u.output_tokens)));
        attrs.push(kv(
            "tether.usage.cached_input_tokens",
            tokens(u.cached_input_tokens),
        ));
        attrs.push(kv(
            "tether.usage.cached_write_tokens",
            tokens(u.cached_write_tokens),
        ));
        if let Some(r) = u.reasoning_tokens {
            attrs.push(kv("tether.usage.reasoning_tokens", tokens(r)));
        }
    }
    if let Some(c) = cost {
        attrs.push(kv("tether.cost_usd", c));
    }
    attrs
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
