//! `type: http` hooks: POST the Input JSON to a URL; a 2xx body is read exactly like a
//! command hook's stdout (JSON Output or plain text). Any other status, a network error, a
//! body over the output cap or the timeout is a hook failure, so `pre_tool_use` fails closed.
//!
//! Header values may name environment variables as `${VAR}`; the config only lets a hook
//! name the variables it lists in `allowed_env`, and they are read from the hook's
//! environment (its `env:` first, then the process) at each call. An unset variable fails the
//! hook rather than sending a half-empty credential. Redirects are not followed: a webhook
//! that answers 3xx is misconfigured, and following it would re-send the payload elsewhere.
//!
//! Unlike the `http_post` builtin, private and loopback addresses are allowed: the URL is the
//! hook author's own endpoint (often a local sidecar), not something a model can steer.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::command_runner::OUTPUT_CAP;
use crate::output_parser::{self, Parsed};
use crate::registry::HookEnv;
use crate::result::Outcome;
use tether_http::{Capped, client_builder, error_chain, read_capped};

static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();

/// The process's HTTP client for http hooks, built once.
fn client() -> Result<&'static reqwest::Client, String> {
    CLIENT
        .get_or_init(|| {
            client_builder()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(Duration::from_secs(10))
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// A compiled http hook.
#[derive(Debug)]
pub(crate) struct HttpHook {
    url: String,
    headers: Vec<(String, String)>,
}

impl HttpHook {
    pub(crate) fn new(url: &str, headers: &[(String, String)]) -> Self {
        Self {
            url: url.to_owned(),
            headers: headers.to_vec(),
        }
    }

    /// Sends the request and reads the answer; the executor bounds it with the hook's timeout
    /// and cancellation.
    pub(crate) async fn run(&self, name: &str, body: Arc<[u8]>, env: &HookEnv) -> Outcome {
        let client = match client() {
            Ok(c) => c,
            Err(e) => return Outcome::failed(format!("http hook {name}: {e}")),
        };
        let mut request = client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        for (key, value) in &self.headers {
            match tether_config::expand_env(value, |n| env.var(n)) {
                Ok(v) => request = request.header(key.as_str(), v),
                Err(e) => return Outcome::failed(format!("http hook {name}: header `{key}`: {e}")),
            }
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) => {
                return Outcome::failed(format!(
                    "http hook {name}: cannot reach {}: {}",
                    self.url,
                    error_chain(&e)
                ));
            }
        };
        let status = response.status();
        let text = match read_capped(response, OUTPUT_CAP).await {
            Ok(Capped { cut: true, .. }) => {
                return Outcome::failed(format!(
                    "http hook {name}: the response is larger than {} MiB",
                    OUTPUT_CAP >> 20
                ));
            }
            Ok(Capped { bytes, .. }) => bytes,
            Err(e) => {
                return Outcome::failed(format!(
                    "http hook {name}: reading the response of {}: {}",
                    self.url,
                    error_chain(&e)
                ));
            }
        };
        let text = String::from_utf8_lossy(&text).into_owned();
        if !status.is_success() {
            let detail: String = text
                .trim()
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect();
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(": {detail}")
            };
            return Outcome::Failed {
                error: format!("http hook {name}: {} answered {status}{detail}", self.url),
                stdout: text,
                stderr: String::new(),
                timed_out: false,
            };
        }
        let output = match output_parser::parse(&text) {
            Parsed::Output(o) => Some(o),
            Parsed::PlainText(_) => None,
        };
        Outcome::Exited {
            code: 0,
            stdout: text,
            stderr: String::new(),
            output,
        }
    }
}
