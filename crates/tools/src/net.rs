//! HTTP clients for tools whose URLs the model or the agent file chooses (`fetch`, `api`,
//! `openapi`): loopback, private, link-local and other non-public addresses are refused unless
//! the toolset sets `allow_private_ips: true`, so a model cannot reach the machine's own
//! services or the local network. Names are checked after DNS resolution and on every redirect.
//! A fetch toolset's `allowed_domains` / `blocked_domains` ([`DomainLists`]) are checked on the
//! URL and on every redirect too, so an allowed host cannot bounce the request elsewhere.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

pub(crate) const MAX_REDIRECTS: usize = 5;
pub(crate) const USER_AGENT: &str = concat!("tether/", env!("CARGO_PKG_VERSION"));

/// Whether `ip` is on the public internet.
fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || a >= 224)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// A resolver that drops non-public addresses (so a name pointing at 127.0.0.1 fails too).
struct PublicOnly;

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| public(a.ip()))
                .collect();
            if addrs.is_empty() {
                return Err(format!(
                    "`{host}` resolves to no public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)"
                )
                .into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

pub(crate) fn literal_refused(url: &reqwest::Url) -> Option<String> {
    let host = url.host_str()?;
    let ip: IpAddr = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()?;
    (!public(ip)).then(|| {
        format!("`{ip}` is not a public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)")
    })
}

/// `allowed_domains` / `blocked_domains` of a fetch toolset (at most one is not empty).
#[derive(Debug, Default)]
pub(crate) struct DomainLists {
    pub(crate) allowed: Vec<tether_config::DomainPattern>,
    pub(crate) blocked: Vec<tether_config::DomainPattern>,
}

impl DomainLists {
    /// Why `url`'s host may not be fetched, naming the host and the rule; `None` when it may.
    pub(crate) fn refusal(&self, url: &reqwest::Url) -> Option<String> {
        let Some(host) = url.host() else {
            return Some("the URL has no host".to_owned());
        };
        if let Some(p) = self.blocked.iter().find(|p| p.matches(&host)) {
            return Some(format!(
                "host `{host}` is blocked by `blocked_domains` (`{p}`)"
            ));
        }
        if !self.allowed.is_empty() && !self.allowed.iter().any(|p| p.matches(&host)) {
            let list: Vec<String> = self.allowed.iter().map(|p| format!("`{p}`")).collect();
            return Some(format!(
                "host `{host}` is not in `allowed_domains` ({})",
                list.join(", ")
            ));
        }
        None
    }
}

/// A client with `timeout`, at most [`MAX_REDIRECTS`] redirects, and non-public addresses
/// refused unless `allow_private`.
pub(crate) fn guarded_client(
    timeout: Duration,
    allow_private: bool,
) -> Result<reqwest::Client, String> {
    guarded_client_with(timeout, allow_private, None)
}

/// [`guarded_client`] that also refuses redirects to hosts `domains` refuses.
pub(crate) fn guarded_client_with(
    timeout: Duration,
    allow_private: bool,
    domains: Option<Arc<DomainLists>>,
) -> Result<reqwest::Client, String> {
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        if let Some(why) = domains.as_ref().and_then(|d| d.refusal(attempt.url())) {
            let why = format!("redirected to {}: {why}", attempt.url());
            return attempt.error(why);
        }
        if !allow_private && let Some(why) = literal_refused(attempt.url()) {
            return attempt.error(why);
        }
        attempt.follow()
    });
    let mut b = tether_providers::client_builder()
        .redirect(policy)
        .timeout(timeout)
        .user_agent(USER_AGENT);
    if !allow_private {
        b = b.dns_resolver(Arc::new(PublicOnly));
    }
    b.build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// [`literal_refused`] for a URL string; `None` when it does not parse (the request fails
/// with its own error then).
pub(crate) fn refused(url: &str, allow_private: bool) -> Option<String> {
    if allow_private {
        return None;
    }
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| literal_refused(&u))
}

/// Sends an `api` / `openapi` request and makes its answer a tool result: the body read up to
/// `cap` bytes and cut to `max_output`, an HTTP error status a failed call. `note_cut` puts a
/// warning first when the body was longer than `cap`.
pub(crate) async fn http_call(
    req: reqwest::RequestBuilder,
    cap: usize,
    max_output: Option<usize>,
    note_cut: bool,
) -> Result<crate::ToolResult, String> {
    let resp = req
        .send()
        .await
        .map_err(|e| format!("request failed: {}", tether_providers::error_chain(&e)))?;
    let status = resp.status();
    let (bytes, cut) = read_capped(resp, cap).await?;
    let mut text = limit_output(String::from_utf8_lossy(&bytes).into_owned(), max_output);
    if cut && note_cut {
        text = format!("[WARNING: Response truncated at 1MB limit]\n{text}");
    }
    Ok(if status.is_client_error() || status.is_server_error() {
        crate::ToolResult::error(format!("HTTP {}: {text}", status.as_u16()))
    } else {
        crate::ToolResult::ok(text)
    })
}

/// Reads at most `cap` bytes of a response body; `true` when the body was longer.
pub(crate) async fn read_capped(
    resp: reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), String> {
    use futures::StreamExt;
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let bytes = chunk.map_err(|e| {
            format!(
                "failed to read response body: {}",
                tether_providers::error_chain(&e)
            )
        })?;
        let room = cap - body.len();
        if bytes.len() >= room {
            body.extend_from_slice(&bytes[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&bytes);
    }
    Ok((body, false))
}

/// `text` cut to `max` bytes (at a character boundary) with docker-agent's notice.
pub(crate) fn limit_output(text: String, max: Option<usize>) -> String {
    match max {
        Some(max) if text.len() > max => {
            format!(
                "{}\n\n[Output truncated: exceeded {max} character limit]",
                &text[..text.floor_char_boundary(max)]
            )
        }
        _ => text,
    }
}

/// Expands `${env.NAME}` (the environment) and `${NAME}` (the argument `NAME` when `args`
/// has it or `declared` names it, else the environment). Arguments are URL-encoded when
/// `encode`; a declared argument the call left out is empty. An unset variable is an error
/// naming it, so a missing token is never sent as an empty `Bearer `.
pub(crate) fn expand(
    template: &str,
    args: Option<(&serde_json::Map<String, serde_json::Value>, &[String])>,
    encode: bool,
) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in `{template}`"))?;
        let inner = &after[..end];
        let arg = args.and_then(|(given, declared)| {
            if inner.starts_with("env.") {
                return None;
            }
            match given.get(inner) {
                Some(v) => Some(scalar_text(v)),
                None => declared.iter().any(|d| d == inner).then(String::new),
            }
        });
        match arg {
            Some(v) if encode => out.push_str(&encode_component(&v)),
            Some(v) => out.push_str(&v),
            None => {
                let name = inner.strip_prefix("env.").unwrap_or(inner);
                let value = std::env::var(name)
                    .map_err(|_| format!("environment variable `{name}` is not set"))?;
                out.push_str(&value);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A JSON value as URL or header text: strings as they are, anything else as JSON.
pub(crate) fn scalar_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub(crate) fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_expand_encoded_and_variables_from_the_environment() {
        let args = json!({"q": "a b&c", "n": 3}).as_object().unwrap().clone();
        let declared = vec!["q".to_owned(), "missing".to_owned()];
        assert_eq!(
            expand(
                "https://x/s?q=${q}&n=${n}&m=${missing}",
                Some((&args, &declared)),
                true
            )
            .unwrap(),
            "https://x/s?q=a%20b%26c&n=3&m="
        );
        let home = std::env::var("HOME").unwrap();
        assert_eq!(
            expand("${env.HOME}/", None, false).unwrap(),
            format!("{home}/")
        );
        assert_eq!(
            expand("${env.TETHER_SURELY_UNSET_VAR}", None, false).unwrap_err(),
            "environment variable `TETHER_SURELY_UNSET_VAR` is not set"
        );
    }

    #[test]
    fn output_is_cut_at_a_character_boundary() {
        assert_eq!(
            limit_output("héllo".to_owned(), Some(2)),
            "h\n\n[Output truncated: exceeded 2 character limit]"
        );
        assert_eq!(limit_output("hello".to_owned(), None), "hello");
    }

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.5.5",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!public(private.parse().unwrap()), "{private}");
        }
        for open in ["1.1.1.1", "8.8.8.8", "2606:4700:4700::1111"] {
            assert!(public(open.parse().unwrap()), "{open}");
        }
    }
}
