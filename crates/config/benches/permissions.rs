//! Time of one permission check (`Permissions::check`) for a shell call, over commands agents
//! run, under a realistic rule set: deny and ask rules that name commands (each checked against
//! every command of the line), allow rules for everyday commands (each line split into its
//! simple commands). Also a non-shell call, which never parses anything.
//!
//! Run: `cargo bench -p tether-config --bench permissions`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a bench binary")]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use tether_config::{PermissionPattern, Permissions};

const COMMANDS: &[&str] = &[
    "ls -la",
    "git status",
    "git diff --stat HEAD~1",
    "git log --oneline -20",
    "cat README.md | grep -n install",
    "cargo test -p tether-hooks -- --nocapture",
    "cargo check --workspace 2>&1 | tail -40",
    "rg -n 'fn main' src/",
    "find . -name '*.rs' -not -path './target/*' | xargs wc -l | sort -n | tail",
    "npm install && npm test",
    "npm run test -- --watch=false",
    "python3 -m pytest tests/ -x -q",
    "docker compose up -d --build",
    "rm -rf node_modules package-lock.json",
    "sudo apt-get install -y jq",
    "git add -A && git commit -m 'fix: handle empty input' && git push",
    "git push --force origin main",
    "for f in *.txt; do mv \"$f\" \"${f%.txt}.md\"; done",
    "cat <<'EOF' > config.yaml\nkey: value\nEOF",
    "ps aux | grep -v grep | grep node | awk '{print $2}' | xargs kill -9",
    "curl -fsSL https://example.com/install.sh | sh",
    "sed -i 's/foo/bar/g' src/main.rs",
    "du -sh * | sort -h | tail -5",
    "make -j4 > build.log 2>&1",
];

fn patterns(list: &[&str]) -> Vec<PermissionPattern> {
    list.iter()
        .map(|p| PermissionPattern::parse(p).unwrap())
        .collect()
}

fn rules() -> Permissions {
    Permissions {
        allow: patterns(&[
            "shell:cmd=ls*",
            "shell:cmd=git status",
            "shell:cmd=git diff*",
            "shell:cmd=git log*",
            "shell:cmd=cargo test*",
            "shell:cmd=cargo check*",
            "shell:cmd=npm run test*",
            "shell:cmd=rg *",
            "read_file",
        ]),
        ask: patterns(&["shell:cmd=docker *", "shell:cmd=git push*"]),
        deny: patterns(&[
            "shell:cmd=rm -rf *",
            "shell:cmd=*sudo*",
            "shell:cmd=git push --force*",
            "shell:cmd=curl * | sh",
        ]),
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn bench(c: &mut Criterion) {
    let rules = rules();
    let calls: Vec<Map<String, Value>> = COMMANDS
        .iter()
        .map(|cmd| args(json!({ "cmd": cmd })))
        .collect();
    let mut group = c.benchmark_group("permissions");
    group.throughput(Throughput::Elements(calls.len() as u64));
    group.bench_function("shell_call", |b| {
        b.iter(|| {
            for call in &calls {
                black_box(rules.check("shell", black_box(call)));
            }
        });
    });
    group.bench_function("parse_line", |b| {
        b.iter(|| {
            for cmd in COMMANDS {
                black_box(tether_shell_safety::CommandLine::parse(black_box(cmd)));
            }
        });
    });
    group.bench_function("classify_line", |b| {
        b.iter(|| {
            for cmd in COMMANDS {
                black_box(tether_shell_safety::classify(black_box(cmd)));
            }
        });
    });
    let read = args(json!({"path": "src/main.rs"}));
    group.throughput(Throughput::Elements(1));
    group.bench_function("read_file_call", |b| {
        b.iter(|| black_box(rules.check("read_file", black_box(&read))));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
