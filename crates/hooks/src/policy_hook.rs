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

use std::str::FromStr;
use std::sync::Arc;

use cedar_policy::{
    Authorizer, Context, Decision as CedarDecision, Entities, EntityId, EntityTypeName, EntityUid,
    PolicyId, PolicySet, Request, RestrictedExpression,
};
use serde_json::{Map, Value};
use tether_config::PolicyHook as PolicyConfig;
use tether_protocol::{HookEvent, HookInput, HookOutput, HookSpecificOutput};

use crate::result::Outcome;

/// A compiled policy hook.
pub(crate) struct PolicyHook {
    set: Arc<PolicySet>,
    authorizer: Authorizer,
    entities: Entities,
    agent_type: EntityTypeName,
    action_type: EntityTypeName,
    tool_type: EntityTypeName,
    prompt_type: EntityTypeName,
    safety: String,
}

impl std::fmt::Debug for PolicyHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyHook")
            .field("policies", &self.set.policies().count())
            .finish_non_exhaustive()
    }
}

/// What one decision said, and which policies said it.
pub(crate) struct PolicyAnswer {
    pub(crate) outcome: Outcome,
    /// The ids of the policies that determined the answer (`@id`, else Cedar's id).
    pub(crate) policies: Vec<String>,
}

fn type_name(name: &str) -> Result<EntityTypeName, String> {
    EntityTypeName::from_str(name).map_err(|e| format!("entity type `{name}`: {e}"))
}

impl PolicyHook {
    pub(crate) fn compile(config: &PolicyConfig, safety: &str) -> Result<Self, String> {
        Ok(Self {
            set: Arc::clone(&config.set),
            authorizer: Authorizer::new(),
            entities: Entities::empty(),
            agent_type: type_name("Agent")?,
            action_type: type_name("Action")?,
            tool_type: type_name("Tool")?,
            prompt_type: type_name("Prompt")?,
            safety: safety.to_owned(),
        })
    }

    fn uid(ty: &EntityTypeName, id: &str) -> EntityUid {
        EntityUid::from_type_name_and_id(ty.clone(), EntityId::new(id))
    }

    /// The display id of a policy: its `@id` annotation, else Cedar's id.
    fn id_of(&self, id: &PolicyId) -> String {
        self.set
            .annotation(id, "id")
            .map_or_else(|| id.to_string(), str::to_owned)
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

    fn try_decide(&self, event: HookEvent, input: &HookInput) -> Result<PolicyAnswer, String> {
        let prompt = event == HookEvent::UserPromptSubmit;
        let resource = if prompt {
            Self::uid(&self.prompt_type, "user")
        } else if input.tool_qualified_name.is_empty() {
            Self::uid(&self.tool_type, &input.tool_name)
        } else {
            Self::uid(&self.tool_type, &input.tool_qualified_name)
        };
        let tool_input = match &input.tool_input {
            Some(m) => record(m)?,
            None => empty_record()?,
        };
        let mut pairs = vec![
            ("tool_input".to_owned(), tool_input),
            (
                "session_id".to_owned(),
                RestrictedExpression::new_string(input.session_id.clone()),
            ),
            (
                "cwd".to_owned(),
                RestrictedExpression::new_string(input.cwd.clone()),
            ),
            (
                "agent".to_owned(),
                RestrictedExpression::new_string(input.agent_name.clone()),
            ),
            (
                "safety".to_owned(),
                RestrictedExpression::new_string(self.safety.clone()),
            ),
        ];
        if prompt {
            pairs.push((
                "prompt".to_owned(),
                RestrictedExpression::new_string(input.prompt.clone()),
            ));
        }
        let context = Context::from_pairs(pairs).map_err(|e| e.to_string())?;
        let request = Request::new(
            Self::uid(&self.agent_type, &input.agent_name),
            Self::uid(&self.action_type, event.wire_name()),
            resource,
            context,
            None,
        )
        .map_err(|e| e.to_string())?;
        let response = self
            .authorizer
            .is_authorized(&request, &self.set, &self.entities);
        let determining: Vec<&PolicyId> = response.diagnostics().reason().collect();
        if determining.is_empty() {
            // Cedar denies by default when nothing applies: here that is no opinion.
            return Ok(PolicyAnswer {
                outcome: Outcome::ok(None),
                policies: Vec::new(),
            });
        }
        let policies: Vec<String> = determining.iter().map(|id| self.id_of(id)).collect();
        let output = match response.decision() {
            CedarDecision::Deny => {
                let reasons: Vec<String> = determining
                    .iter()
                    .map(|id| {
                        self.set
                            .annotation(id, "reason")
                            .map_or_else(|| self.id_of(id), str::to_owned)
                    })
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
