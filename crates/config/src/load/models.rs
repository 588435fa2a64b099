//! Validation of `providers:`, `models:`, model references and an agent's `fallback:`.

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use crate::agent::{AgentFile, Fallback};
use crate::mcp::parse_go_duration;
use crate::model::{
    Capabilities, KNOWN_PROVIDERS, ModelCatalog, ModelChoice, ModelConfig, ProviderDef,
    RoutingRule, ThinkingBudget,
};
use crate::raw::{RawFallback, RawModel, RawProvider};

use super::Validator;

impl Validator<'_> {
    /// The `providers:` entries; their `compaction_model` references join `refs`, checked once
    /// the models are known.
    pub(super) fn providers(
        &mut self,
        raw: Vec<(String, Spanned<RawProvider>)>,
        refs: &mut Vec<(String, Spanned<String>)>,
    ) -> Vec<(String, ProviderDef)> {
        let mut out = Vec::new();
        for (name, p) in raw {
            let path = format!("providers.{name}");
            let at = p.referenced;
            let p = p.value;
            let provider = match p.provider {
                Some(t) if KNOWN_PROVIDERS.contains(&t.value.as_str()) => t.value,
                Some(t) => {
                    self.error_hint(
                        self.origin(&t.referenced, format!("{path}.provider")),
                        format!("unknown provider type `{}`", t.value),
                        format!("use one of {}", KNOWN_PROVIDERS.join(", ")),
                    );
                    continue;
                }
                None => "openai".to_owned(),
            };
            if let Some(api) = &p.api_type
                && !matches!(
                    api.value.as_str(),
                    "openai_chatcompletions" | "openai_responses"
                )
            {
                self.error_hint(
                    self.origin(&api.referenced, format!("{path}.api_type")),
                    format!("unknown api_type `{}`", api.value),
                    "use openai_chatcompletions or openai_responses",
                );
            }
            let mut provider_opts = p.provider_opts.unwrap_or_default();
            if let Some(unload) = p.unload_api {
                provider_opts.insert("unload_api".to_owned(), unload.into());
            }
            let compaction_model = p.compaction_model.map(|m| {
                refs.push((format!("{path}.compaction_model"), m.clone()));
                m.value
            });
            let headers = self.provider_headers(&at, &path, p.headers.unwrap_or_default());
            let defaults = ModelConfig {
                headers,
                compaction_model,
                max_tokens: self.max_tokens(&path, p.max_tokens),
                temperature: p.temperature,
                top_p: p.top_p,
                frequency_penalty: p.frequency_penalty,
                presence_penalty: p.presence_penalty,
                parallel_tool_calls: p.parallel_tool_calls,
                track_usage: p.track_usage,
                thinking_budget: self.thinking_budget(&path, &provider, p.thinking_budget),
                provider_opts,
                ..ModelConfig::default()
            };
            out.push((
                name,
                ProviderDef {
                    provider,
                    api_type: p.api_type.map(|a| a.value),
                    base_url: p.base_url,
                    token_key: p.token_key,
                    defaults,
                },
            ));
        }
        out
    }

    /// A compaction threshold: above 0, at most 1.
    pub(super) fn threshold(&mut self, path: &str, t: &Spanned<f64>) -> Option<f64> {
        if t.value > 0.0 && t.value <= 1.0 {
            return Some(t.value);
        }
        self.error(
            self.origin(&t.referenced, path),
            format!(
                "compaction_threshold must be greater than 0 and at most 1, got {}",
                t.value
            ),
        );
        None
    }

    /// `cost`: each price a finite, non-negative number.
    fn cost(&mut self, path: &str, raw: Spanned<crate::raw::RawCost>) -> crate::model::Cost {
        let c = raw.value;
        let mut price = |key: &str, v: Option<f64>| match v {
            Some(p) if !p.is_finite() || p < 0.0 => {
                self.error(
                    self.origin(&raw.referenced, format!("{path}.cost.{key}")),
                    format!("prices are USD per million tokens and cannot be negative, got {p}"),
                );
                0.0
            }
            v => v.unwrap_or(0.0),
        };
        crate::model::Cost {
            input: price("input", c.input),
            output: price("output", c.output),
            cache_read: price("cache_read", c.cache_read),
            cache_write: price("cache_write", c.cache_write),
        }
    }

    /// Builds the catalog, then checks the references models make to one another.
    pub(super) fn models(
        &mut self,
        raw: Vec<(String, Spanned<RawModel>)>,
        providers: Vec<(String, ProviderDef)>,
        mut references: Vec<(String, Spanned<String>)>,
    ) -> ModelCatalog {
        let mut catalog = ModelCatalog {
            models: Vec::new(),
            providers,
        };
        for (name, m) in raw {
            let path = format!("models.{name}");
            let origin = self.origin(&m.referenced, &path);
            let m = m.value;
            let first_available: Vec<String> = m
                .first_available
                .unwrap_or_default()
                .into_iter()
                .map(|c| {
                    references.push((format!("{path}.first_available"), c.clone()));
                    c.value
                })
                .collect();
            if !first_available.is_empty() {
                if let Some(t) = &m.compaction_threshold {
                    self.error(
                        self.origin(&t.referenced, format!("{path}.compaction_threshold")),
                        "`compaction_threshold` cannot be combined with `first_available`",
                    );
                }
                if let Some(c) = &m.cost {
                    self.error(
                        self.origin(&c.referenced, format!("{path}.cost")),
                        "`cost` cannot be combined with `first_available`: price the candidate models instead",
                    );
                }
                if let Some(o) = &m.output_capabilities {
                    self.error(
                        self.origin(&o.referenced, format!("{path}.output_capabilities")),
                        "`output_capabilities` cannot be combined with `first_available`: set `output_capabilities.image` on the candidate models instead",
                    );
                }
                if m.provider.is_some() || m.model.is_some() {
                    self.error(
                        origin,
                        "`first_available` replaces `provider` and `model`: set one or the other",
                    );
                }
                catalog.models.push((
                    name,
                    ModelConfig {
                        first_available,
                        ..ModelConfig::default()
                    },
                ));
                continue;
            }
            let Some(provider) = m.provider else {
                self.error(origin, "provider is required");
                continue;
            };
            let Some(model) = m.model else {
                self.error(origin, "model is required");
                continue;
            };
            let def = catalog.provider(&provider.value).cloned();
            let effective = def
                .as_ref()
                .map_or(provider.value.as_str(), |d| d.provider.as_str())
                .to_owned();
            if def.is_none()
                && !KNOWN_PROVIDERS.contains(&provider.value.as_str())
                && m.base_url.is_none()
            {
                self.error_hint(
                    self.origin(&provider.referenced, format!("{path}.provider")),
                    format!("unknown provider `{}`", provider.value),
                    format!(
                        "use one of {}, a `providers:` entry, or set `base_url` for an OpenAI-compatible server",
                        KNOWN_PROVIDERS.join(", ")
                    ),
                );
            }
            if effective == "azure"
                && m.base_url.is_none()
                && def.as_ref().is_none_or(|d| d.base_url.is_none())
            {
                self.error_hint(
                    self.origin(&provider.referenced, format!("{path}.provider")),
                    "`azure` needs a `base_url` (your deployment's endpoint)",
                    "set `base_url: https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT`",
                );
            }
            let mut routing = Vec::new();
            for (i, rule) in m.routing.unwrap_or_default().into_iter().enumerate() {
                let at = format!("{path}.routing[{i}]");
                let Some(target) = rule.value.model else {
                    self.error(
                        self.origin(&rule.referenced, &at),
                        "a routing rule needs `model`",
                    );
                    continue;
                };
                let examples = rule.value.examples.unwrap_or_default();
                if examples.is_empty() {
                    self.error(
                        self.origin(&rule.referenced, format!("{at}.examples")),
                        "a routing rule needs at least one example",
                    );
                }
                references.push((format!("{at}.model"), target.clone()));
                routing.push(RoutingRule {
                    model: target.value,
                    examples,
                });
            }
            let cost = m.cost.map(|c| self.cost(&path, c));
            let compaction_model = m.compaction_model.map(|c| {
                references.push((format!("{path}.compaction_model"), c.clone()));
                c.value
            });
            let compaction_threshold = m
                .compaction_threshold
                .and_then(|t| self.threshold(&format!("{path}.compaction_threshold"), &t));
            let capabilities = m.capabilities.map(|c| Capabilities {
                image: c.value.image.unwrap_or(false),
                pdf: c.value.pdf.unwrap_or(false),
                audio: c.value.audio.unwrap_or(false),
                video: c.value.video.unwrap_or(false),
            });
            let output_image = m.output_capabilities.is_some_and(|o| {
                let image = o.value.image.unwrap_or(false);
                if image && effective != "google" {
                    self.error_hint(
                        self.origin(&o.referenced, format!("{path}.output_capabilities.image")),
                        format!(
                            "`output_capabilities.image` is not supported yet for provider `{effective}`"
                        ),
                        "Tether asks for image output on Gemini (`provider: google`) only",
                    );
                }
                image
            });
            let cfg = ModelConfig {
                capabilities,
                output_image,
                headers: Default::default(),
                cost,
                compaction_model,
                compaction_threshold,
                provider: provider.value,
                model: model.value,
                description: m.description,
                base_url: m.base_url,
                token_key: m.token_key,
                max_tokens: self.max_tokens(&path, m.max_tokens),
                temperature: m.temperature,
                top_p: m.top_p,
                frequency_penalty: m.frequency_penalty,
                presence_penalty: m.presence_penalty,
                parallel_tool_calls: m.parallel_tool_calls,
                track_usage: m.track_usage,
                thinking_budget: self.thinking_budget(&path, &effective, m.thinking_budget),
                routing,
                first_available: Vec::new(),
                provider_opts: m.provider_opts.unwrap_or_default(),
            };
            let cfg = match def {
                Some(d) => d.apply(cfg),
                None => cfg,
            };
            for field in unsupported_by_provider(&cfg) {
                self.error(
                    origin.clone(),
                    format!(
                        "`{field}` is not supported by the `{}` provider",
                        cfg.provider
                    ),
                );
            }
            catalog.models.push((name, cfg));
        }
        for (path, r) in references {
            match catalog.resolve(&r.value) {
                None => self.error_hint(
                    self.origin(&r.referenced, &path),
                    format!("unknown model `{}`", r.value),
                    "write `provider/model` or the name of an entry under `models:`",
                ),
                Some(m) if !m.routing.is_empty() || !m.first_available.is_empty() => self.error(
                    self.origin(&r.referenced, &path),
                    format!(
                        "`{}` is itself a router or a `first_available` list; name a plain model",
                        r.value
                    ),
                ),
                Some(_) => self.inline_provider(&path, &r, &catalog),
            }
        }
        catalog
    }

    /// A provider's `headers`: names must be HTTP tokens (values are checked once expanded,
    /// when the client is built).
    fn provider_headers(
        &mut self,
        at: &serde_saphyr::Location,
        path: &str,
        headers: BTreeMap<String, String>,
    ) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for (name, value) in headers {
            let token = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if token {
                out.insert(name, value);
            } else {
                self.error(
                    self.origin(at, format!("{path}.headers")),
                    format!("`{name}` is not a valid HTTP header name"),
                );
            }
        }
        out
    }

    fn max_tokens(&mut self, path: &str, v: Option<Spanned<i64>>) -> Option<u64> {
        match v {
            Some(t) if t.value <= 0 => {
                self.error(
                    self.origin(&t.referenced, format!("{path}.max_tokens")),
                    format!("max_tokens must be positive, got {}", t.value),
                );
                None
            }
            Some(t) => u64::try_from(t.value).ok(),
            None => None,
        }
    }

    fn thinking_budget(
        &mut self,
        path: &str,
        provider: &str,
        v: Option<Spanned<serde_json::Value>>,
    ) -> Option<ThinkingBudget> {
        let v = v?;
        let origin = self.origin(&v.referenced, format!("{path}.thinking_budget"));
        match ThinkingBudget::parse(&v.value) {
            Ok(b) => {
                if let Some(problem) = b.problem_for(provider) {
                    self.error(origin, problem);
                }
                Some(b)
            }
            Err(e) => {
                self.error(origin, e);
                None
            }
        }
    }

    /// An inline `provider/model` names a provider Tether knows or a `providers:` entry.
    fn inline_provider(&mut self, path: &str, r: &Spanned<String>, catalog: &ModelCatalog) {
        let Some((provider, _)) = r.value.split_once('/') else {
            return;
        };
        if catalog.model(&r.value).is_none()
            && catalog.provider(provider).is_none()
            && !KNOWN_PROVIDERS.contains(&provider)
        {
            self.error_hint(
                self.origin(&r.referenced, path),
                format!("unknown provider `{provider}`"),
                format!(
                    "use one of {}, or define the model under `models:` with a `base_url`",
                    KNOWN_PROVIDERS.join(", ")
                ),
            );
        }
    }

    /// Checks an agent's `model:` value: a name, `provider/model`, a comma list or `auto`.
    pub(super) fn model_ref(&mut self, path: &str, m: &Spanned<String>, file: &AgentFile) {
        let choice = ModelChoice::parse(&m.value);
        if choice.references().is_empty() && choice != ModelChoice::Auto {
            self.error(self.origin(&m.referenced, path), "the model is empty");
        }
        for reference in choice.references() {
            let r = Spanned {
                value: reference.to_owned(),
                referenced: m.referenced,
                defined: m.defined,
            };
            if file.resolve_model(reference).is_none() {
                self.error_hint(
                    self.origin(&m.referenced, path),
                    format!("unknown model `{reference}`"),
                    "write `provider/model` (e.g. `openai/gpt-4o`), `auto`, or the name of an entry under `models:`",
                );
            } else {
                self.inline_provider(path, &r, &file.models);
            }
        }
    }

    pub(super) fn fallback(
        &mut self,
        path: &str,
        raw: Spanned<RawFallback>,
        file: &AgentFile,
    ) -> Fallback {
        let path = format!("{path}.fallback");
        let f = raw.value;
        let models: Vec<String> = f
            .models
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let at = format!("{path}.models[{i}]");
                if m.value.contains(',') || m.value == "auto" {
                    self.error(
                        self.origin(&m.referenced, &at),
                        "a fallback names one model (`provider/model` or a `models:` name)",
                    );
                } else {
                    self.model_ref(&at, &m, file);
                }
                m.value
            })
            .collect();
        if models.is_empty() {
            self.error(
                self.origin(&raw.referenced, &path),
                "`fallback` needs `models`: the models to try when the agent's model fails",
            );
        }
        let retries = match f.retries {
            None => Fallback::DEFAULT_RETRIES,
            Some(r) if r.value == 0 => Fallback::DEFAULT_RETRIES,
            Some(r) if r.value == -1 => 0,
            Some(r) => u32::try_from(r.value).unwrap_or_else(|_| {
                self.error(
                    self.origin(&r.referenced, format!("{path}.retries")),
                    format!(
                        "retries must be -1 (none), 0 (the default, 2) or a positive count, got {}",
                        r.value
                    ),
                );
                0
            }),
        };
        let cooldown = match f.cooldown {
            None => Fallback::DEFAULT_COOLDOWN,
            Some(c) => parse_go_duration(&c.value.0).unwrap_or_else(|e| {
                self.error(self.origin(&c.referenced, format!("{path}.cooldown")), e);
                Fallback::DEFAULT_COOLDOWN
            }),
        };
        Fallback {
            models,
            retries,
            cooldown,
        }
    }
}

/// Fields a model sets that its provider's API has no place for (rather than dropping them).
fn unsupported_by_provider(m: &ModelConfig) -> Vec<&'static str> {
    let mut out = Vec::new();
    let anthropic = matches!(m.provider.as_str(), "anthropic" | "amazon-bedrock");
    let google = matches!(m.provider.as_str(), "google" | "gemini");
    if anthropic && m.frequency_penalty.is_some() {
        out.push("frequency_penalty");
    }
    if anthropic && m.presence_penalty.is_some() {
        out.push("presence_penalty");
    }
    if google && m.parallel_tool_calls.is_some() {
        out.push("parallel_tool_calls");
    }
    // These APIs always report usage.
    if (anthropic || google) && m.track_usage == Some(false) {
        out.push("track_usage: false");
    }
    out
}
