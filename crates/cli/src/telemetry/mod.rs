//! OpenTelemetry export (feature `otel`): a span per session, turn, model call, tool call and
//! hook run, sent over OTLP/HTTP (protobuf) when `OTEL_EXPORTER_OTLP_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set. Spans carry Tether's `tether.*` attributes and
//! follow the GenAI semantic conventions (`genai.rs`): `invoke_agent {agent}`,
//! `chat {model}`, `execute_tool {tool}`.
//!
//! Why it is shaped this way:
//! - The runtime already reports everything it does to an `EventSink` and every hook run to
//!   `HookObserver`s. A sink that passes events on to the renderer and an observer forward
//!   compact copies over a channel to one task that owns all span state, so the runtime's path
//!   takes no lock and the runtime knows nothing of telemetry.
//! - Spans are rebuilt from the order of events with explicit timestamps
//!   (`spans.rs`) rather than through a live `Tracer`: a tool call's
//!   `pre_tool_use` hooks run before the call is announced, so its span is opened by the first
//!   of them and named when the call's id arrives.
//! - Export goes through the official `opentelemetry-otlp` 0.33 exporter (`http-proto`,
//!   `reqwest-client`), which is built on reqwest 0.13 like the workspace, so it is handed the
//!   workspace's client (`tether_http::client_builder` installs the rustls provider first).
//!   The SDK's `BatchSpanProcessor` is not used: it exports from a plain thread through
//!   `block_on`, where the async reqwest client has no Tokio reactor, and its async-runtime
//!   variant is still experimental. The task batches instead: every 2 s, at 512 spans, and at
//!   exit, where [`shutdown`] waits at most 5 s (or the export timeout, if shorter).
//!
//! Configuration is the standard environment: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as
//! is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended), `OTEL_SERVICE_NAME` (default
//! `tether`), `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT` in milliseconds (default 10 s),
//! `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SDK_DISABLED`.
//! Telemetry never fails a run: a bad setting or an unreachable collector is a warning.

mod events;
mod genai;
mod spans;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SpanData, SpanExporter as _};
use tether_config::HookSpec;
use tether_core::EventSink;
use tether_hooks::{HookObserver, HookRun};
use tether_protocol::{HookEvent, Lane, RuntimeEvent};
use tokio::sync::{mpsc, oneshot};

use self::events::{HookDone, HookKey, Observed};
use self::spans::Tracker;

const TRACES_ENDPOINT: &str = opentelemetry_otlp::OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
const ENDPOINT: &str = opentelemetry_otlp::OTEL_EXPORTER_OTLP_ENDPOINT;
const TRACES_TIMEOUT: &str = opentelemetry_otlp::OTEL_EXPORTER_OTLP_TRACES_TIMEOUT;
const TIMEOUT: &str = opentelemetry_otlp::OTEL_EXPORTER_OTLP_TIMEOUT;

/// How often finished spans are sent while the session runs.
const EXPORT_EVERY: Duration = Duration::from_secs(2);
/// Sent at once when this many spans are waiting.
const MAX_BATCH: usize = 512;
/// The longest exit waits for the last spans.
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// Where and how spans are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    /// The full traces URL.
    pub(crate) endpoint: String,
    pub(crate) service_name: String,
    /// Per export, retries included.
    pub(crate) timeout: Duration,
}

impl Settings {
    /// Reads the settings through `get` (the environment). `Ok(None)`: telemetry is off.
    pub(crate) fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        let var = |key: &str| {
            get(key)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let endpoint = match (var(TRACES_ENDPOINT), var(ENDPOINT)) {
            (Some(url), _) => url,
            (None, Some(base)) => format!("{}/v1/traces", base.trim_end_matches('/')),
            (None, None) => return Ok(None),
        };
        let timeout =
            match [TRACES_TIMEOUT, TIMEOUT]
                .into_iter()
                .find_map(|key| var(key).map(|v| (key, v)))
            {
                Some((key, v)) => Duration::from_millis(v.parse().map_err(|_| {
                    format!("invalid `{key}={v}`: expected a number of milliseconds")
                })?),
                None => opentelemetry_otlp::OTEL_EXPORTER_OTLP_TIMEOUT_DEFAULT,
            };
        Ok(Some(Self {
            endpoint,
            service_name: var("OTEL_SERVICE_NAME").unwrap_or_else(|| "tether".to_owned()),
            timeout,
        }))
    }
}

/// What the export task is told, in the order things happened.
#[derive(Debug)]
enum Msg {
    Event(SystemTime, String, Observed),
    HookStarted(SystemTime, String, HookKey),
    HookFinished(SystemTime, String, HookDone),
    /// Export what is left and stop; the reply says how it went.
    Shutdown(oneshot::Sender<Report>),
}

/// How the exports went.
#[derive(Debug, Default)]
struct Report {
    exported: usize,
    lost: usize,
    last_error: Option<String>,
}

/// The running exporter; hand it to [`shutdown`] at exit.
#[derive(Debug)]
pub(crate) struct Telemetry {
    tx: mpsc::UnboundedSender<Msg>,
    settings: Settings,
}

/// Passes every event on to the renderer, and a copy to the export task.
#[derive(Debug)]
struct TeeSink {
    inner: Arc<dyn EventSink>,
    tx: mpsc::UnboundedSender<Msg>,
}

impl EventSink for TeeSink {
    fn emit(&self, session_id: &str, event: RuntimeEvent) {
        let at = SystemTime::now();
        let observed = Observed::of(&event);
        self.inner.emit(session_id, event);
        if let Some(o) = observed {
            // A closed channel means the exporter already stopped: nothing left to record.
            let _ = self.tx.send(Msg::Event(at, session_id.to_owned(), o));
        }
    }
}

/// Sends hook runs to the export task.
#[derive(Debug)]
struct HookSpans {
    tx: mpsc::UnboundedSender<Msg>,
}

impl HookObserver for HookSpans {
    fn started(&self, event: HookEvent, lane: Lane, session_id: &str, hook: &HookSpec) {
        let key = HookKey {
            event,
            lane,
            name: hook.display_name().to_owned(),
        };
        let _ = self.tx.send(Msg::HookStarted(
            SystemTime::now(),
            session_id.to_owned(),
            key,
        ));
    }

    fn finished(&self, session_id: &str, run: &HookRun) {
        let done = HookDone::of(run);
        let _ = self.tx.send(Msg::HookFinished(
            SystemTime::now(),
            session_id.to_owned(),
            done,
        ));
    }
}

/// What [`install`] gives: the telemetry (for [`shutdown`]), the sink the runtime should use,
/// and the hook observers to add.
pub(crate) type Installed = (
    Option<Telemetry>,
    Arc<dyn EventSink>,
    Vec<Arc<dyn HookObserver>>,
);

/// Starts exporting when the environment asks for it. Off, `sink` comes back as is.
pub(crate) fn install(sink: Arc<dyn EventSink>) -> Installed {
    let settings = match Settings::from_env(|key| std::env::var(key).ok()) {
        Ok(Some(s)) => s,
        Ok(None) => return (None, sink, Vec::new()),
        Err(e) => {
            crate::out::warning(&format!("telemetry is off: {e}"));
            return (None, sink, Vec::new());
        }
    };
    let exporter = match exporter(&settings) {
        Ok(e) => e,
        Err(e) => {
            crate::out::warning(&format!("telemetry is off: {e:#}"));
            return (None, sink, Vec::new());
        }
    };
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(export_loop(rx, exporter, settings.timeout));
    let sink: Arc<dyn EventSink> = Arc::new(TeeSink {
        inner: sink,
        tx: tx.clone(),
    });
    let observer: Arc<dyn HookObserver> = Arc::new(HookSpans { tx: tx.clone() });
    (Some(Telemetry { tx, settings }), sink, vec![observer])
}

fn exporter(settings: &Settings) -> anyhow::Result<opentelemetry_otlp::SpanExporter> {
    let client = tether_http::client_builder()
        .connect_timeout(settings.timeout)
        .build()
        .context("cannot build HTTP client")?;
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(settings.endpoint.clone())
        .with_timeout(settings.timeout)
        .build()?;
    // `builder()` also reads `OTEL_RESOURCE_ATTRIBUTES`; the service name is ours.
    let resource = Resource::builder()
        .with_service_name(settings.service_name.clone())
        .build();
    exporter.set_resource(&resource);
    Ok(exporter)
}

/// Sends the last spans and stops the exporter, waiting a bounded time; reports lost spans.
pub(crate) async fn shutdown(telemetry: Option<Telemetry>) {
    let Some(t) = telemetry else {
        return;
    };
    let (reply, answer) = oneshot::channel();
    if t.tx.send(Msg::Shutdown(reply)).is_err() {
        return;
    }
    let wait = t.settings.timeout.min(EXIT_WAIT);
    match tokio::time::timeout(wait, answer).await {
        Ok(Ok(report)) if report.lost > 0 => crate::out::warning(&format!(
            "telemetry: {} of {} spans could not be sent to `{}`: {}",
            report.lost,
            report.lost + report.exported,
            t.settings.endpoint,
            report.last_error.unwrap_or_default()
        )),
        Ok(_) => {}
        Err(_) => crate::out::warning(&format!(
            "telemetry: gave up sending spans to `{}` after {} ms",
            t.settings.endpoint,
            wait.as_millis()
        )),
    }
}

/// Owns the span state; exports in batches until told to stop.
async fn export_loop(
    mut rx: mpsc::UnboundedReceiver<Msg>,
    exporter: opentelemetry_otlp::SpanExporter,
    timeout: Duration,
) {
    let mut tracker = Tracker::default();
    let mut report = Report::default();
    let mut tick = tokio::time::interval(EXPORT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(Msg::Event(at, session, event)) => tracker.observe(at, &session, event),
                Some(Msg::HookStarted(at, session, key)) => tracker.hook_started(at, &session, key),
                Some(Msg::HookFinished(at, session, done)) => {
                    tracker.hook_finished(at, &session, done);
                }
                Some(Msg::Shutdown(reply)) => {
                    tracker.finish_all(SystemTime::now());
                    export(&exporter, tracker.take(), timeout, &mut report).await;
                    let _ = reply.send(report);
                    return;
                }
                None => return,
            },
            _ = tick.tick() => {
                export(&exporter, tracker.take(), timeout, &mut report).await;
            }
        }
        if tracker.pending() >= MAX_BATCH {
            export(&exporter, tracker.take(), timeout, &mut report).await;
        }
    }
}

async fn export(
    exporter: &opentelemetry_otlp::SpanExporter,
    batch: Vec<SpanData>,
    timeout: Duration,
    report: &mut Report,
) {
    if batch.is_empty() {
        return;
    }
    let n = batch.len();
    // The exporter's own deadline is checked between attempts; a stalled collector is not.
    match tokio::time::timeout(timeout, exporter.export(batch)).await {
        Ok(Ok(())) => report.exported += n,
        Ok(Err(e)) => {
            report.lost += n;
            report.last_error = Some(e.to_string());
        }
        Err(_) => {
            report.lost += n;
            report.last_error = Some(format!("no answer within {} ms", timeout.as_millis()));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use pretty_assertions::assert_eq;

    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Option<Settings>, String> {
        let vars: HashMap<&str, &str> = vars.iter().copied().collect();
        Settings::from_env(|key| vars.get(key).map(|v| (*v).to_owned()))
    }

    fn on(endpoint: &str, service_name: &str, timeout_ms: u64) -> Result<Option<Settings>, String> {
        Ok(Some(Settings {
            endpoint: endpoint.to_owned(),
            service_name: service_name.to_owned(),
            timeout: Duration::from_millis(timeout_ms),
        }))
    }

    #[test]
    fn otel_settings_come_from_the_standard_variables() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
        assert_eq!(
            [
                settings(&[]),
                settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")]),
                settings(&[base]),
                settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/otlp/")]),
                settings(&[
                    base,
                    ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/custom"),
                    ("OTEL_SERVICE_NAME", "agents"),
                    ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
                ]),
                settings(&[
                    base,
                    ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
                    ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "900"),
                ]),
                settings(&[base, ("OTEL_SDK_DISABLED", "TRUE")]),
                settings(&[base, ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "soon")]),
            ],
            [
                Ok(None),
                Ok(None),
                on("http://collector:4318/v1/traces", "tether", 10_000),
                on("http://collector:4318/otlp/v1/traces", "tether", 10_000),
                on("http://traces:4318/custom", "agents", 250),
                on("http://collector:4318/v1/traces", "tether", 900),
                Ok(None),
                Err(
                    "invalid `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=soon`: expected a number of milliseconds"
                        .to_owned()
                ),
            ]
        );
    }
}
