//! Reranking: scores in 0..=1 for documents against a query, in the documents' order. Docker
//! Model Runner has a native `POST /rerank` (at the host root, not under `/engines/v1`) whose
//! logits are squashed by a sigmoid; every other provider asks its chat model for
//! `{"scores": [...]}` with docker-agent's prompt, through structured output where the vendor
//! has it, and tolerates prose around the JSON.

use std::fmt::Write as _;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tether_protocol::chat::Message;

use crate::embeddings::dmr_base_url;
use crate::http::{HttpOptions, build_client};
use crate::{ChatRequest, Env, ModelSpec, Provider, ProviderError, ResponseSchema, complete};

/// A document to score.
#[derive(Debug, Clone, PartialEq)]
pub struct RerankDocument {
    pub content: String,
    /// Shown to chat models beside the content, so criteria can mention paths.
    pub source_path: String,
}

/// Scores documents against a query.
pub trait Reranker: Send + Sync + std::fmt::Debug {
    /// `provider/model`, for messages.
    fn id(&self) -> &str;

    /// One score in 0..=1 per document, in order. `criteria` refines what relevant means
    /// (chat models only; DMR's endpoint has no place for it).
    fn rerank<'a>(
        &'a self,
        query: &'a str,
        documents: &'a [RerankDocument],
        criteria: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Vec<f64>, ProviderError>>;
}

/// The reranker for `spec`: DMR's endpoint for `provider: dmr`, else the chat model.
pub fn build_reranker(spec: &ModelSpec, env: &dyn Env) -> Result<Arc<dyn Reranker>, ProviderError> {
    if spec.provider == "dmr" {
        let base = dmr_base_url(spec, env);
        let url = reqwest::Url::parse(&base).map_err(|e| ProviderError::InvalidSpec {
            model: spec.id(),
            reason: format!("invalid base URL `{base}`: {e}"),
        })?;
        let opts = HttpOptions::from_spec(spec);
        return Ok(Arc::new(DmrReranker {
            id: spec.id(),
            model: spec.model.clone(),
            url: format!("{}/rerank", url.origin().ascii_serialization()),
            client: build_client(spec, &opts)?,
            timeout: opts.idle_timeout,
        }));
    }
    let mut spec = spec.clone();
    // Scores should not depend on sampling: temperature 0 unless the model sets one.
    spec.temperature = spec.temperature.or(Some(0.0));
    let prompt = spec
        .provider_opts
        .get("rerank_prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
        .map(str::to_owned);
    Ok(Arc::new(ChatReranker {
        id: spec.id(),
        provider: crate::build_provider(&spec, env)?,
        prompt,
    }))
}

#[derive(Debug)]
struct DmrReranker {
    id: String,
    model: String,
    url: String,
    client: reqwest::Client,
    timeout: std::time::Duration,
}

#[derive(Deserialize)]
struct DmrAnswer {
    results: Vec<DmrResult>,
}

#[derive(Deserialize)]
struct DmrResult {
    index: usize,
    relevance_score: f64,
}

impl DmrReranker {
    async fn run(
        &self,
        query: &str,
        documents: &[RerankDocument],
    ) -> Result<Vec<f64>, ProviderError> {
        if documents.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<&str> = documents.iter().map(|d| d.content.as_str()).collect();
        let body = json!({"model": self.model, "query": query, "documents": texts});
        let sent = tokio::time::timeout(self.timeout, async {
            let resp = self.client.post(&self.url).json(&body).send().await?;
            let status = resp.status().as_u16();
            Ok::<_, reqwest::Error>((status, resp.text().await?))
        })
        .await;
        let text = match sent {
            Err(_) => {
                return Err(ProviderError::Timeout {
                    provider: "dmr".to_owned(),
                    after: self.timeout,
                });
            }
            Ok(Err(e)) => {
                return Err(ProviderError::Network {
                    provider: "dmr".to_owned(),
                    message: tether_http::error_chain(&e),
                });
            }
            Ok(Ok((status, text))) if (200..300).contains(&status) => text,
            Ok(Ok((status, text))) => {
                return Err(ProviderError::from_status("dmr", status, None, &text));
            }
        };
        let answer: DmrAnswer = serde_json::from_str(&text).map_err(|e| {
            ProviderError::protocol("dmr", format!("cannot decode rerank answer: {e}"))
        })?;
        if answer.results.len() != documents.len() {
            return Err(ProviderError::protocol(
                "dmr",
                format!(
                    "asked to rerank {} documents, got {} scores",
                    documents.len(),
                    answer.results.len()
                ),
            ));
        }
        let mut scores = vec![0.0; documents.len()];
        for r in answer.results {
            let Some(slot) = scores.get_mut(r.index) else {
                return Err(ProviderError::protocol(
                    "dmr",
                    format!(
                        "rerank answer names document {}, which was not sent",
                        r.index
                    ),
                ));
            };
            *slot = 1.0 / (1.0 + (-r.relevance_score).exp());
        }
        Ok(scores)
    }
}

impl Reranker for DmrReranker {
    fn id(&self) -> &str {
        &self.id
    }

    fn rerank<'a>(
        &'a self,
        query: &'a str,
        documents: &'a [RerankDocument],
        _criteria: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Vec<f64>, ProviderError>> {
        Box::pin(self.run(query, documents))
    }
}

#[derive(Debug)]
struct ChatReranker {
    id: String,
    provider: Arc<dyn Provider>,
    /// `provider_opts.rerank_prompt`: replaces the whole system prompt.
    prompt: Option<String>,
}

impl ChatReranker {
    async fn run(
        &self,
        query: &str,
        documents: &[RerankDocument],
        criteria: Option<&str>,
    ) -> Result<Vec<f64>, ProviderError> {
        if documents.is_empty() {
            return Ok(Vec::new());
        }
        let system = self
            .prompt
            .clone()
            .unwrap_or_else(|| system_prompt(documents.len(), criteria));
        let req = ChatRequest {
            messages: vec![
                Message::system(system),
                Message::user(documents_prompt(query, documents)),
            ],
            response_schema: Some(ResponseSchema {
                name: "rerank_scores".to_owned(),
                description: "Relevance scores for each document, in input order.".to_owned(),
                schema: json!({
                    "type": "object",
                    "properties": {"scores": {"type": "array", "items": {"type": "number"}}},
                    "required": ["scores"],
                    "additionalProperties": false,
                }),
                strict: false,
            }),
            ..ChatRequest::default()
        };
        let resp = complete(self.provider.as_ref(), &req).await?;
        parse_scores(&resp.message.text(), documents.len())
            .map_err(|m| ProviderError::protocol(&self.id, m))
    }
}

impl Reranker for ChatReranker {
    fn id(&self) -> &str {
        &self.id
    }

    fn rerank<'a>(
        &'a self,
        query: &'a str,
        documents: &'a [RerankDocument],
        criteria: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Vec<f64>, ProviderError>> {
        Box::pin(self.run(query, documents, criteria))
    }
}

/// docker-agent's reranking system prompt.
fn system_prompt(count: usize, criteria: Option<&str>) -> String {
    let mut p = String::from(
        "You are a reranking model.\nGiven a search query and a list of documents, you assign \
         each document a relevance score between 0 and 1.\nHigher scores mean more relevant.",
    );
    if let Some(c) = criteria.filter(|c| !c.trim().is_empty()) {
        p.push_str("\n\n");
        p.push_str(c);
    }
    let _ = write!(
        p,
        "\n\nYou MUST carefully evaluate each document's relevance and assign DIFFERENT scores \
         to reflect varying degrees of relevance.\nNot all documents are equally relevant - \
         differentiate between them.\nYou MUST respond with ONLY valid JSON in this exact format \
         and nothing else:\n{{\"scores\":[s0,s1,...,sN]}} where there is exactly one numeric \
         score per document in order.\n\nIMPORTANT: You have been given {count} documents, so \
         you MUST return exactly {count} scores in the \"scores\" array.\nEach score must be a \
         number between 0 and 1, where 1 is most relevant."
    );
    p
}

/// The query and the numbered documents, each with its source.
fn documents_prompt(query: &str, documents: &[RerankDocument]) -> String {
    let mut p = format!("Query:\n{query}\n\nDocuments:\n");
    for (i, d) in documents.iter().enumerate() {
        let _ = write!(p, "[{i}]");
        if !d.source_path.is_empty() {
            let _ = write!(p, " (source: {})", d.source_path);
        }
        let _ = write!(p, ":\n{}\n\n", d.content);
    }
    p
}

#[derive(Deserialize)]
struct Scores {
    scores: Vec<f64>,
}

/// `{"scores": [...]}` with exactly `want` numbers, also when the model wrapped it in prose.
fn parse_scores(raw: &str, want: usize) -> Result<Vec<f64>, String> {
    let raw = raw.trim();
    let parse = |s: &str| -> Option<Vec<f64>> {
        serde_json::from_str::<Scores>(s)
            .ok()
            .map(|s| s.scores)
            .filter(|s| s.len() == want)
    };
    let inner = match (raw.find('{'), raw.rfind('}')) {
        (Some(a), Some(b)) if b > a => raw.get(a..=b),
        _ => None,
    };
    parse(raw)
        .or_else(|| inner.and_then(parse))
        .map(|s| s.into_iter().map(|x| x.clamp(0.0, 1.0)).collect())
        .ok_or_else(|| {
            let shown: String = raw.chars().take(200).collect();
            format!("expected {{\"scores\": [...]}} with {want} numbers, got `{shown}`")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn scores_are_read_through_prose_and_checked_for_count() {
        assert_eq!(
            parse_scores(r#"{"scores":[0.2,0.9]}"#, 2),
            Ok(vec![0.2, 0.9])
        );
        assert_eq!(
            parse_scores("Here you go: {\"scores\": [1.5, -1]} done", 2),
            Ok(vec![1.0, 0.0])
        );
        assert!(parse_scores(r#"{"scores":[0.2]}"#, 2).is_err());
        assert!(parse_scores("no json", 1).is_err());
    }

    #[test]
    fn the_prompt_numbers_documents_and_carries_criteria() {
        let docs = [RerankDocument {
            content: "alpha".to_owned(),
            source_path: "a.md".to_owned(),
        }];
        assert_eq!(
            documents_prompt("q", &docs),
            "Query:\nq\n\nDocuments:\n[0] (source: a.md):\nalpha\n\n"
        );
        let system = system_prompt(1, Some("prefer docs"));
        assert!(system.contains("\n\nprefer docs\n\n"));
        assert!(system.contains("exactly 1 scores"));
    }
}
