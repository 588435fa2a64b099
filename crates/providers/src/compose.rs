//! Providers made of other providers: a rule-based router (`routing:` on a model) and an
//! alloy (`model: a,b`, each call going to the next model in turn).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use tether_protocol::chat::Role;

use crate::{ChatRequest, Provider, ProviderError, ResponseStream};

/// Sends each call to the route whose examples best match the latest user message (BM25 over
/// the examples), or to the default model when nothing matches.
#[derive(Debug)]
pub struct RouterProvider {
    id: String,
    default: Arc<dyn Provider>,
    routes: Vec<Arc<dyn Provider>>,
    /// Each example's route and terms.
    docs: Vec<(usize, Vec<String>)>,
    /// Term → number of examples holding it.
    doc_freq: HashMap<String, usize>,
    avg_len: f64,
}

impl RouterProvider {
    /// `routes`: each target with its example requests.
    pub fn new(
        id: String,
        default: Arc<dyn Provider>,
        routes: Vec<(Arc<dyn Provider>, Vec<String>)>,
    ) -> Self {
        let mut docs = Vec::new();
        let mut providers = Vec::new();
        for (i, (provider, examples)) in routes.into_iter().enumerate() {
            providers.push(provider);
            docs.extend(examples.iter().map(|e| (i, terms(e))));
        }
        let mut doc_freq: HashMap<String, usize> = HashMap::new();
        for (_, t) in &docs {
            let mut seen: Vec<&String> = t.iter().collect();
            seen.sort();
            seen.dedup();
            for term in seen {
                *doc_freq.entry(term.clone()).or_default() += 1;
            }
        }
        let total: usize = docs.iter().map(|(_, t)| t.len()).sum();
        let avg_len = if docs.is_empty() {
            1.0
        } else {
            total as f64 / docs.len() as f64
        };
        Self {
            id,
            default,
            routes: providers,
            docs,
            doc_freq,
            avg_len,
        }
    }

    /// The route for `text`: the index of the best-scoring example's route, if any scores.
    pub fn route_for(&self, text: &str) -> Option<usize> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let query = terms(text);
        let n = self.docs.len() as f64;
        let mut best: Option<(f64, usize)> = None;
        for (route, doc) in &self.docs {
            let len = doc.len() as f64;
            let mut score = 0.0;
            for q in &query {
                let tf = doc.iter().filter(|t| *t == q).count() as f64;
                if tf == 0.0 {
                    continue;
                }
                let df = self.doc_freq.get(q).copied().unwrap_or(0) as f64;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.avg_len));
            }
            // The first example wins a tie, as the rules are written in order.
            if score > 0.0 && best.is_none_or(|(s, _)| score > s) {
                best = Some((score, *route));
            }
        }
        best.map(|(_, r)| r)
    }

    fn select(&self, req: &ChatRequest) -> &Arc<dyn Provider> {
        let last_user = req
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(tether_protocol::chat::Message::text)
            .unwrap_or_default();
        match self.route_for(&last_user) {
            Some(i) => &self.routes[i],
            None => &self.default,
        }
    }
}

impl Provider for RouterProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        self.select(req).stream(req)
    }
}

/// Common English words that say nothing about a request's kind.
const STOPWORDS: [&str; 40] = [
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "for", "with", "at", "by",
    "from", "is", "are", "was", "be", "it", "this", "that", "these", "those", "i", "you", "me",
    "my", "your", "we", "can", "could", "would", "please", "do", "does", "what", "how", "there",
];

/// Lower-cased words without stopwords, with common suffixes cut so that `fixing` meets `fix`.
fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn stem(word: &str) -> String {
    for suffix in ["ing", "ed", "es", "s", "ly"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
        {
            return stem.to_owned();
        }
    }
    word.to_owned()
}

/// `model: a,b`: each call goes to the next model in turn.
#[derive(Debug)]
pub struct AlloyProvider {
    id: String,
    models: Vec<Arc<dyn Provider>>,
    next: AtomicUsize,
}

impl AlloyProvider {
    /// `models` must not be empty.
    pub fn new(models: Vec<Arc<dyn Provider>>) -> Result<Self, ProviderError> {
        if models.is_empty() {
            return Err(ProviderError::InvalidSpec {
                model: String::new(),
                reason: "an alloy needs at least one model".to_owned(),
            });
        }
        let id = models.iter().map(|m| m.id()).collect::<Vec<_>>().join(",");
        Ok(Self {
            id,
            models,
            next: AtomicUsize::new(0),
        })
    }
}

impl Provider for AlloyProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.models.len();
        self.models[i].stream(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScriptProvider;

    fn script(name: &str) -> Arc<dyn Provider> {
        let text = format!("default: {{text: {name}}}\n");
        let id = format!("script/{name}");
        Arc::new(ScriptProvider::from_str(&id, std::path::Path::new("t.yaml"), &text).unwrap())
    }

    fn router() -> RouterProvider {
        RouterProvider::new(
            "router".into(),
            script("default"),
            vec![
                (
                    script("fast"),
                    vec!["hello".into(), "thanks".into(), "good morning".into()],
                ),
                (
                    script("capable"),
                    vec![
                        "debug this code".into(),
                        "fix this error".into(),
                        "implement a function".into(),
                    ],
                ),
            ],
        )
    }

    #[test]
    fn requests_go_to_the_route_their_words_match() {
        let r = router();
        let got: Vec<Option<usize>> = [
            "hello there!",
            "Could you fix the errors in my parser?",
            "implementing functions is fun",
            "what is the capital of France",
        ]
        .iter()
        .map(|t| r.route_for(t))
        .collect();
        assert_eq!(got, vec![Some(0), Some(1), Some(1), None]);
    }

    #[tokio::test]
    async fn an_alloy_takes_its_models_in_turn() {
        let a = AlloyProvider::new(vec![script("one"), script("two")]).unwrap();
        let req = ChatRequest {
            messages: vec![tether_protocol::chat::Message::user("hi")],
            ..ChatRequest::default()
        };
        let mut said = Vec::new();
        for _ in 0..3 {
            said.push(crate::complete(&a, &req).await.unwrap().message.text());
        }
        assert_eq!(
            (a.id(), said),
            (
                "script/one,script/two",
                vec!["one".to_owned(), "two".into(), "one".into()]
            )
        );
    }
}
