//! `worktree_create` (docs/design.md, Worktrees): fired once a `--worktree` checkout exists
//! and before the session does, inside the new worktree.

use tether_hooks::HookResult;
use tether_protocol::HookEvent;
use tokio_util::sync::CancellationToken;

use crate::runtime::Runtime;

/// A worktree the run works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeInfo {
    pub path: String,
    pub branch: String,
    /// The repository root it was branched from.
    pub source_dir: String,
}

impl Runtime {
    /// Fires `worktree_create` on `agent`'s hooks (no session yet: `session_id` is empty).
    /// `allowed: false` means the run must not start.
    pub async fn worktree_created(
        &self,
        agent: &str,
        info: &WorktreeInfo,
        cancel: &CancellationToken,
    ) -> Option<HookResult> {
        let agent = self.agent(agent)?.clone();
        let mut input = self.input(&agent, "");
        input.cwd.clone_from(&info.path);
        input.worktree_path.clone_from(&info.path);
        input.worktree_branch.clone_from(&info.branch);
        input.worktree_source_dir.clone_from(&info.source_dir);
        Some(
            self.fire(&agent, "", HookEvent::WorktreeCreate, input, cancel)
                .await,
        )
    }
}
