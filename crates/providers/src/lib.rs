//! Model providers: one streaming `Provider` trait, thin clients for each vendor's wire
//! format, the offline `script` model, and the model catalogue.
//!
//! Why our own clients: the runtime must control the wire format (structured output for model
//! hooks, tool-call delta assembly, usage and cost, thinking blocks sent back verbatim), which
//! SDK-style crates hide. Each adapter is a request builder plus an SSE decoder; the HTTP
//! plumbing (timeouts, retries before the first event, error classification) lives once in
//! `http`. Credentials come through the `Env` trait so tests never touch the process
//! environment; a missing key fails in `build_provider`, before any request.
//!
//! Usage is normalised across vendors: `input_tokens` excludes prompt tokens read from cache
//! (`cached_input_tokens`), `cached_write_tokens` are Anthropic cache writes, and
//! `output_tokens` includes `reasoning_tokens`.

mod anthropic;
pub mod catalogue;
mod compose;
mod embeddings;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod google;
mod http;
mod media;
mod openai;
mod rerank;
mod script;
mod spec;
mod types;

use std::sync::Arc;

pub use anthropic::AnthropicProvider;
pub use compose::{AlloyProvider, RouterProvider};
pub use embeddings::{Embedder, build_embedder};
pub use error::ProviderError;
pub use google::GeminiProvider;
pub use openai::{Api, OpenAiProvider};
pub use rerank::{RerankDocument, Reranker, build_reranker};
pub use script::ScriptProvider;
pub use spec::{Env, InputMedia, MapEnv, ModelSpec, ProcessEnv, Thinking};
pub use types::{
    ChatRequest, FinishReason, ModelResponse, Provider, ResponseSchema, ResponseStream,
    StreamEvent, ToolChoice, ToolDefinition, complete,
};

use spec::non_empty;

/// Default endpoints, per each vendor SDK's convention (OpenAI-style ones include `/v1`).
pub mod endpoints {
    pub const OPENAI: &str = "https://api.openai.com/v1";
    pub const ANTHROPIC: &str = "https://api.anthropic.com";
    pub const GEMINI: &str = "https://generativelanguage.googleapis.com";
    pub const MISTRAL: &str = "https://api.mistral.ai/v1";
    pub const DMR: &str = "http://localhost:12434/engines/v1";
}

/// OpenAI-compatible services known by name: their endpoint and key variable (`None`: no
/// key, e.g. a local server; an empty endpoint: the user's `base_url` is required).
pub const COMPATIBLE: [(&str, &str, Option<&str>); 26] = [
    ("xai", "https://api.x.ai/v1", Some("XAI_API_KEY")),
    (
        "nebius",
        "https://api.studio.nebius.com/v1",
        Some("NEBIUS_API_KEY"),
    ),
    ("ollama", "http://localhost:11434/v1", None),
    (
        "requesty",
        "https://router.requesty.ai/v1",
        Some("REQUESTY_API_KEY"),
    ),
    (
        "openrouter",
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
    ),
    (
        "groq",
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
    ),
    (
        "deepseek",
        "https://api.deepseek.com/v1",
        Some("DEEPSEEK_API_KEY"),
    ),
    (
        "minimax",
        "https://api.minimax.io/v1",
        Some("MINIMAX_API_KEY"),
    ),
    ("azure", "", Some("AZURE_API_KEY")),
    ("mistral", endpoints::MISTRAL, Some("MISTRAL_API_KEY")),
    (
        "nvidia",
        "https://integrate.api.nvidia.com/v1",
        Some("NVIDIA_API_KEY"),
    ),
    (
        "atlascloud",
        "https://api.atlascloud.ai/v1",
        Some("ATLASCLOUD_API_KEY"),
    ),
    ("daoxe", "https://daoxe.com/v1", Some("DAOXE_API_KEY")),
    (
        "baseten",
        "https://inference.baseten.co/v1",
        Some("BASETEN_API_KEY"),
    ),
    (
        "ovhcloud",
        "https://oai.endpoints.kepler.ai.cloud.ovh.net/v1",
        Some("OVH_AI_ENDPOINTS_ACCESS_TOKEN"),
    ),
    (
        "fireworks",
        "https://api.fireworks.ai/inference/v1",
        Some("FIREWORKS_API_KEY"),
    ),
    (
        "cerebras",
        "https://api.cerebras.ai/v1",
        Some("CEREBRAS_API_KEY"),
    ),
    (
        "together",
        "https://api.together.xyz/v1",
        Some("TOGETHER_API_KEY"),
    ),
    (
        "huggingface",
        "https://router.huggingface.co/v1",
        Some("HF_TOKEN"),
    ),
    (
        "moonshot",
        "https://api.moonshot.ai/v1",
        Some("MOONSHOT_API_KEY"),
    ),
    (
        "vercel",
        "https://ai-gateway.vercel.sh/v1",
        Some("AI_GATEWAY_API_KEY"),
    ),
    // Account-scoped endpoints: the variables expand when the client is built.
    (
        "cloudflare-workers-ai",
        "https://api.cloudflare.com/client/v4/accounts/${CLOUDFLARE_ACCOUNT_ID}/ai/v1",
        Some("CLOUDFLARE_API_TOKEN"),
    ),
    (
        "cloudflare-ai-gateway",
        "https://gateway.ai.cloudflare.com/v1/${CLOUDFLARE_ACCOUNT_ID}/${CLOUDFLARE_GATEWAY_ID}/compat",
        Some("CLOUDFLARE_API_TOKEN"),
    ),
    (
        "github-copilot",
        "https://api.githubcopilot.com",
        Some("GITHUB_TOKEN"),
    ),
    (
        "opencode-go",
        "https://opencode.ai/zen/go/v1",
        Some("OPENCODE_API_KEY"),
    ),
    (
        "opencode-zen",
        "https://opencode.ai/zen/v1",
        Some("OPENCODE_API_KEY"),
    ),
];

/// Builds the client for `spec`. Keys and endpoints come from `env` (`OPENAI_API_KEY` /
/// `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`, `GOOGLE_API_KEY` or
/// `GEMINI_API_KEY` / `GOOGLE_GEMINI_BASE_URL`, `MISTRAL_API_KEY` / `MISTRAL_BASE_URL`,
/// `MODEL_RUNNER_HOST`, the [`COMPATIBLE`] services' variables); `spec.base_url` (where
/// `${env.NAME}` expands) wins over the environment, and `spec.token_key` names the key's
/// variable instead of the provider's own.
pub fn build_provider(spec: &ModelSpec, env: &dyn Env) -> Result<Arc<dyn Provider>, ProviderError> {
    if spec.model.is_empty() {
        return Err(ProviderError::InvalidSpec {
            model: spec.id(),
            reason: "the model name is empty".to_owned(),
        });
    }
    let id = spec.id();
    let mut spec = spec.clone();
    let invalid = |reason| ProviderError::InvalidSpec {
        model: id.clone(),
        reason,
    };
    if let Some(url) = &spec.base_url {
        spec.base_url = Some(expand_env(url, "base_url", env).map_err(invalid)?);
    }
    for (name, value) in &mut spec.headers {
        *value = expand_env(value, &format!("header `{name}`"), env).map_err(invalid)?;
    }
    let media = spec.input_media;
    let provider = build_expanded(&spec, env)?;
    Ok(match media {
        Some(media) => Arc::new(media::StripMedia::new(provider, media, spec.id())),
        None => provider,
    })
}

fn build_expanded(spec: &ModelSpec, env: &dyn Env) -> Result<Arc<dyn Provider>, ProviderError> {
    let key = |var: &str| {
        let var = spec.token_key.as_deref().unwrap_or(var);
        non_empty(env, var).ok_or_else(|| ProviderError::MissingKey {
            provider: spec.provider.clone(),
            var: var.to_owned(),
        })
    };
    let base = |var: &str, default: &str| {
        spec.base_url
            .clone()
            .or_else(|| non_empty(env, var))
            .unwrap_or_else(|| default.to_owned())
    };
    Ok(match spec.provider.as_str() {
        "script" => Arc::new(ScriptProvider::from_spec(spec)?),
        "openai" => Arc::new(OpenAiProvider::new(
            spec,
            base("OPENAI_BASE_URL", endpoints::OPENAI),
            Some(key("OPENAI_API_KEY")?),
        )?),
        "mistral" => Arc::new(OpenAiProvider::new(
            spec,
            base("MISTRAL_BASE_URL", endpoints::MISTRAL),
            Some(key("MISTRAL_API_KEY")?),
        )?),
        "anthropic" => Arc::new(AnthropicProvider::new(
            spec,
            base("ANTHROPIC_BASE_URL", endpoints::ANTHROPIC),
            key("ANTHROPIC_API_KEY")?,
        )?),
        "google" | "gemini" => {
            let api_key = match &spec.token_key {
                Some(var) => key(var)?,
                None => key("GOOGLE_API_KEY").or_else(|e| key("GEMINI_API_KEY").map_err(|_| e))?,
            };
            Arc::new(GeminiProvider::new(
                spec,
                base("GOOGLE_GEMINI_BASE_URL", endpoints::GEMINI),
                api_key,
            )?)
        }
        "dmr" => {
            let base_url = spec
                .base_url
                .clone()
                .or_else(|| {
                    non_empty(env, "MODEL_RUNNER_HOST").map(|h| http_join(&h, "engines/v1"))
                })
                .unwrap_or_else(|| endpoints::DMR.to_owned());
            Arc::new(OpenAiProvider::new(spec, base_url, None)?)
        }
        "amazon-bedrock" => {
            return Err(ProviderError::InvalidSpec {
                model: spec.id(),
                reason: "Amazon Bedrock is not supported yet (Tether has no AWS-signed client); \
                         use `anthropic/...` with an Anthropic key, or an OpenAI-compatible gateway \
                         with `base_url`"
                    .to_owned(),
            });
        }
        other => {
            let known = COMPATIBLE.iter().find(|(name, _, _)| *name == other);
            let base_url = match spec.base_url.clone() {
                Some(url) => Some(url),
                None => match known.map(|(_, url, _)| *url).filter(|u| !u.is_empty()) {
                    Some(url) => Some(expand_env(url, "base_url", env).map_err(|reason| {
                        ProviderError::InvalidSpec {
                            model: spec.id(),
                            reason,
                        }
                    })?),
                    None => None,
                },
            };
            let Some(base_url) = base_url else {
                return Err(ProviderError::InvalidSpec {
                    model: spec.id(),
                    reason: format!(
                        "unknown provider `{other}`: set `base_url` to use an OpenAI-compatible server"
                    ),
                });
            };
            let api_key = match known {
                Some((_, _, Some(var))) => Some(key(var)?),
                Some((_, _, None)) => spec.token_key.as_deref().and_then(|v| non_empty(env, v)),
                // An optional key for custom servers: `token_key`, else `<PROVIDER>_API_KEY`.
                None => {
                    let var = spec.token_key.clone().unwrap_or_else(|| {
                        format!("{}_API_KEY", other.to_ascii_uppercase().replace('-', "_"))
                    });
                    non_empty(env, &var)
                }
            };
            Arc::new(OpenAiProvider::new(spec, base_url, api_key)?)
        }
    })
}

/// Expands `${env.NAME}` and `${NAME}` in a `base_url` or a header value (`what`); an unset
/// variable is an error.
fn expand_env(text: &str, what: &str, env: &dyn Env) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed `${{` in {what} `{text}`"));
        };
        let name = after[..end].trim();
        let name = name.strip_prefix("env.").unwrap_or(name);
        let value = non_empty(env, name)
            .ok_or_else(|| format!("{what} `{text}` uses `{name}`, which is not set"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn http_join(base: &str, path: &str) -> String {
    let base = if base.contains("://") {
        base.to_owned()
    } else {
        format!("http://{base}")
    };
    http::join_url(&base, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn build(spec: &str, env: &[(&str, &str)]) -> Result<Arc<dyn Provider>, ProviderError> {
        build_provider(
            &ModelSpec::parse_inline(spec).unwrap(),
            &MapEnv::new(env.iter().copied()),
        )
    }

    #[test]
    fn a_missing_key_names_the_variable() {
        let got: Vec<String> = [
            "openai/gpt-4o",
            "anthropic/claude-sonnet-4-0",
            "google/gemini-2.5-flash",
            "mistral/mistral-large-latest",
        ]
        .iter()
        .map(|s| build(s, &[("OPENAI_API_KEY", "")]).unwrap_err().to_string())
        .collect();
        assert_eq!(
            got,
            vec![
                "missing API key for `openai`: set `OPENAI_API_KEY`",
                "missing API key for `anthropic`: set `ANTHROPIC_API_KEY`",
                "missing API key for `google`: set `GOOGLE_API_KEY`",
                "missing API key for `mistral`: set `MISTRAL_API_KEY`",
            ]
        );
    }

    #[test]
    fn gemini_accepts_either_key_and_dmr_needs_none() {
        let ids: Vec<String> = [
            build("google/gemini-2.5-flash", &[("GEMINI_API_KEY", "k")]),
            build("dmr/ai/qwen3", &[("MODEL_RUNNER_HOST", "localhost:1234")]),
        ]
        .into_iter()
        .map(|p| p.unwrap().id().to_owned())
        .collect();
        assert_eq!(ids, vec!["google/gemini-2.5-flash", "dmr/ai/qwen3"]);
    }

    #[test]
    fn an_unknown_provider_needs_a_base_url() {
        let err = build("acme/model-1", &[]).unwrap_err();
        let mut spec = ModelSpec::parse_inline("acme/model-1").unwrap();
        spec.base_url = Some("http://127.0.0.1:9/v1".into());
        let ok = build_provider(&spec, &MapEnv::default()).map(|p| p.id().to_owned());
        assert_eq!(
            (err.to_string(), ok.ok()),
            (
                "invalid model `acme/model-1`: unknown provider `acme`: set `base_url` to use an OpenAI-compatible server".to_owned(),
                Some("acme/model-1".to_owned())
            )
        );
    }

    #[test]
    fn model_runner_host_gets_the_engines_path() {
        assert_eq!(
            (
                http_join("localhost:12434", "engines/v1"),
                http_join("http://h:1/", "engines/v1")
            ),
            (
                "http://localhost:12434/engines/v1".to_owned(),
                "http://h:1/engines/v1".to_owned()
            )
        );
    }
}
