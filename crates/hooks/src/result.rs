//! What a dispatch returns: the aggregate verdict and one record per hook run.
//!
//! A hook's failure is data, not an `Err`: a crash, a timeout or bad output becomes a
//! [`HookRun`] with a status, and the event table decides what that means.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value};
use tether_config::HookSource;
use tether_protocol::{Decision, HookEvent, HookOutput, Lane, Message};

/// How one hook run ended (the `status` of `tether hooks fire`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Exit 0 (whatever its JSON says; verdicts are in the aggregate).
    Ok,
    /// Exit 2.
    Blocked,
    /// Another non-zero exit: logged, non-blocking.
    Error,
    /// Could not start, killed by a signal, output over the cap, builtin or model error,
    /// exit 126/127.
    Failed,
    TimedOut,
}

impl RunStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Blocked => "blocked",
            Self::Error => "error",
            Self::Failed => "failed",
            Self::TimedOut => "timed_out",
        }
    }
}

/// What a handler produced, before aggregation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The hook ran to completion with this exit code (builtins and model hooks: 0).
    Exited {
        code: i32,
        stdout: String,
        stderr: String,
        /// The parsed Output, for exit 0 with a JSON object (or a builtin's answer).
        output: Option<HookOutput>,
    },
    /// The hook failed to run properly; `error` says why.
    Failed {
        error: String,
        stdout: String,
        stderr: String,
        timed_out: bool,
    },
}

impl Outcome {
    pub fn ok(output: Option<HookOutput>) -> Self {
        Self::Exited {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
            output,
        }
    }

    pub fn failed(error: impl Into<String>) -> Self {
        Self::Failed {
            error: error.into(),
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
        }
    }

    pub fn status(&self) -> RunStatus {
        match self {
            Self::Exited { code: 0, .. } => RunStatus::Ok,
            Self::Exited { code: 2, .. } => RunStatus::Blocked,
            Self::Exited { .. } => RunStatus::Error,
            Self::Failed {
                timed_out: true, ..
            } => RunStatus::TimedOut,
            Self::Failed { .. } => RunStatus::Failed,
        }
    }

    pub fn output(&self) -> Option<&HookOutput> {
        match self {
            Self::Exited { output, .. } => output.as_ref(),
            Self::Failed { .. } => None,
        }
    }

    pub(crate) fn output_mut(&mut self) -> Option<&mut HookOutput> {
        match self {
            Self::Exited { output, .. } => output.as_mut(),
            Self::Failed { .. } => None,
        }
    }
}

/// The record of one hook run.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    pub event: HookEvent,
    pub lane: Lane,
    /// `name`, else the command, builtin name or model spec.
    pub name: String,
    /// `command`, `builtin` or `model`.
    pub kind: &'static str,
    pub source: HookSource,
    pub status: RunStatus,
    /// The process's exit code; `None` when it never started, was killed or timed out.
    pub exit_code: Option<i32>,
    pub duration: Duration,
    pub error: Option<String>,
    /// What this hook alone said: `allow`, `ask`, `deny`, `block` or `none`.
    pub verdict: &'static str,
    pub outcome: Outcome,
    /// `type: policy`: the ids of the Cedar policies that decided (empty otherwise).
    pub policies: Vec<String>,
    /// `type: policy`: the policies whose condition errored on this call, so did not apply
    /// (also summed up in `error`), in file order.
    pub policy_errors: Vec<PolicyError>,
}

/// A Cedar policy whose condition errored on a call (a missing attribute, a wrong type): as
/// Cedar specifies, it did not apply, which for a `forbid` means it did not deny.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyError {
    /// Its `@id`, else Cedar's id.
    pub policy: String,
    /// Cedar's message.
    pub error: String,
}

/// The aggregated answer of every hook selected for one dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct HookResult {
    pub event: HookEvent,
    pub lane: Lane,
    /// `false` when a hook blocked, denied or failed closed. Its effect depends on the event.
    pub allowed: bool,
    /// Strongest `permission_decision` (pre_tool_use); `Deny` also for preempt-lane failures.
    pub decision: Option<Decision>,
    pub decision_reason: String,
    /// A permission_request hook answered `allow`.
    pub permission_allowed: bool,
    /// How many hooks answered `permission_decision: allow` (the content guards need every
    /// hook's).
    pub explicit_allows: usize,
    /// before_agent_run / after_agent_complete: the last hook's `transition`.
    pub transition: Option<tether_protocol::Transition>,
    /// Block and deny messages, joined with `\n`.
    pub message: String,
    /// Contexts, joined with `\n`, in config order.
    pub additional_context: String,
    /// Messages for the user, joined with `\n`.
    pub system_message: String,
    /// Merged `updated_input` keys (later hooks win per key); `None` when no hook rewrote.
    pub updated_input: Option<Map<String, Value>>,
    pub summary: String,
    pub updated_tool_response: Option<String>,
    pub updated_messages: Option<Vec<Message>>,
    pub metadata: BTreeMap<String, String>,
    /// Exit code (2) or failure code (-1) of the last hook that made `allowed` false by exit
    /// status or failure; 0 if none.
    pub exit_code: i32,
    pub stderr: String,
    /// Non-fatal problems to show the user (failed hooks under `on_error: warn`, …).
    pub warnings: Vec<String>,
    /// `stop`: the reasons of `dialect: claude` hooks that blocked, which in Claude Code keeps
    /// the agent working with the reason as its next instruction.
    pub keep_going: Vec<String>,
    pub runs: Vec<HookRun>,
}

impl HookResult {
    /// The answer when no hook ran.
    pub fn empty(event: HookEvent, lane: Lane) -> Self {
        Self {
            event,
            lane,
            allowed: true,
            decision: None,
            decision_reason: String::new(),
            permission_allowed: false,
            explicit_allows: 0,
            transition: None,
            message: String::new(),
            additional_context: String::new(),
            system_message: String::new(),
            updated_input: None,
            summary: String::new(),
            updated_tool_response: None,
            updated_messages: None,
            metadata: BTreeMap::new(),
            exit_code: 0,
            stderr: String::new(),
            warnings: Vec::new(),
            keep_going: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// `tool_input` with every `updated_input` key merged on top (docs/design.md D9).
    pub fn apply_updated_input(
        &self,
        original: Option<&Map<String, Value>>,
    ) -> Option<Map<String, Value>> {
        let updates = self.updated_input.as_ref()?;
        let mut merged = original.cloned().unwrap_or_default();
        for (k, v) in updates {
            merged.insert(k.clone(), v.clone());
        }
        Some(merged)
    }

    /// Combines the preempt lane's result with the default lane's (pre_tool_use).
    pub fn combine(mut preempt: Self, default: Self) -> Self {
        preempt.lane = Lane::Default;
        preempt.allowed &= default.allowed;
        if default.decision > preempt.decision {
            preempt.decision = default.decision;
            preempt.decision_reason = default.decision_reason;
        }
        preempt.permission_allowed |= default.permission_allowed;
        preempt.explicit_allows += default.explicit_allows;
        join_into(&mut preempt.message, &default.message);
        join_into(&mut preempt.additional_context, &default.additional_context);
        join_into(&mut preempt.system_message, &default.system_message);
        preempt.updated_input = default.updated_input;
        preempt.metadata.extend(default.metadata);
        if default.exit_code != 0 {
            preempt.exit_code = default.exit_code;
            preempt.stderr = default.stderr;
        }
        preempt.warnings.extend(default.warnings);
        preempt.runs.extend(default.runs);
        preempt
    }
}

fn join_into(target: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    if !target.is_empty() {
        target.push('\n');
    }
    target.push_str(more);
}
