//! Storing and reloading a 1,000-message session on a real file (goal: under 50 ms each way),
//! and the same on a PostgreSQL server on localhost when one is installed (started as the
//! tests start theirs, `tests/store/pg.rs`, so with `fsync=off`: round trips, not disks).
//!
//! The history looks like an agent's: per turn a short user prompt, an assistant message with
//! a tool call (100 B – 1 KiB of arguments), the tool's result (100 B – 8 KiB) and an
//! assistant answer (1 – 4 KiB). Sizes come from a fixed-seed generator, so every run stores
//! the same bytes. Opening the file and creating the session are outside the timed part.

#![allow(clippy::unwrap_used, reason = "bench setup")]
#![allow(
    clippy::print_stderr,
    reason = "the bench reports the size of its data"
)]

use std::cell::Cell;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tempfile::TempDir;
use tether_protocol::{Message, ToolCall};
use tether_store::{NewSession, Store};

#[path = "../tests/store/pg.rs"]
#[allow(dead_code, reason = "the bench uses only the server")]
mod pg;

const MESSAGES: usize = 1000;

/// xorshift64: deterministic sizes without a dependency.
struct Sizes(u64);

impl Sizes {
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let span = u64::try_from(hi - lo + 1).unwrap();
        lo + usize::try_from(self.0 % span).unwrap()
    }
}

fn text(len: usize, seed: usize) -> String {
    let mut s = format!("{seed}: ");
    while s.len() < len {
        s.push_str("the quick brown fox jumps over the lazy dog; ");
    }
    s.truncate(len);
    s
}

fn history() -> Vec<Message> {
    let mut sizes = Sizes(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(MESSAGES);
    let mut turn = 0;
    while out.len() < MESSAGES {
        let id = format!("call_{turn}");
        let mut call = Message::assistant("");
        let args = format!(r#"{{"cmd":"{}"}}"#, text(sizes.between(90, 1000), turn));
        call.tool_calls = vec![ToolCall::new(&id, "shell", args)];
        let turn_messages = [
            Message::user(text(sizes.between(20, 300), turn)),
            call,
            Message::tool_result(&id, "shell", text(sizes.between(100, 8192), turn), false),
            Message::assistant(text(sizes.between(1024, 4096), turn)),
        ];
        out.extend(turn_messages);
        turn += 1;
    }
    out.truncate(MESSAGES);
    out
}

fn fresh_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("sessions.db")).unwrap();
    store
        .create_session(&NewSession {
            id: "s1".into(),
            parent_id: None,
            agent: "root".into(),
            working_dir: "/work".into(),
            first_prompt: Some("bench".into()),
        })
        .unwrap();
    (dir, store)
}

fn store_and_load(c: &mut Criterion) {
    let messages = history();
    let bytes: usize = messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap().len())
        .sum();
    eprintln!("history: {MESSAGES} messages, {bytes} bytes of JSON");

    let mut group = c.benchmark_group("session_1000_messages");
    group.sample_size(20);
    group.bench_function("append_message_each_committed", |b| {
        b.iter_batched(
            fresh_store,
            |(dir, store)| {
                for m in &messages {
                    black_box(store.append_message("s1", m).unwrap());
                }
                (dir, store)
            },
            BatchSize::PerIteration,
        );
    });
    group.bench_function("append_messages_one_batch", |b| {
        b.iter_batched(
            fresh_store,
            |(dir, store)| {
                store.append_messages("s1", &messages).unwrap();
                (dir, store)
            },
            BatchSize::PerIteration,
        );
    });
    let (_dir, store) = fresh_store();
    store.append_messages("s1", &messages).unwrap();
    assert_eq!(store.load("s1").unwrap().unwrap().messages, messages);
    group.bench_function("load", |b| {
        b.iter(|| black_box(store.load("s1").unwrap()));
    });
    group.finish();
}

fn postgres(c: &mut Criterion) {
    use pg::PgServerExt as _;
    let Some(server) = pg::PgServer::start() else {
        return;
    };
    let store = Store::open(server.create_database()).unwrap();
    let messages = history();
    let sessions = Cell::new(0);
    let new_session = || {
        sessions.set(sessions.get() + 1);
        let id = format!("s{}", sessions.get());
        store
            .create_session(&NewSession {
                id: id.clone(),
                parent_id: None,
                agent: "root".into(),
                working_dir: "/work".into(),
                first_prompt: Some("bench".into()),
            })
            .unwrap();
        id
    };

    let mut group = c.benchmark_group("postgres_session_1000_messages");
    group.sample_size(10);
    group.bench_function("append_message_each_committed", |b| {
        b.iter_batched(
            new_session,
            |id| {
                for m in &messages {
                    black_box(store.append_message(&id, m).unwrap());
                }
            },
            BatchSize::PerIteration,
        );
    });
    group.bench_function("append_messages_one_batch", |b| {
        b.iter_batched(
            new_session,
            |id| store.append_messages(&id, &messages).unwrap(),
            BatchSize::PerIteration,
        );
    });
    let id = new_session();
    store.append_messages(&id, &messages).unwrap();
    assert_eq!(store.load(&id).unwrap().unwrap().messages, messages);
    group.bench_function("load", |b| {
        b.iter(|| black_box(store.load(&id).unwrap()));
    });
    group.finish();
}

criterion_group!(benches, store_and_load, postgres);
criterion_main!(benches);
