//! A Cedar policy hook on `pre_tool_use` in the approval ladder: `Runtime::decide` for a shell
//! call, with no hooks and with one `type: policy` hook of 100 policies, in two sets:
//! `cedar_100`, the worst case (every policy scoped to the call, each with a `like` condition
//! over the command, so all 100 are evaluated), and `cedar_team_100`, a team's policy file
//! over many tools and events (`policies/team.cedar`), of which the index gives the call 47.
//!
//! Run: `cargo bench -p tether-core --bench policy_ladder`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a bench binary")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use tether_core::{DenyAll, NullSink, Runtime, RuntimeOptions, Session, build_runtime};
use tether_providers::MapEnv;
use tokio_util::sync::CancellationToken;

const POLICIES: usize = 100;

fn policies() -> String {
    let mut text = String::from(
        "@id(\"shell-ok\")\npermit(principal, action == Action::\"pre_tool_use\", resource == Tool::\"shell\");\n",
    );
    for i in 1..POLICIES {
        text.push_str(&format!(
            "@id(\"no-{i}\")\n@reason(\"pattern {i} is forbidden\")\nforbid(principal, action == Action::\"pre_tool_use\", resource == Tool::\"shell\")\nwhen {{ context.tool_input has cmd && context.tool_input.cmd like \"*forbidden-{i} *\" }};\n"
        ));
    }
    text
}

fn runtime(dir: &std::path::Path, cedar: Option<&str>) -> Runtime {
    let hooks = if let Some(text) = cedar {
        std::fs::write(dir.join("tools.cedar"), text).unwrap();
        "    hooks:\n      pre_tool_use:\n        - matcher: '*'\n          hooks:\n            - {type: policy, policy: tools.cedar}\n"
    } else {
        ""
    };
    let yaml = format!(
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets: [{{type: shell}}]\n{hooks}"
    );
    std::fs::write(dir.join("a.yaml"), yaml).unwrap();
    let file = tether_config::load_file(&dir.join("a.yaml")).unwrap();
    let opts = RuntimeOptions::new(dir);
    let registry = Arc::new(tether_hooks::default_registry(opts.shell.clone()));
    build_runtime(
        &file,
        "root",
        registry,
        &MapEnv::new([("OPENAI_API_KEY", "k")]),
        opts,
        Arc::new(NullSink),
        Arc::new(DenyAll),
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let Value::Object(args) = json!({"cmd": "git status --short && ls -la src/"}) else {
        unreachable!()
    };
    let args: Map<String, Value> = args;
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("policy_ladder");
    let worst = policies();
    let team = include_str!("policies/team.cedar");
    for (id, set) in [
        ("no_hooks", None),
        ("cedar_100", Some(worst.as_str())),
        ("cedar_team_100", Some(team)),
    ] {
        let runtime = runtime(dir.path(), set);
        let session = Session::new("bench", "root");
        let v = rt
            .block_on(runtime.decide(&session, "shell", &args, &cancel))
            .unwrap();
        let want = if set.is_some() {
            "pre_tool_use_hook_allow"
        } else {
            "user_confirmation"
        };
        assert_eq!(v.source, want, "{id}: {:?}", v.reason);
        group.bench_function(id, |b| {
            b.iter_custom(|n| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..n {
                        let v = runtime.decide(&session, "shell", &args, &cancel).await;
                        std::hint::black_box(v.unwrap());
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
