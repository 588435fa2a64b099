//! Loop overhead per tool call (issue 4): a fake server replying instantly with 10 tool calls
//! per turn; the time from the model's response to the first tool starting, per tool call, and
//! from the last tool ending to the next model request, with 0, 1 and 10 no-op command hooks on
//! both `pre_tool_use` and `post_tool_use`, next to the cost of spawning the same hooks.
//!
//! Run: `cargo bench -p tether-core --bench loop_overhead` (prints a table).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    reason = "a bench binary"
)]

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::json;
use tether_core::{DenyAll, EventSink, RuntimeOptions, Session, build_runtime};
use tether_exec::Shell;
use tether_protocol::RuntimeEvent;
use tether_providers::MapEnv;
use tether_test_support::fake_llm::{FakeLlm, Turn};
use tokio_util::sync::CancellationToken;

const CALLS_PER_TURN: usize = 10;
const TURNS: usize = 15;

/// About the size of a pre_tool_use Input.
const PAYLOAD: &[u8] = br#"{"session_id":"bench","cwd":"/tmp","hook_event_name":"pre_tool_use","agent_name":"root","tool_category":"think","tool_name":"think","tool_use_id":"call_fake_1","tool_input":{"thought":"0-0"}}"#;

#[derive(Debug, Default)]
struct Stamps(Mutex<Vec<(Instant, &'static str)>>);

impl EventSink for Stamps {
    fn emit(&self, _: &str, event: RuntimeEvent) {
        let kind = match event {
            RuntimeEvent::AgentMessage { .. } => "response",
            RuntimeEvent::ToolCall { .. } => "tool_start",
            RuntimeEvent::ToolResponse { .. } => "tool_end",
            RuntimeEvent::ModelCallStarted { .. } => "request",
            _ => return,
        };
        self.0.lock().unwrap().push((Instant::now(), kind));
    }
}

fn hooks_yaml(n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    let hooks: String = (0..n)
        .map(|i| format!("          - {{type: command, command: 'cat >/dev/null # {i}'}}\n"))
        .collect();
    format!(
        "    hooks:\n      pre_tool_use:\n        - hooks:\n{hooks}      post_tool_use:\n        - hooks:\n{hooks}"
    )
}

struct Figures {
    first_tool: Vec<Duration>,
    per_call: Vec<Duration>,
    to_next_request: Vec<Duration>,
}

async fn measure(hooks: usize) -> Figures {
    let fake = FakeLlm::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "models:\n  fake:\n    provider: openai\n    model: gpt-4o\n    base_url: {}/v1\nagents:\n  root:\n    model: fake\n    max_consecutive_tool_calls: 1000\n    toolsets: [{{type: think}}]\n{}",
        fake.base_url(),
        hooks_yaml(hooks)
    );
    std::fs::write(dir.path().join("a.yaml"), yaml).unwrap();
    let file = tether_config::load_file(&dir.path().join("a.yaml")).unwrap();
    let stamps = Arc::new(Stamps::default());
    let mut opts = RuntimeOptions::new(dir.path());
    opts.shell = Shell::from_env();
    let registry = Arc::new(tether_hooks::default_registry(opts.shell.clone()));
    let runtime = build_runtime(
        &file,
        "root",
        registry,
        &MapEnv::new([("OPENAI_API_KEY", "k")]),
        opts,
        stamps.clone(),
        Arc::new(DenyAll),
    )
    .unwrap();
    for t in 0..TURNS {
        let mut turn = Turn::tool_call("think", json!({"thought": format!("{t}-0")}));
        for c in 1..CALLS_PER_TURN {
            turn = turn.and_tool_call("think", json!({"thought": format!("{t}-{c}")}));
        }
        fake.push(turn);
    }
    fake.push(Turn::text("done"));
    let mut session = Session::new("bench", "root");
    runtime
        .run(&mut session, Some("go".into()), &CancellationToken::new())
        .await;

    let stamps = stamps.0.lock().unwrap().clone();
    let mut figures = Figures {
        first_tool: Vec::new(),
        per_call: Vec::new(),
        to_next_request: Vec::new(),
    };
    for (i, (at, kind)) in stamps.iter().enumerate() {
        let next = |k: &str| {
            stamps[i + 1..]
                .iter()
                .find(|(_, kk)| *kk == k)
                .map(|(t, _)| *t)
        };
        match *kind {
            "response" => {
                if let Some(t) = next("tool_start") {
                    figures.first_tool.push(t - *at);
                }
            }
            "tool_end" => match stamps.get(i + 1) {
                Some((t, "tool_start")) => figures.per_call.push(*t - *at),
                Some((t, "request")) => figures.to_next_request.push(*t - *at),
                _ => {}
            },
            _ => {}
        }
    }
    figures
}

/// The floor: spawning `n` no-op hooks in parallel, twice (pre and post), directly.
async fn spawn_floor(n: usize) -> Duration {
    if n == 0 {
        return Duration::ZERO;
    }
    let shell = Shell::from_env();
    let mut samples = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let runs = (0..n).map(|i| {
            let program = shell.program.clone();
            async move {
                // A hook needs its stdin fed and its output read: so does the floor.
                #[expect(clippy::disallowed_methods, reason = "the floor spawns directly")]
                let mut child = tokio::process::Command::new(program)
                    .arg("-c")
                    .arg(format!("cat >/dev/null # {i}"))
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                let mut stdin = child.stdin.take().unwrap();
                tokio::io::AsyncWriteExt::write_all(&mut stdin, PAYLOAD)
                    .await
                    .unwrap();
                drop(stdin);
                child.wait_with_output().await.unwrap();
            }
        });
        join_all(runs).await;
        samples.push(start.elapsed());
    }
    median(&mut samples)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "| hooks on pre+post | model response → first tool | tool end → next tool | last tool → next request | spawn floor (one lane) |"
    );
    println!("|---|---|---|---|---|");
    for n in [0usize, 1, 10] {
        let mut f = rt.block_on(measure(n));
        let floor = rt.block_on(spawn_floor(n));
        println!(
            "| {n} | {} ms | {} ms | {} ms | {} ms |",
            ms(median(&mut f.first_tool)),
            ms(median(&mut f.per_call)),
            ms(median(&mut f.to_next_request)),
            ms(floor)
        );
    }
}
