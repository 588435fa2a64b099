//! Replays recorded provider transcripts (go-vcr "cassettes": `interactions[]` with the
//! request and the raw streamed response body and status `code`).
//!
//! The server answers every request with the next recorded response, in order, whatever its
//! path or body: our requests legitimately differ from the recorded ones (tool descriptions,
//! field order), so tests compare *what the client decoded*, and check that it made exactly
//! as many requests as were recorded (`served()` against `len()`). The recorded request URL
//! is exposed so tests can also check the client called the same endpoint.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::oneshot;

/// A parsed cassette.
#[derive(Debug, Clone, Deserialize)]
pub struct Cassette {
    pub interactions: Vec<Interaction>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Interaction {
    pub request: RecordedRequest,
    pub response: RecordedResponse,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordedRequest {
    pub url: String,
    #[serde(default)]
    pub method: String,
    /// The recorded JSON body, as text.
    #[serde(default)]
    pub body: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordedResponse {
    #[serde(default)]
    pub body: String,
    pub code: u16,
}

impl Cassette {
    /// Reads and parses a cassette file.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        serde_saphyr::from_str(&text).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }
}

/// The cassettes copied into this crate (`cassettes/NAME.yaml`).
pub fn cassette_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cassettes")
        .join(format!("{name}.yaml"))
}

#[derive(Debug, Default)]
struct Replay {
    served: usize,
    /// Path and query of each request received.
    paths: Vec<String>,
}

/// A server replaying one cassette.
#[derive(Debug)]
pub struct CassetteServer {
    addr: SocketAddr,
    cassette: Arc<Cassette>,
    replay: Arc<Mutex<Replay>>,
    _shutdown: oneshot::Sender<()>,
}

type AppState = (Arc<Cassette>, Arc<Mutex<Replay>>);

impl CassetteServer {
    /// Loads `path` and serves it on `127.0.0.1:0` on the current tokio runtime.
    pub async fn start(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let (cassette, replay, app) = Self::prepare(path.as_ref())?;
        let (addr, shutdown) = crate::fake_llm::spawn_async(app).await?;
        Ok(Self {
            addr,
            cassette,
            replay,
            _shutdown: shutdown,
        })
    }

    /// Like `start`, from a background thread with its own runtime.
    pub fn start_blocking(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let (cassette, replay, app) = Self::prepare(path.as_ref())?;
        let (addr, shutdown) = crate::fake_llm::spawn_thread(app)?;
        Ok(Self {
            addr,
            cassette,
            replay,
            _shutdown: shutdown,
        })
    }

    fn prepare(path: &Path) -> std::io::Result<(Arc<Cassette>, Arc<Mutex<Replay>>, Router)> {
        let cassette = Arc::new(Cassette::load(path)?);
        let replay = Arc::new(Mutex::new(Replay::default()));
        let app = Router::new()
            .fallback(handle)
            .with_state((cassette.clone(), replay.clone()));
        Ok((cassette, replay, app))
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn cassette(&self) -> &Cassette {
        &self.cassette
    }

    /// Number of recorded interactions.
    pub fn len(&self) -> usize {
        self.cassette.interactions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cassette.interactions.is_empty()
    }

    /// How many recorded responses were served.
    pub fn served(&self) -> usize {
        self.lock().served
    }

    /// Path and query of every request received (including ones past the end).
    pub fn request_paths(&self) -> Vec<String> {
        self.lock().paths.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Replay> {
        self.replay.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn handle(State((cassette, replay)): State<AppState>, req: Request) -> Response {
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), ToString::to_string);
    let next = {
        let mut r = replay.lock().unwrap_or_else(PoisonError::into_inner);
        r.paths.push(path);
        let i = r.paths.len() - 1;
        let hit = cassette.interactions.get(i).map(|x| x.response.clone());
        if hit.is_some() {
            r.served += 1;
        }
        hit
    };
    let (status, body, content_type) = match next {
        Some(resp) => {
            let ct = if resp.code == 200 { "text/event-stream" } else { "application/json" };
            (resp.code, resp.body, ct)
        }
        None => (
            400,
            r#"{"error":{"message":"cassette exhausted: more requests than recorded interactions"}}"#
                .to_owned(),
            "application/json",
        ),
    };
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}
