//! `pre_tool_use` (both lanes) and `permission_request`: the hook steps of the approval
//! ladder.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tether_protocol::{Lane, PermissionDecision};

use crate::result::{HookResult, RunStatus};

/// What a hook step says about a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolVerdict {
    /// No opinion: the next step decides.
    Pass,
    Allow,
    /// A person must confirm.
    Ask,
    /// Refused; `hook` is the hook that refused (empty if none can be named).
    Deny {
        reason: String,
        hook: String,
    },
}

/// A `pre_tool_use` dispatch on one lane.
#[derive(Debug, Clone, PartialEq)]
pub struct PreToolUseOutcome {
    pub verdict: ToolVerdict,
    /// Arguments merged onto the call's (default lane).
    pub updated_input: Option<Map<String, Value>>,
    /// Annotations for the confirmation (preempt lane asks).
    pub metadata: BTreeMap<String, String>,
}

impl PreToolUseOutcome {
    /// The preempt lane decides through `permission_decision` alone (its failures and
    /// blocks arrive as `deny`); the default lane blocks through `allowed` and otherwise
    /// allows or asks through `permission_decision`.
    pub fn of(r: &HookResult) -> Self {
        let verdict = match r.lane {
            Lane::Preempt => match r.decision {
                Some(PermissionDecision::Deny) => ToolVerdict::Deny {
                    reason: r.decision_reason.clone(),
                    hook: r.blocking_hook(),
                },
                Some(PermissionDecision::Ask) => ToolVerdict::Ask,
                Some(PermissionDecision::Allow) | None => ToolVerdict::Pass,
            },
            Lane::Default if !r.allowed => ToolVerdict::Deny {
                reason: r.message.clone(),
                hook: r.blocking_hook(),
            },
            Lane::Default => match r.decision {
                Some(PermissionDecision::Allow) => ToolVerdict::Allow,
                Some(PermissionDecision::Ask) => ToolVerdict::Ask,
                Some(PermissionDecision::Deny) | None => ToolVerdict::Pass,
            },
        };
        Self {
            verdict,
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

/// A `permission_request` dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequestOutcome {
    pub verdict: ToolVerdict,
    /// Annotations for the confirmation when the hooks leave it to the user.
    pub metadata: BTreeMap<String, String>,
}

impl PermissionRequestOutcome {
    pub fn of(r: &HookResult) -> Self {
        let verdict = if !r.allowed {
            ToolVerdict::Deny {
                reason: r.message.clone(),
                hook: r.blocking_hook(),
            }
        } else if r.permission_allowed {
            ToolVerdict::Allow
        } else {
            ToolVerdict::Pass
        };
        Self {
            verdict,
            metadata: r.metadata.clone(),
        }
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
        let mut r = result(Lane::Preempt);
        r.decision = Some(PermissionDecision::Deny);
        r.decision_reason = "no".into();
        assert_eq!(
            PreToolUseOutcome::of(&r).verdict,
            ToolVerdict::Deny {
                reason: "no".into(),
                hook: String::new()
            }
        );
        r.decision = Some(PermissionDecision::Allow);
        assert_eq!(PreToolUseOutcome::of(&r).verdict, ToolVerdict::Pass);

        let mut r = result(Lane::Default);
        r.decision = Some(PermissionDecision::Allow);
        assert_eq!(PreToolUseOutcome::of(&r).verdict, ToolVerdict::Allow);
        r.allowed = false;
        r.message = "blocked".into();
        assert!(matches!(
            PreToolUseOutcome::of(&r).verdict,
            ToolVerdict::Deny { reason, .. } if reason == "blocked"
        ));

        let mut r = HookResult::empty(HookEvent::PermissionRequest, Lane::Default);
        assert_eq!(PermissionRequestOutcome::of(&r).verdict, ToolVerdict::Pass);
        r.permission_allowed = true;
        assert_eq!(PermissionRequestOutcome::of(&r).verdict, ToolVerdict::Allow);
        r.allowed = false;
        assert!(matches!(
            PermissionRequestOutcome::of(&r).verdict,
            ToolVerdict::Deny { .. }
        ));
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
