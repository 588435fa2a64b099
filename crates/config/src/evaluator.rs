//! Evaluators (the top-level `evaluators:` section) and the policies `type: evaluator` hooks
//! apply to their answers.
//!
//! An evaluator is a classifier: asked about a hook Input, it names one of its `choices` with
//! a probability. It decides nothing by itself; a hook's policy maps the choice to a
//! permission decision (`evaluator_policy`) or to an agent (`routing_policy`), so the same
//! assessment can drive different actions.

use std::hash::{Hash, Hasher};
use std::time::Duration;
use tether_protocol::Decision;

/// An evaluator's `timeout` when none is given.
pub const DEFAULT_EVALUATOR_TIMEOUT: Duration = Duration::from_secs(10);

/// The most `choices` an evaluator may have.
pub const MAX_CHOICES: usize = 255;

/// One validated `evaluators:` entry (`type: choice`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Evaluator {
    pub name: String,
    /// How the classifier is called: a `models:` name or `provider/model`, resolved like a
    /// model hook's `model`.
    pub model: String,
    /// The assessment question or rubric.
    pub instructions: String,
    /// Outcome keys and their descriptions, in file order (2 to 255).
    pub choices: Vec<(String, String)>,
    /// Bounds one classifier call (default 10s).
    pub timeout: Duration,
}

impl Evaluator {
    pub fn has_choice(&self, key: &str) -> bool {
        self.choices.iter().any(|(k, _)| k == key)
    }
}

/// A probability in (0, 1]. Compared by its bits, so hook specs stay `Eq` and `Hash`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probability(pub f64);

impl Eq for Probability {}

impl Hash for Probability {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// What a `type: evaluator` hook does with the evaluator's answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EvaluatorPolicy {
    /// `evaluator_policy` (guarding events): the choice's decision when its probability is at
    /// least `min_probability`; otherwise, or for a choice without a decision, `fallback`
    /// (`ask` or `deny`).
    Guard {
        decisions: Vec<(String, Decision)>,
        min_probability: Probability,
        fallback: Decision,
    },
    /// `routing_policy` (routing events): the choice's agent when its probability is at least
    /// `min_probability`; otherwise the agent's `routing.default_agent`.
    Route {
        routes: Vec<(String, String)>,
        min_probability: Probability,
    },
}

/// Whether `event` (a wire name) takes `evaluator_policy`: the events whose hooks answer with
/// a permission decision and fail closed.
pub fn is_guarding_event(event: &str) -> bool {
    matches!(event, "pre_tool_use" | "tool_guard")
}

/// Whether `event` (a wire name) takes `routing_policy`: the events whose hooks pick the next
/// agent.
pub fn is_routing_event(event: &str) -> bool {
    matches!(event, "before_agent_run" | "after_agent_complete")
}
