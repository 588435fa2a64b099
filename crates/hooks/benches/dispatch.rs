//! Hook dispatch against the floor: spawning the same commands directly with tokio.
//!
//! Goals (issue 2): dispatch to 1 and to 10 no-op command hooks within 10% of spawning them
//! directly; dispatch to a no-op builtin under 20 µs. Goals (issue 17): dispatch to 1 and 10
//! hooks that are a path to a no-op `#!/bin/sh` script within 0.5 ms and 1 ms of executing the
//! script directly (10 in parallel).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "bench setup")]

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::{BoxFuture, join_all};
use tether_config::{
    HookSandbox, HookSource, HookSpec, HooksConfig, MatcherEntry, Origin, SandboxProfile,
};
use tether_exec::Shell;
use tether_hooks::{Builtin, BuiltinCall, Executor, ExecutorOptions, Registry};
use tether_protocol::{HookEvent, HookInput, HookOutput, Lane};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

const NOOP: &str = "cat >/dev/null";

#[derive(Debug)]
struct Noop;

impl Builtin for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn call<'a>(&'a self, _: BuiltinCall<'a>) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async { Ok(None) })
    }
}

fn input() -> HookInput {
    let mut i = HookInput {
        session_id: "bench".into(),
        tool_name: "shell".into(),
        tool_use_id: "call_1".into(),
        ..HookInput::default()
    };
    i.set_tool_arguments(r#"{"cmd":"ls -la","cwd":"."}"#);
    i
}

fn executor(hooks: Vec<HookSpec>, registry: Registry) -> Executor {
    let mut cfg = HooksConfig::default();
    cfg.push(
        HookEvent::PreToolUse,
        MatcherEntry::any(hooks, Origin::synthetic("bench")),
    );
    Executor::new(
        &cfg,
        Arc::new(registry),
        ExecutorOptions::new(std::env::temp_dir()),
    )
    .unwrap()
}

/// The floor for script hooks: executing the script itself `n` times in parallel.
async fn exec_script_directly(script: &std::path::Path, n: usize, payload: &[u8]) {
    let runs = (0..n).map(|i| async move {
        #[expect(clippy::disallowed_methods, reason = "the floor spawns directly")]
        let mut child = tokio::process::Command::new(script)
            .arg(i.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The script may exit before reading: a broken pipe is its choice.
        let _ = stdin.write_all(payload).await;
        drop(stdin);
        child.wait_with_output().await.unwrap();
    });
    join_all(runs).await;
}

/// The floor: what spawning `n` hooks costs with no engine around it.
async fn spawn_directly(shell: &Shell, n: usize, payload: &[u8]) {
    let runs = (0..n).map(|i| async move {
        #[expect(clippy::disallowed_methods, reason = "the floor spawns directly")]
        let mut child = tokio::process::Command::new(&shell.program)
            .arg("-c")
            .arg(format!("{NOOP} # {i}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload).await.unwrap();
        drop(stdin);
        child.wait_with_output().await.unwrap();
    });
    join_all(runs).await;
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let shell = Shell::from_env();
    let payload = serde_json::to_vec(&input()).unwrap();
    let cancel = CancellationToken::new();
    let commands = |n: usize| -> Vec<HookSpec> {
        (0..n)
            .map(|i| {
                HookSpec::command(
                    format!("{NOOP} # {i}"),
                    HookSource::Yaml,
                    Origin::synthetic("bench"),
                )
            })
            .collect()
    };

    let mut group = c.benchmark_group("pre_tool_use");
    group.sample_size(60);
    for n in [1usize, 10] {
        group.bench_function(format!("spawn_directly_{n}"), |b| {
            b.iter(|| rt.block_on(spawn_directly(&shell, n, &payload)));
        });
        let exec = executor(commands(n), Registry::new(shell.clone()));
        group.bench_function(format!("dispatch_{n}_command_hooks"), |b| {
            b.iter(|| {
                rt.block_on(exec.dispatch(HookEvent::PreToolUse, Lane::Default, input(), &cancel))
            });
        });
    }
    group.finish();

    // Hooks that are a path to a script: run without the shell.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("noop.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let scripts = |n: usize| -> Vec<HookSpec> {
        (0..n)
            .map(|i| {
                HookSpec::command(
                    format!("{} {i}", script.display()),
                    HookSource::Yaml,
                    Origin::synthetic("bench"),
                )
            })
            .collect()
    };
    let mut group = c.benchmark_group("script_hooks");
    group.sample_size(60);
    for n in [1usize, 10] {
        group.bench_function(format!("exec_directly_{n}"), |b| {
            b.iter(|| rt.block_on(exec_script_directly(&script, n, &payload)));
        });
        let exec = executor(scripts(n), Registry::new(shell.clone()));
        group.bench_function(format!("dispatch_{n}_script_hooks"), |b| {
            b.iter(|| {
                rt.block_on(exec.dispatch(HookEvent::PreToolUse, Lane::Default, input(), &cancel))
            });
        });
    }
    group.finish();

    // The same no-op script hook without and with the default sandbox profile.
    let mut group = c.benchmark_group("sandboxed_hooks");
    group.sample_size(60);
    for sandboxed in [false, true] {
        let mut hooks = scripts(1);
        if sandboxed {
            hooks[0].sandbox = Some(HookSandbox::On(SandboxProfile::default()));
        }
        let exec = executor(hooks, Registry::new(shell.clone()));
        let name = if sandboxed {
            "sandboxed"
        } else {
            "unsandboxed"
        };
        group.bench_function(format!("dispatch_script_hook_{name}"), |b| {
            b.iter(|| {
                rt.block_on(exec.dispatch(HookEvent::PreToolUse, Lane::Default, input(), &cancel))
            });
        });
    }
    group.finish();

    let mut registry = Registry::new(shell.clone());
    registry.register(Arc::new(Noop));
    let exec = executor(
        vec![HookSpec::builtin(
            "noop",
            vec![],
            HookSource::Yaml,
            Origin::synthetic("bench"),
        )],
        registry,
    );
    c.bench_function("pre_tool_use/dispatch_noop_builtin", |b| {
        b.iter(|| {
            rt.block_on(exec.dispatch(HookEvent::PreToolUse, Lane::Default, input(), &cancel))
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
