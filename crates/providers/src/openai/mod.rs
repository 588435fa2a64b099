//! OpenAI and every OpenAI-compatible server (`mistral`, `dmr`, any `base_url`).
//!
//! One provider type with two wire formats: Chat Completions (`chat.rs`) for most models and
//! the Responses API (`responses.rs`) for the reasoning families that need it. The choice is
//! made once, at build time, from the model name or `provider_opts.api`.

pub(crate) mod chat;
pub(crate) mod responses;

use futures::future::BoxFuture;

use crate::http::{HttpCall, HttpOptions, build_client, join_url};
use crate::{ChatRequest, ModelSpec, Provider, ProviderError, ResponseStream};

/// Which OpenAI wire format a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Chat,
    Responses,
}

impl Api {
    /// `provider_opts.api` when set, else Responses for `gpt-5*`, `o1*`, `o3*`, `o4*`,
    /// `*codex*`.
    pub fn for_spec(spec: &ModelSpec) -> Result<Self, ProviderError> {
        match spec.opt_str("api") {
            Some("responses") => return Ok(Self::Responses),
            Some("chat") => return Ok(Self::Chat),
            Some(other) => {
                return Err(ProviderError::InvalidSpec {
                    model: spec.id(),
                    reason: format!(
                        "`provider_opts.api` must be `responses` or `chat`, not `{other}`"
                    ),
                });
            }
            None => {}
        }
        let m = spec.model.as_str();
        let responses =
            ["gpt-5", "o1", "o3", "o4"].iter().any(|p| m.starts_with(p)) || m.contains("codex");
        Ok(if responses && spec.provider == "openai" {
            Self::Responses
        } else {
            Self::Chat
        })
    }
}

/// `thinking_budget` as OpenAI's `reasoning_effort`: a level (adaptive levels keep their
/// effort); `none` disables reasoning where the model allows it.
pub(crate) fn reasoning_effort(t: &crate::Thinking) -> Option<String> {
    match t {
        crate::Thinking::Disabled => Some("none".to_owned()),
        crate::Thinking::Effort(e) if e == "adaptive" => Some("high".to_owned()),
        crate::Thinking::Effort(_) => t.effort().map(str::to_owned),
        crate::Thinking::Dynamic | crate::Thinking::Tokens(_) => None,
    }
}

/// Dialect quirks of the OpenAI-compatible servers we know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    OpenAi,
    /// Rejects unknown fields such as `stream_options` (it reports usage anyway).
    Mistral,
    Other,
}

/// A client for one OpenAI-compatible model.
#[derive(Debug)]
pub struct OpenAiProvider {
    id: String,
    client: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
    api: Api,
    flavor: Flavor,
    spec: ModelSpec,
    opts: HttpOptions,
}

impl OpenAiProvider {
    /// `base_url` includes the version (`https://api.openai.com/v1`); `api_key` is sent as a
    /// bearer token when present.
    pub fn new(
        spec: &ModelSpec,
        base_url: String,
        api_key: Option<String>,
    ) -> Result<Self, ProviderError> {
        let opts = HttpOptions::from_spec(spec);
        Ok(Self {
            id: spec.id(),
            client: build_client(spec, &opts)?,
            base_url,
            api_key,
            api: Api::for_spec(spec)?,
            flavor: match spec.provider.as_str() {
                "openai" => Flavor::OpenAi,
                "mistral" => Flavor::Mistral,
                _ => Flavor::Other,
            },
            spec: spec.clone(),
            opts,
        })
    }

    pub fn api(&self) -> Api {
        self.api
    }

    fn call(&self, path: &str, body: &serde_json::Value) -> Result<HttpCall, ProviderError> {
        let headers: Vec<(&'static str, String)> = self
            .api_key
            .iter()
            .map(|k| ("authorization", format!("Bearer {k}")))
            .collect();
        HttpCall::new(
            &self.client,
            &self.id,
            join_url(&self.base_url, path),
            &headers,
            body,
            self.opts,
        )
    }
}

impl Provider for OpenAiProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        let id = self.id.clone();
        let prepared = match self.api {
            Api::Chat => chat::body(&self.spec, self.flavor, req)
                .and_then(|b| self.call("chat/completions", &b))
                .map(|call| call.stream(move || chat::ChatDecoder::new(&id))),
            Api::Responses => responses::body(&self.spec, req)
                .and_then(|b| self.call("responses", &b))
                .map(|call| call.stream(move || responses::ResponsesDecoder::new(&id))),
        };
        match prepared {
            Ok(fut) => fut,
            Err(e) => Box::pin(futures::future::ready(Err(e))),
        }
    }
}

/// Parses a tool call's JSON arguments for dialects that want an object, not a string.
/// Invalid JSON (a model's mistake) is sent as an empty object rather than failing the call.
pub(crate) fn arguments_object(arguments: &str) -> serde_json::Value {
    if arguments.trim().is_empty() {
        return serde_json::json!({});
    }
    serde_json::from_str(arguments).unwrap_or_else(|_| serde_json::json!({}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reasoning_families_use_the_responses_api() {
        let api = |spec: &str, opt: Option<&str>| {
            let mut s = ModelSpec::parse_inline(spec).unwrap();
            if let Some(o) = opt {
                s.provider_opts.insert("api".into(), o.into());
            }
            Api::for_spec(&s).unwrap()
        };
        assert_eq!(
            vec![
                api("openai/gpt-5", None),
                api("openai/gpt-5-mini", None),
                api("openai/o3", None),
                api("openai/o4-mini", None),
                api("openai/gpt-5-codex", None),
                api("openai/gpt-4o", None),
                api("openai/gpt-4o", Some("responses")),
                api("openai/gpt-5", Some("chat")),
                api("dmr/gpt-5", None),
            ],
            vec![
                Api::Responses,
                Api::Responses,
                Api::Responses,
                Api::Responses,
                Api::Responses,
                Api::Chat,
                Api::Responses,
                Api::Chat,
                Api::Chat,
            ]
        );
    }
}
