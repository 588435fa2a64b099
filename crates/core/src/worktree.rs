//! `worktree_create` (docs/design.md, Worktrees): fired once a `--worktree` checkout exists
//! and before the session does, inside the new worktree.

use tether_hooks::HookResult;
use tether_protocol::{HookEvent, Payload, WorktreePayload};
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
        let mut common = self.input(&agent, "");
        common.cwd.clone_from(&info.path);
        let input = WorktreePayload {
            worktree_path: info.path.clone(),
            worktree_branch: info.branch.clone(),
            worktree_source_dir: info.source_dir.clone(),
        }
        .into_input(common);
        Some(
            self.fire(&agent, "", HookEvent::WorktreeCreate, input, cancel)
                .await,
        )
    }
}
