//! Helpers shared by the fake-server tests.

#![cfg(test)]

use std::sync::Arc;

use serde_json::{Value, json};
use tether_providers::{MapEnv, ModelSpec, Provider, build_provider};
use tether_test_support::fake_llm::{Dialect, FakeLlm};

pub(crate) fn env() -> MapEnv {
    MapEnv::new([
        ("OPENAI_API_KEY", "sk-openai"),
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("GOOGLE_API_KEY", "g-key"),
    ])
}

/// The model each dialect is reached through.
pub(crate) fn model_for(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::OpenAiChat => "openai/gpt-4o",
        Dialect::OpenAiResponses => "openai/gpt-5",
        Dialect::Anthropic => "anthropic/claude-sonnet-4-0",
        Dialect::Gemini => "google/gemini-2.5-flash",
    }
}

/// A provider pointed at the fake server, with short timeouts and fast retries.
pub(crate) fn provider(server: &FakeLlm, dialect: Dialect, opts: Value) -> Arc<dyn Provider> {
    let mut spec = ModelSpec::parse_inline(model_for(dialect)).unwrap();
    spec.base_url = Some(server.base_url_for(dialect));
    spec.provider_opts
        .insert("retry_backoff_ms".into(), json!(1));
    spec.provider_opts
        .insert("idle_timeout_ms".into(), json!(2000));
    if let Value::Object(map) = opts {
        spec.provider_opts.extend(map);
    }
    build_provider(&spec, &env()).unwrap()
}

pub(crate) const ALL: [Dialect; 4] = [
    Dialect::OpenAiChat,
    Dialect::OpenAiResponses,
    Dialect::Anthropic,
    Dialect::Gemini,
];
