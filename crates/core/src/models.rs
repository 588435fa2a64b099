//! From an agent file's model references to model clients: a plain model, a router
//! (`routing:`), a `first_available` list, an alloy (`a,b`) or `auto`. Relative paths in a
//! model's spec resolve against the file that defines it.

use std::path::PathBuf;
use std::sync::Arc;

use tether_config::{AgentFile, ModelChoice, ModelConfig};
use tether_providers::{
    AlloyProvider, Env, ModelSpec, Provider, RouterProvider, Thinking, build_provider,
};

use crate::agent::ToolModel;
use crate::error::SetupError;

/// A `models:` entry as the providers take it; relative paths in it resolve against `base_dir`.
pub(crate) fn spec_of(cfg: ModelConfig, base_dir: Option<PathBuf>) -> ModelSpec {
    use tether_config::ThinkingBudget as B;
    let thinking = cfg.thinking_budget.map(|b| match b {
        B::Disabled => Thinking::Disabled,
        B::Dynamic => Thinking::Dynamic,
        B::Tokens(t) => Thinking::Tokens(t),
        B::Effort(e) => Thinking::Effort(e),
    });
    ModelSpec {
        provider: cfg.provider,
        model: cfg.model,
        base_url: cfg.base_url,
        max_tokens: cfg.max_tokens,
        temperature: cfg.temperature,
        top_p: cfg.top_p,
        frequency_penalty: cfg.frequency_penalty,
        presence_penalty: cfg.presence_penalty,
        parallel_tool_calls: cfg.parallel_tool_calls,
        track_usage: cfg.track_usage,
        token_key: cfg.token_key,
        thinking,
        provider_opts: cfg.provider_opts,
        prices: cfg.cost.map(|c| tether_providers::catalogue::Prices {
            input: c.input,
            output: c.output,
            cached_input: c.cache_read,
            cache_write: c.cache_write,
        }),
        base_dir,
        headers: cfg.headers,
        input_media: cfg.capabilities.map(|c| tether_providers::InputMedia {
            image: c.image,
            pdf: c.pdf,
            audio: c.audio,
            video: c.video,
        }),
        output_image: cfg.output_image,
    }
}

/// An agent's `tool_choice` as the providers take it.
pub(crate) fn tool_choice(c: tether_config::ToolChoice) -> tether_providers::ToolChoice {
    use tether_config::ToolChoice as C;
    use tether_providers::ToolChoice as P;
    match c {
        C::Auto => P::Auto,
        C::Required => P::Required,
        C::None => P::None,
    }
}

/// The client for an agent's `model:` value (a name, `provider/model`, `a,b` or `auto`),
/// with the spec of the model it starts on.
pub(crate) fn build_model(
    file: &AgentFile,
    agent: &str,
    value: &str,
    env: &dyn Env,
) -> Result<(ModelSpec, Arc<dyn Provider>), SetupError> {
    match ModelChoice::parse(value) {
        ModelChoice::One(reference) => one_model(file, agent, &reference, env),
        ModelChoice::Auto => {
            let (provider, model) = tether_config::AUTO_MODELS
                .iter()
                .find(|(_, vars, _)| {
                    vars.iter()
                        .any(|v| env.var(v).is_some_and(|k| !k.is_empty()))
                })
                .map_or(tether_config::AUTO_LOCAL_MODEL, |(p, _, m)| (*p, *m));
            one_model(file, agent, &format!("{provider}/{model}"), env)
        }
        ModelChoice::Alloy(references) => {
            let mut first = None;
            let mut providers = Vec::new();
            for r in &references {
                let (spec, provider) = one_model(file, agent, r, env)?;
                first.get_or_insert(spec);
                providers.push(provider);
            }
            let spec = first.ok_or_else(|| {
                SetupError::Config(format!("agent `{agent}`: the model is empty"))
            })?;
            Ok((spec, Arc::new(AlloyProvider::new(providers)?)))
        }
    }
}

/// One model reference: a plain model, a router (`routing:`), or a `first_available` list.
fn one_model(
    file: &AgentFile,
    agent: &str,
    reference: &str,
    env: &dyn Env,
) -> Result<(ModelSpec, Arc<dyn Provider>), SetupError> {
    let cfg = file.resolve_model(reference).ok_or_else(|| {
        SetupError::Config(format!("agent `{agent}`: unknown model `{reference}`"))
    })?;
    if !cfg.first_available.is_empty() {
        let mut last = None;
        for candidate in &cfg.first_available {
            match one_model(file, agent, candidate, env) {
                Ok(found) => return Ok(found),
                Err(e) => last = Some(e),
            }
        }
        return Err(last.unwrap_or_else(|| {
            SetupError::Config(format!(
                "agent `{agent}`: `{reference}` lists no candidates"
            ))
        }));
    }
    let routing = cfg.routing.clone();
    let spec = spec_of(cfg, Some(file.dir.clone()));
    let provider = build_provider(&spec, env)?;
    if routing.is_empty() {
        return Ok((spec, provider));
    }
    let mut routes = Vec::new();
    for rule in routing {
        let (_, target) = one_model(file, agent, &rule.model, env)?;
        routes.push((target, rule.examples));
    }
    let router = RouterProvider::new(spec.id(), provider, routes);
    Ok((spec, Arc::new(router)))
}

/// The index in `tool_models` of the model `reference` (added when new).
pub(crate) fn tool_model(
    file: &AgentFile,
    agent: &str,
    reference: &str,
    env: &dyn Env,
    tool_models: &mut Vec<ToolModel>,
) -> Result<usize, SetupError> {
    let (spec, provider) = build_model(file, agent, reference, env)?;
    let id = spec.id();
    if let Some(i) = tool_models.iter().position(|m| m.id == id) {
        return Ok(i);
    }
    tool_models.push(ToolModel { id, provider });
    Ok(tool_models.len() - 1)
}
