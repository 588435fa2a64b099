//! `pre_tool_use` (both lanes) and `permission_request`: the hook steps of the approval
//! ladder.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tether_protocol::{Decision, Lane};

use crate::result::{HookResult, RunStatus};

/// A `pre_tool_use` dispatch on one lane.
#[derive(Debug, Clone, PartialEq)]
pub struct PreToolUseOutcome {
    /// `None`: no opinion, the next step decides.
    pub decision: Option<Decision>,
    /// Why it was denied, in the hook's words.
    pub reason: String,
    /// The hook that denied (empty if none can be named).
    pub hook: String,
    /// Arguments merged onto the call's (default lane).
    pub updated_input: Option<Map<String, Value>>,
    /// Annotations for the confirmation (preempt lane asks).
    pub metadata: BTreeMap<String, String>,
}

impl PreToolUseOutcome {
    /// The preempt lane decides through `permission_decision` alone (its failures and
    /// blocks arrive as `deny`; its allow is no opinion); the default lane blocks through
    /// `allowed` and otherwise allows or asks through `permission_decision`.
    pub fn of(r: &HookResult) -> Self {
        let (decision, reason) = match r.lane {
            Lane::Preempt => match r.decision {
                Some(Decision::Deny) => (Some(Decision::Deny), r.decision_reason.clone()),
                Some(Decision::Ask) => (Some(Decision::Ask), String::new()),
                Some(Decision::Allow) | None => (None, String::new()),
            },
            Lane::Default if !r.allowed => (Some(Decision::Deny), r.message.clone()),
            Lane::Default => match r.decision {
                Some(d @ (Decision::Allow | Decision::Ask)) => (Some(d), String::new()),
                Some(Decision::Deny) | None => (None, String::new()),
            },
        };
        Self {
            hook: denier(decision, r),
            decision,
            reason,
            updated_input: r.updated_input.clone(),
            metadata: r.metadata.clone(),
        }
    }

    /// `args` with this outcome's `updated_input` merged on (later keys win).
    pub fn apply(&self, args: &mut Map<String, Value>) {
        if let Some(updates) = &self.updated_input {
            for (k, v) in updates {
                args.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A `permission_request` dispatch: a deny, an allow answering for the user, or no opinion.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequestOutcome {
    pub decision: Option<Decision>,
    pub reason: String,
    pub hook: String,
    /// Annotations for the confirmation when the hooks leave it to the user.
    pub metadata: BTreeMap<String, String>,
}

impl PermissionRequestOutcome {
    pub fn of(r: &HookResult) -> Self {
        let (decision, reason) = if !r.allowed {
            (Some(Decision::Deny), r.message.clone())
        } else if r.permission_allowed {
            (Some(Decision::Allow), String::new())
        } else {
            (None, String::new())
        };
        Self {
            hook: denier(decision, r),
            decision,
            reason,
            metadata: r.metadata.clone(),
        }
    }
}

/// The hook to name in a deny's notice.
fn denier(decision: Option<Decision>, r: &HookResult) -> String {
    if decision == Some(Decision::Deny) {
        r.blocking_hook()
    } else {
        String::new()
    }
}

impl HookResult {
    /// The hook that made this result block or deny (the last one that did), for notices.
    pub fn blocking_hook(&self) -> String {
        self.runs
            .iter()
            .rev()
            .find(|run| {
                matches!(run.verdict, "deny" | "block")
                    || matches!(
                        run.status,
                        RunStatus::Blocked | RunStatus::Failed | RunStatus::TimedOut
                    )
            })
            .map(|run| run.name.clone())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use tether_protocol::HookEvent;

    use super::*;

    fn result(lane: Lane) -> HookResult {
        HookResult::empty(HookEvent::PreToolUse, lane)
    }

    #[test]
    fn each_lane_reads_its_own_fields() {
        let decided = |o: PreToolUseOutcome| (o.decision, o.reason);
        let mut r = result(Lane::Preempt);
        r.decision = Some(Decision::Deny);
        r.decision_reason = "no".into();
        assert_eq!(
            decided(PreToolUseOutcome::of(&r)),
            (Some(Decision::Deny), "no".into())
        );
        r.decision = Some(Decision::Allow);
        assert_eq!(decided(PreToolUseOutcome::of(&r)), (None, String::new()));

        let mut r = result(Lane::Default);
        r.decision = Some(Decision::Allow);
        assert_eq!(
            decided(PreToolUseOutcome::of(&r)),
            (Some(Decision::Allow), String::new())
        );
        r.allowed = false;
        r.message = "blocked".into();
        assert_eq!(
            decided(PreToolUseOutcome::of(&r)),
            (Some(Decision::Deny), "blocked".into())
        );

        let mut r = HookResult::empty(HookEvent::PermissionRequest, Lane::Default);
        assert_eq!(PermissionRequestOutcome::of(&r).decision, None);
        r.permission_allowed = true;
        assert_eq!(
            PermissionRequestOutcome::of(&r).decision,
            Some(Decision::Allow)
        );
        r.allowed = false;
        assert_eq!(
            PermissionRequestOutcome::of(&r).decision,
            Some(Decision::Deny)
        );
    }

    #[test]
    fn updated_input_merges_key_by_key() {
        let mut r = result(Lane::Default);
        let mut upd = Map::new();
        upd.insert("cmd".into(), Value::from("ls -h"));
        r.updated_input = Some(upd);
        let mut args = Map::new();
        args.insert("cmd".into(), Value::from("ls"));
        args.insert("cwd".into(), Value::from("/"));
        PreToolUseOutcome::of(&r).apply(&mut args);
        assert_eq!(args["cmd"], "ls -h");
        assert_eq!(args["cwd"], "/");
    }
}
