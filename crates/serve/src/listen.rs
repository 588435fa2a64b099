//! Where a server listens (`HOST:PORT` or `unix://PATH`), its shutdown, and bearer tokens.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// A listen address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    Tcp(String),
    Unix(PathBuf),
}

impl FromStr for Listen {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(path) = s.strip_prefix("unix://") {
            if path.is_empty() {
                return Err("`unix://` needs a path: `unix:///run/tether.sock`".to_owned());
            }
            return Ok(Self::Unix(PathBuf::from(path)));
        }
        let addr = s.strip_prefix("http://").unwrap_or(s);
        // `:8080` means every interface, as Go's listeners read it.
        let addr = if addr.starts_with(':') {
            format!("0.0.0.0{addr}")
        } else {
            addr.to_owned()
        };
        if addr
            .rsplit_once(':')
            .is_none_or(|(_, port)| port.parse::<u16>().is_err())
        {
            return Err(format!(
                "invalid listen address `{s}`: write HOST:PORT (e.g. 127.0.0.1:8080) or unix://PATH"
            ));
        }
        Ok(Self::Tcp(addr))
    }
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Tcp(a) => f.write_str(a),
            Self::Unix(p) => write!(f, "unix://{}", p.display()),
        }
    }
}

/// Whether only this machine can reach the address (loopback, or a unix socket).
pub fn is_loopback(listen: &Listen) -> bool {
    match listen {
        Listen::Unix(_) => true,
        Listen::Tcp(addr) => {
            let host = addr
                .rsplit_once(':')
                .map_or(addr.as_str(), |(h, _)| h)
                .trim_start_matches('[')
                .trim_end_matches(']');
            host == "localhost"
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
    }
}

/// How long in-flight requests get to finish once shutdown starts.
pub const GRACE: Duration = Duration::from_secs(10);

/// Serves `app` on `listen` until `shutdown` is cancelled, then lets requests in flight finish
/// for up to [`GRACE`]. `bound` hears the address actually bound (port 0 picks one).
pub async fn serve_http(
    listen: &Listen,
    app: axum::Router,
    shutdown: CancellationToken,
    bound: impl FnOnce(&str),
) -> std::io::Result<()> {
    let stop = shutdown.clone();
    match listen {
        Listen::Tcp(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}"))
            })?;
            let local: SocketAddr = listener.local_addr()?;
            bound(&local.to_string());
            let server = axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled().await });
            finish(server.into_future(), shutdown).await
        }
        Listen::Unix(path) => {
            // A socket left by a server that died would make bind fail.
            if std::fs::symlink_metadata(path)
                .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
            {
                let _ = std::fs::remove_file(path);
            }
            let listener = tokio::net::UnixListener::bind(path).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot listen on unix://{}: {e}", path.display()),
                )
            })?;
            bound(&format!("unix://{}", path.display()));
            let server = axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled().await });
            let r = finish(server.into_future(), shutdown).await;
            let _ = std::fs::remove_file(path);
            r
        }
    }
}

/// Waits for the server; once shutdown starts, at most [`GRACE`] more.
async fn finish(
    server: impl std::future::Future<Output = std::io::Result<()>>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    tokio::pin!(server);
    tokio::select! {
        r = &mut server => return r,
        () = shutdown.cancelled() => {}
    }
    match tokio::time::timeout(GRACE, server).await {
        Ok(r) => r,
        Err(_) => Ok(()),
    }
}

/// Cancels `token` on SIGINT or SIGTERM.
pub fn shutdown_signal(token: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        token.cancel();
    });
}

/// Whether an `Authorization` header value carries `Bearer TOKEN`, compared in constant
/// time (the length of the token is all a timing attack can learn).
pub fn bearer_ok(header: Option<&str>, token: &str) -> bool {
    let Some(given) = header.and_then(|h| {
        let (scheme, rest) = h.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    }) else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_parse() {
        assert_eq!(
            "127.0.0.1:8080".parse::<Listen>(),
            Ok(Listen::Tcp("127.0.0.1:8080".to_owned()))
        );
        assert_eq!(
            ":9000".parse::<Listen>(),
            Ok(Listen::Tcp("0.0.0.0:9000".to_owned()))
        );
        assert_eq!(
            "unix:///tmp/t.sock".parse::<Listen>(),
            Ok(Listen::Unix(PathBuf::from("/tmp/t.sock")))
        );
        assert!("localhost".parse::<Listen>().is_err());
        assert!("unix://".parse::<Listen>().is_err());
    }

    #[test]
    fn only_loopback_and_sockets_are_local() {
        for (addr, local) in [
            ("127.0.0.1:1", true),
            ("localhost:1", true),
            ("[::1]:1", true),
            ("0.0.0.0:1", false),
            ("192.168.1.2:1", false),
            ("unix:///tmp/x", true),
        ] {
            assert_eq!(is_loopback(&addr.parse().unwrap()), local, "{addr}");
        }
    }

    #[test]
    fn bearer_tokens_must_match_exactly() {
        assert!(bearer_ok(Some("Bearer s3cret"), "s3cret"));
        assert!(bearer_ok(Some("bearer s3cret"), "s3cret"));
        assert!(!bearer_ok(Some("Bearer s3cre"), "s3cret"));
        assert!(!bearer_ok(Some("Bearer s3creT"), "s3cret"));
        assert!(!bearer_ok(Some("Basic s3cret"), "s3cret"));
        assert!(!bearer_ok(None, "s3cret"));
    }
}
