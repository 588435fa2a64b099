//! Typed hook payloads: what each family of events adds to the [`HookInput`].
//!
//! Every event's row in the event table ([`crate::event::EventInfo`]) names its [`Family`];
//! the runtime fills an event's Input by building that family's payload and converting it
//! with [`Payload::into_input`], never by setting Input fields by hand. Each payload declares
//! the Input fields it fills ([`Payload::FIELDS`], the flat ones straight from their field
//! names), the reference docs list an event's fields from its family, and a test checks each
//! `FIELDS` against what the conversion really sends, so the docs cannot drift from the types.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::chat::{Message, Usage};
use crate::input::{AgentModelRef, HookInput};

/// The fields every Input carries besides `hook_event_name` (which the engine sets).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommonInput {
    pub session_id: String,
    pub cwd: String,
    pub agent_name: String,
}

impl From<CommonInput> for HookInput {
    fn from(c: CommonInput) -> Self {
        Self {
            session_id: c.session_id,
            cwd: c.cwd,
            agent_name: c.agent_name,
            ..Self::default()
        }
    }
}

/// What a family of events adds to the common Input.
pub trait Payload: Sized {
    /// The family whose events this payload describes.
    const FAMILY: Family;
    /// The Input fields it fills, as sent to a command hook (in-process-only fields such as
    /// `tool_qualified_name` are left out): the "extra input" of docs/hooks.md.
    const FIELDS: &'static [&'static str];

    /// Writes the payload's fields into `input`.
    fn fill(self, input: &mut HookInput);

    /// The whole Input: `common` and this payload.
    fn into_input(self, common: CommonInput) -> HookInput {
        let mut input = HookInput::from(common);
        self.fill(&mut input);
        input
    }
}

/// The payload shapes; an event's row names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Nothing besides the common fields ([`BarePayload`]).
    Bare,
    /// [`ToolCallPayload`].
    ToolCall,
    /// [`ToolResultPayload`].
    ToolResult,
    /// [`ApprovalDecisionPayload`].
    ApprovalDecision,
    /// [`SourcePayload`].
    Source,
    /// [`PromptPayload`].
    Prompt,
    /// [`SteeringPayload`].
    Steering,
    /// [`ReasonPayload`].
    Reason,
    /// [`ModelCallPayload`].
    ModelCall,
    /// [`ModelResponsePayload`].
    ModelResponse,
    /// [`StopPayload`].
    Stop,
    /// [`AnswerPayload`].
    Answer,
    /// [`SubagentPayload`].
    Subagent,
    /// [`NotificationPayload`].
    Notification,
    /// [`AgentSwitchPayload`].
    AgentSwitch,
    /// [`ResumePayload`].
    Resume,
    /// [`CompactionPayload`].
    Compaction,
    /// [`CompactedPayload`].
    Compacted,
    /// [`WorktreePayload`].
    Worktree,
    /// [`PromptFilePayload`].
    PromptFile,
    /// [`SkillPayload`].
    Skill,
}

impl Family {
    /// The Input fields the family's payload fills ([`Payload::FIELDS`]).
    pub const fn fields(self) -> &'static [&'static str] {
        match self {
            Self::Bare => BarePayload::FIELDS,
            Self::ToolCall => ToolCallPayload::FIELDS,
            Self::ToolResult => ToolResultPayload::FIELDS,
            Self::ApprovalDecision => ApprovalDecisionPayload::FIELDS,
            Self::Source => SourcePayload::FIELDS,
            Self::Prompt => PromptPayload::FIELDS,
            Self::Steering => SteeringPayload::FIELDS,
            Self::Reason => ReasonPayload::FIELDS,
            Self::ModelCall => ModelCallPayload::FIELDS,
            Self::ModelResponse => ModelResponsePayload::FIELDS,
            Self::Stop => StopPayload::FIELDS,
            Self::Answer => AnswerPayload::FIELDS,
            Self::Subagent => SubagentPayload::FIELDS,
            Self::Notification => NotificationPayload::FIELDS,
            Self::AgentSwitch => AgentSwitchPayload::FIELDS,
            Self::Resume => ResumePayload::FIELDS,
            Self::Compaction => CompactionPayload::FIELDS,
            Self::Compacted => CompactedPayload::FIELDS,
            Self::Worktree => WorktreePayload::FIELDS,
            Self::PromptFile => PromptFilePayload::FIELDS,
            Self::Skill => SkillPayload::FIELDS,
        }
    }
}

/// A payload whose fields are Input fields of the same name and type: `FIELDS` are its field
/// names, and `fill` moves each into the Input (the compiler checks names and types).
macro_rules! flat_payload {
    (
        $(#[$meta:meta])*
        $name:ident => $family:ident {
            $($(#[$field_meta:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl Payload for $name {
            const FAMILY: Family = Family::$family;
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            fn fill(self, input: &mut HookInput) {
                $(input.$field = self.$field;)*
            }
        }
    };
}

/// `turn_start`, `on_user_input`: the common fields only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BarePayload;

impl Payload for BarePayload {
    const FAMILY: Family = Family::Bare;
    const FIELDS: &'static [&'static str] = &[];

    fn fill(self, _input: &mut HookInput) {}
}

flat_payload! {
    /// `session_start` (`startup` | `resume` | `clear` | `compact`) and `pre_compact`
    /// (`manual` | `auto` | `overflow` | `tool_overflow`).
    SourcePayload => Source {
        source: String,
    }
}

flat_payload! {
    /// `user_prompt_submit`, `user_followup_submit`, `before_agent_run`: the user's message.
    PromptPayload => Prompt {
        prompt: String,
    }
}

flat_payload! {
    /// `user_steering_messages_submit`: the messages drained from the steering queue.
    SteeringPayload => Steering {
        steering_messages: Vec<String>,
    }
}

flat_payload! {
    /// `turn_end`, `session_end`: why it ended.
    ReasonPayload => Reason {
        reason: String,
    }
}

flat_payload! {
    /// `before_llm_call`: the call about to be made.
    ModelCallPayload => ModelCall {
        model_id: String,
        /// 1-based model-call counter of the run.
        iteration: i64,
        /// The outgoing conversation.
        messages: Vec<Message>,
    }
}

flat_payload! {
    /// `after_llm_call`: the call just made.
    ModelResponsePayload => ModelResponse {
        model_id: String,
        stop_response: String,
        last_user_message: String,
        usage: Option<Usage>,
        /// USD price: `None` when unpriced.
        cost: Option<f64>,
    }
}

flat_payload! {
    /// `stop`: the model's final text of the turn.
    StopPayload => Stop {
        stop_response: String,
        last_user_message: String,
        /// The agent went on because a `dialect: claude` stop hook blocked earlier in the run.
        stop_hook_active: bool,
    }
}

flat_payload! {
    /// `after_agent_complete`: the agent's answer.
    AnswerPayload => Answer {
        stop_response: String,
        last_user_message: String,
    }
}

flat_payload! {
    /// `subagent_stop` (its common `agent_name` is the sub-agent's, `session_id` the child
    /// session's).
    SubagentPayload => Subagent {
        parent_session_id: String,
        stop_response: String,
    }
}

flat_payload! {
    /// `notification`, `on_error`, `on_max_iterations`.
    NotificationPayload => Notification {
        /// `error` or `warning`.
        notification_level: String,
        notification_message: String,
    }
}

flat_payload! {
    /// `on_agent_switch`.
    AgentSwitchPayload => AgentSwitch {
        from_agent: String,
        to_agent: String,
        /// `transfer_task`, `transfer_task_return`, `handoff`, `force_handoff`, `route`,
        /// `command` (an agent command with `agent:`).
        agent_switch_kind: String,
        /// The departing agent's model endpoints (for builtins such as `unload`).
        from_agent_models: Vec<AgentModelRef>,
    }
}

flat_payload! {
    /// `on_session_resume`: the user let the run go past `max_iterations`.
    ResumePayload => Resume {
        previous_max_iterations: i64,
        new_max_iterations: i64,
    }
}

flat_payload! {
    /// `before_compaction`: the session's size and why it is compacted.
    CompactionPayload => Compaction {
        input_tokens: i64,
        output_tokens: i64,
        /// `0` means unknown.
        context_limit: i64,
        compaction_reason: String,
    }
}

flat_payload! {
    /// `worktree_create` (its common `cwd` is the worktree).
    WorktreePayload => Worktree {
        worktree_path: String,
        worktree_branch: String,
        worktree_source_dir: String,
    }
}

flat_payload! {
    /// `prompt_file_guard`: the file's path and text.
    PromptFilePayload => PromptFile {
        prompt_file: String,
        prompt_file_content: String,
    }
}

flat_payload! {
    /// `skill_content_guard`: the skill and its text.
    SkillPayload => Skill {
        skill_name: String,
        skill_content: String,
    }
}

/// `pre_tool_use`, `permission_request`, `tool_input_transform`, `tool_guard`: one tool call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallPayload {
    /// `shell`, `filesystem`, `think`, …
    pub tool_category: String,
    pub tool_name: String,
    /// `mcp:SERVER:TOOL` for an MCP tool, else empty: matched, not sent.
    pub tool_qualified_name: String,
    pub tool_use_id: String,
    /// The call's arguments; `{}` is sent as no `tool_input` at all.
    pub tool_input: Map<String, Value>,
}

impl Payload for ToolCallPayload {
    const FAMILY: Family = Family::ToolCall;
    const FIELDS: &'static [&'static str] =
        &["tool_category", "tool_name", "tool_use_id", "tool_input"];

    fn fill(self, input: &mut HookInput) {
        input.tool_category = self.tool_category;
        input.tool_name = self.tool_name;
        input.tool_qualified_name = self.tool_qualified_name;
        input.tool_use_id = self.tool_use_id;
        input.tool_input = (!self.tool_input.is_empty()).then_some(self.tool_input);
    }
}

/// `post_tool_use`, `tool_response_transform`: a tool call and its result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResultPayload {
    pub call: ToolCallPayload,
    /// The tool's output, sent even when empty.
    pub tool_response: String,
    pub tool_error: bool,
    /// In-process only: a file holding the whole output when `tool_response` is its tail.
    pub tool_response_file: Option<PathBuf>,
}

impl Payload for ToolResultPayload {
    const FAMILY: Family = Family::ToolResult;
    const FIELDS: &'static [&'static str] = &[
        "tool_category",
        "tool_name",
        "tool_use_id",
        "tool_input",
        "tool_response",
        "tool_error",
    ];

    fn fill(self, input: &mut HookInput) {
        self.call.fill(input);
        input.tool_response = Some(self.tool_response);
        input.tool_error = self.tool_error;
        input.tool_response_file = self.tool_response_file;
    }
}

/// `on_tool_approval_decision`: a tool call and what the approval chain made of it. The
/// call's category is not sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApprovalDecisionPayload {
    pub call: ToolCallPayload,
    /// `allow`, `deny` or `canceled`.
    pub approval_decision: String,
    /// Which step decided (`yolo`, `pre_tool_use_hook_allow`, `user_confirmation`, …).
    pub approval_source: String,
}

impl Payload for ApprovalDecisionPayload {
    const FAMILY: Family = Family::ApprovalDecision;
    const FIELDS: &'static [&'static str] = &[
        "tool_name",
        "tool_use_id",
        "tool_input",
        "approval_decision",
        "approval_source",
    ];

    fn fill(self, input: &mut HookInput) {
        self.call.fill(input);
        input.tool_category.clear();
        input.approval_decision = self.approval_decision;
        input.approval_source = self.approval_source;
    }
}

/// `after_compaction`: the compaction's figures (as `before_compaction` saw them) and the
/// summary that replaced the transcript.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactedPayload {
    pub compaction: CompactionPayload,
    pub summary: String,
}

impl Payload for CompactedPayload {
    const FAMILY: Family = Family::Compacted;
    const FIELDS: &'static [&'static str] = &[
        "input_tokens",
        "output_tokens",
        "context_limit",
        "compaction_reason",
        "summary",
    ];

    fn fill(self, input: &mut HookInput) {
        self.compaction.fill(input);
        input.summary = self.summary;
    }
}

#[cfg(test)]
#[path = "payload_tests.rs"]
pub(crate) mod tests;
