//! The one event table.
//!
//! Every fact about an event lives in its row of [`EVENTS`], one [`EventInfo`] per event in
//! variant order, and every row spells out every fact (no defaults), so adding an event forces
//! each decision to be made. [`HookEvent`]'s methods read the row; reference tables in the docs
//! are generated from it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::payload::Family;

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

/// Every fact about one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventInfo {
    /// The event this row describes (row `i` describes variant `i`).
    pub event: HookEvent,
    /// The snake_case name used in YAML, on the wire and on the command line.
    pub wire_name: &'static str,
    /// When the event fires, in one line.
    pub description: &'static str,
    /// Tool-matched: the event takes a list of `{matcher, hooks}` entries; the others a flat
    /// list of hook definitions.
    pub uses_matcher: bool,
    /// `allowed: false` changes what the runtime does (docs/hooks.md, Events).
    pub can_block: bool,
    /// A hook that fails (crash, timeout, spawn error, bad reply) denies instead of warning,
    /// whatever its `on_error` says.
    pub fails_closed: bool,
    /// The hooks run one after another, each seeing the rewrite (`updated_tool_response`,
    /// `updated_messages`, `updated_input`) of the ones before, instead of concurrently.
    pub chains_rewrites: bool,
    /// What the event reads from `hook_specific_output` besides `additional_context`.
    pub specific_output: SpecificOutput,
    /// Entries may run on the preempt lane (`preempt_yolo: true`).
    pub has_preempt_lane: bool,
    /// A `dialect: claude` hook's block keeps the agent going (Claude Code's Stop).
    pub claude_block_continues: bool,
    /// Stdout that is not a JSON object counts as `additional_context`.
    pub plain_text_is_context: bool,
    /// Where the aggregated `additional_context` goes.
    pub context_lifetime: ContextLifetime,
    /// The payload the runtime fills the Input with: the event's Input fields besides
    /// `session_id`, `cwd`, `hook_event_name` and `agent_name` are its family's.
    pub input: Family,
}

/// The event table: one row per event, in variant order.
pub static EVENTS: [EventInfo; HookEvent::COUNT] = [
    EventInfo {
        event: HookEvent::PreToolUse,
        wire_name: "pre_tool_use",
        description: "before a tool call executes; can allow, ask, deny or rewrite it",
        uses_matcher: true,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::ToolDecision,
        has_preempt_lane: true,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ToolCall,
    },
    EventInfo {
        event: HookEvent::PostToolUse,
        wire_name: "post_tool_use",
        description: "after a tool call completes, successfully or not",
        uses_matcher: true,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::NextCall,
        input: Family::ToolResult,
    },
    EventInfo {
        event: HookEvent::PermissionRequest,
        wire_name: "permission_request",
        description: "just before the user would be asked to approve a tool call",
        uses_matcher: true,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::PermissionAnswer,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ToolCall,
    },
    EventInfo {
        event: HookEvent::SessionStart,
        wire_name: "session_start",
        description: "when a session starts, resumes, is cleared or compacted",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Session,
        input: Family::Source,
    },
    EventInfo {
        event: HookEvent::UserPromptSubmit,
        wire_name: "user_prompt_submit",
        description: "once per user message, before the first model call",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Prompt,
        input: Family::Prompt,
    },
    EventInfo {
        event: HookEvent::UserSteeringMessagesSubmit,
        wire_name: "user_steering_messages_submit",
        description: "each time messages typed while the agent works are drained",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Prompt,
        input: Family::Steering,
    },
    EventInfo {
        event: HookEvent::UserFollowupSubmit,
        wire_name: "user_followup_submit",
        description: "each time a queued follow-up starts a fresh turn",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Prompt,
        input: Family::Prompt,
    },
    EventInfo {
        event: HookEvent::TurnStart,
        wire_name: "turn_start",
        description: "at the start of every turn (each model call)",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Turn,
        input: Family::Bare,
    },
    EventInfo {
        event: HookEvent::TurnEnd,
        wire_name: "turn_end",
        description: "at the end of every turn, whatever ended it",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Reason,
    },
    EventInfo {
        event: HookEvent::BeforeLlmCall,
        wire_name: "before_llm_call",
        description: "just before every model call",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: true,
        specific_output: SpecificOutput::Messages,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ModelCall,
    },
    EventInfo {
        event: HookEvent::AfterLlmCall,
        wire_name: "after_llm_call",
        description: "after every successful model call, before it is recorded",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ModelResponse,
    },
    EventInfo {
        event: HookEvent::SessionEnd,
        wire_name: "session_end",
        description: "once when a session ends, also on Ctrl-C and SIGTERM",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Reason,
    },
    EventInfo {
        event: HookEvent::PreCompact,
        wire_name: "pre_compact",
        description: "just before the transcript is compacted; can steer or veto",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::CompactionPrompt,
        input: Family::Source,
    },
    EventInfo {
        event: HookEvent::SubagentStop,
        wire_name: "subagent_stop",
        description: "when a sub-agent finishes its task",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Subagent,
    },
    EventInfo {
        event: HookEvent::OnUserInput,
        wire_name: "on_user_input",
        description: "when the agent waits for the user",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Bare,
    },
    EventInfo {
        event: HookEvent::Stop,
        wire_name: "stop",
        description: "when the model finishes responding (no more tool calls)",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: true,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::NextCall,
        input: Family::Stop,
    },
    EventInfo {
        event: HookEvent::Notification,
        wire_name: "notification",
        description: "when the runtime emits an error or warning notification",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Notification,
    },
    EventInfo {
        event: HookEvent::OnError,
        wire_name: "on_error",
        description: "when the runtime hits an error (alongside notification)",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Notification,
    },
    EventInfo {
        event: HookEvent::OnMaxIterations,
        wire_name: "on_max_iterations",
        description: "when the agent reaches its max_iterations limit",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Notification,
    },
    EventInfo {
        event: HookEvent::OnAgentSwitch,
        wire_name: "on_agent_switch",
        description: "when the active agent changes (transfer, handoff, return)",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::AgentSwitch,
    },
    EventInfo {
        event: HookEvent::OnSessionResume,
        wire_name: "on_session_resume",
        description: "when the user approves continuing past max_iterations",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Resume,
    },
    EventInfo {
        event: HookEvent::OnToolApprovalDecision,
        wire_name: "on_tool_approval_decision",
        description: "after the approval chain decides a tool call",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ApprovalDecision,
    },
    EventInfo {
        event: HookEvent::BeforeCompaction,
        wire_name: "before_compaction",
        description: "just before a compaction; can veto or supply the summary",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Summary,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Compaction,
    },
    EventInfo {
        event: HookEvent::AfterCompaction,
        wire_name: "after_compaction",
        description: "after a compaction was applied to the session",
        uses_matcher: false,
        can_block: false,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Compacted,
    },
    EventInfo {
        event: HookEvent::ToolResponseTransform,
        wire_name: "tool_response_transform",
        description: "between a tool's execution and the recording of its result; can rewrite it",
        uses_matcher: true,
        can_block: false,
        fails_closed: false,
        chains_rewrites: true,
        specific_output: SpecificOutput::ToolResponse,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ToolResult,
    },
    EventInfo {
        event: HookEvent::WorktreeCreate,
        wire_name: "worktree_create",
        description: "after `--worktree` created a git worktree, before the session",
        uses_matcher: false,
        can_block: true,
        fails_closed: false,
        chains_rewrites: false,
        specific_output: SpecificOutput::Nothing,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: true,
        context_lifetime: ContextLifetime::Terminal,
        input: Family::Worktree,
    },
    EventInfo {
        event: HookEvent::ToolInputTransform,
        wire_name: "tool_input_transform",
        description: "before every tool call, ahead of every approval step; rewrites its arguments, one hook after another",
        uses_matcher: true,
        can_block: true,
        fails_closed: false,
        chains_rewrites: true,
        specific_output: SpecificOutput::InputRewrite,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ToolCall,
    },
    EventInfo {
        event: HookEvent::ToolGuard,
        wire_name: "tool_guard",
        description: "after tool_input_transform, before every approval step; its deny holds even under --yolo, its ask forces a confirmation",
        uses_matcher: true,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::ToolDecision,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::ToolCall,
    },
    EventInfo {
        event: HookEvent::BeforeAgentRun,
        wire_name: "before_agent_run",
        description: "once per agent activation, before its first model call; can route the request to another agent",
        uses_matcher: false,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::Transition,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Prompt,
    },
    EventInfo {
        event: HookEvent::AfterAgentComplete,
        wire_name: "after_agent_complete",
        description: "after an agent completes its answer; can hand the conversation to another agent",
        uses_matcher: false,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::Transition,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Answer,
    },
    EventInfo {
        event: HookEvent::PromptFileGuard,
        wire_name: "prompt_file_guard",
        description: "before a prompt file's text enters the context; every hook must allow it",
        uses_matcher: false,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::ToolDecision,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::PromptFile,
    },
    EventInfo {
        event: HookEvent::SkillContentGuard,
        wire_name: "skill_content_guard",
        description: "before a skill's text is given to the model; every hook must allow it",
        uses_matcher: false,
        can_block: true,
        fails_closed: true,
        chains_rewrites: false,
        specific_output: SpecificOutput::ToolDecision,
        has_preempt_lane: false,
        claude_block_continues: false,
        plain_text_is_context: false,
        context_lifetime: ContextLifetime::Ignored,
        input: Family::Skill,
    },
];

// Row `i` describes variant `i`: checked when the crate compiles.
const _: () = {
    let mut i = 0;
    while i < HookEvent::COUNT {
        assert!(
            EVENTS[i].event as usize == i,
            "EVENTS rows must follow the variant order"
        );
        i += 1;
    }
};

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
