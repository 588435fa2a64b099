//! Throughput of `redact` on 1 MiB of ordinary text (goal: at least 200 MB/s) and on 1 MiB with
//! about 1% of its bytes secrets (goal: at least 50 MB/s), plus one typical tool-call argument.
//!
//! The ordinary text is the false-positive fixtures (code, config, shell, JSON, prose, git
//! output, hashes, base64) repeated, so it is dense in words like `token` and `password` that
//! wake the key-name rules: a realistic worst case for the keyword pre-filter.

#[path = "support/corpus.rs"]
mod corpus;

use std::hint::black_box;

use corpus::{ordinary, with_secrets};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tether_secrets::{find, redact};

const MIB: usize = 1 << 20;

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
