//! Which model to call and where its credentials come from.
//!
//! The environment is behind a trait so tests pass a map instead of mutating the process
//! environment (which is shared by every test thread).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::{ProviderError, catalogue};

/// A model as the agent file names it (`model: provider/model` or a `models:` entry).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelSpec {
    /// `openai`, `anthropic`, `google`, `mistral`, `dmr`, `script`, or any name with `base_url`.
    pub provider: String,
    pub model: String,
    /// Wins over the provider's `*_BASE_URL` variable.
    pub base_url: Option<String>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub frequency_penalty: Option<f64>,
    pub presence_penalty: Option<f64>,
    /// `Some(false)` asks the model for one tool call at a time.
    pub parallel_tool_calls: Option<bool>,
    /// OpenAI-compatible streams: ask for usage in the last chunk (default true).
    pub track_usage: Option<bool>,
    /// The variable holding the API key, instead of the provider's own.
    pub token_key: Option<String>,
    pub thinking: Option<Thinking>,
    /// Free-form options: `context_size`, `api` (`responses` | `chat`), `thinking_budget`,
    /// `store`, timeouts and retries (see `HttpOptions`).
    pub provider_opts: Map<String, Value>,
    /// Directory relative `script` paths resolve against (the agent file's directory).
    pub base_dir: Option<PathBuf>,
    /// The agent file's prices (`cost`), over the catalogue's.
    pub prices: Option<catalogue::Prices>,
    /// Extra HTTP headers sent on every request (a provider's `headers`); `${env.NAME}` and
    /// `${NAME}` in values expand when the client is built.
    pub headers: BTreeMap<String, String>,
    /// The declared input media (`capabilities`); `None`: undeclared, everything is sent.
    pub input_media: Option<InputMedia>,
    /// `output_capabilities.image`: ask for images as well as text (Gemini).
    pub output_image: bool,
}

/// The media kinds a model accepts besides text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputMedia {
    pub image: bool,
    pub pdf: bool,
    pub audio: bool,
    pub video: bool,
}

/// How much the model reasons before answering (`thinking_budget`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Thinking {
    Disabled,
    /// The model decides (Gemini's `-1`).
    Dynamic,
    Tokens(u32),
    /// `minimal` … `max`, `adaptive`, `adaptive/<effort>`.
    Effort(String),
}

impl Thinking {
    /// The effort level, for APIs that take one (`adaptive/high` → `high`).
    pub fn effort(&self) -> Option<&str> {
        match self {
            Self::Effort(e) => Some(e.strip_prefix("adaptive/").unwrap_or(e)),
            _ => None,
        }
    }
}

impl ModelSpec {
    /// `thinking_budget`: the typed field, else the older `provider_opts.thinking_budget`
    /// token count.
    pub fn thinking(&self) -> Option<Thinking> {
        self.thinking.clone().or_else(|| {
            self.opt_u64("thinking_budget").map(|t| match t {
                0 => Thinking::Disabled,
                t => Thinking::Tokens(u32::try_from(t).unwrap_or(u32::MAX)),
            })
        })
    }

    /// Parses `provider/model`, split at the first `/` (model names may contain `/`).
    pub fn parse_inline(spec: &str) -> Result<Self, ProviderError> {
        let invalid = |reason: &str| ProviderError::InvalidSpec {
            model: spec.to_owned(),
            reason: reason.to_owned(),
        };
        let (provider, model) = spec
            .split_once('/')
            .ok_or_else(|| invalid("expected `provider/model`"))?;
        if provider.is_empty() || model.is_empty() {
            return Err(invalid("expected `provider/model`"));
        }
        Ok(Self {
            provider: provider.to_owned(),
            model: model.to_owned(),
            ..Self::default()
        })
    }

    /// `provider/model`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }

    /// `provider_opts.context_size` (an integer, a float or a decimal string), else the
    /// catalogue's window.
    /// The USD cost of a call's `usage`: the file's prices, else the catalogue's; `None` when
    /// the model is not priced.
    pub fn cost(&self, usage: &tether_protocol::chat::Usage) -> Option<f64> {
        match &self.prices {
            Some(p) => Some(p.cost(usage)),
            None => catalogue::cost_for(&self.provider, &self.model, usage),
        }
    }

    pub fn context_window(&self) -> Option<u64> {
        if let Some(size) = self.provider_opts.get("context_size").and_then(as_u64) {
            return Some(size);
        }
        catalogue::lookup(&self.provider, &self.model).and_then(|info| info.context_window)
    }

    /// A `provider_opts` entry read as a whole number (same leniency as `context_size`).
    pub(crate) fn opt_u64(&self, key: &str) -> Option<u64> {
        self.provider_opts.get(key).and_then(as_u64)
    }

    pub(crate) fn opt_str(&self, key: &str) -> Option<&str> {
        self.provider_opts.get(key).and_then(Value::as_str)
    }
}

/// Reads a non-negative whole number from a JSON number or a decimal string.
fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => {
            let s = s.trim();
            s.parse::<u64>().ok().or_else(|| {
                s.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map(|f| f as u64)
            })
        }
        _ => None,
    }
}

/// Where credentials and endpoints are read from.
pub trait Env: Send + Sync {
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment (production).
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A fixed set of variables (tests).
#[derive(Debug, Clone, Default)]
pub struct MapEnv(pub BTreeMap<String, String>);

impl MapEnv {
    pub fn new<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        Self(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl Env for MapEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}

/// Reads a variable, treating an empty value as unset (as shells often export `FOO=`).
pub(crate) fn non_empty(env: &dyn Env, name: &str) -> Option<String> {
    env.var(name).filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn inline_spec_splits_at_the_first_slash() {
        let spec = ModelSpec::parse_inline("dmr/ai/qwen3:8B").unwrap();
        assert_eq!(
            (spec.provider.as_str(), spec.model.as_str(), spec.id()),
            ("dmr", "ai/qwen3:8B", "dmr/ai/qwen3:8B".to_owned())
        );
    }

    #[test]
    fn inline_spec_without_a_slash_is_an_error() {
        let err = ModelSpec::parse_inline("gpt-4o").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid model `gpt-4o`: expected `provider/model`"
        );
    }

    #[test]
    fn context_size_accepts_ints_floats_and_decimal_strings() {
        let mut spec = ModelSpec::parse_inline("openai/gpt-4o").unwrap();
        let mut got = vec![spec.context_window()];
        for v in [json!(32000), json!(16000.0), json!("8000"), json!("4000.5")] {
            spec.provider_opts.insert("context_size".into(), v);
            got.push(spec.context_window());
        }
        assert_eq!(
            got,
            vec![
                Some(128_000),
                Some(32000),
                Some(16000),
                Some(8000),
                Some(4000)
            ]
        );
    }
}
