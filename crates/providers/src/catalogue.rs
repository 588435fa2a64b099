//! Context windows and list prices of common models, so `after_llm_call.cost` can be filled
//! and compaction knows the limit.
//!
//! A declarative table, matched by exact name, then by the longest entry that the model name
//! extends with a date or version suffix (`gpt-4o-2024-08-06`, `claude-sonnet-4-0`,
//! `mistral-large-latest`). Prices are USD per million tokens. `dmr` and `script` models run
//! locally and are free.

use tether_protocol::chat::Usage;

/// What we know about one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInfo {
    pub name: &'static str,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u64>,
    /// USD per million uncached input tokens.
    pub input_price: f64,
    pub output_price: f64,
    /// USD per million input tokens read from the prompt cache.
    pub cached_input_price: f64,
    /// USD per million input tokens written to the prompt cache.
    pub cache_write_price: f64,
}

const fn m(
    name: &'static str,
    context: u64,
    max_out: u64,
    [input, output, cached, write]: [f64; 4],
) -> ModelInfo {
    ModelInfo {
        name,
        context_window: Some(context),
        max_output_tokens: Some(max_out),
        input_price: input,
        output_price: output,
        cached_input_price: cached,
        cache_write_price: write,
    }
}

const OPENAI: &[ModelInfo] = &[
    m("gpt-3.5-turbo", 16_385, 4_096, [0.5, 1.5, 0.5, 0.0]),
    m("gpt-4-turbo", 128_000, 4_096, [10.0, 30.0, 10.0, 0.0]),
    m("gpt-4o", 128_000, 16_384, [2.5, 10.0, 1.25, 0.0]),
    m("gpt-4o-mini", 128_000, 16_384, [0.15, 0.6, 0.075, 0.0]),
    m("gpt-4.1", 1_047_576, 32_768, [2.0, 8.0, 0.5, 0.0]),
    m("gpt-4.1-mini", 1_047_576, 32_768, [0.4, 1.6, 0.1, 0.0]),
    m("gpt-4.1-nano", 1_047_576, 32_768, [0.1, 0.4, 0.025, 0.0]),
    m("gpt-5", 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]),
    m("gpt-5-mini", 400_000, 128_000, [0.25, 2.0, 0.025, 0.0]),
    m("gpt-5-nano", 400_000, 128_000, [0.05, 0.4, 0.005, 0.0]),
    m("gpt-5-codex", 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]),
    m("gpt-5.1", 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]),
    m("gpt-5.1-codex", 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]),
    m("o1", 200_000, 100_000, [15.0, 60.0, 7.5, 0.0]),
    m("o3", 200_000, 100_000, [2.0, 8.0, 0.5, 0.0]),
    m("o3-mini", 200_000, 100_000, [1.1, 4.4, 0.55, 0.0]),
    m("o4-mini", 200_000, 100_000, [1.1, 4.4, 0.275, 0.0]),
];

const ANTHROPIC: &[ModelInfo] = &[
    m("claude-opus-4", 200_000, 32_000, [15.0, 75.0, 1.5, 18.75]),
    m("claude-opus-4-1", 200_000, 32_000, [15.0, 75.0, 1.5, 18.75]),
    m("claude-opus-4-5", 200_000, 64_000, [5.0, 25.0, 0.5, 6.25]),
    m("claude-sonnet-4", 200_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    m("claude-sonnet-4-5", 200_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    m("claude-haiku-4-5", 200_000, 64_000, [1.0, 5.0, 0.1, 1.25]),
    m("claude-3-7-sonnet", 200_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    m("claude-3-5-sonnet", 200_000, 8_192, [3.0, 15.0, 0.3, 3.75]),
    m("claude-3-5-haiku", 200_000, 8_192, [0.8, 4.0, 0.08, 1.0]),
    m("claude-3-opus", 200_000, 4_096, [15.0, 75.0, 1.5, 18.75]),
    m("claude-3-haiku", 200_000, 4_096, [0.25, 1.25, 0.03, 0.3]),
];

const GOOGLE: &[ModelInfo] = &[
    m("gemini-2.5-pro", 1_048_576, 65_536, [1.25, 10.0, 0.31, 0.0]),
    m(
        "gemini-2.5-flash",
        1_048_576,
        65_536,
        [0.3, 2.5, 0.075, 0.0],
    ),
    m(
        "gemini-2.5-flash-lite",
        1_048_576,
        65_536,
        [0.1, 0.4, 0.025, 0.0],
    ),
    m("gemini-2.0-flash", 1_048_576, 8_192, [0.1, 0.4, 0.025, 0.0]),
    m(
        "gemini-2.0-flash-lite",
        1_048_576,
        8_192,
        [0.075, 0.3, 0.075, 0.0],
    ),
];

const MISTRAL: &[ModelInfo] = &[
    m("mistral-large", 128_000, 32_768, [2.0, 6.0, 2.0, 0.0]),
    m("mistral-medium", 128_000, 32_768, [0.4, 2.0, 0.4, 0.0]),
    m("mistral-small", 128_000, 32_768, [0.1, 0.3, 0.1, 0.0]),
    m("codestral", 256_000, 32_768, [0.3, 0.9, 0.3, 0.0]),
    m("ministral-8b", 128_000, 32_768, [0.1, 0.1, 0.1, 0.0]),
    m(
        "open-mistral-nemo",
        128_000,
        32_768,
        [0.15, 0.15, 0.15, 0.0],
    ),
];

/// Local models: free; the window is a default that `provider_opts.context_size` overrides.
static DMR: ModelInfo = ModelInfo {
    name: "dmr",
    context_window: Some(32_768),
    max_output_tokens: None,
    input_price: 0.0,
    output_price: 0.0,
    cached_input_price: 0.0,
    cache_write_price: 0.0,
};

static SCRIPT: ModelInfo = ModelInfo {
    name: "script",
    context_window: Some(128_000),
    ..DMR
};

/// The entry for `model` of `provider`, if the model is known.
pub fn lookup(provider: &str, model: &str) -> Option<&'static ModelInfo> {
    let table = match provider {
        "openai" => OPENAI,
        "anthropic" => ANTHROPIC,
        "google" | "gemini" => GOOGLE,
        "mistral" => MISTRAL,
        "dmr" => return Some(&DMR),
        "script" => return Some(&SCRIPT),
        _ => return None,
    };
    let model = model.rsplit('/').next().unwrap_or(model);
    if let Some(exact) = table.iter().find(|i| i.name == model) {
        return Some(exact);
    }
    table
        .iter()
        .filter(|i| {
            model
                .strip_prefix(i.name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(is_version_suffix)
        })
        .max_by_key(|i| i.name.len())
}

/// `2024-08-06`, `20250514`, `0`, `latest`, `preview-05-20`, `exp`.
fn is_version_suffix(rest: &str) -> bool {
    !rest.is_empty()
        && (rest.chars().all(|c| c.is_ascii_digit() || c == '-')
            || rest == "latest"
            || rest.starts_with("preview")
            || rest.starts_with("exp"))
}

/// USD per million tokens of each kind.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cached_input: f64,
    pub cache_write: f64,
}

impl Prices {
    /// USD cost of one call.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per_token(usage.input_tokens, self.input)
            + per_token(usage.output_tokens, self.output)
            + per_token(usage.cached_input_tokens, self.cached_input)
            + per_token(usage.cached_write_tokens, self.cache_write)
    }
}

/// USD cost of one call.
pub fn cost(info: &ModelInfo, usage: &Usage) -> f64 {
    Prices {
        input: info.input_price,
        output: info.output_price,
        cached_input: info.cached_input_price,
        cache_write: info.cache_write_price,
    }
    .cost(usage)
}

/// The cost of a call to `provider/model`: `None` when the model is not priced.
pub fn cost_for(provider: &str, model: &str, usage: &Usage) -> Option<f64> {
    lookup(provider, model).map(|info| cost(info, usage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn dated_and_aliased_names_match_their_family() {
        let names = [
            ("openai", "gpt-4o-2024-08-06"),
            ("openai", "gpt-4o-mini-2024-07-18"),
            ("openai", "gpt-5-2025-08-07"),
            ("openai", "gpt-3.5-turbo-0125"),
            ("anthropic", "claude-sonnet-4-0"),
            ("anthropic", "claude-sonnet-4-5-20250929"),
            ("anthropic", "claude-3-5-haiku-latest"),
            ("google", "gemini-2.5-flash"),
            ("google", "gemini-2.5-flash-preview-05-20"),
            ("mistral", "mistral-large-latest"),
            ("openai", "gpt-4o-audio"),
            ("custom", "gpt-4o"),
        ];
        let got: Vec<Option<&str>> = names
            .iter()
            .map(|(p, m)| lookup(p, m).map(|i| i.name))
            .collect();
        assert_eq!(
            got,
            vec![
                Some("gpt-4o"),
                Some("gpt-4o-mini"),
                Some("gpt-5"),
                Some("gpt-3.5-turbo"),
                Some("claude-sonnet-4"),
                Some("claude-sonnet-4-5"),
                Some("claude-3-5-haiku"),
                Some("gemini-2.5-flash"),
                Some("gemini-2.5-flash"),
                Some("mistral-large"),
                None,
                None,
            ]
        );
    }

    #[test]
    fn cost_prices_every_token_class() {
        let usage = Usage {
            input_tokens: 3,
            output_tokens: 58,
            cached_input_tokens: 1000,
            cached_write_tokens: 1276,
            reasoning_tokens: None,
        };
        let info = lookup("anthropic", "claude-sonnet-4-0").unwrap();
        let want = (3.0 * 3.0 + 58.0 * 15.0 + 1000.0 * 0.3 + 1276.0 * 3.75) / 1e6;
        assert!(
            (cost(info, &usage) - want).abs() < 1e-12,
            "{}",
            cost(info, &usage)
        );
    }

    #[test]
    fn local_models_are_free_and_unknown_ones_unpriced() {
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 10,
            ..Usage::default()
        };
        assert_eq!(
            (
                cost_for("script", "x.yaml", &usage),
                cost_for("dmr", "ai/qwen3", &usage),
                cost_for("openai", "my-finetune", &usage)
            ),
            (Some(0.0), Some(0.0), None)
        );
    }
}
