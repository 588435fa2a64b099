//! docker-agent's newest agent-file fields: model `capabilities`, provider `headers`, agent
//! `tool_choice` are read; `output_capabilities`, `harness`, `inject_memories` and evaluator
//! `cost` are load errors naming the field.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeMap;
use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{Capabilities, ConfigError, ToolChoice, load_str};

fn load(yaml: &str) -> tether_config::AgentFile {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

fn first_error(yaml: &str) -> String {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => d.0[0].to_string().lines().next().unwrap().to_owned(),
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn declared_capabilities_are_authoritative_and_absent_kinds_are_false() {
    let file = load(
        "models:\n  v:\n    provider: openai\n    model: gpt-4o\n    capabilities:\n      image: true\n  t:\n    provider: openai\n    model: gpt-3.5-turbo\nagents:\n  root:\n    model: v\n",
    );
    assert_eq!(
        file.model("v").unwrap().capabilities,
        Some(Capabilities {
            image: true,
            ..Capabilities::default()
        })
    );
    assert_eq!(file.model("t").unwrap().capabilities, None);
}

#[test]
fn provider_headers_reach_every_model_of_the_provider_unexpanded() {
    let file = load(
        "providers:\n  gw:\n    base_url: https://gw.example.com/v1\n    headers:\n      cf-aig-authorization: Bearer ${env.GW_TOKEN}\nmodels:\n  m:\n    provider: gw\n    model: gpt-4o\nagents:\n  root:\n    model: m\n",
    );
    assert_eq!(
        file.model("m").unwrap().headers,
        BTreeMap::from([(
            "cf-aig-authorization".to_owned(),
            "Bearer ${env.GW_TOKEN}".to_owned()
        )])
    );
}

#[test]
fn a_header_name_that_is_not_an_http_token_is_an_error() {
    assert_eq!(
        first_error(
            "providers:\n  gw:\n    base_url: https://gw.example.com/v1\n    headers:\n      \"bad header\": x\nagents:\n  root:\n    model: gw/m\n"
        ),
        "agent.yaml:3:5: providers.gw.headers: `bad header` is not a valid HTTP header name"
    );
}

#[test]
fn tool_choice_reads_its_three_values_and_refuses_others() {
    for (value, want) in [
        ("auto", ToolChoice::Auto),
        ("required", ToolChoice::Required),
        ("none", ToolChoice::None),
    ] {
        let file = load(&format!(
            "agents:\n  root:\n    model: openai/gpt-4o\n    tool_choice: {value}\n"
        ));
        assert_eq!(file.default_agent().unwrap().tool_choice, Some(want));
    }
    assert_eq!(
        first_error("agents:\n  root:\n    model: openai/gpt-4o\n    tool_choice: always\n"),
        "agent.yaml:4:18: agents.root.tool_choice: unknown tool_choice `always`"
    );
}

#[test]
fn fields_tether_does_not_implement_yet_are_named_in_the_error() {
    let cases = [
        (
            "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: [coder]\n  coder:\n    harness:\n      type: codex\n",
            "the field `harness` is not supported yet",
        ),
        (
            "evaluators:\n  e:\n    model: openai/gpt-4o\n    type: choice\n    cost:\n      input: 0.1\n    choices:\n      a: A\n      b: B\nagents:\n  root:\n    model: openai/gpt-4o\n",
            "the evaluator field `cost` is not supported yet",
        ),
    ];
    for (yaml, want) in cases {
        let got = first_error(yaml);
        assert!(got.contains(want), "{got}");
    }
}
