//! Embedding clients: OpenAI-compatible `POST {base}/embeddings` (OpenAI, Mistral, Docker
//! Model Runner, the compatible services) and Gemini's `batchEmbedContents`. One request per
//! batch; a server error or rate limit is retried like a model call's first attempt.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;

use crate::http::{HttpOptions, build_client, join_url};
use crate::spec::non_empty;
use crate::{COMPATIBLE, Env, ModelSpec, ProviderError, endpoints};

/// Turns texts into vectors, one per text, in order.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// `provider/model`, for messages.
    fn id(&self) -> &str;

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, ProviderError>>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    OpenAi,
    Gemini,
}

#[derive(Debug)]
struct HttpEmbedder {
    id: String,
    provider: String,
    model: String,
    client: reqwest::Client,
    url: String,
    api_key: Option<String>,
    dialect: Dialect,
    opts: HttpOptions,
}

/// The embedding client for `spec`, with the endpoints and keys [`crate::build_provider`]
/// reads. Anthropic has no embedding API: an error.
pub fn build_embedder(spec: &ModelSpec, env: &dyn Env) -> Result<Arc<dyn Embedder>, ProviderError> {
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
    let (dialect, base_url, api_key) = match spec.provider.as_str() {
        "openai" => (
            Dialect::OpenAi,
            base("OPENAI_BASE_URL", endpoints::OPENAI),
            Some(key("OPENAI_API_KEY")?),
        ),
        "mistral" => (
            Dialect::OpenAi,
            base("MISTRAL_BASE_URL", endpoints::MISTRAL),
            Some(key("MISTRAL_API_KEY")?),
        ),
        "dmr" => (Dialect::OpenAi, dmr_base_url(spec, env), None),
        "google" | "gemini" => {
            let k = match &spec.token_key {
                Some(var) => key(var)?,
                None => key("GOOGLE_API_KEY").or_else(|e| key("GEMINI_API_KEY").map_err(|_| e))?,
            };
            (
                Dialect::Gemini,
                base("GOOGLE_GEMINI_BASE_URL", endpoints::GEMINI),
                Some(k),
            )
        }
        "anthropic" | "amazon-bedrock" | "script" => {
            return Err(ProviderError::InvalidSpec {
                model: spec.id(),
                reason: format!("provider `{}` has no embedding API", spec.provider),
            });
        }
        other => {
            let known = COMPATIBLE.iter().find(|(name, _, _)| *name == other);
            let url = spec.base_url.clone().or_else(|| {
                known
                    .map(|(_, url, _)| (*url).to_owned())
                    .filter(|u| !u.is_empty())
            });
            let Some(url) = url else {
                return Err(ProviderError::InvalidSpec {
                    model: spec.id(),
                    reason: format!(
                        "unknown provider `{other}`: set `base_url` to use an OpenAI-compatible server"
                    ),
                });
            };
            let api_key = match known {
                Some((_, _, Some(var))) => Some(key(var)?),
                _ => spec.token_key.as_deref().and_then(|v| non_empty(env, v)),
            };
            (Dialect::OpenAi, url, api_key)
        }
    };
    let opts = HttpOptions::from_spec(spec);
    let url = match dialect {
        Dialect::OpenAi => join_url(&base_url, "embeddings"),
        Dialect::Gemini => join_url(
            &base_url,
            &format!("v1beta/models/{}:batchEmbedContents", spec.model),
        ),
    };
    Ok(Arc::new(HttpEmbedder {
        id: spec.id(),
        provider: spec.provider.clone(),
        model: spec.model.clone(),
        client: build_client(spec, &opts)?,
        url,
        api_key,
        dialect,
        opts,
    }))
}

/// Docker Model Runner's OpenAI-compatible base: `base_url`, else `MODEL_RUNNER_HOST`'s
/// `engines/v1`, else the local default.
pub(crate) fn dmr_base_url(spec: &ModelSpec, env: &dyn Env) -> String {
    spec.base_url
        .clone()
        .or_else(|| {
            non_empty(env, "MODEL_RUNNER_HOST").map(|h| {
                let h = if h.contains("://") {
                    h
                } else {
                    format!("http://{h}")
                };
                join_url(&h, "engines/v1")
            })
        })
        .unwrap_or_else(|| endpoints::DMR.to_owned())
}

#[derive(Deserialize)]
struct OpenAiAnswer {
    data: Vec<OpenAiItem>,
}

#[derive(Deserialize)]
struct OpenAiItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct GeminiAnswer {
    embeddings: Vec<GeminiItem>,
}

#[derive(Deserialize)]
struct GeminiItem {
    values: Vec<f32>,
}

impl HttpEmbedder {
    fn body(&self, texts: &[String]) -> serde_json::Value {
        match self.dialect {
            Dialect::OpenAi => json!({"model": self.model, "input": texts}),
            Dialect::Gemini => {
                let name = format!("models/{}", self.model);
                let requests: Vec<_> = texts
                    .iter()
                    .map(|t| json!({"model": name, "content": {"parts": [{"text": t}]}}))
                    .collect();
                json!({"requests": requests})
            }
        }
    }

    async fn send(&self, body: &serde_json::Value) -> Result<String, ProviderError> {
        let mut attempt = 0;
        loop {
            let mut req = self.client.post(&self.url).json(body);
            req = match (self.dialect, &self.api_key) {
                (Dialect::OpenAi, Some(k)) => req.bearer_auth(k),
                (Dialect::Gemini, Some(k)) => req.header("x-goog-api-key", k),
                (_, None) => req,
            };
            let sent = tokio::time::timeout(self.opts.idle_timeout, async {
                let resp = req.send().await?;
                let status = resp.status().as_u16();
                let text = resp.text().await?;
                Ok::<_, reqwest::Error>((status, text))
            })
            .await;
            let err = match sent {
                Err(_) => ProviderError::Timeout {
                    provider: self.provider.clone(),
                    after: self.opts.idle_timeout,
                },
                Ok(Err(e)) => ProviderError::Network {
                    provider: self.provider.clone(),
                    message: tether_http::error_chain(&e),
                },
                Ok(Ok((status, text))) if (200..300).contains(&status) => return Ok(text),
                Ok(Ok((status, text))) => {
                    ProviderError::from_status(&self.provider, status, None, &text)
                }
            };
            if attempt >= self.opts.max_retries || !err.is_retryable() {
                return Err(err);
            }
            tokio::time::sleep(self.opts.backoff(attempt, err.retry_after())).await;
            attempt += 1;
        }
    }

    fn decode(&self, text: &str, want: usize) -> Result<Vec<Vec<f32>>, ProviderError> {
        let bad = |e: serde_json::Error| {
            ProviderError::protocol(&self.provider, format!("cannot decode embeddings: {e}"))
        };
        let vectors = match self.dialect {
            Dialect::OpenAi => {
                let mut items = serde_json::from_str::<OpenAiAnswer>(text)
                    .map_err(bad)?
                    .data;
                items.sort_by_key(|i| i.index.unwrap_or(usize::MAX));
                items.into_iter().map(|i| i.embedding).collect::<Vec<_>>()
            }
            Dialect::Gemini => serde_json::from_str::<GeminiAnswer>(text)
                .map_err(bad)?
                .embeddings
                .into_iter()
                .map(|e| e.values)
                .collect(),
        };
        if vectors.len() != want {
            return Err(ProviderError::protocol(
                &self.provider,
                format!("asked for {want} embeddings, got {}", vectors.len()),
            ));
        }
        Ok(vectors)
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, ProviderError>> {
        Box::pin(async move {
            if texts.is_empty() {
                return Ok(Vec::new());
            }
            let text = self.send(&self.body(texts)).await?;
            self.decode(&text, texts.len())
        })
    }
}
