//! HTTP clients for tools whose URLs the model or the agent file chooses (`fetch`, `api`,
//! `openapi`): loopback, private, link-local and other non-public addresses are refused unless
//! the toolset sets `allow_private_ips: true`, so a model cannot reach the machine's own
//! services or the local network. Names are checked after DNS resolution and on every redirect;
//! to see every address it connects to, such a client ignores `HTTP_PROXY` / `HTTPS_PROXY` /
//! `ALL_PROXY` (a proxy would resolve the name itself, out of the check's sight). The address
//! table and the resolver are `tether_http`'s, shared with the `http_post` hook builtin; the
//! wording of a refusal, which names the toolset's setting, is ours.
//! A fetch toolset's `allowed_domains` / `blocked_domains` ([`DomainLists`]) are checked on the
//! URL and on every redirect too, so an allowed host cannot bounce the request elsewhere.

use std::sync::Arc;
use std::time::Duration;

pub(crate) const MAX_REDIRECTS: usize = 5;
pub(crate) const USER_AGENT: &str = concat!("tether/", env!("CARGO_PKG_VERSION"));

/// Why a name was refused: the tools' wording, naming the setting that lifts the rule.
fn name_refused(host: &str) -> String {
    format!(
        "`{host}` resolves to no public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)"
    )
}

/// Why `url`'s host, an IP literal that is not public, is refused; `None` for a name or a
/// public address.
pub(crate) fn literal_refused(url: &reqwest::Url) -> Option<String> {
    let ip = tether_http::literal_ip(url)?;
    (!tether_http::is_public(ip)).then(|| {
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
/// refused unless `allow_private` (such a client uses no proxy: see the module's doc).
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
    guarded_builder(timeout, allow_private, domains)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

fn guarded_builder(
    timeout: Duration,
    allow_private: bool,
    domains: Option<Arc<DomainLists>>,
) -> reqwest::ClientBuilder {
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        if let Some(why) = domains.as_ref().and_then(|d| d.refusal(attempt.url())) {
            let why = format!("redirected to {}: {why}", attempt.url());
            return attempt.error(why);
        }
        if !allow_private && let Some(why) = literal_refused(attempt.url()) {
            let why = format!("redirected to {}: {why}", attempt.url());
            return attempt.error(why);
        }
        attempt.follow()
    });
    let b = tether_http::client_builder()
        .redirect(policy)
        .timeout(timeout)
        .user_agent(USER_AGENT);
    if allow_private {
        return b;
    }
    tether_http::public_only(b, name_refused)
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
        .map_err(|e| format!("request failed: {}", tether_http::error_chain(&e)))?;
    let status = resp.status();
    let tether_http::Capped { bytes, cut } = read_capped(resp, cap).await?;
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

/// Reads at most `cap` bytes of a response body; `cut` when the body was longer.
pub(crate) async fn read_capped(
    resp: reqwest::Response,
    cap: usize,
) -> Result<tether_http::Capped, String> {
    tether_http::read_capped(resp, cap).await.map_err(|e| {
        format!(
            "failed to read response body: {}",
            tether_http::error_chain(&e)
        )
    })
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

/// Expands `${env.NAME}` (always the environment) and `${NAME}`: the call's argument `NAME` when
/// `args` declares it (empty when the call left it out), else the environment. An argument
/// the call sent but the tool does not declare fills nothing, so a model cannot choose the
/// value of a placeholder meant for the environment. Arguments are URL-encoded when
/// `encode`. An unset variable is an error naming it, so a missing token is never sent as an
/// empty `Bearer `.
pub(crate) fn expand(
    template: &str,
    args: Option<(&serde_json::Map<String, serde_json::Value>, &[String])>,
    encode: bool,
) -> Result<String, String> {
    expand_marked(template, args, encode).map(|(text, _)| text)
}

/// Where the first argument's value starts in an expanded text, and the argument's name.
type FirstArgument<'t> = Option<(usize, &'t str)>;

/// [`expand`], and where the first argument's value starts in the text.
fn expand_marked<'t>(
    template: &'t str,
    args: Option<(&serde_json::Map<String, serde_json::Value>, &[String])>,
    encode: bool,
) -> Result<(String, FirstArgument<'t>), String> {
    let mut out = String::with_capacity(template.len());
    let mut first_arg = None;
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated `${{` in `{template}`"))?;
        let inner = &after[..end];
        let declared = args.filter(|(_, declared)| {
            !inner.starts_with("env.") && declared.iter().any(|d| d == inner)
        });
        match declared {
            Some((given, _)) => {
                first_arg.get_or_insert((out.len(), inner));
                let v = given.get(inner).map(scalar_text).unwrap_or_default();
                out.push_str(&if encode { encode_component(&v) } else { v });
            }
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
    Ok((out, first_arg))
}

/// The URL of an `api` call: `template` expanded as [`expand`] does, arguments URL-encoded.
/// The scheme, host and port never come from the model: the text before the first argument
/// must hold them whole (`http(s)://`, then the host ended by `/`, `?` or `#`), else the
/// call is refused. So is a path where an argument made a `.` or `..` segment, which the
/// URL parser would resolve to another path.
pub(crate) fn endpoint_url(
    template: &str,
    args: &serde_json::Map<String, serde_json::Value>,
    declared: &[String],
) -> Result<String, String> {
    let (url, first_arg) = expand_marked(template, Some((args, declared)), true)?;
    let Some((at, name)) = first_arg else {
        return Ok(url);
    };
    let lower = url[..at].to_ascii_lowercase();
    let after_scheme = ["https://", "http://"]
        .iter()
        .find_map(|s| lower.strip_prefix(s));
    if !after_scheme.is_some_and(|a| a.contains(['/', '?', '#'])) {
        return Err(format!(
            "the argument `{name}` would be part of the endpoint's scheme or host; arguments may only fill its path and query"
        ));
    }
    if dot_segment(&url) {
        return Err(format!(
            "the endpoint's path would hold a `.` or `..` segment: `{url}`"
        ));
    }
    Ok(url)
}

/// Whether the path of `url` (`scheme://host/path?query`) has a `.` or `..` segment, as
/// written or percent-encoded (the URL parser resolves both).
pub(crate) fn dot_segment(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let Some(host_end) = after_scheme.find(['/', '?', '#']) else {
        return false;
    };
    let path = after_scheme[host_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    path.split('/').any(|seg| {
        let seg = seg.to_ascii_lowercase().replace("%2e", ".");
        seg == "." || seg == ".."
    })
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

/// An HTTP server on 127.0.0.1 that answers every request with `reply` (a whole HTTP/1.1
/// response) and records each request's text, head and body.
#[cfg(test)]
pub(crate) async fn recording_server(
    reply: String,
) -> (std::net::SocketAddr, Arc<std::sync::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let mut buf = Vec::new();
            let mut chunk = [0; 4096];
            loop {
                let n = conn.read(&mut chunk).await.unwrap_or(0);
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_ascii_lowercase();
                let Some(head) = text.find("\r\n\r\n") else {
                    if n == 0 {
                        break;
                    }
                    continue;
                };
                let length: usize = text[..head]
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if n == 0 || buf.len() >= head + 4 + length {
                    break;
                }
            }
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf).into_owned());
            let _ = conn.write_all(reply.as_bytes()).await;
        }
    });
    (addr, seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_expand_encoded_and_variables_from_the_environment() {
        let args = json!({"q": "a b&c", "n": 3}).as_object().unwrap().clone();
        let declared = vec!["q".to_owned(), "n".to_owned(), "missing".to_owned()];
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
    fn only_declared_arguments_fill_placeholders() {
        // The model sends `HOME`, `env.HOME` and `TETHER_SURELY_UNSET_VAR`, none declared:
        // they fill nothing; the environment does, or the call fails.
        let args = json!({
            "HOME": "evil.example",
            "env.HOME": "evil.example",
            "TETHER_SURELY_UNSET_VAR": "evil.example",
            "q": "x",
        });
        let args = args.as_object().unwrap();
        let declared = vec!["q".to_owned()];
        let home = std::env::var("HOME").unwrap();
        for template in ["${HOME}/${q}", "${env.HOME}/${q}"] {
            assert_eq!(
                expand(template, Some((args, &declared)), true).unwrap(),
                format!("{home}/x"),
                "{template}"
            );
        }
        assert_eq!(
            expand(
                "https://${TETHER_SURELY_UNSET_VAR}/",
                Some((args, &declared)),
                true
            )
            .unwrap_err(),
            "environment variable `TETHER_SURELY_UNSET_VAR` is not set"
        );
        // `${env.NAME}` is the environment's even when an argument of that name is declared.
        let declared = vec!["env.HOME".to_owned()];
        assert_eq!(
            expand("${env.HOME}", Some((args, &declared)), true).unwrap(),
            home
        );
    }

    #[test]
    fn arguments_never_fill_the_scheme_or_host() {
        let args = json!({"host": "evil.example", "path": "items", "dots": "..", "one": "."});
        let args = args.as_object().unwrap();
        let declared: Vec<String> = ["host", "path", "dots", "one"].map(str::to_owned).to_vec();
        for (template, want) in [
            (
                "https://api.example.com/${path}?h=${host}",
                Ok("https://api.example.com/items?h=evil.example"),
            ),
            (
                "HTTP://api.example.com?q=${path}",
                Ok("HTTP://api.example.com?q=items"),
            ),
            ("https://x/a/${dots}", Ok("https://x/a/..")),
            ("https://x/a?${dots}", Ok("https://x/a?..")),
            (
                "https://${host}/",
                Err(
                    "the argument `host` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
                ),
            ),
            (
                "https://api.example.com${path}",
                Err(
                    "the argument `path` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
                ),
            ),
            (
                "https://api.example.com:${path}/",
                Err(
                    "the argument `path` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
                ),
            ),
            (
                "${host}/x",
                Err(
                    "the argument `host` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
                ),
            ),
        ] {
            let got = endpoint_url(template, args, &declared);
            match want {
                Ok(url) if url.ends_with("..") && !url.contains('?') => assert_eq!(
                    got.unwrap_err(),
                    format!("the endpoint's path would hold a `.` or `..` segment: `{url}`")
                ),
                Ok(url) => assert_eq!(got.unwrap(), url, "{template}"),
                Err(e) => assert_eq!(got.unwrap_err(), e, "{template}"),
            }
        }
        assert!(endpoint_url("https://x/${one}/y", args, &declared).is_err());
        // No argument: the endpoint is the agent file's, as written.
        assert_eq!(
            endpoint_url("https://x/a/../b", args, &declared).unwrap(),
            "https://x/a/../b"
        );
    }

    #[test]
    fn dot_segments_are_found_in_the_path_only() {
        for (url, dot) in [
            ("https://x/a/../b", true),
            ("https://x/a/./b", true),
            ("https://x/a/%2E%2e", true),
            ("https://x/a/.%2e/b", true),
            ("https://x/..", true),
            ("https://x/a..b/...", false),
            ("https://x/a?p=/../", false),
            ("https://x?p=/../", false),
            ("https://x#/../", false),
        ] {
            assert_eq!(dot_segment(url), dot, "{url}");
        }
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
    fn literal_addresses_in_urls_are_checked_in_every_form() {
        for url in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]/",
            "http://[::127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://[2002:7f00:1::]/",
            "http://[fec0::1]/",
        ] {
            assert!(refused(url, false).is_some(), "{url}");
            assert!(refused(url, true).is_none(), "{url}");
        }
        assert!(refused("http://8.8.8.8/", false).is_none());
        assert!(
            refused("http://localhost/", false).is_none(),
            "names: resolved later"
        );
    }

    #[tokio::test]
    async fn names_resolving_to_private_addresses_are_refused() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let err = tether_http::PublicOnly::new(name_refused)
            .resolve(name)
            .await
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "`localhost` resolves to no public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)"
        );
    }

    #[tokio::test]
    async fn a_redirect_from_a_public_name_to_a_private_address_is_refused() {
        // The target: a private page that must not be read.
        let (target, target_seen) =
            recording_server("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecret".to_owned()).await;
        for to in [
            format!("http://localhost:{}/secret", target.port()),
            format!("http://127.0.0.1:{}/secret", target.port()),
            format!("http://[::ffff:127.0.0.1]:{}/secret", target.port()),
        ] {
            // `public.example` stands for a public server (pinned to a local one here, as
            // only a test can) that redirects to the private page.
            let (hop, hop_seen) = recording_server(format!(
                "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\n\r\n"
            ))
            .await;
            let client = guarded_builder(Duration::from_secs(5), false, None)
                .resolve("public.example", hop)
                .build()
                .unwrap();
            let err = client
                .get(format!("http://public.example:{}/", hop.port()))
                .send()
                .await
                .unwrap_err();
            let chain = tether_http::error_chain(&err);
            assert!(
                chain.contains("private addresses are refused"),
                "{to}: {chain}"
            );
            assert_eq!(hop_seen.lock().unwrap().len(), 1, "{to}");
        }
        assert!(target_seen.lock().unwrap().is_empty());
    }
}
