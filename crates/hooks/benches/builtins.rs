//! The builtins through a real executor dispatch, against their floors.
//!
//! Goals (issue 5): every context builtin ≤ 1 ms; the git ones ≤ the bare git command + 1 ms
//! (the bare command runs through `tether_exec` here, as the builtin's does); a repeat
//! `snapshot` of a 10,000-file repository with one changed file ≤ 150 ms.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "bench setup")]

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use tether_config::{HookSource, HookSpec, HooksConfig, MatcherEntry, Origin};
use tether_exec::{ExecSpec, Shell, find_in_path};
use tether_hooks::{Executor, ExecutorOptions};
use tether_protocol::{HookEvent, HookInput, Lane};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

const SNAPSHOT_FILES: usize = 10_000;

fn env_with(extra: &[(&str, &Path)]) -> Arc<[(OsString, OsString)]> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    env.extend(
        [
            ("GIT_AUTHOR_NAME", "Bench"),
            ("GIT_AUTHOR_EMAIL", "bench@example.com"),
            ("GIT_COMMITTER_NAME", "Bench"),
            ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        ]
        .map(|(k, v)| (k.into(), v.into())),
    );
    env.extend(extra.iter().map(|(k, v)| ((*k).into(), v.into())));
    env.into()
}

async fn git(dir: &Path, env: &Arc<[(OsString, OsString)]>, args: &[&str]) {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut spec = ExecSpec::new(find_in_path("git", &path).unwrap(), dir);
    spec.args = args.iter().map(Into::into).collect();
    spec.base_env = Some(env.clone());
    let r = tether_exec::run(spec).await;
    assert_eq!(r.exit_code, Some(0), "git {args:?}: {}", r.stderr.lossy());
}

fn executor(
    event: HookEvent,
    name: &str,
    args: &[&str],
    dir: &Path,
    env: &Arc<[(OsString, OsString)]>,
) -> Executor {
    let mut cfg = HooksConfig::default();
    let hook = HookSpec::builtin(
        name,
        args.iter().map(|a| (*a).to_owned()).collect(),
        HookSource::Yaml,
        Origin::synthetic("bench"),
    );
    cfg.push(
        event,
        MatcherEntry::any(vec![hook], Origin::synthetic("bench")),
    );
    let mut opts = ExecutorOptions::new(dir);
    opts.base_env = Some(env.clone());
    let registry = tether_hooks::default_registry(Shell::from_env());
    Executor::new(&cfg, Arc::new(registry), opts).unwrap()
}

fn input(dir: &Path) -> HookInput {
    HookInput {
        session_id: "bench".into(),
        cwd: dir.display().to_string(),
        ..HookInput::default()
    }
}

/// A small repository with a few commits, a dirty file and a prompt file.
fn small_repo(rt: &Runtime, dir: &Path, env: &Arc<[(OsString, OsString)]>) {
    rt.block_on(async {
        git(dir, env, &["init", "-q"]).await;
        for i in 0..30 {
            std::fs::write(dir.join(format!("file{i}.txt")), format!("line {i}\n")).unwrap();
        }
        std::fs::create_dir(dir.join("src")).unwrap();
        std::fs::write(dir.join("AGENTS.md"), "Be brief.\n".repeat(40)).unwrap();
        for i in 0..12 {
            std::fs::write(dir.join("src/lib.rs"), format!("// {i}\n")).unwrap();
            git(dir, env, &["add", "-A"]).await;
            git(dir, env, &["commit", "-q", "-m", &format!("change {i}")]).await;
        }
        std::fs::write(dir.join("file3.txt"), "dirty\n").unwrap();
    });
}

/// `n` files of a few lines each in 100 directories, committed once.
fn big_repo(rt: &Runtime, dir: &Path, env: &Arc<[(OsString, OsString)]>, n: usize) {
    for i in 0..n {
        let sub = dir.join(format!("d{:02}", i % 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("f{i}.txt")),
            format!("file {i}\n").repeat(8),
        )
        .unwrap();
    }
    rt.block_on(async {
        git(dir, env, &["init", "-q"]).await;
        git(dir, env, &["add", "-A"]).await;
        git(dir, env, &["commit", "-q", "-m", "init"]).await;
    });
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cancel = CancellationToken::new();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&repo).unwrap();
    let env = env_with(&[("TETHER_HOME", &data)]);
    small_repo(&rt, &repo, &env);

    let mut group = c.benchmark_group("context");
    group.sample_size(50);
    let context: [(HookEvent, &str, &[&str]); 5] = [
        (HookEvent::TurnStart, "add_date", &[]),
        (HookEvent::SessionStart, "add_environment_info", &[]),
        (HookEvent::TurnStart, "add_prompt_files", &["AGENTS.md"]),
        (HookEvent::SessionStart, "add_directory_listing", &[]),
        (HookEvent::SessionStart, "add_user_info", &[]),
    ];
    for (event, name, args) in context {
        let exec = executor(event, name, args, &repo, &env);
        group.bench_function(name, |b| {
            b.iter(|| rt.block_on(exec.dispatch(event, Lane::Default, input(&repo), &cancel)));
        });
    }
    group.finish();

    let mut group = c.benchmark_group("git");
    group.sample_size(30);
    let git_builtins: [(&str, &[&str], &[&str]); 3] = [
        ("add_git_status", &[], &["status", "--short", "--branch"]),
        ("add_git_diff", &[], &["diff", "--stat"]),
        ("add_recent_commits", &[], &["log", "--oneline", "-n", "10"]),
    ];
    for (name, args, bare) in git_builtins {
        let exec = executor(HookEvent::TurnStart, name, args, &repo, &env);
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(exec.dispatch(
                    HookEvent::TurnStart,
                    Lane::Default,
                    input(&repo),
                    &cancel,
                ))
            });
        });
        group.bench_function(format!("bare_git_{}", bare[0]), |b| {
            b.iter(|| rt.block_on(git(&repo, &env, bare)));
        });
    }
    group.finish();

    let big = tmp.path().join("big");
    std::fs::create_dir_all(&big).unwrap();
    big_repo(&rt, &big, &env, SNAPSHOT_FILES);
    let exec = executor(HookEvent::TurnStart, "snapshot", &[], &big, &env);
    let first =
        rt.block_on(exec.dispatch(HookEvent::TurnStart, Lane::Default, input(&big), &cancel));
    assert!(first.runs.iter().all(|r| r.error.is_none()), "{first:?}");
    let changed = big.join("d07/f507.txt");
    let mut round = 0u64;
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(30);
    group.bench_function("repeat_10000_files_one_changed", |b| {
        b.iter(|| {
            round += 1;
            std::fs::write(&changed, format!("round {round}\n")).unwrap();
            rt.block_on(exec.dispatch(HookEvent::TurnStart, Lane::Default, input(&big), &cancel))
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
