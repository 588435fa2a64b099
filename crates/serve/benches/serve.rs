//! `tether serve` benchmarks (run by scripts/bench.sh after a release build of `tether`):
//!
//! - `serve chat` latency: the same one-shot request on the offline `script` model, run in
//!   process through a `Hub` (the runtime's own cost) and through a release `tether serve chat`
//!   over HTTP, at 1 and 64 concurrent clients; prints p50 and p99 of both and what HTTP adds.
//! - memory: RSS of a release `tether serve api` before and after 500 idle sessions; prints the
//!   RSS per session (`scripts/bench-acp-rss.py` does the same for `tether serve acp`).
//!
//! Output lines (parsed by scripts/bench.sh):
//!   `chat clients=N inproc_p50_us=… inproc_p99_us=… http_p50_us=… http_p99_us=… added_p50_us=… added_p99_us=…`
//!   `rss mode=api sessions=500 before_kib=… after_kib=… per_session_kib=…`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::print_stdout,
    clippy::disallowed_methods,
    reason = "a benchmark"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tether_config::AgentFile;
use tether_core::{Runtime, RuntimeOptions, build_runtime};
use tether_serve::{BuildSpec, Catalog, Factory, Hub, Nobody, Route};
use tokio_util::sync::CancellationToken;

const REQUESTS_PER_CLIENT: usize = 200;
const IDLE_SESSIONS: usize = 500;

#[derive(Debug)]
struct BenchFactory {
    dir: PathBuf,
    store: Arc<tether_store::Store>,
}

impl Factory for BenchFactory {
    fn load(&self, path: &Path) -> Result<AgentFile, String> {
        tether_config::load_file(path).map_err(|e| e.to_string())
    }

    fn build(&self, file: &AgentFile, spec: BuildSpec) -> Result<Runtime, String> {
        let mut opts = RuntimeOptions::new(&self.dir);
        opts.store = Some(self.store.clone());
        opts.non_interactive = true;
        opts.default_safety = Some(tether_config::Safety::Restricted);
        let registry = tether_hooks::default_registry(tether_exec::Shell::from_env());
        build_runtime(
            file,
            &spec.agent,
            Arc::new(registry),
            &tether_providers::ProcessEnv,
            opts,
            spec.sink,
            spec.interaction,
        )
        .map_err(|e| e.to_string())
    }

    fn store(&self) -> Option<Arc<tether_store::Store>> {
        Some(self.store.clone())
    }
}

fn write_agent(dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("reply.script.yaml"),
        "default:\n  text: The answer is 42.\n",
    )
    .unwrap();
    let path = dir.join("agent.yaml");
    std::fs::write(
        &path,
        "agents:\n  root:\n    model: script/reply.script.yaml\n    description: Answers.\n",
    )
    .unwrap();
    path
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn summarize(mut all: Vec<Duration>) -> (f64, f64) {
    all.sort();
    (percentile(&all, 0.50), percentile(&all, 0.99))
}

async fn in_process(hub: &Arc<Hub>, clients: usize) -> (f64, f64) {
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let hub = Arc::clone(hub);
        tasks.push(tokio::spawn(async move {
            let entry = hub.entry(None).unwrap().clone();
            let mut times = Vec::with_capacity(REQUESTS_PER_CLIENT);
            for _ in 0..REQUESTS_PER_CLIENT {
                let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
                let route = Route {
                    events: tx,
                    asker: Arc::new(Nobody { mode: "bench" }),
                };
                let start = Instant::now();
                let turn = hub
                    .one_shot(
                        &entry,
                        None,
                        Vec::new(),
                        "What is the answer?".to_owned(),
                        route,
                        &CancellationToken::new(),
                    )
                    .await
                    .unwrap();
                times.push(start.elapsed());
                assert_eq!(turn.session.last_assistant_message(), "The answer is 42.");
            }
            times
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    summarize(all)
}

async fn over_http(url: &str, clients: usize) -> (f64, f64) {
    let client = tether_http::client_builder()
        .pool_max_idle_per_host(clients)
        .build()
        .unwrap();
    let body = serde_json::json!({
        "model": "root",
        "messages": [{"role": "user", "content": "What is the answer?"}],
    });
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (client, body) = (client.clone(), body.clone());
        let url = format!("{url}/v1/chat/completions");
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::with_capacity(REQUESTS_PER_CLIENT);
            for _ in 0..REQUESTS_PER_CLIENT {
                let start = Instant::now();
                let resp = client.post(&url).json(&body).send().await.unwrap();
                assert!(resp.status().is_success(), "{}", resp.status());
                let text = resp.text().await.unwrap();
                times.push(start.elapsed());
                assert!(text.contains("The answer is 42."), "{text}");
            }
            times
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    summarize(all)
}

/// The release `tether` beside this benchmark (`target/release/`).
fn tether_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("tether");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --release -p tether-cli` first",
        bin.display()
    );
    bin
}

fn serve(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(tether_bin());
    cmd.arg("serve")
        .args(args)
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"));
    cmd
}

/// Starts a listening server and returns it with its URL.
fn start_listening(dir: &Path, args: &[&str]) -> (Child, String) {
    let mut child = serve(dir, args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("the server exited").unwrap();
        if let Some((_, url)) = line.split_once("listening on ") {
            break url.trim().to_owned();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, url)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn report_rss(mode: &str, before: u64, after: u64) {
    println!(
        "rss mode={mode} sessions={IDLE_SESSIONS} before_kib={before} after_kib={after} per_session_kib={:.1}",
        (after.saturating_sub(before)) as f64 / IDLE_SESSIONS as f64
    );
}

async fn api_rss(dir: &Path) {
    let (mut child, url) = start_listening(dir, &["api", "agent.yaml", "--listen", "127.0.0.1:0"]);
    let client = tether_http::client_builder().build().unwrap();
    let create = || async {
        let r = client
            .post(format!("{url}/api/sessions"))
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    };
    // Warm up: the first sessions build the runtime and grow the allocator's pools.
    for _ in 0..5 {
        create().await;
    }
    let before = rss_kib(child.id());
    for _ in 0..IDLE_SESSIONS {
        create().await;
    }
    let after = rss_kib(child.id());
    report_rss("api", before, after);
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let agent = write_agent(dir.path());
    rt.block_on(async {
        let store = Arc::new(tether_store::Store::open(dir.path().join("inproc.db")).unwrap());
        let factory = Arc::new(BenchFactory {
            dir: dir.path().to_path_buf(),
            store,
        });
        let catalog = Catalog::load(&agent, factory.as_ref()).unwrap();
        let hub = Hub::new(catalog, factory);
        let (mut server, url) = start_listening(
            dir.path(),
            &["chat", "agent.yaml", "--listen", "127.0.0.1:0"],
        );
        // Warm up both (runtime built, connections open, caches hot).
        in_process(&hub, 4).await;
        over_http(&url, 4).await;
        for clients in [1, 64] {
            let (ip50, ip99) = in_process(&hub, clients).await;
            let (hp50, hp99) = over_http(&url, clients).await;
            println!(
                "chat clients={clients} inproc_p50_us={ip50:.0} inproc_p99_us={ip99:.0} http_p50_us={hp50:.0} http_p99_us={hp99:.0} added_p50_us={:.0} added_p99_us={:.0}",
                hp50 - ip50,
                hp99 - ip99
            );
        }
        let _ = server.kill();
        let _ = server.wait();
        api_rss(dir.path()).await;
    });
}
