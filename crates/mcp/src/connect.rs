//! Connecting to one server over its transport and running `initialize`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tether_config::{McpTransport, RemoteTransport};
use tether_exec::{Service, ServiceSpec, StderrLog};
use tokio::io::{AsyncRead, ReadBuf};

use crate::gateway;
use crate::handler::Handler;
use crate::{Lookup, expand};

/// The largest message a stdio server may send (as rmcp's HTTP transport allows).
pub(crate) const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// A live connection.
#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) service: RunningService<RoleClient, Handler>,
    /// The process behind a stdio or gateway connection.
    pub(crate) child: Option<Service>,
    /// Files that live as long as the connection (the gateway's secrets and config).
    pub(crate) temp_files: Vec<PathBuf>,
    /// Why the connection broke, when we broke it (an oversized message).
    pub(crate) broken: Arc<Mutex<Option<String>>>,
}

impl Connection {
    /// Whether calls can still be sent.
    pub(crate) fn is_alive(&mut self) -> bool {
        !self.service.is_closed()
            && !self.service.peer().is_transport_closed()
            && self.child.as_mut().is_none_or(|c| c.try_exit().is_none())
    }

    /// Why the connection is gone: the oversized message, the exit status, the stderr tail.
    /// A process whose pipe just closed gets a moment to exit, so its status can be told.
    pub(crate) async fn death(&mut self) -> String {
        if let Some(why) = self
            .broken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return why;
        }
        let Some(child) = self.child.as_mut() else {
            return "the connection closed".to_owned();
        };
        let exit = match child.try_exit() {
            Some(s) => Some(s),
            None => tokio::time::timeout(EXIT_WAIT, child.wait())
                .await
                .ok()
                .flatten(),
        };
        if exit.is_some() {
            child.stderr_done(EXIT_WAIT).await;
        }
        let status = exit.map_or_else(|| "closed the connection".to_owned(), describe_exit);
        with_tail(&format!("the server {status}"), &child.stderr_tail())
    }

    /// Closes the connection and stops its process (stdin is closed first).
    pub(crate) async fn close(mut self, grace: std::time::Duration) {
        let _ = tokio::time::timeout(grace, self.service.close()).await;
        if let Some(child) = self.child.take() {
            child.stop(grace).await;
        }
        for f in &self.temp_files {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// How long a process whose connection closed may take to exit before it is reported as
/// having closed the connection (a crash's exit status is worth the wait).
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

pub(crate) fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        (None, None) => "exited".to_owned(),
    }
}

/// `text`, then the stderr tail on its own lines when there is one.
pub(crate) fn with_tail(text: &str, tail: &str) -> String {
    if tail.trim().is_empty() {
        text.to_owned()
    } else {
        format!("{text}; its stderr ends with:\n{tail}")
    }
}

/// Everything a connection needs besides the transport.
pub(crate) struct ConnectContext<'a> {
    /// Relative `working_dir`s and commands resolve here.
    pub(crate) working_dir: &'a Path,
    pub(crate) lookup: &'a dyn Lookup,
    pub(crate) stderr: StderrLog,
    pub(crate) handler: Handler,
    /// Where the Docker catalog is cached.
    pub(crate) cache_dir: Option<&'a Path>,
}

/// Connects and initializes. The error is one line naming what failed.
pub(crate) async fn connect(
    transport: &McpTransport,
    ctx: ConnectContext<'_>,
) -> Result<Connection, String> {
    match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            working_dir,
            version,
        } => {
            let mut spec = stdio_spec(command, args, env, working_dir.as_deref(), &ctx)?;
            check_program(&mut spec, version.as_deref(), ctx.lookup)?;
            stdio(spec, ctx, Vec::new()).await
        }
        McpTransport::Remote {
            url,
            transport,
            headers,
        } => {
            let url = expand(url, ctx.lookup, false).map_err(|e| format!("url: {e}"))?;
            let mut expanded = Vec::new();
            for (k, v) in headers {
                let v = expand(v, ctx.lookup, false).map_err(|e| format!("header `{k}`: {e}"))?;
                expanded.push((k.clone(), v));
            }
            remote(&url, *transport, &expanded, ctx).await
        }
        McpTransport::Gateway {
            server,
            config,
            env,
            working_dir,
        } => match gateway::prepare(server, config.as_ref(), env, ctx.lookup, ctx.cache_dir).await?
        {
            gateway::Launch::Remote { url, transport } => remote(&url, transport, &[], ctx).await,
            gateway::Launch::Process {
                args,
                env,
                temp_files,
            } => {
                let spec = stdio_spec("docker", &args, &env, working_dir.as_deref(), &ctx);
                match spec {
                    Ok(spec) => stdio(spec, ctx, temp_files).await,
                    Err(e) => {
                        for f in &temp_files {
                            let _ = std::fs::remove_file(f);
                        }
                        Err(e)
                    }
                }
            }
        },
    }
}

fn stdio_spec(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    working_dir: Option<&str>,
    ctx: &ConnectContext<'_>,
) -> Result<ServiceSpec, String> {
    let mut vars = Vec::with_capacity(env.len());
    for (k, v) in env {
        let v = expand(v, ctx.lookup, true).map_err(|e| format!("env `{k}`: {e}"))?;
        vars.push((OsString::from(k), OsString::from(v)));
    }
    let cwd = match working_dir {
        Some(w) => {
            let w = expand(w, ctx.lookup, true).map_err(|e| format!("working_dir: {e}"))?;
            ctx.working_dir.join(w)
        }
        None => ctx.working_dir.to_path_buf(),
    };
    Ok(ServiceSpec {
        program: OsString::from(command),
        args: args.iter().map(OsString::from).collect(),
        base_env: None,
        env: vars,
        cwd,
        stderr: ctx.stderr.clone(),
        direct: None,
        sandbox: None,
    })
}

/// A bare command must be on the `PATH` the server gets; the error says how to get it.
fn check_program(
    spec: &mut ServiceSpec,
    version: Option<&str>,
    lookup: &dyn Lookup,
) -> Result<(), String> {
    let program = spec.program.to_string_lossy().into_owned();
    if program.contains('/') {
        return Ok(());
    }
    let path = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.to_string_lossy().into_owned())
        .or_else(|| lookup.var("PATH"))
        .unwrap_or_default();
    match tether_exec::find_in_path(&program, &path) {
        Some(found) => {
            spec.program = found.into_os_string();
            Ok(())
        }
        None => {
            let install = match version.map(str::trim) {
                Some(v) if !v.is_empty() && v != "false" && v != "off" => format!(
                    "; docker-agent would install the `{v}` package for it, Tether does not install programs: install it and make sure it is on PATH"
                ),
                _ => "; install it and make sure it is on PATH".to_owned(),
            };
            Err(format!("`{program}` not found on PATH{install}"))
        }
    }
}

async fn stdio(
    spec: ServiceSpec,
    ctx: ConnectContext<'_>,
    temp_files: Vec<PathBuf>,
) -> Result<Connection, String> {
    let (mut child, stdin, stdout) = match Service::spawn(&spec) {
        Ok(s) => s,
        Err(e) => {
            for f in &temp_files {
                let _ = std::fs::remove_file(f);
            }
            return Err(e);
        }
    };
    let broken = Arc::new(Mutex::new(None));
    let reader = CappedLines {
        inner: stdout,
        since_newline: 0,
        broken: Arc::clone(&broken),
    };
    let transport = AsyncRwTransport::new_client(reader, stdin).with_max_line_length(usize::MAX);
    match rmcp::serve_client(ctx.handler, transport).await {
        Ok(service) => Ok(Connection {
            service,
            child: Some(child),
            temp_files,
            broken,
        }),
        Err(e) => {
            // Give a dying server a moment so its exit status and last words are known.
            let _ = tokio::time::timeout(std::time::Duration::from_millis(300), child.wait()).await;
            let what = match child.try_exit() {
                Some(status) => {
                    child.stderr_done(EXIT_WAIT).await;
                    format!("the server {}", describe_exit(status))
                }
                None => init_error(&e),
            };
            let message = with_tail(&what, &child.stderr_tail());
            child.stop(std::time::Duration::from_millis(200)).await;
            for f in &temp_files {
                let _ = std::fs::remove_file(f);
            }
            Err(message)
        }
    }
}

fn init_error(e: &rmcp::service::ClientInitializeError) -> String {
    if e.is_authorization_required() {
        return "the server requires authorization (HTTP 401): Tether has no OAuth flow yet; pass a token with `remote.headers: {Authorization: \"Bearer ${env.TOKEN}\"}`".to_owned();
    }
    format!("initialize failed: {e}")
}

async fn remote(
    url: &str,
    transport: RemoteTransport,
    headers: &[(String, String)],
    ctx: ConnectContext<'_>,
) -> Result<Connection, String> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("invalid header name `{k}`"))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| format!("header `{k}` has a value that cannot be sent"))?;
        map.append(name, value);
    }
    let client = http_client()?;
    let served = match transport {
        RemoteTransport::Streamable => {
            let custom: HashMap<HeaderName, HeaderValue> =
                map.into_iter().filter_map(|(k, v)| Some((k?, v))).collect();
            let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            rmcp::serve_client(ctx.handler, transport).await
        }
        RemoteTransport::Sse => {
            let transport = crate::sse::connect(client, url, map).await?;
            rmcp::serve_client(ctx.handler, transport).await
        }
    };
    match served {
        Ok(service) => Ok(Connection {
            service,
            child: None,
            temp_files: Vec::new(),
            broken: Arc::new(Mutex::new(None)),
        }),
        Err(e) => Err(init_error(&e)),
    }
}

/// The HTTP client of remote servers: no idle pool (a reused half-read connection stalls on
/// delayed ACKs), same-origin 307/308 redirects only (they keep the POST body and do not
/// send our headers elsewhere).
fn http_client() -> Result<reqwest::Client, String> {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_body = matches!(attempt.status().as_u16(), 307 | 308);
        if attempt.previous().len() > 10 || !same_origin || !keeps_body {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    tether_http::client_builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// An HTTP error status with the start of its body.
pub(crate) async fn status_error(
    status: reqwest::StatusCode,
    response: reqwest::Response,
) -> String {
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return "the server requires authorization (HTTP 401): Tether has no OAuth flow yet; pass a token with `remote.headers: {Authorization: \"Bearer ${env.TOKEN}\"}`".to_owned();
    }
    let body = response.text().await.unwrap_or_default();
    let body: String = body.trim().chars().take(200).collect();
    if body.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {body}")
    }
}

/// A stdio server's stdout, cut off (as an I/O error, which ends the connection) when one
/// message grows past [`MAX_MESSAGE`]: memory stays bounded whatever the server prints.
struct CappedLines<R> {
    inner: R,
    since_newline: usize,
    broken: Arc<Mutex<Option<String>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for CappedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let new = &buf.filled()[before..];
                this.since_newline = match new.iter().rposition(|&b| b == b'\n') {
                    Some(i) => new.len() - i - 1,
                    None => this.since_newline + new.len(),
                };
                if this.since_newline > MAX_MESSAGE {
                    let why = format!(
                        "the server sent a message larger than {} MiB; the connection was closed",
                        MAX_MESSAGE / (1024 * 1024)
                    );
                    *this.broken.lock().unwrap_or_else(PoisonError::into_inner) = Some(why.clone());
                    return Poll::Ready(Err(std::io::Error::other(why)));
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}
