//! Throughput of `redact` on 1 MiB of real source code (the Python standard library under
//! `/usr/lib/python3.11` when installed) and on the same with about 1% of its bytes secrets,
//! plus one typical tool-call argument.
//!
//! Real code wakes the keyword pre-filter far more often than prose (`token`, `secret`, `key`,
//! backslashes and URLs on every page). Where the Python library is absent the text is the
//! false-positive fixtures (code, config, shell, JSON, prose, git output, hashes, base64)
//! repeated, which is as dense in those words.

#[path = "support/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::path::Path;

use corpus::{ordinary, splice_secrets};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tether_secrets::{find, redact};

const MIB: usize = 1 << 20;

fn bench(c: &mut Criterion) {
    let clean =
        corpus::real(Path::new("/usr/lib/python3.11"), MIB).unwrap_or_else(|| ordinary(MIB));
    let dirty = splice_secrets(clean.clone(), MIB);
    assert!(find(&clean).is_empty(), "the clean corpus must be clean");
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
