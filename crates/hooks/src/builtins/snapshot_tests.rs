//! The shadow repository against real git: checkpoints per turn and per tool call, undo,
//! ignore rules, the 2 MiB rule, and a user's `.git` left byte-identical.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;
use tether_exec::ExecSpec;
use tether_protocol::{HookEvent, HookInput};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

/// A user repository and a data dir, both temporary.
struct Fixture {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    data: PathBuf,
    env: HookEnv,
    snap: Snapshot,
}

const GIT_ENV: [(&str, &str); 5] = [
    ("GIT_AUTHOR_NAME", "T"),
    ("GIT_AUTHOR_EMAIL", "t@example.com"),
    ("GIT_COMMITTER_NAME", "T"),
    ("GIT_COMMITTER_EMAIL", "t@example.com"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
];

impl Fixture {
    async fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&repo).unwrap();
        let mut base: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ("HOME".into(), tmp.path().into()),
            ("TETHER_HOME".into(), data.clone().into()),
        ];
        base.extend(GIT_ENV.map(|(k, v)| (k.into(), v.into())));
        let env = HookEnv {
            base: Some(Arc::from(base)),
            vars: Vec::new(),
        };
        let f = Self {
            _tmp: tmp,
            repo,
            data,
            env,
            snap: Snapshot::new(),
        };
        f.git(&["init", "-q"]).await;
        f.write("a.txt", "alpha\n");
        f.write("src/b.txt", "beta\n");
        f.git(&["add", "-A"]).await;
        f.git(&["commit", "-q", "-m", "init"]).await;
        f
    }

    /// Runs git in the user's repository; its stdout.
    async fn git(&self, args: &[&str]) -> String {
        let mut spec = ExecSpec::new("git", &self.repo);
        spec.args = args.iter().map(Into::into).collect();
        spec.base_env = self.env.base.clone();
        let r = tether_exec::run(spec).await;
        assert_eq!(r.exit_code, Some(0), "git {args:?}: {}", r.stderr.lossy());
        r.stdout.lossy()
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.repo.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.repo.join(name)).ok()
    }

    async fn fire(&self, event: HookEvent, tool_use_id: &str) {
        self.fire_in(event, tool_use_id, &self.repo.display().to_string(), "s1")
            .await;
    }

    async fn fire_in(&self, event: HookEvent, tool_use_id: &str, cwd: &str, session: &str) {
        let input = HookInput {
            session_id: session.into(),
            cwd: cwd.into(),
            hook_event_name: event.wire_name().into(),
            tool_name: if tool_use_id.is_empty() {
                String::new()
            } else {
                "shell".into()
            },
            tool_use_id: tool_use_id.into(),
            ..HookInput::default()
        };
        let cancel = CancellationToken::new();
        let out = self
            .snap
            .call(BuiltinCall {
                event,
                input: &input,
                args: &[],
                cwd: &self.repo,
                env: &self.env,
                cancel: &cancel,
                notes: &crate::registry::Notes::default(),
            })
            .await;
        assert_eq!(out, Ok(None), "snapshot always returns null");
        assert_eq!(self.snap.last_error(session), None);
    }

    fn labels(&self) -> Vec<(String, Vec<String>)> {
        self.snap
            .checkpoints("s1")
            .into_iter()
            .map(|c| (c.label, c.files))
            .collect()
    }

    fn shadow_dirs(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.data.join("snapshot"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    }
}

fn files(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[tokio::test]
async fn a_turn_that_changes_files_leaves_one_checkpoint_with_the_changed_paths() {
    let f = Fixture::new().await;
    f.fire(HookEvent::SessionStart, "").await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "changed\n");
    f.write("new/c.txt", "gamma\n");
    std::fs::remove_file(f.repo.join("src/b.txt")).unwrap();
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(
        f.labels(),
        [(
            "turn 1".to_owned(),
            files(&["a.txt", "new/c.txt", "src/b.txt"])
        )]
    );
    let c = &f.snap.checkpoints("s1")[0];
    assert_eq!(c.id, 1);
    assert_ne!(c.tree, c.after);
    assert_eq!(
        f.shadow_dirs().len(),
        1,
        "one shadow repository per worktree"
    );
}

#[tokio::test]
async fn the_shadow_repository_is_private_and_its_wide_directories_are_tightened() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new().await;
    let set = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    std::fs::create_dir_all(f.data.join("snapshot")).unwrap();
    set(&f.data, 0o755);
    set(&f.data.join("snapshot"), 0o755);
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "changed\n");
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(f.labels().len(), 1);
    let mut wide = Vec::new();
    let mut stack = vec![f.data.clone()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::metadata(&p).unwrap();
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            wide.push(p);
        }
    }
    assert_eq!(wide, Vec::<PathBuf>::new(), "readable by others");
}

#[tokio::test]
async fn a_turn_without_changes_or_without_a_start_leaves_no_checkpoint() {
    let f = Fixture::new().await;
    f.fire(HookEvent::SessionStart, "").await;
    f.write("a.txt", "before any turn\n");
    f.fire(HookEvent::TurnEnd, "").await;
    f.fire(HookEvent::TurnStart, "").await;
    f.fire(HookEvent::TurnEnd, "").await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "two\n");
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(f.labels(), [("turn 2".to_owned(), files(&["a.txt"]))]);
}

#[tokio::test]
async fn tool_calls_get_their_own_checkpoints_by_tool_use_id() {
    let f = Fixture::new().await;
    f.fire(HookEvent::TurnStart, "").await;
    f.fire(HookEvent::PreToolUse, "call_x").await;
    f.write("a.txt", "by x\n");
    f.fire(HookEvent::PostToolUse, "call_x").await;
    f.fire(HookEvent::PreToolUse, "call_y").await;
    f.fire(HookEvent::PostToolUse, "call_y").await;
    f.fire(HookEvent::PostToolUse, "call_never_started").await;
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(
        f.labels(),
        [
            ("shell call_x".to_owned(), files(&["a.txt"])),
            ("turn 1".to_owned(), files(&["a.txt"])),
        ]
    );
}

#[tokio::test]
async fn undo_restores_changed_and_deleted_files_and_removes_created_ones() {
    let f = Fixture::new().await;
    f.write("untracked.txt", "before\n");
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "changed\n");
    f.write("untracked.txt", "after\n");
    f.write("new/deep/c.txt", "gamma\n");
    std::fs::remove_file(f.repo.join("src/b.txt")).unwrap();
    f.fire(HookEvent::TurnEnd, "").await;
    let report = f.snap.undo("s1").await.unwrap();
    assert_eq!(
        (report.restored, report.removed, report.checkpoint.label),
        (
            files(&["a.txt", "src/b.txt", "untracked.txt"]),
            files(&["new/deep/c.txt"]),
            "turn 1".to_owned()
        )
    );
    assert_eq!(f.read("a.txt").as_deref(), Some("alpha\n"));
    assert_eq!(f.read("src/b.txt").as_deref(), Some("beta\n"));
    assert_eq!(f.read("untracked.txt").as_deref(), Some("before\n"));
    assert!(!f.repo.join("new").exists(), "emptied directories go too");
    assert_eq!(
        f.snap.checkpoints("s1"),
        Vec::new(),
        "the checkpoint is popped"
    );
    assert_eq!(
        f.snap.undo("s1").await.unwrap_err(),
        "nothing to undo".to_owned()
    );
    assert_eq!(
        f.snap.undo("nobody").await.unwrap_err(),
        "no snapshots for session `nobody`".to_owned()
    );
}

#[tokio::test]
async fn undo_pops_the_latest_checkpoint_first() {
    let f = Fixture::new().await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "one\n");
    f.fire(HookEvent::TurnEnd, "").await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "two\n");
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(f.snap.undo("s1").await.unwrap().checkpoint.label, "turn 2");
    assert_eq!(f.read("a.txt").as_deref(), Some("one\n"));
    assert_eq!(f.snap.undo("s1").await.unwrap().checkpoint.label, "turn 1");
    assert_eq!(f.read("a.txt").as_deref(), Some("alpha\n"));
}

#[tokio::test]
async fn the_users_git_directory_and_status_are_untouched() {
    let f = Fixture::new().await;
    f.write("a.txt", "dirty\n");
    f.write("scratch.txt", "untracked\n");
    let git_dir = f.repo.join(".git");
    // `git status` may refresh the user's index: take the picture after it.
    let status = f.git(&["status", "--porcelain"]).await;
    let before = tree(&git_dir);
    f.fire(HookEvent::SessionStart, "").await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "dirtier\n");
    f.fire(HookEvent::PreToolUse, "call_1").await;
    f.fire(HookEvent::PostToolUse, "call_1").await;
    f.fire(HookEvent::TurnEnd, "").await;
    f.fire(HookEvent::SessionEnd, "").await;
    f.snap.undo("s1").await.unwrap();
    assert_eq!(tree(&git_dir), before);
    assert_eq!(f.git(&["status", "--porcelain"]).await, status);
}

#[tokio::test]
async fn ignored_files_and_big_new_files_are_not_captured() {
    let f = Fixture::new().await;
    f.write(".gitignore", "*.log\n");
    std::fs::write(f.repo.join(".git/info/exclude"), "secret-dir/\n").unwrap();
    f.write("big.bin", "");
    let big = vec![b'x'; usize::try_from(MAX_NEW_FILE_BYTES).unwrap() + 1];
    let exact = vec![b'y'; usize::try_from(MAX_NEW_FILE_BYTES).unwrap()];
    f.fire(HookEvent::TurnStart, "").await;
    f.write("app.log", "ignored by .gitignore\n");
    f.write("secret-dir/x.txt", "ignored by info/exclude\n");
    std::fs::write(f.repo.join("huge.bin"), &big).unwrap();
    std::fs::write(f.repo.join("limit.bin"), &exact).unwrap();
    f.write("kept.txt", "kept\n");
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(
        f.labels(),
        [("turn 1".to_owned(), files(&["kept.txt", "limit.bin"]))]
    );
    let shadow = &f.shadow_dirs()[0];
    assert_eq!(
        std::fs::read_to_string(shadow.join("info/exclude")).unwrap(),
        "secret-dir/\n",
        "the source's info/exclude is mirrored"
    );
}

#[tokio::test]
async fn a_big_file_the_source_tracks_is_captured() {
    let f = Fixture::new().await;
    let big = vec![b'z'; usize::try_from(MAX_NEW_FILE_BYTES).unwrap() + 10];
    std::fs::write(f.repo.join("asset.bin"), &big).unwrap();
    f.git(&["add", "asset.bin"]).await;
    f.git(&["commit", "-q", "-m", "asset"]).await;
    f.fire(HookEvent::TurnStart, "").await;
    std::fs::remove_file(f.repo.join("asset.bin")).unwrap();
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(f.labels(), [("turn 1".to_owned(), files(&["asset.bin"]))]);
    f.snap.undo("s1").await.unwrap();
    assert_eq!(std::fs::read(f.repo.join("asset.bin")).unwrap(), big);
}

#[tokio::test]
async fn a_nested_repository_is_skipped_without_failing_the_capture() {
    let f = Fixture::new().await;
    f.fire(HookEvent::TurnStart, "").await;
    let nested = f.repo.join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    let mut spec = ExecSpec::new("git", &nested);
    spec.args = vec!["init".into(), "-q".into()];
    spec.base_env = f.env.base.clone();
    assert_eq!(tether_exec::run(spec).await.exit_code, Some(0));
    std::fs::write(nested.join("x.txt"), "x\n").unwrap();
    f.write("a.txt", "changed\n");
    f.fire(HookEvent::TurnEnd, "").await;
    assert_eq!(f.labels(), [("turn 1".to_owned(), files(&["a.txt"]))]);
}

#[tokio::test]
async fn many_changes_at_once_are_staged_in_one_pass() {
    let f = Fixture::new().await;
    f.fire(HookEvent::TurnStart, "").await;
    let names: Vec<String> = (0..shadow::FULL_ADD_THRESHOLD + 5)
        .map(|i| format!("gen/f{i:04}.txt"))
        .collect();
    for n in &names {
        f.write(n, n);
    }
    let huge = vec![b'x'; usize::try_from(MAX_NEW_FILE_BYTES).unwrap() + 1];
    std::fs::write(f.repo.join("gen/huge.bin"), huge).unwrap();
    f.fire(HookEvent::TurnEnd, "").await;
    let mut expected = names;
    expected.sort();
    assert_eq!(f.labels(), [("turn 1".to_owned(), expected)]);
}

#[tokio::test]
async fn outside_a_repository_or_without_a_session_nothing_happens() {
    let f = Fixture::new().await;
    let plain = tempfile::tempdir().unwrap();
    let cwd = plain.path().display().to_string();
    f.fire_in(HookEvent::TurnStart, "", &cwd, "s1").await;
    std::fs::write(plain.path().join("x"), "x").unwrap();
    f.fire_in(HookEvent::TurnEnd, "", &cwd, "s1").await;
    let repo = f.repo.display().to_string();
    f.fire_in(HookEvent::TurnStart, "", &repo, "").await;
    f.fire_in(HookEvent::TurnStart, "", "", "s1").await;
    assert_eq!(f.snap.checkpoints("s1"), Vec::new());
    assert_eq!(f.shadow_dirs(), Vec::<PathBuf>::new());
}

#[tokio::test]
async fn sessions_keep_separate_checkpoints() {
    let f = Fixture::new().await;
    let repo = f.repo.display().to_string();
    f.fire_in(HookEvent::TurnStart, "", &repo, "s1").await;
    f.fire_in(HookEvent::TurnStart, "", &repo, "s2").await;
    f.write("a.txt", "both see it\n");
    f.fire_in(HookEvent::TurnEnd, "", &repo, "s2").await;
    assert_eq!(f.snap.checkpoints("s1"), Vec::new());
    assert_eq!(f.snap.checkpoints("s2").len(), 1);
}

#[tokio::test]
async fn session_end_collects_garbage_and_keeps_the_checkpoints() {
    let f = Fixture::new().await;
    f.fire(HookEvent::TurnStart, "").await;
    f.write("a.txt", "x\n");
    f.fire(HookEvent::TurnEnd, "").await;
    f.fire(HookEvent::SessionEnd, "").await;
    assert_eq!(f.labels(), [("turn 1".to_owned(), files(&["a.txt"]))]);
    f.snap.undo("s1").await.unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("alpha\n"));
}

#[tokio::test]
async fn a_failed_capture_is_kept_as_the_last_error_and_still_returns_null() {
    let f = Fixture::new().await;
    // A file where the data dir should be: the shadow repository cannot be created.
    std::fs::write(&f.data, "not a directory").unwrap();
    let input = HookInput {
        session_id: "s1".into(),
        cwd: f.repo.display().to_string(),
        ..HookInput::default()
    };
    let cancel = CancellationToken::new();
    let out = f
        .snap
        .call(BuiltinCall {
            event: HookEvent::TurnStart,
            input: &input,
            args: &[],
            cwd: &f.repo,
            env: &f.env,
            cancel: &cancel,
            notes: &crate::registry::Notes::default(),
        })
        .await;
    assert_eq!(out, Ok(None));
    let err = f.snap.last_error("s1").unwrap();
    assert!(err.starts_with("cannot create `"), "{err}");
}

#[test]
fn the_data_dir_comes_from_the_hook_environment() {
    let env = |vars: &[(&str, &str)]| HookEnv {
        base: Some(Arc::from(
            vars.iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect::<Vec<_>>(),
        )),
        vars: Vec::new(),
    };
    let all = [
        ("TETHER_HOME", "/t"),
        ("XDG_DATA_HOME", "/x"),
        ("HOME", "/h"),
    ];
    assert_eq!(data_dir(&env(&all)), Some(PathBuf::from("/t")));
    assert_eq!(data_dir(&env(&all[1..])), Some(PathBuf::from("/x/tether")));
    assert_eq!(
        data_dir(&env(&all[2..])),
        Some(PathBuf::from("/h/.local/share/tether"))
    );
    assert_eq!(data_dir(&env(&[("TETHER_HOME", "")])), None);
}

#[test]
fn the_worktree_hash_is_stable_and_distinct() {
    assert_eq!(path_hash(Path::new("")), "cbf29ce484222325");
    assert_eq!(path_hash(Path::new("a")), "af63dc4c8601ec8c");
    assert_ne!(path_hash(Path::new("/w/a")), path_hash(Path::new("/w/b")));
}
