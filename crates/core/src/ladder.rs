//! The approval ladder: one function decides whether a tool call runs, and both the runtime
//! and `tether hooks decide` use it, so they cannot disagree. It borrows only what it reads
//! (the agent's hooks executor, the permission rules, the safety mode, the session's
//! approvals) and returns a [`Verdict`]; acting on it (notices, `on_tool_approval_decision`,
//! asking the user) is `approval`'s. The steps, in order (see docs/design.md,
//! The approval ladder):
//!
//! 0. the arguments must be a JSON object with only keys the tool declares, none twice in
//!    different case (a hook's rewrite is checked again), so that every later step and the
//!    tool read the same object,
//! 1. `tool_input_transform` hooks rewrite the arguments, one after another (under `--yolo`
//!    too); every later step sees the rewritten call,
//! 2. `tool_guard` hooks: deny ends here in every mode; ask makes any later allow a question,
//! 3. the preempt lane of `pre_tool_use` (deny ends here, ask goes straight to the user),
//! 4. permission rules: deny (it holds under `--yolo`), the session's and the team's allows,
//!    then ask,
//! 5. the safety mode: `--yolo` and `autonomous` approve,
//! 6. the default lane of `pre_tool_use` (its `updated_input` rewrites the call, and the deny
//!    rules are checked again on the rewrite),
//! 7. the tool's read-only hint (not in `strict` mode),
//! 8. `restricted` mode denies what nothing allowed,
//! 9. `permission_request` hooks, answering for the user,
//! 10. the user.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::{Map, Value};
use tether_config::{PermissionPattern, Permissions, Safety};
use tether_hooks::events::{PermissionRequestOutcome, PreToolUseOutcome};
use tether_hooks::{Executor, HookResult};
use tether_protocol::{CommonInput, Decision, HookEvent, Lane, Payload, ToolCall};
use tokio_util::sync::CancellationToken;

use crate::calls::{Target, tool_call};

/// The `approval_source` of a call whose arguments do not fit the tool.
const INVALID_ARGUMENTS: &str = "invalid_arguments";

/// The hook step that refused a call, for the notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blocked {
    pub event: &'static str,
    pub hook: String,
    pub message: String,
}

/// The ladder's decision for one call, with everything that led to it.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub decision: Decision,
    /// The `approval_source` `on_tool_approval_decision` gets (`yolo`,
    /// `team_permissions_deny`, `pre_tool_use_hook_allow`, `readonly_hint`, …); for an ask,
    /// what asks: `preempt_hook_ask`, `team_permissions_ask`, `pre_tool_use_hook_ask` or
    /// `user_confirmation` (no step decided).
    pub source: &'static str,
    /// Why, in the deciding hook's words (empty for rules).
    pub reason: String,
    /// The arguments the tool would run with.
    pub arguments: Map<String, Value>,
    /// Annotations for the confirmation.
    pub metadata: BTreeMap<String, String>,
    pub blocked: Option<Blocked>,
    /// Every hook dispatch of the ladder, in order (kept only when asked for).
    pub dispatches: Vec<HookResult>,
    /// The model's text for a denied call.
    pub(crate) denial: String,
}

impl Verdict {
    /// What the model is told when the call is denied (empty otherwise).
    pub fn denial(&self) -> &str {
        &self.denial
    }

    fn end(mut self, decision: Decision, source: &'static str) -> Self {
        self.decision = decision;
        self.source = source;
        self
    }

    fn deny(self, source: &'static str, denial: String) -> Self {
        let mut v = self.end(Decision::Deny, source);
        v.denial = denial;
        v
    }

    /// A hook step's deny.
    fn denied_by(
        self,
        event: &'static str,
        source: &'static str,
        reason: String,
        hook: String,
        denial: String,
    ) -> Self {
        let mut v = self.deny(source, denial);
        v.blocked = Some(Blocked {
            event,
            hook,
            message: reason.clone(),
        });
        v.reason = reason;
        v
    }
}

/// What becomes of each hook dispatch of the ladder.
#[derive(Clone, Copy)]
pub(crate) enum Report<'a> {
    /// Shown as it happens (the runtime surfaces its warnings).
    Live(&'a (dyn Fn(&HookResult) + Sync)),
    /// Kept in [`Verdict::dispatches`] (`tether hooks decide`).
    Keep,
}

/// Everything the ladder reads for one call; see the module doc.
pub(crate) struct Ladder<'a> {
    pub(crate) executor: &'a Executor,
    pub(crate) permissions: &'a Permissions,
    pub(crate) safety: Safety,
    /// The session's own approvals.
    pub(crate) approved: &'a [PermissionPattern],
    /// `--yolo`, or "all" answered earlier.
    pub(crate) tools_approved: bool,
    /// Arguments the runtime adds to every tool's (`add_description_parameter`).
    pub(crate) extra: &'static [&'static str],
    /// The Input each hook of the ladder starts from (session, cwd, agent).
    pub(crate) base: &'a CommonInput,
    pub(crate) report: Report<'a>,
    pub(crate) cancel: &'a CancellationToken,
}

/// The `approval_source` of a `tool_guard` ask.
const GUARD_ASK: &str = "tool_guard_ask";

/// The model's text when a hook's rewrite left arguments the tool does not take.
fn rewritten(e: &tether_tools::ToolError) -> String {
    format!("A hook rewrote the tool call's arguments into ones the tool does not take: {e}")
}

pub(crate) fn with_reason(base: &str, reason: &str) -> String {
    if reason.is_empty() {
        base.to_owned()
    } else {
        format!("{base} Reason: {reason}")
    }
}

/// A step either settles the verdict (`Break`) or hands it on (`Continue`).
type Step = ControlFlow<Verdict, Verdict>;

impl Ladder<'_> {
    /// Runs every hook the decision needs, never the tool and never a prompt.
    pub(crate) async fn decide(&self, call: &ToolCall, target: Target<'_>) -> Verdict {
        let name = call.function.name.as_str();
        let mut v = Verdict {
            decision: Decision::Ask,
            source: "user_confirmation",
            reason: String::new(),
            arguments: Map::new(),
            metadata: BTreeMap::new(),
            blocked: None,
            dispatches: Vec::new(),
            denial: String::new(),
        };
        // 0. The arguments, before any rule or hook reads them.
        match tether_tools::parse_arguments(name, &call.function.arguments) {
            Ok(args) => v.arguments = args,
            Err(e) => return v.deny(INVALID_ARGUMENTS, e.to_string()),
        }
        if let Err(e) = tether_tools::check_arguments(target.def, &v.arguments, self.extra) {
            return v.deny(INVALID_ARGUMENTS, e.to_string());
        }
        let v = match self.transform(call, target, v).await {
            ControlFlow::Continue(v) => v,
            ControlFlow::Break(settled) => return settled,
        };
        let (v, guard_ask) = match self.guard(call, target, v).await {
            ControlFlow::Continue(next) => next,
            ControlFlow::Break(settled) => return settled,
        };
        let settled = async {
            let v = self.preempt(call, target, v).await?;
            let v = self.rules(call, target, v)?;
            let v = self.default_lane(call, target, v).await?;
            let v = self.restricted(call, v)?;
            ControlFlow::<Verdict, Verdict>::Break(self.permission_request(call, target, v).await)
        }
        .await;
        let (ControlFlow::Continue(v) | ControlFlow::Break(v)) = settled;
        // A tool_guard ask turns every allow into a question for the user.
        if guard_ask && v.decision == Decision::Allow {
            return v.end(Decision::Ask, GUARD_ASK);
        }
        v
    }

    /// Dispatches one hook step and reports or keeps its result.
    async fn dispatch(
        &self,
        event: HookEvent,
        lane: Lane,
        call: &ToolCall,
        target: Target<'_>,
        v: &mut Verdict,
    ) -> HookResult {
        let input = tool_call(call, target, &v.arguments).into_input(self.base.clone());
        let r = self
            .executor
            .dispatch(event, lane, input, self.cancel)
            .await;
        match self.report {
            Report::Live(show) => show(&r),
            Report::Keep => v.dispatches.push(r.clone()),
        }
        r
    }

    /// A hook's rewrite must leave arguments the tool takes.
    fn recheck(&self, target: Target<'_>, v: Verdict) -> Step {
        match tether_tools::check_arguments(target.def, &v.arguments, self.extra) {
            Ok(()) => ControlFlow::Continue(v),
            Err(e) => ControlFlow::Break(v.deny(INVALID_ARGUMENTS, rewritten(&e))),
        }
    }

    /// Step 1: `tool_input_transform` rewrites the arguments every later step sees.
    async fn transform(&self, call: &ToolCall, target: Target<'_>, mut v: Verdict) -> Step {
        if !self
            .executor
            .has(HookEvent::ToolInputTransform, Lane::Default)
        {
            return ControlFlow::Continue(v);
        }
        let r = self
            .dispatch(
                HookEvent::ToolInputTransform,
                Lane::Default,
                call,
                target,
                &mut v,
            )
            .await;
        if !r.allowed {
            let reason = r.message.clone();
            let denial = with_reason(
                "The tool call was rejected by a tool_input_transform hook.",
                &reason,
            );
            let hook = r.blocking_hook();
            return ControlFlow::Break(v.denied_by(
                "tool_input_transform",
                "tool_input_transform_hook_deny",
                reason,
                hook,
                denial,
            ));
        }
        match &r.updated_input {
            Some(updates) => {
                for (k, value) in updates {
                    v.arguments.insert(k.clone(), value.clone());
                }
                self.recheck(target, v)
            }
            None => ControlFlow::Continue(v),
        }
    }

    /// Step 2: `tool_guard`: its deny holds in every mode; its ask (returned as `true`) forces
    /// a confirmation.
    async fn guard(
        &self,
        call: &ToolCall,
        target: Target<'_>,
        mut v: Verdict,
    ) -> ControlFlow<Verdict, (Verdict, bool)> {
        if !self.executor.has(HookEvent::ToolGuard, Lane::Default) {
            return ControlFlow::Continue((v, false));
        }
        let r = self
            .dispatch(HookEvent::ToolGuard, Lane::Default, call, target, &mut v)
            .await;
        let o = PreToolUseOutcome::of(&r);
        match o.decision {
            Some(Decision::Deny) => {
                let denial = with_reason(
                    "The tool call was rejected by a tool_guard hook.",
                    &o.reason,
                );
                ControlFlow::Break(v.denied_by(
                    "tool_guard",
                    "tool_guard_deny",
                    o.reason,
                    o.hook,
                    denial,
                ))
            }
            Some(Decision::Ask) => {
                v.metadata.extend(o.metadata);
                ControlFlow::Continue((v, true))
            }
            Some(Decision::Allow) | None => ControlFlow::Continue((v, false)),
        }
    }

    /// Step 3: the preempt lane of `pre_tool_use`.
    async fn preempt(&self, call: &ToolCall, target: Target<'_>, mut v: Verdict) -> Step {
        if !self.executor.has(HookEvent::PreToolUse, Lane::Preempt) {
            return ControlFlow::Continue(v);
        }
        let r = self
            .dispatch(HookEvent::PreToolUse, Lane::Preempt, call, target, &mut v)
            .await;
        let o = PreToolUseOutcome::of(&r);
        match o.decision {
            Some(Decision::Deny) => {
                let denial = with_reason(
                    "The tool call was rejected by a pre_tool_use hook.",
                    &o.reason,
                );
                ControlFlow::Break(v.denied_by(
                    "pre_tool_use",
                    "pre_tool_use_hook_deny",
                    o.reason,
                    o.hook,
                    denial,
                ))
            }
            Some(Decision::Ask) => {
                v.metadata.extend(o.metadata);
                ControlFlow::Break(v.end(Decision::Ask, "preempt_hook_ask"))
            }
            Some(Decision::Allow) | None => ControlFlow::Continue(v),
        }
    }

    /// Steps 4 and 5: permission rules (deny first: it holds under `--yolo`; the session's
    /// and the team's allows; ask), then the safety mode. An ask rule is carried on in
    /// `source` so the later steps can tell.
    fn rules(&self, call: &ToolCall, target: Target<'_>, v: Verdict) -> Step {
        let name = call.function.name.as_str();
        let names: &[&str] = if target.qualified.is_empty() {
            &[name]
        } else {
            &[name, target.qualified]
        };
        let (rules, v) = self.check_rules(call, target, v)?;
        let cwd = std::path::Path::new(&self.base.cwd);
        if tether_config::approvals_allow(self.approved, names, &v.arguments, Some(cwd)) {
            return ControlFlow::Break(v.end(Decision::Allow, "session_permissions_allow"));
        }
        if rules == Some(Decision::Allow) {
            return ControlFlow::Break(v.end(Decision::Allow, "team_permissions_allow"));
        }
        if rules == Some(Decision::Ask) {
            return ControlFlow::Continue(v.end(Decision::Ask, TEAM_ASK));
        }
        if self.tools_approved {
            return ControlFlow::Break(v.end(Decision::Allow, "yolo"));
        }
        if self.safety == Safety::Autonomous {
            return ControlFlow::Break(v.end(Decision::Allow, "safety_autonomous"));
        }
        ControlFlow::Continue(v)
    }

    /// The permission rules for the call's current arguments; a deny settles it.
    fn check_rules(
        &self,
        call: &ToolCall,
        target: Target<'_>,
        v: Verdict,
    ) -> ControlFlow<Verdict, (Option<Decision>, Verdict)> {
        let name = call.function.name.as_str();
        let names: &[&str] = if target.qualified.is_empty() {
            &[name]
        } else {
            &[name, target.qualified]
        };
        let cwd = std::path::Path::new(&self.base.cwd);
        let rules = self.permissions.check_in(names, &v.arguments, Some(cwd));
        if rules == Some(Decision::Deny) {
            let denial = format!("Tool '{name}' is denied by permissions configuration.");
            return ControlFlow::Break(v.deny("team_permissions_deny", denial));
        }
        ControlFlow::Continue((rules, v))
    }

    /// Steps 6 and 7: the default lane of `pre_tool_use` (read-only tools reach it too), then
    /// the read-only hint; both skipped when a rule asks.
    async fn default_lane(&self, call: &ToolCall, target: Target<'_>, mut v: Verdict) -> Step {
        if v.source == TEAM_ASK {
            return ControlFlow::Continue(v);
        }
        if self.executor.has(HookEvent::PreToolUse, Lane::Default) {
            let r = self
                .dispatch(HookEvent::PreToolUse, Lane::Default, call, target, &mut v)
                .await;
            let o = PreToolUseOutcome::of(&r);
            o.apply(&mut v.arguments);
            if o.updated_input.is_some() {
                v = self.recheck(target, v)?;
                // The rules ran on the arguments before the rewrite; a deny holds for these.
                v = self.check_rules(call, target, v)?.1;
            }
            match o.decision {
                Some(Decision::Deny) => {
                    let denial = format!("Tool call blocked by hook: {}", o.reason);
                    return ControlFlow::Break(v.denied_by(
                        "pre_tool_use",
                        "pre_tool_use_hook_deny",
                        o.reason,
                        o.hook,
                        denial,
                    ));
                }
                Some(Decision::Allow) => {
                    return ControlFlow::Break(v.end(Decision::Allow, "pre_tool_use_hook_allow"));
                }
                Some(Decision::Ask) => {
                    return ControlFlow::Continue(v.end(Decision::Ask, "pre_tool_use_hook_ask"));
                }
                None => {}
            }
        }
        if v.source != "pre_tool_use_hook_ask"
            && target.def.read_only
            && self.safety != Safety::Strict
        {
            return ControlFlow::Break(v.end(Decision::Allow, "readonly_hint"));
        }
        ControlFlow::Continue(v)
    }

    /// Step 8: in `restricted` mode nobody is asked; what nothing allowed is denied.
    fn restricted(&self, call: &ToolCall, v: Verdict) -> Step {
        if self.safety != Safety::Restricted {
            return ControlFlow::Continue(v);
        }
        let denial = format!(
            "Tool '{}' is not allowed in restricted mode: only read-only tools and calls a rule or hook allows run.",
            call.function.name
        );
        ControlFlow::Break(v.deny("safety_restricted_deny", denial))
    }

    /// Step 9: `permission_request` hooks may answer for the user; else the user (step 10),
    /// asked for by what asked before (`source`).
    async fn permission_request(
        &self,
        call: &ToolCall,
        target: Target<'_>,
        mut v: Verdict,
    ) -> Verdict {
        let r = self
            .dispatch(
                HookEvent::PermissionRequest,
                Lane::Default,
                call,
                target,
                &mut v,
            )
            .await;
        let o = PermissionRequestOutcome::of(&r);
        match o.decision {
            Some(Decision::Deny) => {
                let denial = with_reason(
                    "The tool call was rejected by a permission_request hook.",
                    &o.reason,
                );
                v.denied_by(
                    "permission_request",
                    "permission_request_hook_deny",
                    o.reason,
                    o.hook,
                    denial,
                )
            }
            Some(Decision::Allow) => v.end(Decision::Allow, "permission_request_hook_allow"),
            Some(Decision::Ask) | None => {
                v.metadata.extend(o.metadata);
                let source = v.source;
                v.end(Decision::Ask, source)
            }
        }
    }
}

/// The `approval_source` of an ask rule, until a later step settles the call.
const TEAM_ASK: &str = "team_permissions_ask";
