//! The [`ModelRunner`] that `type: model` hooks call, on top of tether-providers.
//!
//! A hook's `model` is the name of a `models:` entry of the agent file, else an inline
//! `provider/model` (the reference resolves only the latter; resolving names lets a judge use
//! a configured endpoint). Providers are built on first use and cached per reference, so an
//! agent whose judge never fires needs no key, and credentials come from the injected
//! [`Env`]. The request is the fixed system prompt plus the rendered prompt, no tools, and the
//! shape's JSON schema as structured output.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use tether_config::{AgentFile, ModelCatalog};
use tether_hooks::{ModelRequest, ModelRunner};
use tether_protocol::Message;
use tether_providers::{ChatRequest, Env, ModelSpec, Provider, ResponseSchema, build_provider};

use crate::models::spec_of;

/// Model hooks' access to providers.
pub struct ProviderModelRunner {
    models: ModelCatalog,
    base_dir: Option<PathBuf>,
    env: Arc<dyn Env>,
    // Only looked up and filled, never held across a model call.
    cache: Mutex<HashMap<String, Arc<dyn Provider>>>,
}

impl std::fmt::Debug for ProviderModelRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderModelRunner")
            .field(
                "models",
                &self
                    .models
                    .models
                    .iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl ProviderModelRunner {
    /// Resolves names against `file`'s `models:` (when given); keys come from `env`.
    pub fn new(file: Option<&AgentFile>, env: Arc<dyn Env>) -> Self {
        Self {
            models: file.map(|f| f.models.clone()).unwrap_or_default(),
            base_dir: file.map(|f| f.dir.clone()),
            env,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn resolve(&self, reference: &str) -> Result<ModelSpec, String> {
        let cfg = self.models.resolve(reference).ok_or_else(|| {
            format!(
                "invalid model spec `{reference}`: not `provider/model` and no `models:` entry has that name"
            )
        })?;
        Ok(spec_of(cfg, self.base_dir.clone()))
    }

    fn provider(&self, reference: &str) -> Result<Arc<dyn Provider>, String> {
        if let Some(p) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(reference)
        {
            return Ok(Arc::clone(p));
        }
        let spec = self.resolve(reference)?;
        let provider = build_provider(&spec, self.env.as_ref()).map_err(|e| e.to_string())?;
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(reference.to_owned(), Arc::clone(&provider));
        Ok(provider)
    }
}

impl ModelRunner for ProviderModelRunner {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let provider = self.provider(request.model)?;
            let chat = ChatRequest {
                messages: vec![
                    Message::system(request.system),
                    Message::user(request.prompt),
                ],
                tools: Vec::new(),
                response_schema: request.schema.map(|s| ResponseSchema {
                    name: s.name.clone(),
                    description: s.description.clone(),
                    schema: s.schema.clone(),
                    strict: s.strict,
                }),
                tool_choice: None,
            };
            let response = tether_providers::complete(provider.as_ref(), &chat)
                .await
                .map_err(|e| e.to_string())?;
            Ok(response.message.text())
        })
    }

    fn check(&self, model: &str) -> Result<(), String> {
        self.resolve(model).map(|_| ())
    }
}
