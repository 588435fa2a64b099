//! A scripted fake LLM server for tests: axum on `127.0.0.1:0`, speaking OpenAI Chat
//! Completions, OpenAI Responses, Anthropic Messages and Gemini streaming, with the real SSE
//! event shapes (copied from the recorded cassettes).
//!
//! Turns are queued with `push` and served in order, one per model request, whichever dialect
//! asks (the dialect is chosen by the request path). Every request is captured (method, path,
//! headers, JSON body) so tests assert on what reached the model. Errors are injected per
//! turn: an HTTP error answer, a stream cut after N events, a stall before the answer or after
//! N events. With no turn left the server answers 400 with a clear message (not retryable, so
//! a test fails fast instead of spinning in retries).
//!
//! `start` runs on the caller's tokio runtime; `start_blocking` runs in a background thread
//! with its own runtime, for tests that drive a real binary through `OPENAI_BASE_URL` etc.

mod render;

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};
use tether_protocol::chat::Usage;
use tokio::sync::oneshot;

/// A streaming dialect, chosen by request path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `POST …/chat/completions`
    OpenAiChat,
    /// `POST …/responses`
    OpenAiResponses,
    /// `POST …/v1/messages`
    Anthropic,
    /// `POST …/models/{model}:streamGenerateContent?alt=sse`
    Gemini,
}

impl Dialect {
    fn from_path(path: &str) -> Option<Self> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/chat/completions") {
            Some(Self::OpenAiChat)
        } else if path.ends_with("/responses") {
            Some(Self::OpenAiResponses)
        } else if path.ends_with("/messages") {
            Some(Self::Anthropic)
        } else if path.ends_with(":streamGenerateContent") {
            Some(Self::Gemini)
        } else {
            None
        }
    }
}

/// One piece of a scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Reasoning(String),
    /// `id: None` lets the server number it (`call_fake_N`; Gemini sends no id at all).
    ToolCall {
        id: Option<String>,
        name: String,
        arguments: Value,
    },
    /// A generated image (Gemini `inlineData`; the other dialects send nothing for it).
    Image {
        mime_type: String,
        base64: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Fault {
    None,
    CutAfter(usize),
    StallAfter(usize),
    StallBeforeAnswer,
}

/// One scripted model answer (or failure).
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    parts: Vec<Part>,
    usage: Usage,
    fault: Fault,
    error: Option<(u16, String)>,
    headers: Vec<(String, String)>,
}

impl Turn {
    fn with_parts(parts: Vec<Part>) -> Self {
        Self {
            parts,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Usage::default()
            },
            fault: Fault::None,
            error: None,
            headers: Vec::new(),
        }
    }

    /// A text answer (streamed in several deltas).
    pub fn text(text: impl Into<String>) -> Self {
        Self::with_parts(vec![Part::Text(text.into())])
    }

    /// Reasoning first (Anthropic thinking with signature `sig_fake`, Gemini thought parts,
    /// Responses reasoning summaries, `reasoning_content` for Chat).
    pub fn reasoning(text: impl Into<String>) -> Self {
        Self::with_parts(vec![Part::Reasoning(text.into())])
    }

    /// A tool call whose JSON arguments stream in several fragments.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::with_parts(Vec::new()).and_tool_call(name, arguments)
    }

    /// Adds a generated image (`base64`: its bytes, base64-encoded).
    pub fn and_image(mut self, mime_type: impl Into<String>, base64: impl Into<String>) -> Self {
        self.parts.push(Part::Image {
            mime_type: mime_type.into(),
            base64: base64.into(),
        });
        self
    }

    /// An HTTP error answer with a JSON (or plain) body.
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        let mut t = Self::with_parts(Vec::new());
        t.error = Some((status, body.into()));
        t
    }

    /// HTTP 429 with `retry-after: SECS`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::error(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#,
        )
        .with_header("retry-after", retry_after_secs.to_string())
    }

    /// Never answers (not even headers): exercises the client's idle timeout.
    pub fn stall() -> Self {
        let mut t = Self::with_parts(Vec::new());
        t.fault = Fault::StallBeforeAnswer;
        t
    }

    pub fn and_text(mut self, text: impl Into<String>) -> Self {
        self.parts.push(Part::Text(text.into()));
        self
    }

    pub fn and_reasoning(mut self, text: impl Into<String>) -> Self {
        self.parts.push(Part::Reasoning(text.into()));
        self
    }

    pub fn and_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.parts.push(Part::ToolCall {
            id: None,
            name: name.into(),
            arguments,
        });
        self
    }

    /// Gives the last tool call an explicit id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        if let Some(Part::ToolCall { id: slot, .. }) = self
            .parts
            .iter_mut()
            .rev()
            .find(|p| matches!(p, Part::ToolCall { .. }))
        {
            *slot = Some(id.into());
        }
        self
    }

    /// Usage reported at the end (default: 10 input, 5 output tokens).
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends the first `n` SSE events, then breaks the connection.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.fault = Fault::CutAfter(n);
        self
    }

    /// Sends the first `n` SSE events, then goes silent with the connection open.
    pub fn stall_after(mut self, n: usize) -> Self {
        self.fault = Fault::StallAfter(n);
        self
    }
}

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedRequest {
    pub method: String,
    /// Path and query, e.g. `/v1beta/models/m:streamGenerateContent?alt=sse`.
    pub path: String,
    /// Lowercased names.
    pub headers: BTreeMap<String, String>,
    /// The JSON body (`Value::Null` when it was not JSON).
    pub body: Value,
}

impl CapturedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

#[derive(Debug, Default)]
struct Shared {
    turns: VecDeque<Turn>,
    requests: Vec<CapturedRequest>,
    calls_numbered: usize,
}

type SharedState = Arc<Mutex<Shared>>;

fn lock(state: &SharedState) -> std::sync::MutexGuard<'_, Shared> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The running server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeLlm {
    addr: SocketAddr,
    state: SharedState,
    _shutdown: oneshot::Sender<()>,
}

impl FakeLlm {
    /// Starts on the current tokio runtime.
    pub async fn start() -> std::io::Result<Self> {
        let state = SharedState::default();
        let (addr, shutdown) = spawn_async(app(state.clone())).await?;
        Ok(Self {
            addr,
            state,
            _shutdown: shutdown,
        })
    }

    /// Starts in a background thread with its own runtime (for sync tests and binaries).
    pub fn start_blocking() -> std::io::Result<Self> {
        let state = SharedState::default();
        let (addr, shutdown) = spawn_thread(app(state.clone()))?;
        Ok(Self {
            addr,
            state,
            _shutdown: shutdown,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL as each vendor SDK expects it: with `/v1` for OpenAI, without for
    /// Anthropic and Gemini (docs/cli.md).
    pub fn base_url_for(&self, dialect: Dialect) -> String {
        match dialect {
            Dialect::OpenAiChat | Dialect::OpenAiResponses => format!("{}/v1", self.base_url()),
            Dialect::Anthropic | Dialect::Gemini => self.base_url(),
        }
    }

    /// Queues the answer to a future request.
    pub fn push(&self, turn: Turn) -> &Self {
        lock(&self.state).turns.push_back(turn);
        self
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<CapturedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Turns not served yet.
    pub fn remaining_turns(&self) -> usize {
        lock(&self.state).turns.len()
    }
}

fn app(state: SharedState) -> Router {
    Router::new().fallback(handle).with_state(state)
}

/// Serves `app` on `127.0.0.1:0` on the current runtime until the sender is dropped.
pub(crate) async fn spawn_async(app: Router) -> std::io::Result<(SocketAddr, oneshot::Sender<()>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel();
    tokio::spawn(serve(listener, app, rx));
    Ok((addr, tx))
}

/// Serves `app` on `127.0.0.1:0` from a background thread with its own runtime; the thread
/// ends (and its connections with it) when the sender is dropped.
pub(crate) fn spawn_thread(app: Router) -> std::io::Result<(SocketAddr, oneshot::Sender<()>)> {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    std_listener.set_nonblocking(true)?;
    let addr = std_listener.local_addr()?;
    let (tx, rx) = oneshot::channel();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("fake-llm".into())
        .spawn(move || {
            rt.block_on(async move {
                if let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) {
                    serve(listener, app, rx).await;
                }
            });
        })?;
    Ok((addr, tx))
}

async fn serve(listener: tokio::net::TcpListener, app: Router, stop: oneshot::Receiver<()>) {
    tokio::select! {
        _ = axum::serve(listener, app) => {}
        _ = stop => {}
    }
}

async fn handle(State(state): State<SharedState>, req: Request) -> Response {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), ToString::to_string);
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let bytes = axum::body::to_bytes(req.into_body(), 64 * 1024 * 1024)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| gemini_model(&path))
        .unwrap_or_else(|| "fake-model".to_owned());
    let dialect = Dialect::from_path(&path);
    let (turn, number, first_call) = {
        let mut s = lock(&state);
        s.requests.push(CapturedRequest {
            method,
            path,
            headers,
            body,
        });
        let number = s.requests.len();
        let turn = if dialect.is_some() {
            s.turns.pop_front()
        } else {
            None
        };
        let first_call = s.calls_numbered;
        if let Some(t) = &turn {
            s.calls_numbered += t
                .parts
                .iter()
                .filter(|p| matches!(p, Part::ToolCall { .. }))
                .count();
        }
        (turn, number, first_call)
    };
    let Some(dialect) = dialect else {
        return json_response(404, r#"{"error":{"message":"fake llm: unknown endpoint"}}"#);
    };
    let Some(turn) = turn else {
        return json_response(
            400,
            r#"{"error":{"message":"fake llm: no scripted turn left","type":"invalid_request_error"}}"#,
        );
    };
    if turn.fault == Fault::StallBeforeAnswer {
        futures::future::pending::<()>().await;
    }
    if let Some((status, body)) = &turn.error {
        let mut resp = json_response(*status, body);
        add_headers(&mut resp, &turn.headers);
        return resp;
    }
    let ctx = render::Ctx {
        model: &model,
        number,
        first_call,
    };
    let frames = render::frames(dialect, &turn, &ctx);
    let mut resp = sse_response(frames, turn.fault.clone());
    add_headers(&mut resp, &turn.headers);
    resp
}

fn gemini_model(path: &str) -> Option<String> {
    let rest = path.split("/models/").nth(1)?;
    Some(rest.split(':').next()?.to_owned())
}

fn add_headers(resp: &mut Response, headers: &[(String, String)]) {
    for (k, v) in headers {
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            resp.headers_mut().insert(name, value);
        }
    }
}

fn json_response(status: u16, body: &str) -> Response {
    let mut resp = Response::new(Body::from(body.to_owned()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A streamed SSE body, cut or stalled as the fault says.
fn sse_response(frames: Vec<String>, fault: Fault) -> Response {
    let limit = match fault {
        Fault::CutAfter(n) | Fault::StallAfter(n) => n.min(frames.len()),
        Fault::None | Fault::StallBeforeAnswer => frames.len(),
    };
    let sent = futures::stream::iter(
        frames
            .into_iter()
            .take(limit)
            .map(|f| Ok::<_, std::io::Error>(Bytes::from(f))),
    );
    let tail: futures::stream::BoxStream<'static, Result<Bytes, std::io::Error>> = match fault {
        // Pause first so hyper flushes what was sent: an abort drops unflushed bytes.
        Fault::CutAfter(_) => Box::pin(futures::stream::once(async {
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
            Err(std::io::Error::other("fake llm: stream cut"))
        })),
        Fault::StallAfter(_) => Box::pin(futures::stream::pending()),
        Fault::None | Fault::StallBeforeAnswer => Box::pin(futures::stream::empty()),
    };
    let mut resp = Response::new(Body::from_stream(futures::StreamExt::chain(sent, tail)));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    resp
}

/// The JSON of a usage block the way OpenAI Chat reports it (prompt tokens include cached).
pub(crate) fn openai_usage(u: &Usage) -> Value {
    json!({
        "prompt_tokens": u.input_tokens + u.cached_input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.cached_input_tokens + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_input_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens.unwrap_or(0), "audio_tokens": 0},
    })
}
