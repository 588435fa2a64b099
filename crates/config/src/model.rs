//! Models and providers: `models:` entries, the top-level `providers:` section, and how an
//! agent's `model:` value (a name, `provider/model`, a comma list, `auto`) resolves.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// A model: an entry of `models:` or an inline `provider/model`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelConfig {
    pub provider: String,
    pub model: String,
    pub description: Option<String>,
    /// May hold `${env.NAME}` / `${NAME}`, expanded when the client is built.
    pub base_url: Option<String>,
    /// The variable holding the API key (instead of the provider's own).
    pub token_key: Option<String>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub frequency_penalty: Option<f64>,
    pub presence_penalty: Option<f64>,
    pub parallel_tool_calls: Option<bool>,
    /// OpenAI-compatible streams: ask for usage in the last chunk (default true).
    pub track_usage: Option<bool>,
    pub thinking_budget: Option<ThinkingBudget>,
    /// Non-empty: this model is a router; its own provider/model is the default route.
    pub routing: Vec<RoutingRule>,
    /// Non-empty: the first candidate whose credentials are set is used.
    pub first_available: Vec<String>,
    pub provider_opts: Map<String, Value>,
    /// Explicit prices, over the built-in catalogue's.
    pub cost: Option<Cost>,
    /// Writes compaction summaries for agents running this model (an agent's own wins).
    pub compaction_model: Option<String>,
    /// When agents running this model compact (over the agent's own).
    pub compaction_threshold: Option<f64>,
    /// The provider's extra HTTP headers; values may hold `${env.NAME}` / `${NAME}`, expanded
    /// when the client is built.
    pub headers: BTreeMap<String, String>,
    /// Declared input media; `None`: undeclared, everything is sent.
    pub capabilities: Option<Capabilities>,
    /// `output_capabilities.image`: the model is asked for images too (Gemini).
    pub output_image: bool,
}

/// `capabilities`: the media kinds a model accepts besides text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    pub image: bool,
    pub pdf: bool,
    pub audio: bool,
    pub video: bool,
}

/// `cost`: USD per million tokens of each kind (absent kinds are free).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

impl ModelConfig {
    pub fn inline(provider: &str, model: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            model: model.to_owned(),
            ..Self::default()
        }
    }

    /// `provider/model`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// `thinking_budget`: how much the model reasons before answering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThinkingBudget {
    /// `none` or `0`.
    Disabled,
    /// `-1`: the model decides (Gemini 2.5).
    Dynamic,
    /// A token budget (Anthropic, Gemini 2.5).
    Tokens(u32),
    /// An effort level: `minimal`, `low`, `medium`, `high`, `xhigh`, `max`, `adaptive`,
    /// `adaptive/<effort>`.
    Effort(String),
}

impl ThinkingBudget {
    pub const EFFORTS: [&'static str; 12] = [
        "minimal",
        "low",
        "medium",
        "high",
        "xhigh",
        "max",
        "adaptive",
        "adaptive/low",
        "adaptive/medium",
        "adaptive/high",
        "adaptive/xhigh",
        "adaptive/max",
    ];

    /// Reads a YAML value: an integer from -1 to 32768, `none`, or an effort level.
    pub fn parse(v: &Value) -> Result<Self, String> {
        match v {
            Value::Number(n) => match n.as_i64() {
                Some(0) => Ok(Self::Disabled),
                Some(-1) => Ok(Self::Dynamic),
                Some(t) if (1..=32768).contains(&t) => {
                    Ok(Self::Tokens(u32::try_from(t).unwrap_or(32768)))
                }
                _ => Err(format!(
                    "thinking_budget must be a whole number from -1 to 32768, got {n}"
                )),
            },
            Value::String(s) if s == "none" => Ok(Self::Disabled),
            Value::String(s) if Self::EFFORTS.contains(&s.as_str()) => Ok(Self::Effort(s.clone())),
            Value::String(s) => Err(format!(
                "unknown thinking_budget `{s}`: use none, {}, or a token count",
                Self::EFFORTS.join(", ")
            )),
            other => Err(format!(
                "thinking_budget must be a level or a token count, got {other}"
            )),
        }
    }

    /// Why `provider` cannot take this budget, if it cannot.
    pub fn problem_for(&self, provider: &str) -> Option<String> {
        match (provider, self) {
            (_, Self::Disabled) => None,
            ("anthropic" | "amazon-bedrock", Self::Dynamic) => Some(
                "`-1` (dynamic thinking) is Gemini's; Anthropic takes a token count (1024 or more) or an effort level".to_owned(),
            ),
            ("anthropic" | "amazon-bedrock", Self::Tokens(t)) if *t < 1024 => Some(format!(
                "Anthropic's minimum thinking budget is 1024 tokens, got {t}"
            )),
            ("google" | "gemini", Self::Effort(e)) if e.starts_with("adaptive") => Some(format!(
                "`{e}` is Anthropic's adaptive thinking; Gemini takes minimal, low, medium, high or a token count"
            )),
            (p, Self::Tokens(_) | Self::Dynamic)
                if !matches!(p, "anthropic" | "amazon-bedrock" | "google" | "gemini" | "script") =>
            {
                Some(format!(
                    "`{p}` takes an effort level (minimal, low, medium, high, xhigh, max), not a token count"
                ))
            }
            _ => None,
        }
    }
}

/// One rule of a router model: requests like `examples` go to `model`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingRule {
    /// A `models:` name or `provider/model`.
    pub model: String,
    pub examples: Vec<String>,
}

/// A `providers:` entry: an endpoint and defaults that models name as their `provider`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderDef {
    /// The client to use (default `openai`).
    pub provider: String,
    /// `openai_chatcompletions` (default) or `openai_responses`.
    pub api_type: Option<String>,
    pub base_url: Option<String>,
    pub token_key: Option<String>,
    /// Defaults a model of this provider inherits where it sets nothing.
    pub defaults: ModelConfig,
}

impl ProviderDef {
    /// `model` (which names this provider) with the provider's endpoint and defaults.
    pub fn apply(&self, mut m: ModelConfig) -> ModelConfig {
        let d = &self.defaults;
        m.provider.clone_from(&self.provider);
        m.base_url = m.base_url.or_else(|| self.base_url.clone());
        m.token_key = m.token_key.or_else(|| self.token_key.clone());
        m.max_tokens = m.max_tokens.or(d.max_tokens);
        m.temperature = m.temperature.or(d.temperature);
        m.top_p = m.top_p.or(d.top_p);
        m.frequency_penalty = m.frequency_penalty.or(d.frequency_penalty);
        m.presence_penalty = m.presence_penalty.or(d.presence_penalty);
        m.parallel_tool_calls = m.parallel_tool_calls.or(d.parallel_tool_calls);
        m.track_usage = m.track_usage.or(d.track_usage);
        m.thinking_budget = m.thinking_budget.or_else(|| d.thinking_budget.clone());
        m.compaction_model = m.compaction_model.or_else(|| d.compaction_model.clone());
        for (k, v) in &d.headers {
            m.headers.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &d.provider_opts {
            m.provider_opts
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        if let Some(api) = &self.api_type {
            let api = if api == "openai_responses" {
                "responses"
            } else {
                "chat"
            };
            m.provider_opts
                .entry("api".to_owned())
                .or_insert_with(|| Value::from(api));
        }
        m
    }
}

/// The named models and providers of a file: what `model:` values resolve against.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelCatalog {
    /// Named models, in file order, with their provider's defaults applied.
    pub models: Vec<(String, ModelConfig)>,
    pub providers: Vec<(String, ProviderDef)>,
}

impl ModelCatalog {
    pub fn model(&self, name: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }

    pub fn provider(&self, name: &str) -> Option<&ProviderDef> {
        self.providers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }

    /// One model reference: a `models:` name, else `provider/model` (a `providers:` name as
    /// the provider brings its endpoint and defaults).
    pub fn resolve(&self, reference: &str) -> Option<ModelConfig> {
        if let Some(m) = self.model(reference) {
            return Some(m.clone());
        }
        let (provider, model) = reference.split_once('/')?;
        if provider.is_empty() || model.is_empty() {
            return None;
        }
        let m = ModelConfig::inline(provider, model);
        Some(match self.provider(provider) {
            Some(def) => def.apply(m),
            None => m,
        })
    }
}

/// An agent's `model:` value: one model, several (`a,b`: each call uses the next in turn),
/// or `auto` (the first provider whose key is set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    One(String),
    Alloy(Vec<String>),
    Auto,
}

impl ModelChoice {
    pub fn parse(value: &str) -> Self {
        let parts: Vec<String> = value
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        match parts.as_slice() {
            [one] if one == "auto" => Self::Auto,
            [one] => Self::One(one.clone()),
            _ => Self::Alloy(parts),
        }
    }

    /// The references it names (none for `auto`).
    pub fn references(&self) -> Vec<&str> {
        match self {
            Self::One(r) => vec![r.as_str()],
            Self::Alloy(rs) => rs.iter().map(String::as_str).collect(),
            Self::Auto => Vec::new(),
        }
    }
}

/// `auto`: the providers tried in order, with the variables that enable each and its model.
pub const AUTO_MODELS: [(&str, &[&str], &str); 4] = [
    ("anthropic", &["ANTHROPIC_API_KEY"], "claude-sonnet-4-5"),
    ("openai", &["OPENAI_API_KEY"], "gpt-5-mini"),
    (
        "google",
        &["GOOGLE_API_KEY", "GEMINI_API_KEY"],
        "gemini-2.5-flash",
    ),
    ("mistral", &["MISTRAL_API_KEY"], "mistral-small-latest"),
];

/// `auto` with no key set: the local Docker Model Runner.
pub const AUTO_LOCAL_MODEL: (&str, &str) = ("dmr", "ai/qwen3:latest");

/// Providers that need no `base_url`: Tether's clients and the OpenAI-compatible services it
/// knows the endpoint of.
pub const KNOWN_PROVIDERS: [&str; 33] = [
    "openai",
    "anthropic",
    "google",
    "gemini",
    "mistral",
    "dmr",
    "script",
    "xai",
    "nebius",
    "ollama",
    "requesty",
    "openrouter",
    "groq",
    "deepseek",
    "minimax",
    "azure",
    "amazon-bedrock",
    "nvidia",
    "atlascloud",
    "daoxe",
    "baseten",
    "ovhcloud",
    "fireworks",
    "cerebras",
    "together",
    "huggingface",
    "moonshot",
    "vercel",
    "cloudflare-workers-ai",
    "cloudflare-ai-gateway",
    "github-copilot",
    "opencode-go",
    "opencode-zen",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thinking_budget_reads_levels_and_counts() {
        let got: Vec<Result<ThinkingBudget, String>> = [
            json!("none"),
            json!(0),
            json!(-1),
            json!(2048),
            json!("adaptive/high"),
            json!("huge"),
            json!(40000),
        ]
        .iter()
        .map(ThinkingBudget::parse)
        .collect();
        assert_eq!(got[0], Ok(ThinkingBudget::Disabled));
        assert_eq!(got[1], Ok(ThinkingBudget::Disabled));
        assert_eq!(got[2], Ok(ThinkingBudget::Dynamic));
        assert_eq!(got[3], Ok(ThinkingBudget::Tokens(2048)));
        assert_eq!(got[4], Ok(ThinkingBudget::Effort("adaptive/high".into())));
        assert!(
            got[5]
                .as_ref()
                .unwrap_err()
                .contains("unknown thinking_budget `huge`")
        );
        assert!(got[6].as_ref().unwrap_err().contains("from -1 to 32768"));
    }

    #[test]
    fn a_budget_that_does_not_fit_the_provider_is_named() {
        let tokens = ThinkingBudget::Tokens(512);
        assert!(tokens.problem_for("anthropic").unwrap().contains("1024"));
        assert!(
            tokens
                .problem_for("openai")
                .unwrap()
                .contains("effort level")
        );
        assert_eq!(tokens.problem_for("google"), None);
        assert_eq!(
            ThinkingBudget::Effort("low".into()).problem_for("openai"),
            None
        );
    }

    #[test]
    fn a_provider_entry_fills_what_the_model_leaves_unset() {
        let def = ProviderDef {
            provider: "openai".into(),
            api_type: Some("openai_responses".into()),
            base_url: Some("https://gw.example/v1".into()),
            token_key: Some("GW_KEY".into()),
            defaults: ModelConfig {
                temperature: Some(0.2),
                max_tokens: Some(100),
                ..ModelConfig::default()
            },
        };
        let mut m = ModelConfig::inline("gw", "gpt-5");
        m.max_tokens = Some(7);
        let got = def.apply(m);
        assert_eq!(
            (
                got.provider.as_str(),
                got.base_url.as_deref(),
                got.token_key.as_deref()
            ),
            ("openai", Some("https://gw.example/v1"), Some("GW_KEY"))
        );
        assert_eq!((got.max_tokens, got.temperature), (Some(7), Some(0.2)));
        assert_eq!(got.provider_opts["api"], "responses");
    }

    #[test]
    fn model_values_parse_into_choices() {
        assert_eq!(ModelChoice::parse("auto"), ModelChoice::Auto);
        assert_eq!(ModelChoice::parse("m"), ModelChoice::One("m".into()));
        assert_eq!(
            ModelChoice::parse("claude, gpt-4o"),
            ModelChoice::Alloy(vec!["claude".into(), "gpt-4o".into()])
        );
    }
}
