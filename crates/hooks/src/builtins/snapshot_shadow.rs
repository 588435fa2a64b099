//! The git side of `snapshot`: one shadow repository per worktree, driven through the `git`
//! CLI (via `tether-exec`) with `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` always set, so
//! the user's repository is only read. Captures, tree diffs and the undo's restore live here;
//! sessions, checkpoints and the hook live in `snapshot.rs`.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tether_exec::{ExecSpec, Stdin, find_in_path};
use tokio_util::sync::CancellationToken;

use super::MAX_NEW_FILE_BYTES;
use crate::registry::HookEnv;

/// Past this many changed paths one `add -A` of the whole tree beats per-path pathspecs.
pub(super) const FULL_ADD_THRESHOLD: usize = 256;

/// A first capture of a big tree hashes every file: allow it time.
const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// `ls-files` of a big tree can be large.
const GIT_OUTPUT_CAP: usize = 64 * 1024 * 1024;

/// Settings that would change what a capture stores or make git do more than asked.
const GIT_CONFIG: [&str; 12] = [
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
];

/// Variables that would point git somewhere else than we say.
const LOCATION_VARS: [&str; 12] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
];

/// A source worktree and its shadow repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shadow {
    /// The data dir the shadow repository lives in.
    pub(super) data: PathBuf,
    pub(super) root: PathBuf,
    /// The source repository's common git dir (where `info/exclude` lives).
    pub(super) common_dir: PathBuf,
    pub(super) dir: PathBuf,
}

#[derive(Debug, Clone)]
pub(super) struct Git {
    program: PathBuf,
    /// The hook's environment, flattened, without [`LOCATION_VARS`].
    env: Arc<[(OsString, OsString)]>,
}

/// One git invocation.
struct GitRun<'a> {
    cwd: &'a Path,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    cancel: Option<&'a CancellationToken>,
}

impl Git {
    pub(super) fn from_env(env: &HookEnv) -> Option<Self> {
        let program = find_in_path("git", &env.var("PATH").unwrap_or_default())?;
        let mut vars: Vec<(OsString, OsString)> = match &env.base {
            Some(base) => base.to_vec(),
            None => std::env::vars_os().collect(),
        };
        for (k, v) in &env.vars {
            match vars.iter_mut().find(|(name, _)| name == k) {
                Some(slot) => slot.1.clone_from(v),
                None => vars.push((k.clone(), v.clone())),
            }
        }
        vars.retain(|(k, _)| !LOCATION_VARS.iter().any(|l| k == l));
        Some(Self {
            program,
            env: vars.into(),
        })
    }

    async fn run(&self, run: GitRun<'_>) -> Result<Vec<u8>, String> {
        let what = run
            .args
            .first()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut spec = ExecSpec::new(&self.program, run.cwd);
        spec.args = GIT_CONFIG
            .iter()
            .map(OsString::from)
            .chain(run.args)
            .collect();
        spec.base_env = Some(self.env.clone());
        spec.env = run.env;
        spec.timeout = Some(GIT_TIMEOUT);
        spec.output_cap = GIT_OUTPUT_CAP;
        spec.cancel = run.cancel.cloned();
        if let Some(bytes) = run.stdin {
            spec.stdin = Stdin::Bytes(bytes.into());
        }
        let record = tether_exec::run(spec).await;
        if record.exit_code == Some(0) {
            return Ok(record.stdout.bytes);
        }
        let why = match (&record.spawn_error, record.timed_out, record.cancelled) {
            (Some(e), _, _) => e.clone(),
            (None, true, _) => "timed out".to_owned(),
            (None, _, true) => "cancelled".to_owned(),
            _ => record.stderr.lossy().trim().to_owned(),
        };
        Err(format!("`git {what}` failed: {why}"))
    }

    /// The worktree containing `cwd` and its common git dir; `None` outside a worktree.
    pub(super) async fn worktree(
        &self,
        cwd: &Path,
        cancel: Option<&CancellationToken>,
    ) -> Option<(PathBuf, PathBuf)> {
        let out = self
            .run(GitRun {
                cwd,
                args: os_args(&[
                    "rev-parse",
                    "--path-format=absolute",
                    "--show-toplevel",
                    "--git-common-dir",
                ]),
                env: Vec::new(),
                stdin: None,
                cancel,
            })
            .await
            .ok()?;
        let mut lines = out.split(|b| *b == b'\n').filter(|l| !l.is_empty());
        let root = PathBuf::from(OsStr::from_bytes(lines.next()?));
        let common = PathBuf::from(OsStr::from_bytes(lines.next()?));
        Some((root, common))
    }

    /// Runs a command on the shadow repository, from the worktree root.
    pub(super) async fn shadow(
        &self,
        shadow: &Shadow,
        args: &[&str],
        stdin: Option<Vec<u8>>,
        cancel: Option<&CancellationToken>,
    ) -> Result<Vec<u8>, String> {
        self.shadow_with_index(shadow, &shadow.dir.join("index"), args, stdin, cancel)
            .await
    }

    async fn shadow_with_index(
        &self,
        shadow: &Shadow,
        index: &Path,
        args: &[&str],
        stdin: Option<Vec<u8>>,
        cancel: Option<&CancellationToken>,
    ) -> Result<Vec<u8>, String> {
        self.run(GitRun {
            cwd: &shadow.root,
            args: os_args(args),
            env: vec![
                ("GIT_DIR".into(), shadow.dir.clone().into()),
                ("GIT_WORK_TREE".into(), shadow.root.clone().into()),
                ("GIT_INDEX_FILE".into(), index.into()),
            ],
            stdin,
            cancel,
        })
        .await
    }
}

fn os_args(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// NUL-separated output as byte strings, empty entries dropped.
fn nul_split(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.split(|b| *b == 0).filter(|e| !e.is_empty())
}

pub(super) fn lossy(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}

/// The data dir from the hook's environment (see the module doc).
pub(super) fn data_dir(env: &HookEnv) -> Option<PathBuf> {
    let set = |name| env.var(name).filter(|v| !v.is_empty());
    if let Some(home) = set("TETHER_HOME") {
        return Some(home.into());
    }
    if let Some(xdg) = set("XDG_DATA_HOME") {
        return Some(Path::new(&xdg).join("tether"));
    }
    set("HOME").map(|h| Path::new(&h).join(".local/share/tether"))
}

/// FNV-1a (64 bits) of the path's bytes: stable across builds, unlike `DefaultHasher`.
pub(super) fn path_hash(path: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.as_os_str().as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Creates the shadow repository once.
async fn ensure_init(
    git: &Git,
    shadow: &Shadow,
    cancel: Option<&CancellationToken>,
) -> Result<(), String> {
    // It holds copies of the worktree's files: private, down from the data dir (an older
    // Tether left these directories readable by others).
    tether_exec::private::create_dir(&shadow.data, &shadow.dir)
        .map_err(|e| format!("cannot create `{}`: {e}", shadow.dir.display()))?;
    if shadow.dir.join("HEAD").is_file() {
        return Ok(());
    }
    // `--shared=0600`: git makes the repository's files owner-only whatever the umask.
    let mut args = os_args(&["init", "--bare", "--quiet", "--shared=0600"]);
    args.push(shadow.dir.clone().into());
    git.run(GitRun {
        cwd: &shadow.dir,
        args,
        env: Vec::new(),
        stdin: None,
        cancel,
    })
    .await
    .map(drop)
}

/// Copies the source's `info/exclude` into the shadow repository when it differs.
fn sync_exclude(shadow: &Shadow) -> Result<(), String> {
    let source = std::fs::read(shadow.common_dir.join("info/exclude")).unwrap_or_default();
    let target = shadow.dir.join("info/exclude");
    if std::fs::read(&target).ok().as_deref() == Some(source.as_slice()) {
        return Ok(());
    }
    tether_exec::private::write_whole(&target, &source)
        .map_err(|e| format!("cannot write `{}`: {e}", target.display()))
}

/// Stages the worktree into the shadow index and returns its tree hash.
pub(super) async fn capture(
    git: &Git,
    shadow: &Shadow,
    cancel: Option<&CancellationToken>,
) -> Result<String, String> {
    ensure_init(git, shadow, cancel).await?;
    sync_exclude(shadow)?;
    let listing = git
        .shadow(
            shadow,
            &[
                "ls-files",
                "-z",
                "-t",
                "-o",
                "-m",
                "-d",
                "--exclude-standard",
            ],
            None,
            cancel,
        )
        .await?;
    let mut changed = BTreeSet::new();
    let mut skipped = BTreeSet::new();
    let mut big = Vec::new();
    for entry in nul_split(&listing) {
        let (tag, path) = match entry {
            [tag, b' ', path @ ..] if !path.is_empty() => (*tag, path),
            _ => continue,
        };
        if let Some(nested) = path.strip_suffix(b"/") {
            // A nested repository: staging it would need a commit checked out there.
            skipped.insert(nested.to_vec());
            continue;
        }
        if tag == b'?' {
            let size = std::fs::symlink_metadata(shadow.root.join(OsStr::from_bytes(path)))
                .map_or(0, |m| m.len());
            if size > MAX_NEW_FILE_BYTES {
                big.push(path.to_vec());
                continue;
            }
        }
        changed.insert(path.to_vec());
    }
    if !big.is_empty() {
        let tracked = tracked_in_source(git, shadow, &big, cancel).await?;
        for path in big {
            if tracked.contains(&path) {
                changed.insert(path);
            } else {
                skipped.insert(path);
            }
        }
    }
    if !changed.is_empty() {
        let pathspecs = if changed.len() > FULL_ADD_THRESHOLD {
            let mut specs = vec![b".".to_vec()];
            specs.extend(skipped.iter().map(|p| magic(b":(exclude,literal)", p)));
            specs
        } else {
            changed.iter().map(|p| magic(b":(literal)", p)).collect()
        };
        git.shadow(
            shadow,
            &[
                "add",
                "-A",
                "--ignore-errors",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
            ],
            Some(pathspecs.join(&0u8)),
            cancel,
        )
        .await?;
    }
    let tree = git.shadow(shadow, &["write-tree"], None, cancel).await?;
    Ok(lossy(&tree).trim().to_owned())
}

fn magic(prefix: &[u8], path: &[u8]) -> Vec<u8> {
    [prefix, path].concat()
}

/// Which of `paths` the source repository tracks (those are not "new").
async fn tracked_in_source(
    git: &Git,
    shadow: &Shadow,
    paths: &[Vec<u8>],
    cancel: Option<&CancellationToken>,
) -> Result<BTreeSet<Vec<u8>>, String> {
    let mut args = os_args(&["ls-files", "-z", "--"]);
    args.extend(paths.iter().map(|p| OsString::from_vec(p.clone())));
    let out = git
        .run(GitRun {
            cwd: &shadow.root,
            args,
            env: vec![("GIT_LITERAL_PATHSPECS".into(), "1".into())],
            stdin: None,
            cancel,
        })
        .await?;
    Ok(nul_split(&out).map(<[u8]>::to_vec).collect())
}

/// `(status letter, path)` for every path that differs between two trees, sorted by path.
pub(super) async fn diff_trees(
    git: &Git,
    shadow: &Shadow,
    from: &str,
    to: &str,
    cancel: Option<&CancellationToken>,
) -> Result<Vec<(u8, Vec<u8>)>, String> {
    if from == to {
        return Ok(Vec::new());
    }
    let out = git
        .shadow(
            shadow,
            &[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-status",
                from,
                to,
            ],
            None,
            cancel,
        )
        .await?;
    let mut fields = nul_split(&out);
    let mut changes = Vec::new();
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        changes.push((status.first().copied().unwrap_or(b'M'), path.to_vec()));
    }
    changes.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(changes)
}

/// Removes `dir` and its parents up to (not including) `root` while they are empty.
fn prune_empty_dirs(root: &Path, mut dir: Option<&Path>) {
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            return;
        }
        dir = d.parent();
    }
}

/// Puts the worktree back to `tree`: captures it now, restores every file that changed or
/// went away since `tree` (through a throwaway index, so the shadow index keeps its stat
/// cache) and removes every file created since. `(restored, removed)`, sorted.
pub(super) async fn rollback(
    git: &Git,
    shadow: &Shadow,
    tree: &str,
) -> Result<(Vec<String>, Vec<String>), String> {
    let now = capture(git, shadow, None).await?;
    let changes = diff_trees(git, shadow, tree, &now, None).await?;
    let (created, others): (Vec<_>, Vec<_>) = changes.into_iter().partition(|c| c.0 == b'A');
    if !others.is_empty() {
        let index = shadow.dir.join("undo-index");
        let restore = async {
            git.shadow_with_index(shadow, &index, &["read-tree", tree], None, None)
                .await?;
            let list: Vec<&[u8]> = others.iter().map(|c| c.1.as_slice()).collect();
            git.shadow_with_index(
                shadow,
                &index,
                &["checkout-index", "-f", "-z", "--stdin"],
                Some(list.join(&0u8)),
                None,
            )
            .await
        };
        let result = restore.await;
        let _ = std::fs::remove_file(&index);
        result?;
    }
    for (_, path) in &created {
        let full = shadow.root.join(OsStr::from_bytes(path));
        match std::fs::remove_file(&full) {
            Ok(()) => prune_empty_dirs(&shadow.root, full.parent()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove `{}`: {e}", full.display())),
        }
    }
    Ok((
        others.iter().map(|c| lossy(&c.1)).collect(),
        created.iter().map(|c| lossy(&c.1)).collect(),
    ))
}
