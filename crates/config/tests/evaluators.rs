//! `evaluators:` and `type: evaluator` hooks: what loads, and every error at `file:line:col`.

#![allow(clippy::unwrap_used, reason = "test helpers panic on purpose")]

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tether_config::{ConfigError, Evaluator, EvaluatorPolicy, HookKind, Probability, load_str};
use tether_protocol::Decision;
use tether_protocol::HookEvent;

const EVALUATORS: &str = "evaluators:
  risk:
    type: choice
    provider: openai
    model: gpt-4o-mini
    instructions: How risky is it?
    timeout: 3s
    choices:
      safe: harmless
      unsafe: harmful
";

fn file(hooks: &str) -> String {
    format!(
        "{EVALUATORS}agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n{hooks}  other:\n    model: openai/gpt-4o\n"
    )
}

fn errors(yaml: &str) -> Vec<String> {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => {
            d.0.iter()
                .map(|d| d.to_string().lines().next().unwrap_or_default().to_owned())
                .collect()
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

const GUARD: &str = "      pre_tool_use:
        - matcher: shell
          hooks:
            - type: evaluator
              evaluator: risk
              evaluator_policy:
                decisions: {safe: allow, unsafe: deny}
                min_probability: 0.75
                fallback: ask
";

#[test]
fn a_guarding_evaluator_hook_loads_with_its_evaluator_resolved() {
    let f = load_str(&file(GUARD), "agent.yaml", Path::new(".")).unwrap();
    let hook = &f.agents[0].hooks.entries(HookEvent::PreToolUse)[0].hooks[0];
    let risk = Evaluator {
        name: "risk".into(),
        model: "openai/gpt-4o-mini".into(),
        instructions: "How risky is it?".into(),
        choices: vec![
            ("safe".into(), "harmless".into()),
            ("unsafe".into(), "harmful".into()),
        ],
        timeout: Duration::from_secs(3),
    };
    assert_eq!(f.evaluators, vec![risk.clone()]);
    assert_eq!(
        hook.kind,
        HookKind::Evaluator {
            evaluator: risk,
            policy: EvaluatorPolicy::Guard {
                decisions: vec![
                    ("safe".into(), Decision::Allow),
                    ("unsafe".into(), Decision::Deny),
                ],
                min_probability: Probability(0.75),
                fallback: Decision::Ask,
            },
        }
    );
}

#[test]
fn an_evaluator_with_its_own_endpoint_and_key_gets_a_private_model() {
    let yaml = file(GUARD).replace(
        "    timeout: 3s\n",
        "    base_url: http://127.0.0.1:9/v1\n    token_key: EVAL_KEY\n",
    );
    let f = load_str(&yaml, "agent.yaml", Path::new(".")).unwrap();
    assert_eq!(f.evaluators[0].model, "evaluator:risk");
    let m = f.resolve_model("evaluator:risk").unwrap();
    assert_eq!(
        (
            m.provider.as_str(),
            m.model.as_str(),
            m.base_url.as_deref(),
            m.token_key.as_deref()
        ),
        (
            "openai",
            "gpt-4o-mini",
            Some("http://127.0.0.1:9/v1"),
            Some("EVAL_KEY")
        )
    );
}

#[test]
fn evaluator_errors_point_at_the_field() {
    let bad = EVALUATORS.replace("type: choice", "type: boolean").replace(
        "    timeout: 3s\n",
        "    endpoint: https://x.example/d\n    levels: [a, b]\n",
    );
    assert_eq!(
        errors(&format!(
            "{bad}agents:\n  root:\n    model: openai/gpt-4o\n"
        )),
        [
            "agent.yaml:3:11: evaluators.risk.type: evaluator type `boolean` is not supported yet",
            "agent.yaml:7:15: evaluators.risk.endpoint: the evaluator field `endpoint` is not supported yet",
            "agent.yaml:8:13: evaluators.risk.levels: `levels` applies only to `type: score` evaluators (not supported yet); a choice evaluator lists `choices`",
        ]
    );
    let typesafe = EVALUATORS.replace("provider: openai", "provider: typesafe");
    assert_eq!(
        errors(&format!(
            "{typesafe}agents:\n  root:\n    model: openai/gpt-4o\n"
        )),
        [
            "agent.yaml:4:15: evaluators.risk.provider: the evaluator provider `typesafe` is not supported yet"
        ]
    );
}

#[test]
fn evaluator_hook_errors_name_the_policy_problem() {
    let unknown_choice = GUARD.replace("unsafe: deny", "risky: deny");
    assert_eq!(
        errors(&file(&unknown_choice)),
        [
            "agent.yaml:21:49: agents.root.hooks.pre_tool_use[0].hooks[0].evaluator_policy.decisions.risky: `risky` is not a choice of evaluator `risk` (its choices: safe, unsafe)"
        ]
    );
    let unknown_evaluator = GUARD.replace("evaluator: risk", "evaluator: danger");
    assert_eq!(
        errors(&file(&unknown_evaluator)),
        [
            "agent.yaml:19:26: agents.root.hooks.pre_tool_use[0].hooks[0].evaluator: unknown evaluator `danger`"
        ]
    );
    let routing_on_stop = "      stop:\n        - type: evaluator\n          evaluator: risk\n          routing_policy:\n            routes: {safe: other, unsafe: other}\n            min_probability: 0.5\n";
    assert_eq!(
        errors(&file(routing_on_stop)),
        [
            "agent.yaml:19:13: agents.root.hooks.stop[0].routing_policy: `routing_policy` applies to before_agent_run and after_agent_complete, not `stop`"
        ]
    );
    let no_probability = GUARD.replace(
        "                min_probability: 0.75\n",
        "                min_probability: 0\n",
    );
    assert_eq!(
        errors(&file(&no_probability)),
        [
            "agent.yaml:22:34: agents.root.hooks.pre_tool_use[0].hooks[0].evaluator_policy.min_probability: min_probability must be above 0 and at most 1, got 0"
        ]
    );
    let policy_on_command = "      stop:\n        - type: command\n          command: 'true'\n          evaluator: risk\n";
    assert_eq!(
        errors(&file(policy_on_command)),
        [
            "agent.yaml:18:22: agents.root.hooks.stop[0].evaluator: `evaluator` only applies to `type: evaluator` hooks"
        ]
    );
}
