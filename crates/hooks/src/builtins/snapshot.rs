//! `snapshot`: undo checkpoints recorded in a shadow git repository (docs/hooks.md, Builtins).
//!
//! Why git, and why this shape:
//! - One shadow repository per source worktree, at `<data dir>/snapshot/<FNV-1a of the
//!   worktree path>`, where the data dir is `$TETHER_HOME`, else `$XDG_DATA_HOME/tether`, else
//!   `~/.local/share/tether` (read from the hook's environment, so tests point it at a temp
//!   dir). Every shadow command runs with `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` set
//!   explicitly, so the user's `.git` is only ever read (`rev-parse`, `ls-files`), never written.
//! - Tree objects only: a capture stages the worktree into the shadow index and runs
//!   `git write-tree`. No commits, no refs; `session_end` runs `git gc --prune=7.days`, which
//!   drops trees older than a week.
//! - Speed comes from keeping the shadow index between captures: its stat cache lets
//!   `ls-files -m -d -o` name just the files that changed, and only those are re-staged. The
//!   first capture of a large tree stages everything at once (one `add -A`, far cheaper than
//!   thousands of pathspecs).
//! - Ignore rules: `.gitignore` files live in the worktree and apply as they are; the source
//!   repository's `info/exclude` is copied into the shadow's before each capture. A new file
//!   (untracked in the source repository and not yet captured) over 2 MiB is left out.
//! - State is per session (`Arc<Mutex<…>>` each, never held across an `.await`); captures of
//!   one shadow repository are serialised by an async lock, since git's index is single-writer.
//!   Checkpoints live in memory and survive `session_end`, so an embedder that ends a session
//!   per run can still offer `/undo`; at most [`MAX_CHECKPOINTS`] are kept per session.
//! - Every failure is swallowed (the hook always returns null: a failing `pre_tool_use` hook
//!   would deny the tool call); the last one is kept for [`Snapshot::last_error`].
//!
//! The git plumbing is in `snapshot_shadow.rs`; this file holds the sessions and the hook.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use tether_protocol::{HookEvent, HookOutput};

use crate::registry::{Builtin, BuiltinCall};

#[path = "snapshot_shadow.rs"]
mod shadow;

use shadow::{Git, Shadow, capture, data_dir, diff_trees, lossy, path_hash, rollback};

/// New files larger than this are not captured.
pub const MAX_NEW_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Checkpoints kept per session; the oldest go first.
pub const MAX_CHECKPOINTS: usize = 100;

/// One undo point: the worktree changed between two captures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// Per session, from 1.
    pub id: u64,
    /// The tree [`Snapshot::undo`] restores: the worktree before the change.
    pub tree: String,
    /// The worktree after the change.
    pub after: String,
    pub when: jiff::Timestamp,
    /// `turn <n>` or `<tool name> <tool_use_id>`.
    pub label: String,
    /// Paths relative to the worktree root that differ between the two trees, sorted.
    pub files: Vec<String>,
}

/// What [`Snapshot::undo`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoReport {
    /// The checkpoint undone (popped).
    pub checkpoint: Checkpoint,
    /// Files changed or deleted since the checkpoint's `tree`, now restored; sorted.
    pub restored: Vec<String>,
    /// Files created since, now removed; sorted.
    pub removed: Vec<String>,
}

/// The `snapshot` builtin and the undo API over its checkpoints.
///
/// [`super::register_defaults`] registers one (docs/design.md D17). An embedder that wants
/// `/undo` builds its own `Arc<Snapshot>`, registers a clone (replacing the default) and
/// keeps the other to call [`Snapshot::checkpoints`] and [`Snapshot::undo`].
#[derive(Debug, Default)]
pub struct Snapshot {
    sessions: Mutex<HashMap<String, Arc<Mutex<SessionState>>>>,
    /// One lock per shadow repository.
    repos: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

#[derive(Debug, Default)]
struct SessionState {
    /// The worktree of the last call, with the `cwd` it was resolved from.
    repo: Option<(String, Shadow)>,
    /// git and its environment, from the last call (undo runs outside any hook call).
    git: Option<Git>,
    turn: u64,
    turn_tree: Option<String>,
    tool_trees: HashMap<String, String>,
    checkpoints: Vec<Checkpoint>,
    next_id: u64,
    last_error: Option<String>,
}

impl Snapshot {
    pub fn new() -> Self {
        Self::default()
    }

    /// The session's checkpoints, oldest first.
    pub fn checkpoints(&self, session_id: &str) -> Vec<Checkpoint> {
        self.existing(session_id)
            .map(|s| lock(&s).checkpoints.clone())
            .unwrap_or_default()
    }

    /// Why the session's last capture failed, if it did.
    pub fn last_error(&self, session_id: &str) -> Option<String> {
        self.existing(session_id)
            .and_then(|s| lock(&s).last_error.clone())
    }

    /// Restores the worktree to its state before the latest checkpoint and pops it: files
    /// changed or deleted since are restored, files created since are removed. Later edits to
    /// those files are lost; files the capture skips (ignored, new and over 2 MiB) are kept.
    pub async fn undo(&self, session_id: &str) -> Result<UndoReport, String> {
        let state = self
            .existing(session_id)
            .ok_or_else(|| format!("no snapshots for session `{session_id}`"))?;
        let (checkpoint, shadow, git) = {
            let s = lock(&state);
            match (s.checkpoints.last(), &s.repo, &s.git) {
                (Some(c), Some((_, shadow)), Some(git)) => (c.clone(), shadow.clone(), git.clone()),
                _ => return Err("nothing to undo".to_owned()),
            }
        };
        let repo = self.repo_lock(&shadow.dir);
        let _guard = repo.lock().await;
        let (restored, removed) = rollback(&git, &shadow, &checkpoint.tree).await?;
        let mut s = lock(&state);
        if s.checkpoints.last().is_some_and(|c| c.id == checkpoint.id) {
            s.checkpoints.pop();
        }
        Ok(UndoReport {
            checkpoint,
            restored,
            removed,
        })
    }

    fn existing(&self, session_id: &str) -> Option<Arc<Mutex<SessionState>>> {
        lock(&self.sessions).get(session_id).cloned()
    }

    fn session(&self, session_id: &str) -> Arc<Mutex<SessionState>> {
        lock(&self.sessions)
            .entry(session_id.to_owned())
            .or_default()
            .clone()
    }

    fn repo_lock(&self, dir: &Path) -> Arc<tokio::sync::Mutex<()>> {
        lock(&self.repos).entry(dir.to_owned()).or_default().clone()
    }

    /// The session's worktree and shadow repository for `cwd` (resolved once per `cwd`).
    async fn resolve(
        &self,
        state: &Mutex<SessionState>,
        call: &BuiltinCall<'_>,
        git: &Git,
    ) -> Option<Shadow> {
        let cwd = &call.input.cwd;
        if let Some((known, shadow)) = &lock(state).repo
            && known == cwd
        {
            return Some(shadow.clone());
        }
        let data = data_dir(call.env)?;
        if !Path::new(cwd).is_dir() {
            return None;
        }
        let (root, common_dir) = git.worktree(Path::new(cwd), Some(call.cancel)).await?;
        let shadow = Shadow {
            dir: data.join("snapshot").join(path_hash(&root)),
            data,
            root,
            common_dir,
        };
        lock(state).repo = Some((cwd.clone(), shadow.clone()));
        Some(shadow)
    }

    async fn handle(&self, call: &BuiltinCall<'_>) -> Result<(), String> {
        let input = call.input;
        let event = call.event;
        let relevant = matches!(
            event,
            HookEvent::SessionStart
                | HookEvent::TurnStart
                | HookEvent::TurnEnd
                | HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::SessionEnd
        );
        if !relevant || input.cwd.is_empty() || input.session_id.is_empty() {
            return Ok(());
        }
        let Some(git) = Git::from_env(call.env) else {
            return Ok(());
        };
        let state = self.session(&input.session_id);
        let Some(shadow) = self.resolve(&state, call, &git).await else {
            return Ok(());
        };
        lock(&state).git = Some(git.clone());
        let repo = self.repo_lock(&shadow.dir);
        let _guard = repo.lock().await;
        let cancel = Some(call.cancel);
        if event == HookEvent::SessionEnd {
            {
                let mut s = lock(&state);
                s.turn_tree = None;
                s.tool_trees.clear();
            }
            return git
                .shadow(&shadow, &["gc", "--quiet", "--prune=7.days"], None, cancel)
                .await
                .map(drop);
        }
        // Nothing remembered to compare with: skip the capture.
        let remembered = {
            let s = lock(&state);
            match event {
                HookEvent::PostToolUse => s.tool_trees.contains_key(&input.tool_use_id),
                HookEvent::TurnEnd => s.turn_tree.is_some(),
                _ => true,
            }
        };
        if !remembered {
            return Ok(());
        }
        let tree = capture(&git, &shadow, cancel).await?;
        let (before, label) = {
            let mut s = lock(&state);
            match event {
                HookEvent::TurnStart => {
                    s.turn += 1;
                    s.turn_tree = Some(tree);
                    return Ok(());
                }
                HookEvent::PreToolUse => {
                    if !input.tool_use_id.is_empty() {
                        s.tool_trees.insert(input.tool_use_id.clone(), tree);
                    }
                    return Ok(());
                }
                HookEvent::PostToolUse => (
                    s.tool_trees.remove(&input.tool_use_id),
                    format!("{} {}", input.tool_name, input.tool_use_id),
                ),
                HookEvent::TurnEnd => (s.turn_tree.take(), format!("turn {}", s.turn)),
                _ => return Ok(()),
            }
        };
        let Some(before) = before else {
            return Ok(());
        };
        let files = diff_trees(&git, &shadow, &before, &tree, cancel).await?;
        if files.is_empty() {
            return Ok(());
        }
        let mut s = lock(&state);
        s.next_id += 1;
        let checkpoint = Checkpoint {
            id: s.next_id,
            tree: before,
            after: tree,
            when: jiff::Timestamp::now(),
            label,
            files: files.iter().map(|f| lossy(&f.1)).collect(),
        };
        s.checkpoints.push(checkpoint);
        if s.checkpoints.len() > MAX_CHECKPOINTS {
            s.checkpoints.remove(0);
        }
        Ok(())
    }
}

/// A poisoned lock still holds usable state: a panic elsewhere must not disable undo.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Builtin for Snapshot {
    fn name(&self) -> &'static str {
        "snapshot"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let result = self.handle(&call).await;
            if !call.input.session_id.is_empty()
                && let Some(state) = self.existing(&call.input.session_id)
            {
                lock(&state).last_error = result.err();
            }
            Ok(None)
        })
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
