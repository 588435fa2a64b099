//! Validation of the `evaluators:` section and of `type: evaluator` hooks.
//!
//! An evaluator is called through our own model clients (structured output `{choice,
//! probability}`), not through a vendor's classification endpoint, so the fields that only
//! make sense for such an endpoint (`endpoint`, `provider: typesafe`) and those we cannot
//! honour yet (`cost`, `bypass_models_gateway`, `type: boolean` / `score`) are load errors that
//! name them, never accepted and ignored.

use serde_saphyr::{Location, Spanned};
use tether_protocol::Decision;

use crate::agent::AgentFile;
use crate::diagnostic::Origin;
use crate::evaluator::{
    DEFAULT_EVALUATOR_TIMEOUT, Evaluator, EvaluatorPolicy, MAX_CHOICES, Probability,
    is_guarding_event, is_routing_event,
};
use crate::hooks::{HookKind, HooksConfig};
use crate::mcp::parse_go_duration;
use crate::model::ModelChoice;
use crate::raw::{RawEvaluator, RawEvaluatorPolicy, RawHookDef, RawRoutingPolicy};

use super::Validator;

/// The catalogue name under which an evaluator with its own `base_url` / `token_key` keeps
/// its model (a `:` keeps it apart from names people give `models:` entries).
fn private_model_name(evaluator: &str) -> String {
    format!("evaluator:{evaluator}")
}

impl Validator<'_> {
    /// Validates `evaluators:`; an evaluator with its own endpoint or key adds its model to
    /// the file's catalogue.
    pub(super) fn evaluators(
        &mut self,
        raw: Vec<(String, Spanned<RawEvaluator>)>,
        file: &mut AgentFile,
    ) -> Vec<Evaluator> {
        let mut out = Vec::new();
        for (name, raw) in raw {
            let path = format!("evaluators.{name}");
            if let Some(e) = self.evaluator(&name, &path, raw, file) {
                out.push(e);
            }
        }
        out
    }

    fn not_supported_yet(&mut self, at: &Location, path: &str, what: &str, hint: &str) {
        self.error_hint(
            self.origin(at, path),
            format!("{what} is not supported yet"),
            hint.to_owned(),
        );
    }

    fn evaluator(
        &mut self,
        name: &str,
        path: &str,
        raw: Spanned<RawEvaluator>,
        file: &mut AgentFile,
    ) -> Option<Evaluator> {
        let origin = self.origin(&raw.referenced, path);
        let e = raw.value;
        let mut ok = true;
        match &e.kind {
            None => {
                self.error_hint(
                    origin.clone(),
                    "type is required",
                    "write `type: choice` with `choices: {KEY: description, …}`",
                );
                ok = false;
            }
            Some(k) if k.value == "choice" => {}
            Some(k) if k.value == "boolean" || k.value == "score" => {
                self.not_supported_yet(
                    &k.referenced,
                    &format!("{path}.type"),
                    &format!("evaluator type `{}`", k.value),
                    "use `type: choice` (e.g. `choices: {safe: …, unsafe: …}`)",
                );
                ok = false;
            }
            Some(k) => {
                self.error(
                    self.origin(&k.referenced, format!("{path}.type")),
                    format!(
                        "invalid evaluator type `{}` (supported: `choice`; `boolean` and `score` are not supported yet)",
                        k.value
                    ),
                );
                ok = false;
            }
        }
        let unsupported = [
            (
                "endpoint",
                e.endpoint.as_ref().map(|v| v.referenced),
                "evaluators are called through the chat API of their model; to use another server, set `base_url`",
            ),
            (
                "cost",
                e.cost.as_ref().map(|v| v.referenced),
                "evaluator calls are not priced yet: remove `cost`",
            ),
            (
                "bypass_models_gateway",
                e.bypass_models_gateway.as_ref().map(|v| v.referenced),
                "Tether has no models gateway: remove it",
            ),
        ];
        for (field, at, hint) in unsupported {
            if let Some(at) = at {
                self.not_supported_yet(
                    &at,
                    &format!("{path}.{field}"),
                    &format!("the evaluator field `{field}`"),
                    hint,
                );
                ok = false;
            }
        }
        if let Some(l) = &e.levels {
            self.error(
                self.origin(&l.referenced, format!("{path}.levels")),
                "`levels` applies only to `type: score` evaluators (not supported yet); a choice evaluator lists `choices`",
            );
            ok = false;
        }
        let instructions = match e.instructions {
            Some(i) if !i.value.trim().is_empty() => i.value,
            _ => {
                self.error(
                    origin.clone(),
                    "instructions are required: the question or rubric the evaluator answers",
                );
                ok = false;
                String::new()
            }
        };
        let choices = self.choices(path, &origin, e.choices);
        ok &= choices.is_some();
        let model = self.evaluator_model(name, path, &origin, e.provider, e.model, file);
        let model = model.and_then(|reference| {
            if e.base_url.is_none() && e.token_key.is_none() {
                return Some(reference);
            }
            // Its own endpoint or key: a private copy of the model with them set.
            let mut cfg = file.resolve_model(&reference)?;
            if let Some(b) = e.base_url {
                cfg.base_url = Some(b.value);
            }
            if let Some(t) = e.token_key {
                cfg.token_key = Some(t.value);
            }
            let private = private_model_name(name);
            file.models.models.push((private.clone(), cfg));
            Some(private)
        });
        let timeout = match e.timeout {
            None => DEFAULT_EVALUATOR_TIMEOUT,
            Some(t) => {
                let text = t.value.0.trim();
                let parsed = match text.parse::<u64>() {
                    Ok(secs) => Ok(std::time::Duration::from_secs(secs)),
                    Err(_) => parse_go_duration(text),
                };
                match parsed {
                    Ok(d) if d.is_zero() => DEFAULT_EVALUATOR_TIMEOUT,
                    Ok(d) => d,
                    Err(why) => {
                        self.error(self.origin(&t.referenced, format!("{path}.timeout")), why);
                        ok = false;
                        DEFAULT_EVALUATOR_TIMEOUT
                    }
                }
            }
        };
        let (Some(model), Some(choices), true) = (model, choices, ok) else {
            return None;
        };
        Some(Evaluator {
            name: name.to_owned(),
            model,
            instructions,
            choices,
            timeout,
        })
    }

    fn choices(
        &mut self,
        path: &str,
        origin: &Origin,
        raw: Option<Spanned<crate::raw::OrderedMap<Spanned<String>>>>,
    ) -> Option<Vec<(String, String)>> {
        let Some(raw) = raw else {
            self.error_hint(
                origin.clone(),
                "choices are required for `type: choice` evaluators",
                "e.g. `choices: {safe: \"harmless\", destructive: \"deletes or overwrites data\"}`",
            );
            return None;
        };
        let at = self.origin(&raw.referenced, format!("{path}.choices"));
        let choices: Vec<(String, String)> =
            raw.value.0.into_iter().map(|(k, v)| (k, v.value)).collect();
        if !(2..=MAX_CHOICES).contains(&choices.len()) {
            self.error(
                at,
                format!(
                    "an evaluator needs 2 to {MAX_CHOICES} choices, got {}",
                    choices.len()
                ),
            );
            return None;
        }
        if choices.iter().any(|(k, _)| k.trim().is_empty()) {
            self.error(at, "a choice key must not be empty");
            return None;
        }
        Some(choices)
    }

    /// The model reference the classifier is called with: `provider/model` when `provider` is
    /// given, else `model` itself (a `models:` name or `provider/model`).
    fn evaluator_model(
        &mut self,
        name: &str,
        path: &str,
        origin: &Origin,
        provider: Option<Spanned<String>>,
        model: Option<Spanned<String>>,
        file: &AgentFile,
    ) -> Option<String> {
        let Some(model) = model.filter(|m| !m.value.trim().is_empty()) else {
            self.error_hint(
                origin.clone(),
                format!("evaluator `{name}` needs a `model`"),
                "a `models:` name, `provider/model`, or a model id with `provider`",
            );
            return None;
        };
        let reference = match provider {
            Some(p) if p.value == "typesafe" => {
                self.not_supported_yet(
                    &p.referenced,
                    &format!("{path}.provider"),
                    "the evaluator provider `typesafe`",
                    "use a chat model: `provider: openai` (or any provider Tether knows, or a `providers:` entry)",
                );
                return None;
            }
            Some(p) => format!("{}/{}", p.value.trim(), model.value.trim()),
            None => model.value.trim().to_owned(),
        };
        if !matches!(ModelChoice::parse(&reference), ModelChoice::One(_)) {
            self.error(
                self.origin(&model.referenced, format!("{path}.model")),
                "an evaluator names one model (not a comma list or `auto`)",
            );
            return None;
        }
        let before = self.diags.len();
        let r = Spanned {
            value: reference.clone(),
            referenced: model.referenced,
            defined: model.defined,
        };
        self.model_ref(&format!("{path}.model"), &r, file);
        (self.diags.len() == before).then_some(reference)
    }

    /// `type: evaluator`: the named evaluator and the policy for this event.
    pub(super) fn evaluator_hook(
        &mut self,
        event: &str,
        path: &str,
        origin: &Origin,
        d: &mut RawHookDef,
    ) -> Option<HookKind> {
        let Some(name) = d.evaluator.take().filter(|n| !n.value.trim().is_empty()) else {
            self.error(
                origin.clone(),
                "evaluator is required for evaluator hooks (the name of an `evaluators:` entry)",
            );
            return None;
        };
        let Some(evaluator) = self
            .evaluators
            .iter()
            .find(|e| e.name == name.value.trim())
            .cloned()
        else {
            let known: Vec<&str> = self.evaluators.iter().map(|e| e.name.as_str()).collect();
            self.error_hint(
                self.origin(&name.referenced, format!("{path}.evaluator")),
                format!("unknown evaluator `{}`", name.value),
                if known.is_empty() {
                    "define it under the top-level `evaluators:` section".to_owned()
                } else {
                    format!("defined evaluators: {}", known.join(", "))
                },
            );
            return None;
        };
        let policy = match (d.evaluator_policy.take(), d.routing_policy.take()) {
            (Some(_), Some(r)) => {
                self.error(
                    self.origin(&r.referenced, format!("{path}.routing_policy")),
                    "an evaluator hook has either `evaluator_policy` or `routing_policy`, not both",
                );
                return None;
            }
            (None, None) => {
                self.error_hint(
                    origin.clone(),
                    "an evaluator hook needs a policy",
                    "`evaluator_policy` on guarding events (pre_tool_use, tool_guard), `routing_policy` on before_agent_run and after_agent_complete",
                );
                return None;
            }
            (Some(p), None) => {
                if !is_guarding_event(event) {
                    self.error(
                        self.origin(&p.referenced, format!("{path}.evaluator_policy")),
                        format!("`evaluator_policy` applies to guarding events (pre_tool_use, tool_guard), not `{event}`"),
                    );
                    return None;
                }
                self.guard_policy(path, &evaluator, p)?
            }
            (None, Some(r)) => {
                if !is_routing_event(event) {
                    self.error(
                        self.origin(&r.referenced, format!("{path}.routing_policy")),
                        format!("`routing_policy` applies to before_agent_run and after_agent_complete, not `{event}`"),
                    );
                    return None;
                }
                self.routing_policy(path, &evaluator, r)?
            }
        };
        Some(HookKind::Evaluator { evaluator, policy })
    }

    fn min_probability(
        &mut self,
        path: &str,
        at: &Location,
        raw: Option<Spanned<f64>>,
    ) -> Option<Probability> {
        match raw {
            None => {
                self.error(
                    self.origin(at, path),
                    "min_probability is required (a number above 0, at most 1)",
                );
                None
            }
            Some(p) if p.value > 0.0 && p.value <= 1.0 => Some(Probability(p.value)),
            Some(p) => {
                self.error(
                    self.origin(&p.referenced, format!("{path}.min_probability")),
                    format!(
                        "min_probability must be above 0 and at most 1, got {}",
                        p.value
                    ),
                );
                None
            }
        }
    }

    fn guard_policy(
        &mut self,
        path: &str,
        evaluator: &Evaluator,
        raw: Spanned<RawEvaluatorPolicy>,
    ) -> Option<EvaluatorPolicy> {
        let path = format!("{path}.evaluator_policy");
        let at = raw.referenced;
        let p = raw.value;
        let mut ok = true;
        let mut decisions = Vec::new();
        match p.decisions {
            Some(d) if !d.value.0.is_empty() => {
                for (choice, decision) in d.value.0 {
                    let here =
                        self.origin(&decision.referenced, format!("{path}.decisions.{choice}"));
                    if !evaluator.has_choice(&choice) {
                        self.error(
                            here.clone(),
                            format!(
                                "`{choice}` is not a choice of evaluator `{}` ({})",
                                evaluator.name,
                                choice_names(evaluator)
                            ),
                        );
                        ok = false;
                    }
                    match Decision::parse(&decision.value) {
                        Some(g) => decisions.push((choice, g)),
                        None => {
                            self.error(
                                here,
                                format!(
                                    "invalid decision `{}` (supported: allow, ask, deny)",
                                    decision.value
                                ),
                            );
                            ok = false;
                        }
                    }
                }
            }
            _ => {
                self.error(
                    self.origin(&at, &path),
                    "decisions are required: each choice mapped to allow, ask or deny",
                );
                ok = false;
            }
        }
        let min_probability = self.min_probability(&path, &at, p.min_probability);
        let fallback = match p.fallback {
            Some(f) if f.value == "ask" => Some(Decision::Ask),
            Some(f) if f.value == "deny" => Some(Decision::Deny),
            Some(f) => {
                self.error(
                    self.origin(&f.referenced, format!("{path}.fallback")),
                    format!("invalid fallback `{}` (supported: ask, deny)", f.value),
                );
                None
            }
            None => {
                self.error(
                    self.origin(&at, &path),
                    "fallback is required: `ask` or `deny` when the evaluator is unsure",
                );
                None
            }
        };
        let (Some(min_probability), Some(fallback), true) = (min_probability, fallback, ok) else {
            return None;
        };
        Some(EvaluatorPolicy::Guard {
            decisions,
            min_probability,
            fallback,
        })
    }

    fn routing_policy(
        &mut self,
        path: &str,
        evaluator: &Evaluator,
        raw: Spanned<RawRoutingPolicy>,
    ) -> Option<EvaluatorPolicy> {
        let path = format!("{path}.routing_policy");
        let at = raw.referenced;
        let p = raw.value;
        let mut ok = true;
        let mut routes = Vec::new();
        match p.routes {
            Some(r) if !r.value.0.is_empty() => {
                let routes_at = r.referenced;
                for (choice, agent) in r.value.0 {
                    if !evaluator.has_choice(&choice) {
                        self.error(
                            self.origin(&agent.referenced, format!("{path}.routes.{choice}")),
                            format!(
                                "`{choice}` is not a choice of evaluator `{}` ({})",
                                evaluator.name,
                                choice_names(evaluator)
                            ),
                        );
                        ok = false;
                    }
                    routes.push((choice, agent.value));
                }
                let missing: Vec<&str> = evaluator
                    .choices
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .filter(|k| !routes.iter().any(|(c, _)| c == k))
                    .collect();
                if !missing.is_empty() {
                    self.error(
                        self.origin(&routes_at, format!("{path}.routes")),
                        format!(
                            "every choice of evaluator `{}` needs a route; missing: {}",
                            evaluator.name,
                            missing.join(", ")
                        ),
                    );
                    ok = false;
                }
            }
            _ => {
                self.error(
                    self.origin(&at, &path),
                    "routes are required: each choice mapped to an agent",
                );
                ok = false;
            }
        }
        let min_probability = self.min_probability(&path, &at, p.min_probability);
        let (Some(min_probability), true) = (min_probability, ok) else {
            return None;
        };
        Some(EvaluatorPolicy::Route {
            routes,
            min_probability,
        })
    }

    /// Every route of the agent's routing hooks names another agent of the file.
    pub(super) fn route_agents(&mut self, agent: &str, hooks: &HooksConfig, names: &[String]) {
        for (_, _, hook) in hooks.iter() {
            let HookKind::Evaluator {
                policy: EvaluatorPolicy::Route { routes, .. },
                ..
            } = &hook.kind
            else {
                continue;
            };
            for (choice, target) in routes {
                if target == agent {
                    self.error(
                        hook.origin.clone(),
                        format!("route `{choice}` names the agent itself (`{agent}`)"),
                    );
                } else if !names.iter().any(|n| n == target) {
                    self.error_hint(
                        hook.origin.clone(),
                        format!("route `{choice}` names unknown agent `{target}`"),
                        format!("agents of this file: {}", names.join(", ")),
                    );
                }
            }
        }
    }

    /// `evaluator`, `evaluator_policy` and `routing_policy` belong to evaluator hooks only.
    pub(super) fn no_evaluator_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
        let given = [
            ("evaluator", d.evaluator.as_ref().map(|v| v.referenced)),
            (
                "evaluator_policy",
                d.evaluator_policy.as_ref().map(|v| v.referenced),
            ),
            (
                "routing_policy",
                d.routing_policy.as_ref().map(|v| v.referenced),
            ),
        ];
        let mut ok = true;
        for (key, at) in given {
            if let Some(at) = at {
                self.error(
                    self.origin(&at, format!("{path}.{key}")),
                    format!("`{key}` only applies to `type: evaluator` hooks"),
                );
                ok = false;
            }
        }
        ok
    }
}

fn choice_names(e: &Evaluator) -> String {
    let names: Vec<&str> = e.choices.iter().map(|(k, _)| k.as_str()).collect();
    format!("its choices: {}", names.join(", "))
}
