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
use std::sync::Arc;

use cedar_policy::{
    Authorizer, Context, Decision as CedarDecision, Entities, EntityId, EntityTypeName, EntityUid,
    PolicyId, PolicySet, Request, RestrictedExpression,
};
use serde_json::{Map, Value};
use tether_config::{POLICY_EVENTS, PolicyHook as PolicyConfig};
use tether_protocol::{HookEvent, HookInput, HookOutput, HookSpecificOutput};

use crate::policy_scope::ScopeIndex;
use crate::result::Outcome;

/// What a decision shows of a policy, looked up once at load.
#[derive(Debug)]
struct PolicyMeta {
    /// Its place in the policy text, so determining policies are listed in file order.
    order: usize,
    /// Its `@id` annotation, else Cedar's id.
    id: String,
    /// Its `@reason` annotation, else `id`.
    reason: String,
}

/// A compiled policy hook.
pub(crate) struct PolicyHook {
    set: Arc<PolicySet>,
    /// The policies by the requests their scope can match; `None`: evaluate the whole set.
    index: Option<ScopeIndex>,
    meta: HashMap<PolicyId, PolicyMeta>,
    authorizer: Authorizer,
    entities: Entities,
    agent_type: EntityTypeName,
    tool_type: EntityTypeName,
    prompt_type: EntityTypeName,
    /// `Action::"EVENT"` for each of `POLICY_EVENTS`, in its order.
    actions: Vec<EntityUid>,
    safety: String,
}

impl std::fmt::Debug for PolicyHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyHook")
            .field("policies", &self.set.policies().count())
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
}

fn type_name(name: &str) -> Result<EntityTypeName, String> {
    EntityTypeName::from_str(name).map_err(|e| format!("entity type `{name}`: {e}"))
}

fn uid(ty: &EntityTypeName, id: &str) -> EntityUid {
    EntityUid::from_type_name_and_id(ty.clone(), EntityId::new(id))
}

/// Where a policy stands in its text: Cedar names parsed policies `policy0`, `policy1`, … in
/// order; any other id sorts after them (by id, see `PolicyMeta::order`'s use).
fn text_order(id: &PolicyId) -> usize {
    AsRef::<str>::as_ref(id)
        .strip_prefix("policy")
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

impl PolicyHook {
    pub(crate) fn compile(config: &PolicyConfig, safety: &str) -> Result<Self, String> {
        let action_type = type_name("Action")?;
        let actions: Vec<EntityUid> = POLICY_EVENTS
            .iter()
            .map(|e| uid(&action_type, e.wire_name()))
            .collect();
        let index = ScopeIndex::build(&config.set, |event| uid(&action_type, event.wire_name()))?;
        let meta = config
            .set
            .policies()
            .map(|p| {
                let id = p
                    .annotation("id")
                    .map_or_else(|| p.id().to_string(), str::to_owned);
                let reason = p
                    .annotation("reason")
                    .map_or_else(|| id.clone(), str::to_owned);
                let order = text_order(p.id());
                (p.id().clone(), PolicyMeta { order, id, reason })
            })
            .collect();
        Ok(Self {
            set: Arc::clone(&config.set),
            index,
            meta,
            authorizer: Authorizer::new(),
            entities: Entities::empty(),
            agent_type: type_name("Agent")?,
            tool_type: type_name("Tool")?,
            prompt_type: type_name("Prompt")?,
            actions,
            safety: safety.to_owned(),
        })
    }

    /// The same hook evaluating its whole set on every decision (what the index must equal).
    #[cfg(test)]
    pub(crate) fn without_index(mut self) -> Self {
        self.index = None;
        self
    }

    pub(crate) fn decide(&self, event: HookEvent, input: &HookInput) -> PolicyAnswer {
        match self.try_decide(event, input) {
            Ok(answer) => answer,
            Err(e) => PolicyAnswer {
                outcome: Outcome::failed(format!("policy hook: {e}")),
                policies: Vec::new(),
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
        let resource = if event == HookEvent::UserPromptSubmit {
            uid(&self.prompt_type, "user")
        } else if input.tool_qualified_name.is_empty() {
            uid(&self.tool_type, &input.tool_name)
        } else {
            uid(&self.tool_type, &input.tool_qualified_name)
        };
        let action = POLICY_EVENTS
            .iter()
            .position(|e| *e == event)
            .and_then(|at| self.actions.get(at))
            .ok_or_else(|| format!("policy hooks do not run on `{event}`"))?;
        let set = match &self.index {
            Some(index) => index
                .policies(event, &resource)
                .ok_or_else(|| format!("policy hooks do not run on `{event}`"))?,
            None => &self.set,
        };
        if set.is_empty() {
            // Nothing can apply: no need to build the request.
            return Ok(no_opinion());
        }
        let request = Request::new(
            uid(&self.agent_type, &input.agent_name),
            action.clone(),
            resource,
            self.context(event, input)?,
            None,
        )
        .map_err(|e| e.to_string())?;
        let response = self.authorizer.is_authorized(&request, set, &self.entities);
        let mut determining: Vec<(&PolicyId, Option<&PolicyMeta>)> = response
            .diagnostics()
            .reason()
            .map(|id| (id, self.meta.get(id)))
            .collect();
        if determining.is_empty() {
            // Cedar denies by default when nothing applies: here that is no opinion.
            return Ok(no_opinion());
        }
        determining
            .sort_by_key(|(id, m)| (m.map_or(usize::MAX, |m| m.order), AsRef::<str>::as_ref(*id)));
        let policies: Vec<String> = determining
            .iter()
            .map(|(id, m)| m.map_or_else(|| id.to_string(), |m| m.id.clone()))
            .collect();
        let output = match response.decision() {
            CedarDecision::Deny => {
                let reasons: Vec<&str> = determining
                    .iter()
                    .zip(&policies)
                    .map(|((_, m), id)| m.map_or(id.as_str(), |m| m.reason.as_str()))
                    .collect();
                deny(event, reasons.join("; "))
            }
            CedarDecision::Allow => allow(event, &policies),
        };
        Ok(PolicyAnswer {
            outcome: Outcome::ok(output),
            policies,
        })
    }
}

fn no_opinion() -> PolicyAnswer {
    PolicyAnswer {
        outcome: Outcome::ok(None),
        policies: Vec::new(),
    }
}

fn deny(event: HookEvent, reason: String) -> Option<HookOutput> {
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
