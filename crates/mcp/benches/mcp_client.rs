//! MCP client overhead over stdio, against the Python SDK test server
//! (`crates/test-support/mcp/test_server.py`) and, to see Tether's part without the SDK's
//! costs, a light server (the same `echo` tool in a plain Python loop, no SDK: starts in
//! about 10 ms):
//!
//! 1. per call: 1,000 calls of the `echo` tool through a minimal hand-written JSON-RPC client
//!    (newline-delimited JSON on the child's stdin/stdout) and through `tether_mcp::McpServer`
//!    (the tool from `tools()`, called as the agent loop calls it); the server's own cost is in
//!    both, so the difference is Tether's. Goal: ≤ 0.3 ms per call.
//! 2. session start: 5 `McpServer`s started concurrently (`join_all` of `start()`) next to the
//!    slowest one started alone (max over the servers of the median of its own starts). Goal:
//!    ≤ that + 50 ms. The same 5 servers started concurrently by the bare client (spawn,
//!    `initialize`, `tools/list`) are shown as the machine's floor: on few cores 5 SDK
//!    start-ups (about 0.5 s of CPU each) compete for the CPU whoever starts them.
//!
//! Run: `cargo bench -p tether-mcp --bench mcp_client` (about 40 s; prints the summary lines
//! `scripts/bench.sh` reads). Exits non-zero only when something fails, not on a missed goal.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    reason = "a bench binary"
)]

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::{Map, Value, json};
use tether_config::{Lifecycle, McpServer as ServerConfig, McpTransport};
use tether_mcp::{McpContext, McpServer, NoUser, ProcessEnv};
use tether_test_support::mcp as servers;
use tether_tools::{Tool, ToolContext};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

/// Timed calls per pass (two passes per client).
const CALLS: usize = 1000;
/// Untimed calls first (the server's first calls are slower).
const WARMUP: usize = 50;
/// Servers in a session.
const SERVERS: usize = 5;
/// Starts of each server alone, and rounds of concurrent starts.
const ROUNDS: usize = 3;

/// The version the SDK server settles on with Tether's client (rmcp asks for 2026-07-28, the
/// server answers with this one); the bare client asks for it directly.
const PROTOCOL: &str = "2025-11-25";

/// The light server: `echo` in a plain loop over stdin (`python -I -S -c LIGHT`).
const LIGHT: &str = r#"
import json, sys
ECHO = {"name": "echo", "description": "Return the given text unchanged.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
while True:
    line = sys.stdin.readline()
    if not line:
        break
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        answer = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                             "serverInfo": {"name": "light", "version": "0"}}}
    elif method == "tools/list":
        answer = {"result": {"tools": [ECHO]}}
    elif method == "tools/call":
        text = msg["params"]["arguments"]["text"]
        answer = {"result": {"content": [{"type": "text", "text": text}]}}
    elif method == "ping":
        answer = {"result": {}}
    else:
        answer = {"error": {"code": -32601, "message": "method not found"}}
    answer.update(jsonrpc="2.0", id=msg["id"])
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"#;

/// Which server.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `test_server.py` on the official SDK.
    Sdk,
    /// [`LIGHT`].
    Light,
}

impl Kind {
    fn args(self) -> Vec<String> {
        match self {
            Self::Sdk => vec![servers::test_server().display().to_string()],
            Self::Light => vec!["-I".into(), "-S".into(), "-c".into(), LIGHT.into()],
        }
    }
}

// --- the bare JSON-RPC client ------------------------------------------------------------

struct Raw {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Raw {
    /// Spawns the server (no handshake yet).
    fn spawn(kind: Kind, dir: &Path) -> Self {
        #[expect(
            clippy::disallowed_methods,
            reason = "the bare client spawns the server itself"
        )]
        let mut child = tokio::process::Command::new(servers::python())
            .args(kind.args())
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// One request and its answer's `result` (notifications in between are skipped).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = self
                .stdout
                .next_line()
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("the server closed stdout during `{method}`"));
            let mut answer: Value = serde_json::from_str(&line).unwrap();
            if answer.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if let Some(e) = answer.get("error") {
                panic!("`{method}` failed: {e}");
            }
            return answer.get_mut("result").map(Value::take).unwrap();
        }
    }

    /// `initialize`, `notifications/initialized`.
    async fn handshake(&mut self) {
        self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "bench", "version": "0"},
            }),
        )
        .await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// The same bytes Tether's client sends for the call (rmcp adds a progress token), so the
    /// server does the same work for both.
    async fn echo(&mut self) {
        let token = self.next_id;
        let result = self
            .request(
                "tools/call",
                json!({"_meta": {"progressToken": token}, "name": "echo", "arguments": {"text": "x"}}),
            )
            .await;
        assert_eq!(result["content"][0]["text"], "x", "{result}");
    }

    async fn close(mut self) {
        drop(self.stdin);
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

// --- Tether's client ---------------------------------------------------------------------

fn tether_server(kind: Kind, dir: &Path) -> McpServer {
    let cfg = ServerConfig {
        label: None,
        transport: McpTransport::Stdio {
            command: servers::python().display().to_string(),
            args: kind.args(),
            env: Vec::new(),
            working_dir: None,
            version: None,
        },
        lifecycle: Lifecycle::default(),
    };
    let ctx = McpContext {
        working_dir: dir.to_path_buf(),
        log_dir: Some(dir.join("logs")),
        cache_dir: None,
        host: Arc::new(NoUser),
        lookup: Arc::new(ProcessEnv),
    };
    McpServer::new(cfg, None, ctx)
}

async fn tether_echo(tool: &dyn Tool, args: &Map<String, Value>, cancel: &CancellationToken) {
    let ctx = ToolContext {
        working_dir: Path::new("/"),
        cancel,
        env: &[],
        progress: None,
    };
    let result = tool.call(args, ctx).await;
    assert!(!result.is_error, "{result:?}");
}

// --- measuring -----------------------------------------------------------------------------

struct Stats {
    mean: Duration,
    p50: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort_unstable();
    let n = u32::try_from(samples.len()).unwrap().max(1);
    Stats {
        mean: samples.iter().sum::<Duration>() / n,
        p50: samples.get(samples.len() / 2).copied().unwrap_or_default(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn raw_calls(kind: Kind, dir: &Path) -> Vec<Duration> {
    let mut raw = Raw::spawn(kind, dir);
    raw.handshake().await;
    for _ in 0..WARMUP {
        raw.echo().await;
    }
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let start = Instant::now();
        raw.echo().await;
        samples.push(start.elapsed());
    }
    raw.close().await;
    samples
}

async fn tether_calls(kind: Kind, dir: &Path) -> Vec<Duration> {
    let server = tether_server(kind, dir);
    server.start().await.unwrap();
    let tools = server.tools();
    let echo = tools
        .iter()
        .find(|t| t.definition().name == "echo")
        .unwrap();
    let args: Map<String, Value> = [("text".to_owned(), json!("x"))].into_iter().collect();
    let cancel = CancellationToken::new();
    for _ in 0..WARMUP {
        tether_echo(echo.as_ref(), &args, &cancel).await;
    }
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let start = Instant::now();
        tether_echo(echo.as_ref(), &args, &cancel).await;
        samples.push(start.elapsed());
    }
    server.stop().await;
    samples
}

/// Starts `SERVERS` servers through Tether at once; the time until all are ready.
async fn tether_start_all(kind: Kind, dir: &Path) -> Duration {
    let servers: Vec<McpServer> = (0..SERVERS).map(|_| tether_server(kind, dir)).collect();
    let start = Instant::now();
    for r in join_all(servers.iter().map(McpServer::start)).await {
        r.unwrap();
    }
    let took = start.elapsed();
    join_all(servers.iter().map(McpServer::stop)).await;
    took
}

/// One server started through Tether alone.
async fn tether_start_one(kind: Kind, dir: &Path) -> Duration {
    let server = tether_server(kind, dir);
    let start = Instant::now();
    server.start().await.unwrap();
    let took = start.elapsed();
    server.stop().await;
    took
}

/// The floor: `SERVERS` servers started at once by the bare client (spawn, handshake, list).
async fn raw_start_all(kind: Kind, dir: &Path) -> Duration {
    let start = Instant::now();
    let clients = join_all((0..SERVERS).map(|_| async {
        let mut raw = Raw::spawn(kind, dir);
        raw.handshake().await;
        raw.request("tools/list", json!({})).await;
        raw
    }))
    .await;
    let took = start.elapsed();
    join_all(clients.into_iter().map(Raw::close)).await;
    took
}

/// Per call: two passes of each client, alternating, so drift hits both.
fn calls(rt: &Runtime, kind: Kind, dir: &Path) -> (Stats, Stats) {
    let mut raw = Vec::new();
    let mut tether = Vec::new();
    for _ in 0..2 {
        raw.extend(rt.block_on(raw_calls(kind, dir)));
        tether.extend(rt.block_on(tether_calls(kind, dir)));
    }
    (stats(raw), stats(tether))
}

struct Starts {
    /// Each server's median start alone.
    singles: Vec<Duration>,
    slowest: Duration,
    concurrent: Duration,
    floor: Duration,
}

fn starts(rt: &Runtime, kind: Kind, dir: &Path) -> Starts {
    let singles: Vec<Duration> = (0..SERVERS)
        .map(|_| {
            let own = (0..ROUNDS)
                .map(|_| rt.block_on(tether_start_one(kind, dir)))
                .collect();
            stats(own).p50
        })
        .collect();
    let rounds = |f: &dyn Fn() -> Duration| stats((0..ROUNDS).map(|_| f()).collect()).p50;
    Starts {
        slowest: singles.iter().copied().max().unwrap_or_default(),
        singles,
        concurrent: rounds(&|| rt.block_on(tether_start_all(kind, dir))),
        floor: rounds(&|| rt.block_on(raw_start_all(kind, dir))),
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Installs the Python SDK on first use.
    let _ = servers::python();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();

    // 1. Per call.
    let (raw, tether) = calls(&rt, Kind::Sdk, dir);
    let (light_raw, light_tether) = calls(&rt, Kind::Light, dir);
    println!(
        "mcp call mean: raw {:.3} ms, tether {:.3} ms, overhead {:.3} ms/call",
        ms(raw.mean),
        ms(tether.mean),
        ms(tether.mean) - ms(raw.mean)
    );
    println!(
        "mcp call overhead, light server: raw p50 {:.3} ms, tether p50 {:.3} ms, overhead {:.3} ms/call; means {:.3} vs {:.3} ms",
        ms(light_raw.p50),
        ms(light_tether.p50),
        ms(light_tether.p50) - ms(light_raw.p50),
        ms(light_raw.mean),
        ms(light_tether.mean),
    );
    println!(
        "mcp call overhead: raw p50 {:.3} ms, tether p50 {:.3} ms, overhead {:.3} ms/call (goal <= 0.3)",
        ms(raw.p50),
        ms(tether.p50),
        ms(tether.p50) - ms(raw.p50)
    );

    // 2. Session start.
    let light = starts(&rt, Kind::Light, dir);
    let sdk = starts(&rt, Kind::Sdk, dir);
    let list = |s: &Starts| {
        s.singles
            .iter()
            .map(|d| format!("{:.0}", ms(*d)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "mcp start singles (median of {ROUNDS} each): {} ms; light server: {} ms",
        list(&sdk),
        list(&light)
    );
    println!(
        "mcp start floor: bare client, {SERVERS} concurrent {:.0} ms (extra {:.0} ms over the slowest single)",
        ms(sdk.floor),
        ms(sdk.floor) - ms(sdk.slowest)
    );
    println!(
        "mcp start, light server: slowest single {:.1} ms, {SERVERS} concurrent {:.1} ms, extra {:.1} ms; bare client {SERVERS} concurrent {:.1} ms",
        ms(light.slowest),
        ms(light.concurrent),
        ms(light.concurrent) - ms(light.slowest),
        ms(light.floor)
    );
    println!(
        "mcp start: slowest single {:.0} ms, {SERVERS} concurrent {:.0} ms, extra {:.0} ms (goal <= 50)",
        ms(sdk.slowest),
        ms(sdk.concurrent),
        ms(sdk.concurrent) - ms(sdk.slowest)
    );
}
