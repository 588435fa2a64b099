//! `unload` (docs/hooks.md, Builtins, on_agent_switch): frees the departing agent's local models by
//! POSTing `{"model": "<model>"}` to each Docker Model Runner (`provider: dmr`) endpoint.
//!
//! Pure HTTP from the model snapshot the runtime ships in `from_agent_models`; other providers
//! are skipped. DMR engines run on this machine, so unlike `http_post` no address rule applies.
//! Each request has its own 10 s timeout and every failure is swallowed: an agent switch must
//! never wait on, or fail because of, an engine. Failures are noted, so the run's `error` in
//! the hook log says what happened.

use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::Url;
use tether_protocol::{AgentModelRef, HookOutput};

use crate::registry::{Builtin, BuiltinCall};
use tether_http::{client_builder, error_chain};

const TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, Default)]
pub struct Unload;

/// The unload URL of one model: `Ok(None)` when it has none (no `base_url`, no `unload_api`).
///
/// An absolute `unload_api` is the URL; otherwise it is a path on `base_url` (made absolute
/// when relative); without it, `base_url`'s path loses one trailing `/`, then one trailing
/// `/v1`, and gains `/_unload`.
pub(crate) fn unload_url(model: &AgentModelRef) -> Result<Option<Url>, String> {
    let api = model.unload_api.as_str();
    if api.starts_with("http://") || api.starts_with("https://") {
        return Url::parse(api)
            .map(Some)
            .map_err(|e| format!("invalid unload_api `{api}`: {e}"));
    }
    if api.is_empty() && model.base_url.is_empty() {
        return Ok(None);
    }
    let mut url = Url::parse(&model.base_url)
        .map_err(|e| format!("invalid base_url `{}`: {e}", model.base_url))?;
    if url.cannot_be_a_base() {
        return Err(format!("base_url `{}` is not absolute", model.base_url));
    }
    let path = if api.starts_with('/') {
        api.to_owned()
    } else if !api.is_empty() {
        format!("/{api}")
    } else {
        let base = url.path();
        let base = base.strip_suffix('/').unwrap_or(base);
        let base = base.strip_suffix("/v1").unwrap_or(base);
        format!("{base}/_unload")
    };
    url.set_path(&path);
    Ok(Some(url))
}

/// POSTs the unload request; the final status, or why it was not delivered in `timeout`.
pub(crate) async fn unload(
    client: &reqwest::Client,
    url: Url,
    model: &str,
    timeout: Duration,
) -> Result<reqwest::StatusCode, String> {
    let response = client
        .post(url)
        .timeout(timeout)
        .json(&serde_json::json!({ "model": model }))
        .send()
        .await
        .map_err(|e| error_chain(&e))?;
    Ok(response.status())
}

impl Builtin for Unload {
    fn name(&self) -> &'static str {
        "unload"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let input = call.input;
            if input.from_agent.is_empty() || input.from_agent == input.to_agent {
                return Ok(None);
            }
            let mut targets: Vec<(Url, &str)> = Vec::new();
            for m in input
                .from_agent_models
                .iter()
                .filter(|m| m.provider == "dmr")
            {
                match unload_url(m) {
                    Ok(Some(url)) => targets.push((url, m.model.as_str())),
                    Ok(None) => {}
                    Err(e) => call.notes.push(format!("unload `{}`: {e}", m.model)),
                }
            }
            if targets.is_empty() {
                return Ok(None);
            }
            let client = match client_builder().build() {
                Ok(client) => client,
                Err(e) => {
                    call.notes
                        .push(format!("unload: cannot build HTTP client: {e}"));
                    return Ok(None);
                }
            };
            for (url, model) in targets {
                // Errors and non-2xx answers are swallowed (docs/hooks.md, Builtins), and noted
                // for the hook log.
                let sent = tokio::select! {
                    r = unload(&client, url.clone(), model, TIMEOUT) => r,
                    () = call.cancel.cancelled() => return Ok(None),
                };
                match sent {
                    Ok(status) if status.is_success() => {}
                    Ok(status) => {
                        call.notes
                            .push(format!("unload `{model}`: `{url}` answered {status}"));
                    }
                    Err(e) => call.notes.push(format!("unload `{model}`: `{url}`: {e}")),
                }
            }
            Ok(None)
        })
    }
}

#[cfg(test)]
#[path = "unload_tests.rs"]
mod tests;
