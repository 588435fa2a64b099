//! Models (`models.NAME`) and the providers they name (`providers.NAME`).

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::schema::FieldType as T;

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "model")]
    pub(crate) struct RawModel {
        /// `openai`, `anthropic`, `google`, `mistral`, `dmr`, `script`, an OpenAI-compatible
        /// service (`xai`, `nebius`, `ollama`, `openrouter`, …), a `providers:` entry, or any name
        /// with `base_url`.
        pub(crate) provider: Option<Spanned<String>>,
        /// The provider's model name (a script file for `script`).
        pub(crate) model: Option<Spanned<String>>,
        /// What the model is for (listed by `model_picker` toolsets).
        pub(crate) description: Option<String>,
        /// The API endpoint; wins over the environment. `${env.NAME}` expands.
        pub(crate) base_url: Option<String>,
        /// The variable holding the API key, instead of the provider's own.
        pub(crate) token_key: Option<String>,
        /// Maximum output tokens.
        pub(crate) max_tokens: Option<Spanned<i64>>,
        /// Sampling temperature.
        pub(crate) temperature: Option<f64>,
        /// Nucleus sampling.
        pub(crate) top_p: Option<f64>,
        /// Penalise repeated tokens (OpenAI-compatible, Gemini).
        pub(crate) frequency_penalty: Option<f64>,
        /// Encourage new topics (OpenAI-compatible, Gemini).
        pub(crate) presence_penalty: Option<f64>,
        /// `false`: one tool call per answer.
        pub(crate) parallel_tool_calls: Option<bool>,
        /// OpenAI-compatible streams report usage (default true).
        pub(crate) track_usage: Option<bool>,
        /// Reasoning: `none`/`0`, an effort level (`minimal` … `max`, `adaptive[/EFFORT]`), or a
        /// token count (Anthropic, Gemini; `-1` Gemini's dynamic).
        #[schema(ty = T::Scalar)]
        pub(crate) thinking_budget: Option<Spanned<serde_json::Value>>,
        /// Makes this model a router: each request goes to the rule whose examples it matches best,
        /// else to this model.
        pub(crate) routing: Option<Vec<Spanned<RawRoutingRule>>>,
        /// Models tried in order at start: the first whose key is set is used (instead of
        /// `provider`/`model`).
        pub(crate) first_available: Option<Vec<Spanned<String>>>,
        /// Provider options: `context_size`, `api` (responses | chat), timeouts, retries,
        /// `unload_api`.
        pub(crate) provider_opts: Option<serde_json::Map<String, serde_json::Value>>,
        /// Prices in USD per million tokens (`input`, `output`, `cache_read`, `cache_write`; absent
        /// ones are free), over the built-in catalogue's: session cost and `after_llm_call`'s
        /// `cost` use them.
        pub(crate) cost: Option<Spanned<RawCost>>,
        /// Writes the compaction summaries of agents running this model (a `models:` name or
        /// `provider/model`); an agent's own `compaction_model` wins.
        pub(crate) compaction_model: Option<Spanned<String>>,
        /// The share of the context window past which agents running this model compact; wins over
        /// the agent's.
        pub(crate) compaction_threshold: Option<Spanned<f64>>,
        /// The input the model accepts besides text, declared (authoritative: an absent kind is
        /// `false`). Content the model cannot take is removed from each request before it is
        /// sent; without `capabilities` everything is sent.
        pub(crate) capabilities: Option<Spanned<RawCapabilities>>,
        /// What the model can generate besides text. `image: true` (Gemini only): answers may
        /// hold images, saved as files in the working directory; absent or `false`: text only.
        pub(crate) output_capabilities: Option<Spanned<RawOutputCapabilities>>,
    }
}

described! {
    /// `output_capabilities`: what a model generates besides text.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "output_capabilities")]
    pub(crate) struct RawOutputCapabilities {
        /// Images (default false: Tether has no catalogue of image models, and never guesses
        /// from a model's name).
        pub(crate) image: Option<bool>,
    }
}

described! {
    /// `capabilities`: the media kinds a model accepts as input.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "capabilities")]
    pub(crate) struct RawCapabilities {
        /// Images (default false once `capabilities` is set).
        pub(crate) image: Option<bool>,
        /// PDF documents.
        pub(crate) pdf: Option<bool>,
        /// Audio.
        pub(crate) audio: Option<bool>,
        /// Video.
        pub(crate) video: Option<bool>,
    }
}

described! {
    /// `cost`: USD per million tokens.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "cost")]
    pub(crate) struct RawCost {
        /// USD per million uncached input tokens.
        pub(crate) input: Option<f64>,
        /// USD per million output tokens.
        pub(crate) output: Option<f64>,
        /// USD per million input tokens read from the prompt cache.
        pub(crate) cache_read: Option<f64>,
        /// USD per million input tokens written to the prompt cache.
        pub(crate) cache_write: Option<f64>,
    }
}

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "routing_rule")]
    pub(crate) struct RawRoutingRule {
        /// The model for requests like the examples (`models:` name or `provider/model`).
        #[schema(required)]
        pub(crate) model: Option<Spanned<String>>,
        /// Example requests.
        #[schema(required)]
        pub(crate) examples: Option<Vec<String>>,
    }
}

described! {
    /// A `providers:` entry.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "provider")]
    pub(crate) struct RawProvider {
        /// The client: `openai` (default), `anthropic`, `google`, `dmr` or a known service.
        pub(crate) provider: Option<Spanned<String>>,
        /// OpenAI-compatible API flavour.
        #[schema(ty = T::Enum(&["openai_chatcompletions", "openai_responses"]))]
        pub(crate) api_type: Option<Spanned<String>>,
        /// The endpoint of models of this provider; `${env.NAME}` expands.
        pub(crate) base_url: Option<String>,
        /// The variable holding the API key.
        pub(crate) token_key: Option<String>,
        /// The endpoint the `unload` builtin posts to.
        pub(crate) unload_api: Option<String>,
        /// The default `compaction_model` of its models.
        pub(crate) compaction_model: Option<Spanned<String>>,
        /// Default maximum output tokens.
        pub(crate) max_tokens: Option<Spanned<i64>>,
        /// Default sampling temperature.
        pub(crate) temperature: Option<f64>,
        /// Default nucleus sampling.
        pub(crate) top_p: Option<f64>,
        /// Default frequency penalty.
        pub(crate) frequency_penalty: Option<f64>,
        /// Default presence penalty.
        pub(crate) presence_penalty: Option<f64>,
        /// Default for `parallel_tool_calls`.
        pub(crate) parallel_tool_calls: Option<bool>,
        /// Default for `track_usage`.
        pub(crate) track_usage: Option<bool>,
        /// Default thinking budget.
        #[schema(ty = T::Scalar)]
        pub(crate) thinking_budget: Option<Spanned<serde_json::Value>>,
        /// Default provider options.
        pub(crate) provider_opts: Option<serde_json::Map<String, serde_json::Value>>,
        /// HTTP headers sent on every request of this provider's models (after the built-in
        /// ones, so they can replace them); `${env.NAME}` and `${NAME}` expand when the client is
        /// built, and an unset variable is an error then.
        pub(crate) headers: Option<std::collections::BTreeMap<String, String>>,
    }
}
