//! `http_post` (docs/hooks.md, Builtins): POSTs `args[1]` as JSON to `args[0]`, from any event.
//!
//! The URL comes from configuration but the hook fires on model-driven events, so the client
//! is SSRF-safe: it refuses every non-public address (private, loopback, link-local, shared,
//! documentation, multicast, …; the table is `tether_http::is_public`, the one the web tools
//! use) when it connects, not only when it parses the URL. Names go through a resolver that
//! drops such addresses; IP-literal URLs, which skip the resolver, are checked here, and so is
//! every redirect target (at most 10). No proxy is used: a proxy would connect on our behalf.
//! Setting `TETHER_HTTP_POST_ALLOW_PRIVATE=1` in the hook's environment lifts the address
//! rule (tests post to a server on 127.0.0.1). Network errors and error statuses are swallowed:
//! the builtin returns null either way, as notifications must never hold up the run; they are
//! noted, so the run's `error` in the hook log says what happened.

use std::sync::OnceLock;
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::{StatusCode, Url, redirect};
use tether_http::{client_builder, error_chain, is_public, literal_ip, public_only};
use tether_protocol::HookOutput;

use crate::registry::{Builtin, BuiltinCall};

/// Set to `1` in a hook's environment to allow private, loopback and link-local targets.
pub const ALLOW_PRIVATE_ENV: &str = "TETHER_HTTP_POST_ALLOW_PRIVATE";

const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_REDIRECTS: usize = 10;

/// The error for anything but an http(s) URL with a host.
pub const SCHEME_ERROR: &str = "http_post: only http(s) URLs are supported";

#[derive(Debug, Clone, Copy, Default)]
pub struct HttpPost;

/// Why a name was refused.
fn name_refused(host: &str) -> String {
    format!("refusing `{host}`: it resolves only to private, loopback or link-local addresses")
}

/// `args[0]` as an http(s) URL with a host.
pub(crate) fn parse_url(url: &str) -> Result<Url, String> {
    Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| SCHEME_ERROR.to_owned())
}

/// Refuses a target outside the rules; `Ok` for anything the resolver will judge.
fn check_target(url: &Url, allow_private: bool) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(SCHEME_ERROR.to_owned());
    }
    match literal_ip(url) {
        Some(ip) if !allow_private && !is_public(ip) => Err(format!(
            "refusing `{url}`: private, loopback and link-local addresses are not allowed"
        )),
        _ => Ok(()),
    }
}

/// One client per address rule, built on first use: a build reads the system's root
/// certificates, milliseconds that a notification on every tool call would pay each time.
static CLIENTS: [OnceLock<Result<reqwest::Client, String>>; 2] = [OnceLock::new(), OnceLock::new()];

fn client(allow_private: bool) -> Result<&'static reqwest::Client, String> {
    CLIENTS[usize::from(allow_private)]
        .get_or_init(|| build_client(allow_private))
        .as_ref()
        .map_err(Clone::clone)
}

fn build_client(allow_private: bool) -> Result<reqwest::Client, String> {
    let policy = redirect::Policy::custom(move |attempt| {
        if let Err(e) = check_target(attempt.url(), allow_private) {
            return attempt.error(e);
        }
        redirect::Policy::limited(MAX_REDIRECTS).redirect(attempt)
    });
    let mut builder = client_builder()
        .timeout(TIMEOUT)
        .redirect(policy)
        .no_proxy();
    if !allow_private {
        builder = public_only(builder, name_refused);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build HTTP client: {e}"))
}

/// Sends the POST; the final status, or why nothing was delivered.
pub(crate) async fn post(url: &Url, body: &str, allow_private: bool) -> Result<StatusCode, String> {
    check_target(url, allow_private)?;
    let response = client(allow_private)?
        .post(url.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_owned())
        .send()
        .await
        .map_err(|e| error_chain(&e))?;
    Ok(response.status())
}

impl Builtin for HttpPost {
    fn name(&self) -> &'static str {
        "http_post"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let Some(url) = call.args.first().filter(|u| !u.is_empty()) else {
                return Ok(None);
            };
            let url = parse_url(url)?;
            let body = call.args.get(1).map_or("", String::as_str);
            let allow_private = call.env.var(ALLOW_PRIVATE_ENV).as_deref() == Some("1");
            // Delivery failures and error statuses are swallowed (docs/hooks.md, Builtins), and
            // noted for the hook log.
            let sent = tokio::select! {
                r = post(&url, body, allow_private) => r,
                () = call.cancel.cancelled() => Err("cancelled".to_owned()),
            };
            match sent {
                Ok(status) if status.is_success() => {}
                Ok(status) => call
                    .notes
                    .push(format!("http_post: `{url}` answered {status}")),
                Err(e) => call.notes.push(format!("http_post: `{url}`: {e}")),
            }
            Ok(None)
        })
    }
}

#[cfg(test)]
#[path = "http_post_tests.rs"]
mod tests;
