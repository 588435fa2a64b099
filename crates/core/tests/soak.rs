//! Soak: one session of 1,000 shell tool calls on the fake LLM server, with 10 command hooks on
//! `pre_tool_use` and 10 on `post_tool_use` (21,000 processes in all). This process's open
//! descriptors, threads, resident memory and live child processes are sampled after call 100
//! and after call 1,000, at the same point of the loop (the call's result is in, its
//! `post_tool_use` hooks have not started): they must be flat.
//!
//! Ignored by default (it takes about a minute in a debug build); `.ci/run` runs it with
//! `cargo nextest run --run-ignored ignored-only`. Needs nextest's one process per test.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{ScriptedUser, build, fake_model, fixture};
use tempfile::TempDir;
use tether_core::{EventSink, RuntimeOptions, Session, StopReason};
use tether_protocol::RuntimeEvent;
use tether_test_support::fake_llm::{FakeLlm, Turn};
use tether_test_support::resources::{self, Usage};
use tokio_util::sync::CancellationToken;

const CALLS: usize = 1000;
/// Tool calls per model answer: 100 model calls, so what the fake server keeps of each request
/// (it records them all) stays small next to what is measured.
const PER_TURN: usize = 10;
const HOOKS: usize = 10;
/// Resident memory may grow this much from call 100 to call 1,000: the session's history
/// gains 900 calls and results (~1 MiB with their copies in each request's context), the fake
/// server keeps 90 more requests, and the allocator keeps some freed pages. A leak of one
/// pipe buffer, child record or request per call would exceed it (21,000 processes, 64 KiB
/// each for pipe reads alone).
const RSS_TOLERANCE_KIB: u64 = 16 * 1024;

/// Counts tool results and samples this process's resources after the 100th and the last.
#[derive(Debug, Default)]
struct Sampler {
    results: Mutex<usize>,
    samples: Mutex<Vec<(usize, Usage)>>,
    errors: Mutex<Vec<String>>,
}

impl EventSink for Sampler {
    fn emit(&self, _: &str, event: RuntimeEvent) {
        match event {
            RuntimeEvent::ToolResponse { is_error, .. } => {
                let mut n = self.results.lock().unwrap();
                *n += 1;
                if is_error {
                    self.errors.lock().unwrap().push(format!("call {n} failed"));
                }
                if *n == 100 || *n == CALLS {
                    self.samples.lock().unwrap().push((*n, Usage::now()));
                }
            }
            RuntimeEvent::Error { message, .. } => self.errors.lock().unwrap().push(message),
            _ => {}
        }
    }
}

fn hooks(event: &str, counter: &std::path::Path) -> String {
    let f = fixture();
    let mut out = format!("      {event}:\n        - matcher: shell\n          hooks:\n");
    // `pre_tool_use` hooks allow the call (no `--yolo`: it would skip them), which is the
    // approval the chain needs; `post_tool_use` hooks let the run go on.
    let reply = if event == "pre_tool_use" {
        r#"{"hook_specific_output":{"permission_decision":"allow"}}"#
    } else {
        r#"{"continue":true}"#
    };
    for i in 0..HOOKS - 1 {
        // Distinct commands (the engine runs identical hooks once); each reads its Input.
        let cmd = format!("{f} --stdout '{reply}' --stderr {event}-{i}");
        out.push_str(&format!(
            "            - {{type: command, command: {}}}\n",
            serde_json::to_string(&cmd).unwrap()
        ));
    }
    let count = format!("cat > /dev/null; printf x >> {}", counter.display());
    out.push_str(&format!(
        "            - {{type: command, command: {}}}\n",
        serde_json::to_string(&count).unwrap()
    ));
    out
}

#[tokio::test]
#[ignore = "soak: about a minute in debug; run with --run-ignored"]
async fn a_thousand_tool_calls_with_twenty_hooks_each_keep_resources_flat() {
    resources::adopt_orphans().unwrap();
    let dir = TempDir::new().unwrap();
    let fake = FakeLlm::start().await.unwrap();
    let (pre, post) = (dir.path().join("pre.count"), dir.path().join("post.count"));
    let yaml = format!(
        "{}agents:\n  root:\n    model: fake\n    instruction: You are a test agent.\n    num_history_items: 30\n    toolsets: [{{type: shell}}]\n    hooks:\n{}{}",
        fake_model(&fake, "max_retries: 0"),
        hooks("pre_tool_use", &pre),
        hooks("post_tool_use", &post)
    );
    let sampler = Arc::new(Sampler::default());
    let runtime = build(
        &fake,
        dir.path(),
        &yaml,
        RuntimeOptions::new(dir.path()),
        sampler.clone(),
        Arc::new(ScriptedUser::default()),
    );

    for turn in 0..CALLS / PER_TURN {
        let mut answer = Turn::text(format!("batch {turn}"));
        for call in 0..PER_TURN {
            let n = turn * PER_TURN + call;
            answer = answer
                .and_tool_call("shell", json!({"cmd": format!("echo {n}")}))
                .with_id(format!("call_{n}"));
        }
        fake.push(answer);
    }
    fake.push(Turn::text("all done"));

    let started = Instant::now();
    let cancel = CancellationToken::new();
    let mut session = Session::new("soak", "root");
    runtime
        .start_session(&mut session, "startup", &cancel)
        .await;
    let out = runtime
        .run(&mut session, Some("run them all".to_owned()), &cancel)
        .await;
    runtime.end_session(&session, "other").await;
    let elapsed = started.elapsed();

    assert_eq!(out.reason, StopReason::Normal);
    assert_eq!(*sampler.errors.lock().unwrap(), Vec::<String>::new());
    assert_eq!(*sampler.results.lock().unwrap(), CALLS);
    assert_eq!(fake.requests().len(), CALLS / PER_TURN + 1);
    let ran = |p: &std::path::Path| std::fs::read_to_string(p).unwrap().len();
    assert_eq!((ran(&pre), ran(&post)), (CALLS, CALLS), "counting hooks");
    assert_eq!(
        session.messages.last().map(|m| m.text()),
        Some("all done".to_owned())
    );

    let samples = sampler.samples.lock().unwrap().clone();
    let [(100, early), (CALLS, late)] = &samples[..] else {
        panic!("samples: {samples:?}");
    };
    eprintln!(
        "soak: {CALLS} calls in {elapsed:?}; after call 100 / {CALLS}: fds {} / {}, threads {} / {}, rss {} / {} KiB, children {} / {}",
        early.fds.len(),
        late.fds.len(),
        early.threads,
        late.threads,
        early.rss_kib,
        late.rss_kib,
        early.descendants.len(),
        late.descendants.len()
    );
    // The same descriptors (the server's and the client's ends of one kept-alive connection
    // included), the same threads, no child alive between calls.
    assert_eq!(late.fds, early.fds);
    assert_eq!(late.threads, early.threads);
    assert_eq!((&early.descendants, &late.descendants), (&vec![], &vec![]));
    let grown = late.rss_kib.saturating_sub(early.rss_kib);
    assert!(
        grown < RSS_TOLERANCE_KIB,
        "resident memory grew by {grown} KiB from call 100 to call {CALLS}"
    );
}
