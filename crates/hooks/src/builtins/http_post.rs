//! `http_post` (docs/hooks.md, Builtins): POSTs `args[1]` as JSON to `args[0]`, from any event.
//!
//! The URL comes from configuration but the hook fires on model-driven events, so the client
//! is SSRF-safe: it refuses private, loopback, link-local (and unspecified / shared) addresses
//! when it connects, not only when it parses the URL. Names go through a resolver that drops
//! such addresses; IP-literal URLs, which skip the resolver, are checked here, and so is every
//! redirect target (at most 10). No proxy is used: a proxy would connect on our behalf.
//! Setting `TETHER_HTTP_POST_ALLOW_PRIVATE=1` in the hook's environment lifts the address
//! rule (tests post to a server on 127.0.0.1). Network errors and error statuses are swallowed:
//! the builtin returns null either way, as notifications must never hold up the run; they are
//! noted, so the run's `error` in the hook log says what happened.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{StatusCode, Url, redirect};
use tether_protocol::HookOutput;

use crate::http_client::{client_builder, error_chain};
use crate::registry::{Builtin, BuiltinCall};

/// Set to `1` in a hook's environment to allow private, loopback and link-local targets.
pub const ALLOW_PRIVATE_ENV: &str = "TETHER_HTTP_POST_ALLOW_PRIVATE";

const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_REDIRECTS: usize = 10;

/// The error for anything but an http(s) URL with a host.
pub const SCHEME_ERROR: &str = "http_post: only http(s) URLs are supported";

#[derive(Debug, Clone, Copy, Default)]
pub struct HttpPost;

/// Addresses a hook must not reach: this host, the local networks, link-local (cloud
/// metadata endpoints live there). IPv4 inside IPv6 is judged as IPv4.
pub(crate) fn is_blocked(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return blocked_v4(v4);
            }
            let s = v6.segments();
            // 64:ff9b::/96, NAT64: the last 32 bits are an IPv4 address.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return blocked_v4(Ipv4Addr::new(a, b, c, d));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || (s[0] & 0xfe00) == 0xfc00 // unique local, fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link-local, fe80::/10
                || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated), fec0::/10
        }
    }
}

fn blocked_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_broadcast()
        || a == 0 // "this network": 0.0.0.0 reaches this host
        || (a == 100 && (64..128).contains(&b)) // shared address space, 100.64.0.0/10
}

/// The IP of an IP-literal URL (`[::1]` unbracketed).
fn literal_ip(url: &Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.parse().ok()
}

/// The resolver for names: keeps only addresses a hook may reach.
#[derive(Debug)]
struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let allowed: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| !is_blocked(a.ip()))
                .collect();
            if allowed.is_empty() {
                return Err(format!(
                    "refusing `{host}`: it resolves only to private, loopback or link-local addresses"
                )
                .into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
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
        Some(ip) if !allow_private && is_blocked(ip) => Err(format!(
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
        builder = builder.dns_resolver(Arc::new(PublicOnly));
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
