//! `type: policy` hooks: Cedar policies decided in process, on the set parsed at load.
//!
//! The request: principal `Agent::"NAME"`, action `Action::"EVENT"`, resource `Tool::"TOOL"`
//! (`mcp:SERVER:TOOL` for MCP tools) or `Prompt::"user"` on user_prompt_submit, and context
//! `{tool_input, session_id, cwd, agent, safety}` (plus `prompt` on user_prompt_submit).
//! JSON becomes Cedar values as follows: strings, booleans and integers as themselves, objects
//! as records, arrays as sets; a number that is not an integer becomes its decimal text (a
//! string); `null` (which Cedar has no value for) leaves the key out, so `has` tells.
//!
//! A `forbid` that applies denies, with its `@reason` (else its id); a `permit` that applies
//! and no forbid allows; nothing applies: no opinion.

use std::collections::HashMap;
use std::str::FromStr;

use cedar_policy::{
    AuthorizationError, Authorizer, Context, Decision as CedarDecision, Entities, EntityId,
    EntityTypeName, EntityUid, Policy, PolicyId, PolicySet, Request, Response,
    RestrictedExpression,
};
use serde_json::{Map, Value};
use tether_config::{POLICY_EVENTS, PolicyHook as PolicyConfig};
use tether_protocol::{HookEvent, HookInput, HookOutput, HookSpecificOutput};

use crate::policy_condition::{Call, Compiled};
use crate::policy_scope::ScopeIndex;
use crate::result::{Outcome, PolicyError};

/// A policy as decisions show it, looked up once at load.
#[derive(Debug)]
struct Entry {
    /// Its `@id` annotation, else Cedar's id.
    id: String,
    /// Its `@reason` annotation, else `id`.
    reason: String,
    /// Its compiled form, when its condition is within the fast path's subset.
    compiled: Option<Compiled>,
}

/// The policies one decision evaluates.
#[derive(Debug)]
pub(crate) struct Bucket {
    /// The compiled ones, as places in `PolicyHook::entries`, in file order.
    fast: Vec<usize>,
    /// The others, which Cedar decides.
    cedar: PolicySet,
}

impl Bucket {
    fn is_empty(&self) -> bool {
        self.fast.is_empty() && self.cedar.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.fast.len() + self.cedar.policies().count()
    }
}

/// A compiled policy hook.
pub(crate) struct PolicyHook {
    /// Every policy of the set, in file order.
    entries: Vec<Entry>,
    /// The same policies as Cedar holds them, to word the errors of compiled ones (kept out
    /// of `entries`, which the hot path walks).
    policies: Vec<Policy>,
    /// Cedar's id of each policy: its place in `entries`.
    places: HashMap<PolicyId, usize>,
    /// The policies by the requests their scope can match; `None`: evaluate `whole`.
    index: Option<ScopeIndex<Bucket>>,
    whole: Bucket,
    authorizer: Authorizer,
    entities: Entities,
    agent_type: EntityTypeName,
    tool_type: EntityTypeName,
    prompt_type: EntityTypeName,
    /// `Action::"EVENT"` for each of `POLICY_EVENTS`, in its order.
    actions: Vec<EntityUid>,
    safety: String,
    /// The tool input of a call without one.
    no_input: Map<String, Value>,
}

impl std::fmt::Debug for PolicyHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyHook")
            .field("policies", &self.entries.len())
            .field("indexed", &self.index.is_some())
            .finish_non_exhaustive()
    }
}

/// What one decision said, and which policies said it.
pub(crate) struct PolicyAnswer {
    pub(crate) outcome: Outcome,
    /// The ids of the policies that determined the answer (`@id`, else Cedar's id), in the
    /// order of the policy text.
    pub(crate) policies: Vec<String>,
    /// The policies whose condition errored, so did not apply, in the order of the text.
    pub(crate) errors: Vec<PolicyError>,
}

fn type_name(name: &str) -> Result<EntityTypeName, String> {
    EntityTypeName::from_str(name).map_err(|e| format!("entity type `{name}`: {e}"))
}

fn uid(ty: &EntityTypeName, id: &str) -> EntityUid {
    EntityUid::from_type_name_and_id(ty.clone(), EntityId::new(id))
}

/// Where a policy stands in its text: Cedar names parsed policies `policy0`, `policy1`, … in
/// order; any other id sorts after them, by id.
fn text_order(id: &PolicyId) -> (usize, &str) {
    let id: &str = id.as_ref();
    let at = id
        .strip_prefix("policy")
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    (at, id)
}

impl PolicyHook {
    pub(crate) fn compile(config: &PolicyConfig, safety: &str) -> Result<Self, String> {
        let action_type = type_name("Action")?;
        let actions: Vec<EntityUid> = POLICY_EVENTS
            .iter()
            .map(|e| uid(&action_type, e.wire_name()))
            .collect();
        let mut policies: Vec<&Policy> = config.set.policies().collect();
        policies.sort_by(|a, b| text_order(a.id()).cmp(&text_order(b.id())));
        let places: HashMap<PolicyId, usize> = policies
            .iter()
            .enumerate()
            .map(|(at, p)| (p.id().clone(), at))
            .collect();
        let entries: Vec<Entry> = policies
            .iter()
            .map(|p| {
                let id = p
                    .annotation("id")
                    .map_or_else(|| p.id().to_string(), str::to_owned);
                let reason = p
                    .annotation("reason")
                    .map_or_else(|| id.clone(), str::to_owned);
                let compiled = Compiled::compile(p);
                Entry {
                    id,
                    reason,
                    compiled,
                }
            })
            .collect();
        let bucket = |policies: Vec<&Policy>| {
            let mut fast = Vec::new();
            let mut cedar = Vec::new();
            for p in policies {
                match places.get(p.id()) {
                    Some(&at) if entries.get(at).is_some_and(|e| e.compiled.is_some()) => {
                        fast.push(at);
                    }
                    _ => cedar.push(p.clone()),
                }
            }
            fast.sort_unstable();
            let cedar = PolicySet::from_policies(cedar).map_err(|e| e.to_string())?;
            Ok(Bucket { fast, cedar })
        };
        let index = ScopeIndex::build(
            &config.set,
            |event| uid(&action_type, event.wire_name()),
            bucket,
        )?;
        Ok(Self {
            entries,
            policies: policies.into_iter().cloned().collect(),
            places,
            index,
            whole: Bucket {
                fast: Vec::new(),
                cedar: PolicySet::clone(&config.set),
            },
            authorizer: Authorizer::new(),
            entities: Entities::empty(),
            agent_type: type_name("Agent")?,
            tool_type: type_name("Tool")?,
            prompt_type: type_name("Prompt")?,
            actions,
            safety: safety.to_owned(),
            no_input: Map::new(),
        })
    }

    /// The same hook deciding its whole set through Cedar alone, with neither the index nor
    /// the compiled policies (what both must equal).
    #[cfg(test)]
    pub(crate) fn cedar_only(mut self) -> Self {
        self.index = None;
        self
    }

    pub(crate) fn decide(&self, event: HookEvent, input: &HookInput) -> PolicyAnswer {
        match self.try_decide(event, input) {
            Ok(answer) => answer,
            Err(e) => PolicyAnswer {
                outcome: Outcome::failed(format!("policy hook: {e}")),
                policies: Vec::new(),
                errors: Vec::new(),
            },
        }
    }

    fn context(&self, event: HookEvent, input: &HookInput) -> Result<Context, String> {
        let tool_input = match &input.tool_input {
            Some(m) => record(m)?,
            None => empty_record()?,
        };
        let string = |s: &str| RestrictedExpression::new_string(s.to_owned());
        let mut pairs = vec![
            ("tool_input".to_owned(), tool_input),
            ("session_id".to_owned(), string(&input.session_id)),
            ("cwd".to_owned(), string(&input.cwd)),
            ("agent".to_owned(), string(&input.agent_name)),
            ("safety".to_owned(), string(&self.safety)),
        ];
        if event == HookEvent::UserPromptSubmit {
            pairs.push(("prompt".to_owned(), string(&input.prompt)));
        }
        Context::from_pairs(pairs).map_err(|e| e.to_string())
    }

    fn try_decide(&self, event: HookEvent, input: &HookInput) -> Result<PolicyAnswer, String> {
        let unsupported = || format!("policy hooks do not run on `{event}`");
        let (resource_type, resource_id) = if event == HookEvent::UserPromptSubmit {
            (&self.prompt_type, "user")
        } else if input.tool_qualified_name.is_empty() {
            (&self.tool_type, input.tool_name.as_str())
        } else {
            (&self.tool_type, input.tool_qualified_name.as_str())
        };
        let resource = uid(resource_type, resource_id);
        let action = POLICY_EVENTS
            .iter()
            .position(|e| *e == event)
            .and_then(|at| self.actions.get(at))
            .ok_or_else(unsupported)?;
        let bucket = match &self.index {
            Some(index) => index.policies(event, &resource).ok_or_else(unsupported)?,
            None => &self.whole,
        };
        if bucket.is_empty() {
            // Nothing can apply: no need to build the request.
            return Ok(no_opinion());
        }
        let mut forbids = Vec::new();
        let mut permits = Vec::new();
        // Compiled policies whose condition errored; Cedar words the error (rare: no
        // allocation when nothing errors).
        let mut faulted = Vec::new();
        if !bucket.fast.is_empty() {
            let call = Call {
                agent: &input.agent_name,
                action: event.wire_name(),
                resource: (resource_type.basename(), resource_id),
                tool_input: input.tool_input.as_ref().unwrap_or(&self.no_input),
                session_id: &input.session_id,
                cwd: &input.cwd,
                safety: &self.safety,
                prompt: (event == HookEvent::UserPromptSubmit).then_some(input.prompt.as_str()),
            };
            for &at in &bucket.fast {
                let Some(p) = self.entries.get(at).and_then(|e| e.compiled.as_ref()) else {
                    continue;
                };
                match p.applies(&call) {
                    Ok(true) if p.is_forbid() => forbids.push(at),
                    Ok(true) => permits.push(at),
                    Ok(false) => {}
                    Err(_) => faulted.push(at),
                }
            }
        }
        let mut errors = Vec::new();
        if !bucket.cedar.is_empty() || !faulted.is_empty() {
            let request = self.context(event, input).and_then(|context| {
                let principal = uid(&self.agent_type, &input.agent_name);
                Request::new(principal, action.clone(), resource, context, None)
                    .map_err(|e| e.to_string())
            });
            if !bucket.cedar.is_empty() {
                // Cedar's half of the set cannot be decided without it.
                let request = request.as_ref().map_err(String::clone)?;
                let response =
                    self.authorizer
                        .is_authorized(request, &bucket.cedar, &self.entities);
                // Cedar's reasons: the forbids that apply on a deny, else the permits that apply.
                let applying = match response.decision() {
                    CedarDecision::Deny => &mut forbids,
                    CedarDecision::Allow => &mut permits,
                };
                for id in response.diagnostics().reason() {
                    applying.push(self.place(id)?);
                }
                self.collect_errors(&response, &mut errors)?;
            }
            if !faulted.is_empty() {
                self.word_faults(request.ok().as_ref(), &faulted, &mut errors);
            }
            errors.sort_by_key(|(at, _)| *at);
        }
        let errors: Vec<PolicyError> = errors
            .into_iter()
            .filter_map(|(at, error)| {
                let policy = self.entries.get(at)?.id.clone();
                Some(PolicyError { policy, error })
            })
            .collect();
        let (deny, mut determining) = match (forbids.is_empty(), permits.is_empty()) {
            (false, _) => (true, forbids),
            (true, false) => (false, permits),
            // Cedar denies by default when nothing applies: here that is no opinion.
            (true, true) => {
                return Ok(PolicyAnswer {
                    errors,
                    ..no_opinion()
                });
            }
        };
        determining.sort_unstable();
        let entries: Vec<&Entry> = determining
            .iter()
            .filter_map(|at| self.entries.get(*at))
            .collect();
        let policies: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
        let output = if deny {
            let reasons: Vec<&str> = entries.iter().map(|e| e.reason.as_str()).collect();
            deny_output(event, reasons.join("; "))
        } else {
            allow(event, &policies)
        };
        Ok(PolicyAnswer {
            outcome: Outcome::ok(output),
            policies,
            errors,
        })
    }

    fn place(&self, id: &PolicyId) -> Result<usize, String> {
        self.places
            .get(id)
            .copied()
            .ok_or_else(|| format!("policy `{id}` is not in the set"))
    }

    /// The policies that errored in `response`, with Cedar's message, as places.
    fn collect_errors(
        &self,
        response: &Response,
        errors: &mut Vec<(usize, String)>,
    ) -> Result<(), String> {
        for e in response.diagnostics().errors() {
            let AuthorizationError::PolicyEvaluationError(e) = e;
            let mut message = e.inner().to_string();
            if let Some(help) = miette::Diagnostic::help(e.inner()) {
                message.push_str(&format!(" ({help})"));
            }
            errors.push((self.place(e.policy_id())?, message));
        }
        Ok(())
    }

    /// Cedar's messages for the compiled policies at `faulted`, which errored on `request`.
    /// Never fails: the decision is made, only the wording is at stake.
    fn word_faults(
        &self,
        request: Option<&Request>,
        faulted: &[usize],
        errors: &mut Vec<(usize, String)>,
    ) {
        let before = errors.len();
        if let Some(request) = request {
            let policies = faulted
                .iter()
                .filter_map(|at| self.policies.get(*at))
                .cloned();
            if let Ok(set) = PolicySet::from_policies(policies) {
                let response = self.authorizer.is_authorized(request, &set, &self.entities);
                // Every id is one of ours: the set was made from `entries`.
                let _ = self.collect_errors(&response, errors);
            }
        }
        // Were Cedar ever to see no error in one, it still did not apply: say so plainly.
        for &at in faulted {
            if !errors
                .get(before..)
                .is_some_and(|new| new.iter().any(|(p, _)| *p == at))
            {
                errors.push((at, "the condition errored".to_owned()));
            }
        }
    }
}

fn no_opinion() -> PolicyAnswer {
    PolicyAnswer {
        outcome: Outcome::ok(None),
        policies: Vec::new(),
        errors: Vec::new(),
    }
}

/// The run's error text for policies that errored: each id with Cedar's message.
pub(crate) fn describe_errors(errors: &[PolicyError]) -> String {
    let each: Vec<String> = errors
        .iter()
        .map(|e| {
            format!(
                "policy `{}` errored, so did not apply: {}",
                e.policy, e.error
            )
        })
        .collect();
    each.join("; ")
}

fn deny_output(event: HookEvent, reason: String) -> Option<HookOutput> {
    if event == HookEvent::UserPromptSubmit {
        return Some(HookOutput {
            decision: "block".to_owned(),
            reason,
            ..HookOutput::default()
        });
    }
    Some(verdict(event, "deny", reason))
}

fn allow(event: HookEvent, policies: &[String]) -> Option<HookOutput> {
    // A prompt has nothing to allow: a permit there only means no forbid applied.
    (event != HookEvent::UserPromptSubmit).then(|| {
        verdict(
            event,
            "allow",
            format!("allowed by policy {}", policies.join(", ")),
        )
    })
}

fn verdict(event: HookEvent, decision: &str, reason: String) -> HookOutput {
    HookOutput {
        hook_specific_output: Some(Box::new(HookSpecificOutput {
            hook_event_name: event.wire_name().to_owned(),
            permission_decision: decision.to_owned(),
            permission_decision_reason: reason,
            ..HookSpecificOutput::default()
        })),
        ..HookOutput::default()
    }
}

fn empty_record() -> Result<RestrictedExpression, String> {
    RestrictedExpression::new_record(std::iter::empty()).map_err(|e| e.to_string())
}

fn record(m: &Map<String, Value>) -> Result<RestrictedExpression, String> {
    let mut fields = Vec::with_capacity(m.len());
    for (k, v) in m {
        if let Some(v) = value(v)? {
            fields.push((k.clone(), v));
        }
    }
    RestrictedExpression::new_record(fields).map_err(|e| e.to_string())
}

/// A JSON value as a Cedar value; `None` for `null`.
fn value(v: &Value) -> Result<Option<RestrictedExpression>, String> {
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::Bool(b) => RestrictedExpression::new_bool(*b),
        Value::String(s) => RestrictedExpression::new_string(s.clone()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => RestrictedExpression::new_long(i),
            None => RestrictedExpression::new_string(n.to_string()),
        },
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(v) = value(item)? {
                    out.push(v);
                }
            }
            RestrictedExpression::new_set(out)
        }
        Value::Object(m) => record(m)?,
    }))
}

#[cfg(test)]
#[path = "policy_hook_tests.rs"]
mod tests;
