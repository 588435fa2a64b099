//! Throughput of `redact` on 1 MiB of ordinary text (goal: at least 200 MB/s) and on 1 MiB with
//! about 1% of its bytes secrets (goal: at least 50 MB/s), plus one typical tool-call argument.
//!
//! The ordinary text is the false-positive fixtures (code, config, shell, JSON, prose, git
//! output, hashes, base64) repeated, so it is dense in words like `token` and `password` that
//! wake the key-name rules: a realistic worst case for the keyword pre-filter.

#[path = "../tests/support/cases.rs"]
#[expect(dead_code, reason = "shared corpus; the bench uses only part of it")]
mod cases;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tether_secrets::{find, redact};

const MIB: usize = 1 << 20;

const FIXTURES: &[&str] = &[
    include_str!("../tests/fixtures/lexer.rs"),
    include_str!("../tests/fixtures/server.go"),
    include_str!("../tests/fixtures/cli.py"),
    include_str!("../tests/fixtures/deploy.yaml"),
    include_str!("../tests/fixtures/release.sh"),
    include_str!("../tests/fixtures/responses.json"),
    include_str!("../tests/fixtures/guide.md"),
    include_str!("../tests/fixtures/history.txt"),
    include_str!("../tests/fixtures/data.txt"),
];

/// Ordinary text cut to exactly `len` bytes (on a `char` boundary).
fn ordinary(len: usize) -> String {
    let mut text = String::with_capacity(len + 64 * 1024);
    while text.len() < len {
        for fixture in FIXTURES {
            text.push_str(fixture);
        }
    }
    let cut = text.floor_char_boundary(len);
    text.truncate(cut);
    text
}

/// 1 MiB of ordinary text with corpus secrets (in their framing) spliced in at line starts
/// until secret bytes reach 1% of the total.
fn with_secrets(len: usize) -> String {
    let positives: Vec<String> = cases::cases()
        .into_iter()
        .filter(|c| c.input != c.expected)
        .map(|c| c.input)
        .collect();
    let base = ordinary(len);
    let target = len / 100;
    let mut secret_bytes = 0;
    let mut inserts = Vec::new();
    for input in positives.iter().cycle() {
        if secret_bytes >= target {
            break;
        }
        secret_bytes += find(input).iter().map(|f| f.end - f.start).sum::<usize>();
        inserts.push(input.as_str());
    }
    let lines: Vec<&str> = base.split_inclusive('\n').collect();
    let every = (lines.len() / inserts.len().max(1)).max(1);
    let mut out = String::with_capacity(len + secret_bytes * 2);
    let mut next = inserts.iter();
    for (i, line) in lines.iter().enumerate() {
        if i % every == 0
            && let Some(secret) = next.next()
        {
            out.push_str(secret);
            out.push('\n');
        }
        out.push_str(line);
    }
    let cut = out.floor_char_boundary(len);
    out.truncate(cut);
    out
}

fn bench(c: &mut Criterion) {
    let clean = ordinary(MIB);
    let dirty = with_secrets(MIB);
    assert!(find(&clean).is_empty(), "ordinary text must be clean");
    let covered: usize = find(&dirty).iter().map(|f| f.end - f.start).sum();
    assert!(
        (MIB / 200..MIB / 50).contains(&covered),
        "secret density off target: {covered} bytes"
    );
    let tool_call = r#"{"command": "curl -fsSL -H 'Accept: application/json' https://api.example.com/v1/items?limit=20 | jq '.items[] | {id, name}'", "timeout": 30}"#;

    let mut group = c.benchmark_group("redact");
    group.throughput(Throughput::Bytes(clean.len() as u64));
    group.bench_function("ordinary_1mib", |b| {
        b.iter(|| redact(black_box(&clean)).len())
    });
    group.throughput(Throughput::Bytes(dirty.len() as u64));
    group.bench_function("secrets_1pct_1mib", |b| {
        b.iter(|| redact(black_box(&dirty)).len())
    });
    group.throughput(Throughput::Bytes(tool_call.len() as u64));
    group.bench_function("tool_call_args", |b| {
        b.iter(|| redact(black_box(tool_call)).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
