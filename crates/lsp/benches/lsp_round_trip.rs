//! What an `lsp_*` tool call adds over the language server's own time.
//!
//! The server is `echo_server.py` (test-support), which answers at once, started the same way
//! for both clients (through tether-exec, its stdio as pipes):
//!
//! - `lsp_round_trip/bare_client`: a hover request written with `Content-Length` framing and
//!   its answer read back, nothing else: the pipe and the server;
//! - `lsp_round_trip/tether_lsp_hover`: the `lsp_hover` tool called as the agent loop calls it
//!   (argument checks, the file read and compared with what the server has, the request, the
//!   answer rendered). The difference is what Tether adds; goal ≤ 1 ms;
//! - `lsp_round_trip/pyright_lsp_hover`: the same tool on pyright, for scale (skipped when the
//!   language servers from `scripts/mcp-test-deps` cannot be installed).
//!
//! Run: `cargo bench -p tether-lsp --bench lsp_round_trip` (about 30 s).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark set-up")]

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use tether_config::LspServer as Config;
use tether_exec::{Service, ServiceSpec, StderrLog};
use tether_lsp::{LspServer, LspToolset};
use tether_test_support::mcp::echo_lsp;
use tether_tools::{Tool, ToolContext};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

const SOURCE: &str = "def add(a: int, b: int) -> int:\n    return a + b\n\n\ntotal = add(1, 2)\n";

/// The minimal client: framing by hand, one request in flight.
struct Bare {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
    _service: Service,
}

impl Bare {
    fn start(root: &Path) -> Self {
        let spec = ServiceSpec {
            program: OsString::from("python3"),
            args: vec![echo_lsp().into_os_string()],
            base_env: None,
            env: Vec::new(),
            cwd: root.to_path_buf(),
            stderr: StderrLog {
                path: None,
                cap: 1024 * 1024,
                header: String::new(),
            },
            direct: None,
            sandbox: None,
        };
        let (service, stdin, stdout) = Service::spawn(&spec).unwrap();
        Self {
            stdin,
            stdout: BufReader::new(stdout),
            next: 1,
            _service: service,
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(body.as_bytes());
        self.stdin.write_all(&bytes).await.unwrap();
        self.stdin.flush().await.unwrap();
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).await.unwrap();
            let line = line.trim();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }
}

fn toolset(root: &Path, command: &str, args: &[String]) -> LspToolset {
    let config = Config {
        command: command.to_owned(),
        args: args.to_vec(),
        env: Vec::new(),
        file_types: vec![".py".to_owned()],
        working_dir: None,
        version: None,
    };
    LspToolset::new(vec![Arc::new(LspServer::new(config, root, None))])
}

/// `lsp_hover` of the toolset, and its arguments for `add` in a.py.
fn hover(set: &LspToolset, root: &Path) -> (Arc<dyn Tool>, Map<String, Value>) {
    let tool = set
        .tools()
        .into_iter()
        .find(|t| t.definition().name == "lsp_hover")
        .unwrap();
    let args = json!({"file": root.join("a.py"), "line": 1, "character": 5});
    (tool, args.as_object().cloned().unwrap())
}

async fn call(tool: &dyn Tool, args: &Map<String, Value>, root: &Path) -> String {
    let cancel = CancellationToken::new();
    let ctx = ToolContext {
        working_dir: root,
        cancel: &cancel,
        env: &[],
        progress: None,
    };
    let r = tool.call(args, ctx).await;
    assert!(!r.is_error, "{}", r.content);
    r.content
}

fn bench(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.py"), SOURCE).unwrap();
    let uri = format!("file://{}", root.join("a.py").display());
    let mut group = c.benchmark_group("lsp_round_trip");

    let mut bare = rt.block_on(async {
        let mut bare = Bare::start(&root);
        bare.request("initialize", json!({"capabilities": {}}))
            .await;
        bare
    });
    let params = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}});
    group.bench_function("bare_client", |b| {
        b.iter(|| rt.block_on(bare.request("textDocument/hover", params.clone())));
    });

    let echo = toolset(&root, "python3", &[echo_lsp().display().to_string()]);
    assert_eq!(rt.block_on(echo.start()), Vec::<String>::new());
    let (tool, args) = hover(&echo, &root);
    rt.block_on(call(tool.as_ref(), &args, &root));
    group.bench_function("tether_lsp_hover", |b| {
        b.iter(|| rt.block_on(call(tool.as_ref(), &args, &root)));
    });
    rt.block_on(echo.stop());

    // pyright, for scale: its own time dominates.
    let pyright =
        std::panic::catch_unwind(|| tether_test_support::mcp::lsp_bin("pyright-langserver"));
    if let Ok(bin) = pyright {
        let set = toolset(&root, &bin.display().to_string(), &["--stdio".to_owned()]);
        assert_eq!(rt.block_on(set.start()), Vec::<String>::new());
        let (tool, args) = hover(&set, &root);
        assert!(
            rt.block_on(call(tool.as_ref(), &args, &root))
                .contains("def add")
        );
        group.bench_function("pyright_lsp_hover", |b| {
            b.iter(|| rt.block_on(call(tool.as_ref(), &args, &root)));
        });
        rt.block_on(set.stop());
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
