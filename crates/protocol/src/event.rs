//! The one event table.
//!
//! Every fact about an event lives in a method of [`HookEvent`], and every method matches all
//! variants explicitly (no `_ =>`), so adding an event forces each decision to be made.
//! Reference tables in the docs are generated from these methods.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A lifecycle event that hooks can subscribe to.
///
/// The variant order is the order in which the agent-file validator walks the events;
/// [`HookEvent::ALL`] lists them in that order.
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
    /// All 32 events, in validation order.
    pub const ALL: [Self; 32] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::PermissionRequest,
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::UserSteeringMessagesSubmit,
        Self::UserFollowupSubmit,
        Self::TurnStart,
        Self::TurnEnd,
        Self::BeforeLlmCall,
        Self::AfterLlmCall,
        Self::SessionEnd,
        Self::PreCompact,
        Self::SubagentStop,
        Self::OnUserInput,
        Self::Stop,
        Self::Notification,
        Self::OnError,
        Self::OnMaxIterations,
        Self::OnAgentSwitch,
        Self::OnSessionResume,
        Self::OnToolApprovalDecision,
        Self::BeforeCompaction,
        Self::AfterCompaction,
        Self::ToolResponseTransform,
        Self::WorktreeCreate,
        Self::ToolInputTransform,
        Self::ToolGuard,
        Self::BeforeAgentRun,
        Self::AfterAgentComplete,
        Self::PromptFileGuard,
        Self::SkillContentGuard,
    ];

    /// Position in [`HookEvent::ALL`]; used to index per-event tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The snake_case name used in YAML, on the wire and on the command line.
    pub const fn wire_name(self) -> &'static str {
        match self {
            Self::PreToolUse => "pre_tool_use",
            Self::PostToolUse => "post_tool_use",
            Self::PermissionRequest => "permission_request",
            Self::SessionStart => "session_start",
            Self::UserPromptSubmit => "user_prompt_submit",
            Self::UserSteeringMessagesSubmit => "user_steering_messages_submit",
            Self::UserFollowupSubmit => "user_followup_submit",
            Self::TurnStart => "turn_start",
            Self::TurnEnd => "turn_end",
            Self::BeforeLlmCall => "before_llm_call",
            Self::AfterLlmCall => "after_llm_call",
            Self::SessionEnd => "session_end",
            Self::PreCompact => "pre_compact",
            Self::SubagentStop => "subagent_stop",
            Self::OnUserInput => "on_user_input",
            Self::Stop => "stop",
            Self::Notification => "notification",
            Self::OnError => "on_error",
            Self::OnMaxIterations => "on_max_iterations",
            Self::OnAgentSwitch => "on_agent_switch",
            Self::OnSessionResume => "on_session_resume",
            Self::OnToolApprovalDecision => "on_tool_approval_decision",
            Self::BeforeCompaction => "before_compaction",
            Self::AfterCompaction => "after_compaction",
            Self::ToolResponseTransform => "tool_response_transform",
            Self::WorktreeCreate => "worktree_create",
            Self::ToolInputTransform => "tool_input_transform",
            Self::ToolGuard => "tool_guard",
            Self::BeforeAgentRun => "before_agent_run",
            Self::AfterAgentComplete => "after_agent_complete",
            Self::PromptFileGuard => "prompt_file_guard",
            Self::SkillContentGuard => "skill_content_guard",
        }
    }

    /// Tool-matched events take a list of `{matcher, hooks}` entries; the others a flat list of
    /// hook definitions.
    pub const fn uses_matcher(self) -> bool {
        match self {
            Self::PreToolUse
            | Self::PostToolUse
            | Self::PermissionRequest
            | Self::ToolResponseTransform
            | Self::ToolInputTransform
            | Self::ToolGuard => true,
            Self::SessionStart
            | Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit
            | Self::TurnStart
            | Self::TurnEnd
            | Self::BeforeLlmCall
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::PreCompact
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Stop
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::BeforeCompaction
            | Self::AfterCompaction
            | Self::WorktreeCreate
            | Self::BeforeAgentRun
            | Self::AfterAgentComplete
            | Self::PromptFileGuard
            | Self::SkillContentGuard => false,
        }
    }

    /// Whether `allowed: false` changes what the runtime does (docs/hooks.md, Events).
    pub const fn can_block(self) -> bool {
        match self {
            Self::PreToolUse
            | Self::PostToolUse
            | Self::PermissionRequest
            | Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit
            | Self::BeforeLlmCall
            | Self::PreCompact
            | Self::BeforeCompaction
            | Self::WorktreeCreate
            | Self::ToolInputTransform
            | Self::ToolGuard
            | Self::BeforeAgentRun
            | Self::AfterAgentComplete
            | Self::PromptFileGuard
            | Self::SkillContentGuard => true,
            Self::SessionStart
            | Self::TurnStart
            | Self::TurnEnd
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Stop
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::AfterCompaction
            | Self::ToolResponseTransform => false,
        }
    }

    /// A hook that fails (crash, timeout, spawn error, bad reply) denies instead of warning,
    /// whatever its `on_error` says.
    pub const fn fails_closed(self) -> bool {
        match self {
            Self::PreToolUse
            | Self::ToolGuard
            | Self::BeforeAgentRun
            | Self::AfterAgentComplete
            | Self::PromptFileGuard
            | Self::SkillContentGuard => true,
            Self::ToolInputTransform
            | Self::PostToolUse
            | Self::PermissionRequest
            | Self::SessionStart
            | Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit
            | Self::TurnStart
            | Self::TurnEnd
            | Self::BeforeLlmCall
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::PreCompact
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Stop
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::BeforeCompaction
            | Self::AfterCompaction
            | Self::ToolResponseTransform
            | Self::WorktreeCreate => false,
        }
    }

    /// What the event reads from `hook_specific_output` besides `additional_context`.
    pub const fn specific_output(self) -> SpecificOutput {
        match self {
            Self::PreToolUse
            | Self::ToolGuard
            | Self::PromptFileGuard
            | Self::SkillContentGuard => SpecificOutput::ToolDecision,
            Self::ToolInputTransform => SpecificOutput::InputRewrite,
            Self::BeforeAgentRun | Self::AfterAgentComplete => SpecificOutput::Transition,
            Self::PermissionRequest => SpecificOutput::PermissionAnswer,
            Self::BeforeCompaction => SpecificOutput::Summary,
            Self::BeforeLlmCall => SpecificOutput::Messages,
            Self::ToolResponseTransform => SpecificOutput::ToolResponse,
            Self::PostToolUse
            | Self::SessionStart
            | Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit
            | Self::TurnStart
            | Self::TurnEnd
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::PreCompact
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Stop
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::AfterCompaction
            | Self::WorktreeCreate => SpecificOutput::Nothing,
        }
    }

    /// Whether entries may run on the preempt lane (`preempt_yolo: true`).
    pub const fn has_preempt_lane(self) -> bool {
        matches!(self, Self::PreToolUse)
    }

    /// Whether a `dialect: claude` hook's block keeps the agent going (Claude Code's Stop).
    pub const fn claude_block_continues(self) -> bool {
        matches!(self, Self::Stop)
    }

    /// Whether stdout that is not a JSON object counts as `additional_context`.
    pub const fn plain_text_is_context(self) -> bool {
        match self {
            Self::PostToolUse
            | Self::SessionStart
            | Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit
            | Self::TurnStart
            | Self::PreCompact
            | Self::Stop
            | Self::WorktreeCreate => true,
            Self::PreToolUse
            | Self::PermissionRequest
            | Self::TurnEnd
            | Self::BeforeLlmCall
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::BeforeCompaction
            | Self::AfterCompaction
            | Self::ToolResponseTransform
            | Self::ToolInputTransform
            | Self::ToolGuard
            | Self::BeforeAgentRun
            | Self::AfterAgentComplete
            | Self::PromptFileGuard
            | Self::SkillContentGuard => false,
        }
    }

    /// Where the aggregated `additional_context` goes.
    pub const fn context_lifetime(self) -> ContextLifetime {
        match self {
            Self::SessionStart => ContextLifetime::Session,
            Self::UserPromptSubmit
            | Self::UserSteeringMessagesSubmit
            | Self::UserFollowupSubmit => ContextLifetime::Prompt,
            Self::TurnStart => ContextLifetime::Turn,
            Self::PostToolUse | Self::Stop => ContextLifetime::NextCall,
            Self::PreCompact => ContextLifetime::CompactionPrompt,
            Self::WorktreeCreate => ContextLifetime::Terminal,
            Self::PreToolUse
            | Self::PermissionRequest
            | Self::TurnEnd
            | Self::BeforeLlmCall
            | Self::AfterLlmCall
            | Self::SessionEnd
            | Self::SubagentStop
            | Self::OnUserInput
            | Self::Notification
            | Self::OnError
            | Self::OnMaxIterations
            | Self::OnAgentSwitch
            | Self::OnSessionResume
            | Self::OnToolApprovalDecision
            | Self::BeforeCompaction
            | Self::AfterCompaction
            | Self::ToolResponseTransform
            | Self::ToolInputTransform
            | Self::ToolGuard
            | Self::BeforeAgentRun
            | Self::AfterAgentComplete
            | Self::PromptFileGuard
            | Self::SkillContentGuard => ContextLifetime::Ignored,
        }
    }

    /// When the event fires, in one line.
    pub const fn description(self) -> &'static str {
        match self {
            Self::PreToolUse => "before a tool call executes; can allow, ask, deny or rewrite it",
            Self::PostToolUse => "after a tool call completes, successfully or not",
            Self::PermissionRequest => "just before the user would be asked to approve a tool call",
            Self::SessionStart => "when a session starts, resumes, is cleared or compacted",
            Self::UserPromptSubmit => "once per user message, before the first model call",
            Self::UserSteeringMessagesSubmit => {
                "each time messages typed while the agent works are drained"
            }
            Self::UserFollowupSubmit => "each time a queued follow-up starts a fresh turn",
            Self::TurnStart => "at the start of every turn (each model call)",
            Self::TurnEnd => "at the end of every turn, whatever ended it",
            Self::BeforeLlmCall => "just before every model call",
            Self::AfterLlmCall => "after every successful model call, before it is recorded",
            Self::SessionEnd => "once when a session ends, also on Ctrl-C and SIGTERM",
            Self::PreCompact => "just before the transcript is compacted; can steer or veto",
            Self::SubagentStop => "when a sub-agent finishes its task",
            Self::OnUserInput => "when the agent waits for the user",
            Self::Stop => "when the model finishes responding (no more tool calls)",
            Self::Notification => "when the runtime emits an error or warning notification",
            Self::OnError => "when the runtime hits an error (alongside notification)",
            Self::OnMaxIterations => "when the agent reaches its max_iterations limit",
            Self::OnAgentSwitch => "when the active agent changes (transfer, handoff, return)",
            Self::OnSessionResume => "when the user approves continuing past max_iterations",
            Self::OnToolApprovalDecision => "after the approval chain decides a tool call",
            Self::BeforeCompaction => "just before a compaction; can veto or supply the summary",
            Self::AfterCompaction => "after a compaction was applied to the session",
            Self::ToolResponseTransform => {
                "between a tool's execution and the recording of its result; can rewrite it"
            }
            Self::WorktreeCreate => "after `--worktree` created a git worktree, before the session",
            Self::ToolInputTransform => {
                "before every tool call, ahead of every approval step; rewrites its arguments, one hook after another"
            }
            Self::ToolGuard => {
                "after tool_input_transform, before every approval step; its deny holds even under --yolo, its ask forces a confirmation"
            }
            Self::BeforeAgentRun => {
                "once per agent activation, before its first model call; can route the request to another agent"
            }
            Self::AfterAgentComplete => {
                "after an agent completes its answer; can hand the conversation to another agent"
            }
            Self::PromptFileGuard => {
                "before a prompt file's text enters the context; every hook must allow it"
            }
            Self::SkillContentGuard => {
                "before a skill's text is given to the model; every hook must allow it"
            }
        }
    }

    /// Input fields set for this event besides `session_id`, `cwd`, `hook_event_name` and
    /// `agent_name`.
    pub const fn input_fields(self) -> &'static [&'static str] {
        match self {
            Self::PreToolUse | Self::PermissionRequest => {
                &["tool_category", "tool_name", "tool_use_id", "tool_input"]
            }
            Self::PostToolUse => &[
                "tool_category",
                "tool_name",
                "tool_use_id",
                "tool_input",
                "tool_response",
                "tool_error",
            ],
            Self::ToolResponseTransform => &[
                "tool_category",
                "tool_name",
                "tool_use_id",
                "tool_input",
                "tool_response",
                "tool_error",
            ],
            Self::SessionStart => &["source"],
            Self::UserPromptSubmit | Self::UserFollowupSubmit => &["prompt"],
            Self::UserSteeringMessagesSubmit => &["steering_messages"],
            Self::TurnStart | Self::OnUserInput => &[],
            Self::TurnEnd | Self::SessionEnd => &["reason"],
            Self::BeforeLlmCall => &["model_id", "iteration", "messages"],
            Self::AfterLlmCall => &[
                "model_id",
                "stop_response",
                "last_user_message",
                "usage",
                "cost",
            ],
            Self::PreCompact => &["source"],
            Self::SubagentStop => &["parent_session_id", "stop_response"],
            Self::Stop => &["stop_response", "last_user_message"],
            Self::Notification | Self::OnError | Self::OnMaxIterations => {
                &["notification_level", "notification_message"]
            }
            Self::OnAgentSwitch => &[
                "from_agent",
                "to_agent",
                "agent_switch_kind",
                "from_agent_models",
            ],
            Self::OnSessionResume => &["previous_max_iterations", "new_max_iterations"],
            Self::OnToolApprovalDecision => &[
                "tool_name",
                "tool_use_id",
                "tool_input",
                "approval_decision",
                "approval_source",
            ],
            Self::BeforeCompaction => &[
                "input_tokens",
                "output_tokens",
                "context_limit",
                "compaction_reason",
            ],
            Self::AfterCompaction => &[
                "input_tokens",
                "output_tokens",
                "context_limit",
                "compaction_reason",
                "summary",
            ],
            Self::WorktreeCreate => &["worktree_path", "worktree_branch", "worktree_source_dir"],
            Self::ToolInputTransform | Self::ToolGuard => {
                &["tool_category", "tool_name", "tool_use_id", "tool_input"]
            }
            Self::BeforeAgentRun => &["prompt"],
            Self::AfterAgentComplete => &["stop_response", "last_user_message"],
            Self::PromptFileGuard => &["prompt_file", "prompt_file_content"],
            Self::SkillContentGuard => &["skill_name", "skill_content"],
        }
    }

    /// Parses a wire name (`pre_tool_use`).
    pub fn from_wire_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.wire_name() == name)
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
    use super::*;

    #[test]
    fn all_lists_every_event_once_in_index_order() {
        for (i, e) in HookEvent::ALL.iter().enumerate() {
            assert_eq!(e.index(), i, "{e}");
            assert_eq!(HookEvent::from_wire_name(e.wire_name()), Some(*e));
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
