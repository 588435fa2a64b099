//! `http_post` against a local server: what arrives, the scheme error, and the address rule
//! (loopback refused unless the hook environment allows it, also after a redirect).

use std::ffi::OsString;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode as AxumStatus, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use pretty_assertions::assert_eq;
use tether_protocol::{HookEvent, HookInput, HookOutput};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

/// What the server received: `(path, content type, body)`.
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// A server on 127.0.0.1 that records POSTs; `/redirect/N` redirects to `/redirect/N-1`
/// (`/redirect/0` to `/hook`), `/fail` answers 500.
async fn server() -> (SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: String| {
        let seen = record.clone();
        async move {
            let path = uri.path().to_owned();
            let kind = headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            seen.lock().unwrap().push((path.clone(), kind, body));
            let response: Response = if let Some(n) = path.strip_prefix("/redirect/") {
                let n: u32 = n.parse().unwrap_or(0);
                let next = if n == 0 {
                    "/hook".to_owned()
                } else {
                    format!("/redirect/{}", n - 1)
                };
                Redirect::temporary(&next).into_response()
            } else if path == "/fail" {
                AxumStatus::INTERNAL_SERVER_ERROR.into_response()
            } else {
                "ok".into_response()
            };
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

fn env(allow_private: bool) -> HookEnv {
    let vars = if allow_private {
        vec![(OsString::from(ALLOW_PRIVATE_ENV), OsString::from("1"))]
    } else {
        Vec::new()
    };
    HookEnv {
        base: Some(Arc::from(Vec::new())),
        vars,
    }
}

async fn fire(args: &[&str], env: &HookEnv) -> Result<Option<HookOutput>, String> {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let input = HookInput::default();
    let cancel = CancellationToken::new();
    HttpPost
        .call(BuiltinCall {
            event: HookEvent::Stop,
            input: &input,
            args: &args,
            cwd: std::path::Path::new("/"),
            env,
            cancel: &cancel,
            notes: &crate::registry::Notes::default(),
        })
        .await
}

#[tokio::test]
async fn posts_the_body_as_json_when_private_targets_are_allowed() {
    let (addr, seen) = server().await;
    let url = format!("http://{addr}/hook");
    let out = fire(&[&url, r#"{"event":"stop"}"#], &env(true)).await;
    assert_eq!(out, Ok(None));
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "/hook".to_owned(),
            "application/json".to_owned(),
            r#"{"event":"stop"}"#.to_owned()
        )]
    );
}

#[tokio::test]
async fn a_missing_body_posts_an_empty_one_and_error_statuses_are_swallowed() {
    let (addr, seen) = server().await;
    let url = format!("http://{addr}/fail");
    assert_eq!(fire(&[&url], &env(true)).await, Ok(None));
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "/fail".to_owned(),
            "application/json".to_owned(),
            String::new()
        )]
    );
    let status = post(&parse_url(&url).unwrap(), "", true).await;
    assert_eq!(status, Ok(StatusCode::INTERNAL_SERVER_ERROR));
}

#[tokio::test]
async fn loopback_is_refused_by_default_for_literals_and_names() {
    let (addr, seen) = server().await;
    let port = addr.port();
    assert_eq!(
        fire(&[&format!("http://{addr}/hook")], &env(false)).await,
        Ok(None)
    );
    for url in [
        format!("http://127.0.0.1:{port}/a"),
        format!("http://[::1]:{port}/b"),
        format!("http://localhost:{port}/c"),
        format!("http://0.0.0.0:{port}/d"),
        format!("http://2130706433:{port}/e"),
    ] {
        let r = post(&parse_url(&url).unwrap(), "{}", false).await;
        let err = r.unwrap_err();
        assert!(err.contains("refusing"), "{url}: {err}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        Vec::new(),
        "nothing reached the server"
    );
}

#[tokio::test]
async fn redirects_are_followed_up_to_ten_times() {
    let (addr, seen) = server().await;
    let ok = post(
        &parse_url(&format!("http://{addr}/redirect/9")).unwrap(),
        "{}",
        true,
    )
    .await;
    assert_eq!(ok, Ok(StatusCode::OK));
    assert_eq!(seen.lock().unwrap().last().unwrap().0, "/hook");
    seen.lock().unwrap().clear();
    let err = post(
        &parse_url(&format!("http://{addr}/redirect/10")).unwrap(),
        "{}",
        true,
    )
    .await
    .unwrap_err();
    assert!(err.contains("too many redirects"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 11);
}

#[test]
fn a_redirect_to_a_private_literal_is_refused() {
    let target = Url::parse("http://10.0.0.1/x").unwrap();
    assert_eq!(
        check_target(&target, false),
        Err("refusing `http://10.0.0.1/x`: private, loopback and link-local addresses are not allowed".to_owned())
    );
    assert_eq!(check_target(&target, true), Ok(()));
    let public = Url::parse("http://93.184.215.14/x").unwrap();
    assert_eq!(check_target(&public, false), Ok(()));
    let ftp = Url::parse("ftp://example.com/x").unwrap();
    assert_eq!(check_target(&ftp, true), Err(SCHEME_ERROR.to_owned()));
}

#[tokio::test]
async fn only_http_urls_are_accepted_and_an_empty_url_is_a_no_op() {
    for url in [
        "ftp://example.com/x",
        "file:///etc/hosts",
        "not a url",
        "http://",
    ] {
        assert_eq!(
            fire(&[url, "{}"], &env(true)).await,
            Err("http_post: only http(s) URLs are supported".to_owned()),
            "{url}"
        );
    }
    assert_eq!(fire(&[], &env(false)).await, Ok(None));
    assert_eq!(fire(&[""], &env(false)).await, Ok(None));
}

#[test]
fn the_address_rule_covers_private_loopback_and_link_local_ranges() {
    let blocked = [
        "10.1.2.3",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "127.0.0.1",
        "127.8.8.8",
        "169.254.169.254",
        "0.0.0.0",
        "100.64.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "64:ff9b::a9fe:a9fe",
    ];
    let allowed = [
        "8.8.8.8",
        "172.32.0.1",
        "100.128.0.1",
        "93.184.215.14",
        "2606:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ];
    let judge = |ips: &[&str]| -> Vec<bool> {
        ips.iter()
            .map(|s| check_target(&literal_url(s), false).is_err())
            .collect()
    };
    assert_eq!(judge(&blocked), vec![true; blocked.len()]);
    assert_eq!(judge(&allowed), vec![false; allowed.len()]);
}

/// `http://IP/`, an IPv6 address in brackets.
fn literal_url(ip: &str) -> Url {
    let host = match ip.parse::<IpAddr>().unwrap() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    };
    Url::parse(&format!("http://{host}/")).unwrap()
}

#[test]
fn private_addresses_in_ipv6_disguise_and_special_ranges_are_refused() {
    // The web tools' table: IPv4-compatible `::a.b.c.d`, 6to4 carrying a private address,
    // documentation and multicast ranges are refused too, not only private and loopback.
    for url in [
        "http://[::127.0.0.1]/",
        "http://[::a00:1]/",
        "http://[2002:7f00:1::]/",
        "http://[2002:c0a8:101::1]/",
        "http://[2001:db8::1]/",
        "http://[ff02::1]/",
        "http://192.0.2.1/",
        "http://224.0.0.1/",
    ] {
        let target = Url::parse(url).unwrap();
        assert_eq!(
            check_target(&target, false),
            Err(format!(
                "refusing `{target}`: private, loopback and link-local addresses are not allowed"
            )),
            "{url}"
        );
        assert_eq!(check_target(&target, true), Ok(()), "{url}");
    }
    let public = Url::parse("http://[2002:808:808::1]/").unwrap();
    assert_eq!(check_target(&public, false), Ok(()));
}
