//! The events and the one event table.
//!
//! Every fact about an event lives in its row of [`EVENTS`] (`event/table.rs`), one
//! [`EventInfo`] per event in variant order, and every row spells out every fact (no defaults),
//! so adding an event forces each decision to be made. [`HookEvent`]'s methods read the row;
//! reference tables in the docs are generated from it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

mod table;

pub use table::{EVENTS, EventInfo};

/// A lifecycle event that hooks can subscribe to.
///
/// The variant order is the order in which the agent-file validator walks the events;
/// [`HookEvent::ALL`] lists them in that order, and [`EVENTS`] holds their rows in that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    PermissionRequest,
    SessionStart,
    UserPromptSubmit,
    UserSteeringMessagesSubmit,
    UserFollowupSubmit,
    TurnStart,
    TurnEnd,
    BeforeLlmCall,
    AfterLlmCall,
    SessionEnd,
    PreCompact,
    SubagentStop,
    OnUserInput,
    Stop,
    Notification,
    OnError,
    OnMaxIterations,
    OnAgentSwitch,
    OnSessionResume,
    OnToolApprovalDecision,
    BeforeCompaction,
    AfterCompaction,
    ToolResponseTransform,
    WorktreeCreate,
    ToolInputTransform,
    ToolGuard,
    BeforeAgentRun,
    AfterAgentComplete,
    PromptFileGuard,
    SkillContentGuard,
}

/// Where the `additional_context` (or plain stdout) of an event ends up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextLifetime {
    /// Not consumed by the runtime.
    Ignored,
    /// Persisted with the session and sent on every model call (docs/design.md D1).
    Session,
    /// Transient; sent on every model call until the next prompt, steering or follow-up.
    Prompt,
    /// Transient; sent on the model call of this turn only.
    Turn,
    /// Transient; sent on the next model call only (docs/design.md D3).
    NextCall,
    /// Appended to the compaction prompt.
    CompactionPrompt,
    /// Printed to the user's terminal (no session exists yet).
    Terminal,
}

/// What an event takes from a hook's `hook_specific_output` (besides context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecificOutput {
    /// `permission_decision` (the strongest wins) and `updated_input`.
    ToolDecision,
    /// `permission_decision` (`allow` answers for the user) and `metadata`.
    PermissionAnswer,
    /// `summary`, replacing the compaction's.
    Summary,
    /// `updated_messages`, replacing the outgoing messages of one call.
    Messages,
    /// `updated_tool_response`, replacing the tool's output.
    ToolResponse,
    /// `updated_input` only (tool_input_transform): verdicts belong on tool_guard.
    InputRewrite,
    /// `transition` (`{action: route, agent}`) to another agent.
    Transition,
    Nothing,
}

/// The two lanes of `pre_tool_use` (docs/design.md, the approval ladder). Every other event has only `Default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// Entries with `preempt_yolo: true`: run before `--yolo` and permission rules.
    Preempt,
    Default,
}

impl Lane {
    /// `preempt` or `default`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Preempt => "preempt",
            Self::Default => "default",
        }
    }
}

impl HookEvent {
    /// How many events there are.
    pub const COUNT: usize = 32;

    /// All events, in validation (variant) order.
    pub const ALL: [Self; Self::COUNT] = {
        let mut all = [Self::PreToolUse; Self::COUNT];
        let mut i = 0;
        while i < Self::COUNT {
            all[i] = EVENTS[i].event;
            i += 1;
        }
        all
    };

    /// Position in [`HookEvent::ALL`]; used to index per-event tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The event's row of the table.
    pub const fn info(self) -> &'static EventInfo {
        &EVENTS[self as usize]
    }

    /// [`EventInfo::wire_name`].
    pub const fn wire_name(self) -> &'static str {
        self.info().wire_name
    }

    /// [`EventInfo::uses_matcher`].
    pub const fn uses_matcher(self) -> bool {
        self.info().uses_matcher
    }

    /// [`EventInfo::can_block`].
    pub const fn can_block(self) -> bool {
        self.info().can_block
    }

    /// [`EventInfo::fails_closed`].
    pub const fn fails_closed(self) -> bool {
        self.info().fails_closed
    }

    /// [`EventInfo::chains_rewrites`].
    pub const fn chains_rewrites(self) -> bool {
        self.info().chains_rewrites
    }

    /// [`EventInfo::specific_output`].
    pub const fn specific_output(self) -> SpecificOutput {
        self.info().specific_output
    }

    /// [`EventInfo::has_preempt_lane`].
    pub const fn has_preempt_lane(self) -> bool {
        self.info().has_preempt_lane
    }

    /// [`EventInfo::claude_block_continues`].
    pub const fn claude_block_continues(self) -> bool {
        self.info().claude_block_continues
    }

    /// [`EventInfo::plain_text_is_context`].
    pub const fn plain_text_is_context(self) -> bool {
        self.info().plain_text_is_context
    }

    /// [`EventInfo::context_lifetime`].
    pub const fn context_lifetime(self) -> ContextLifetime {
        self.info().context_lifetime
    }

    /// [`EventInfo::description`].
    pub const fn description(self) -> &'static str {
        self.info().description
    }

    /// Input fields set for this event besides `session_id`, `cwd`, `hook_event_name` and
    /// `agent_name`: those of its payload family ([`EventInfo::input`]).
    pub const fn input_fields(self) -> &'static [&'static str] {
        self.info().input.fields()
    }

    /// Parses a wire name (`pre_tool_use`).
    pub fn from_wire_name(name: &str) -> Option<Self> {
        EVENTS.iter().find(|e| e.wire_name == name).map(|e| e.event)
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wire_name())
    }
}

/// Error returned when a string names no event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEvent(pub String);

impl fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown hook event `{}`", self.0)
    }
}

impl std::error::Error for UnknownEvent {}

impl FromStr for HookEvent {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_wire_name(s).ok_or_else(|| UnknownEvent(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::payload::tests::{sample, sent_fields};

    #[test]
    fn all_lists_every_event_once_in_index_order() {
        for (i, e) in HookEvent::ALL.iter().enumerate() {
            assert_eq!(e.index(), i, "{e}");
            assert_eq!(HookEvent::from_wire_name(e.wire_name()), Some(*e));
        }
    }

    #[test]
    fn row_i_describes_variant_i() {
        for (i, row) in EVENTS.iter().enumerate() {
            assert_eq!(row.event.index(), i, "{}", row.wire_name);
            assert_eq!(HookEvent::ALL[i], row.event);
            assert_eq!(row.event.info(), row);
        }
    }

    #[test]
    fn wire_names_are_snake_case_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for e in HookEvent::ALL {
            let name = e.wire_name();
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert!(seen.insert(name), "{name} twice");
            assert_eq!(format!("{e:?}").to_lowercase(), name.replace('_', ""));
        }
    }

    #[test]
    fn the_rewriting_events_chain() {
        let chained: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.chains_rewrites())
            .collect();
        assert_eq!(
            chained,
            [
                HookEvent::BeforeLlmCall,
                HookEvent::ToolResponseTransform,
                HookEvent::ToolInputTransform
            ]
        );
        for e in chained {
            assert!(matches!(
                e.specific_output(),
                SpecificOutput::Messages
                    | SpecificOutput::ToolResponse
                    | SpecificOutput::InputRewrite
            ));
        }
    }

    /// docs/hooks.md lists `input_fields`: they must be exactly what the event's payload
    /// type sends when every one of its fields is set.
    #[test]
    fn documented_input_fields_are_the_fields_the_payload_sends() {
        for e in HookEvent::ALL {
            let documented: BTreeSet<String> =
                e.input_fields().iter().map(|f| (*f).to_owned()).collect();
            assert_eq!(
                documented.len(),
                e.input_fields().len(),
                "{e}: a field twice"
            );
            let sent = sent_fields(&sample(e.info().input));
            assert_eq!(documented, sent, "{e}");
        }
    }

    #[test]
    fn tool_events_are_the_matcher_events() {
        let matched: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.uses_matcher())
            .collect();
        assert_eq!(
            matched,
            [
                HookEvent::PreToolUse,
                HookEvent::PostToolUse,
                HookEvent::PermissionRequest,
                HookEvent::ToolResponseTransform,
                HookEvent::ToolInputTransform,
                HookEvent::ToolGuard
            ]
        );
    }

    #[test]
    fn blocking_events_match_the_seed_table() {
        let blocking: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.can_block())
            .map(HookEvent::wire_name)
            .collect();
        assert_eq!(
            blocking,
            [
                "pre_tool_use",
                "post_tool_use",
                "permission_request",
                "user_prompt_submit",
                "user_steering_messages_submit",
                "user_followup_submit",
                "before_llm_call",
                "pre_compact",
                "before_compaction",
                "worktree_create",
                "tool_input_transform",
                "tool_guard",
                "before_agent_run",
                "after_agent_complete",
                "prompt_file_guard",
                "skill_content_guard"
            ]
        );
    }

    #[test]
    fn the_guarding_events_fail_closed() {
        let closed: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.fails_closed())
            .collect();
        assert_eq!(
            closed,
            [
                HookEvent::PreToolUse,
                HookEvent::ToolGuard,
                HookEvent::BeforeAgentRun,
                HookEvent::AfterAgentComplete,
                HookEvent::PromptFileGuard,
                HookEvent::SkillContentGuard
            ]
        );
    }

    #[test]
    fn plain_text_events_match_the_seed_list() {
        let plain: Vec<_> = HookEvent::ALL
            .into_iter()
            .filter(|e| e.plain_text_is_context())
            .map(HookEvent::wire_name)
            .collect();
        assert_eq!(
            plain,
            [
                "post_tool_use",
                "session_start",
                "user_prompt_submit",
                "user_steering_messages_submit",
                "user_followup_submit",
                "turn_start",
                "pre_compact",
                "stop",
                "worktree_create"
            ]
        );
    }

    #[test]
    fn unknown_event_name_is_an_error() {
        assert_eq!(
            "pre_tool".parse::<HookEvent>().unwrap_err().to_string(),
            "unknown hook event `pre_tool`"
        );
    }
}
