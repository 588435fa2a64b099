//! Aggregation of hook runs into one [`HookResult`], in config order whatever the completion
//! order (docs/hooks.md, Exit codes and output; docs/design.md D2, D9, D10).

use tether_config::OnError;
use tether_protocol::{Decision, HookEvent, HookOutput, Lane, SpecificOutput};

use crate::output_parser;
use crate::result::{HookResult, HookRun, Outcome};

/// Per-run facts the aggregation needs besides the run itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunPolicy<'a> {
    pub(crate) on_error: OnError,
    pub(crate) name: &'a str,
}

/// The message of a hook that exited with code 2 (docs/design.md D10).
pub(crate) fn exit2_message(name: &str, stdout: &str, stderr: &str) -> String {
    let stderr = stderr.trim();
    if !stderr.is_empty() {
        return stderr.to_owned();
    }
    let stdout = stdout.trim();
    if stdout.starts_with('{')
        && let Some(out) = output_parser::parse_object(stdout)
    {
        let from_json = [
            out.reason.as_str(),
            out.stop_reason.as_str(),
            out.hook_specific_output
                .as_ref()
                .map_or("", |h| h.permission_decision_reason.as_str()),
        ]
        .into_iter()
        .map(str::trim)
        .find(|s| !s.is_empty());
        return from_json.map_or_else(|| format!("blocked by hook {name}"), str::to_owned);
    }
    if stdout.is_empty() {
        format!("blocked by hook {name}")
    } else {
        stdout.to_owned()
    }
}

/// What one hook alone said, for logs and traces.
pub(crate) fn verdict(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Exited { code: 2, .. } => "block",
        Outcome::Exited {
            code: 0,
            output: Some(o),
            ..
        } => output_verdict(o),
        Outcome::Exited { .. } | Outcome::Failed { .. } => "none",
    }
}

fn output_verdict(o: &HookOutput) -> &'static str {
    if o.continue_ == Some(false) || o.decision == "block" {
        return "block";
    }
    o.hook_specific_output
        .as_ref()
        .and_then(|h| Decision::parse(&h.permission_decision))
        .map_or("none", Decision::as_str)
}

#[derive(Debug, Default)]
struct Acc {
    messages: Vec<String>,
    contexts: Vec<String>,
    system: Vec<String>,
}

/// Folds the runs (already in config order) into a result.
pub(crate) fn aggregate<'a>(
    event: HookEvent,
    lane: Lane,
    runs: impl IntoIterator<Item = (RunPolicy<'a>, HookRun)>,
) -> HookResult {
    let mut r = HookResult::empty(event, lane);
    let mut acc = Acc::default();
    for (policy, mut run) in runs {
        // A rewritten tool output may be megabytes: it moves into the result instead of being
        // copied (the run keeps the rest of its output; observers have seen it whole).
        if event.specific_output() == SpecificOutput::ToolResponse
            && let Outcome::Exited { code: 0, .. } = run.outcome
            && let Some(t) = run
                .outcome
                .output_mut()
                .and_then(|o| o.hook_specific_output.as_mut())
                .and_then(|h| h.updated_tool_response.take())
        {
            r.updated_tool_response = Some(t);
        }
        match &run.outcome {
            Outcome::Failed { error, stderr, .. } => {
                if event.fails_closed() || policy.on_error == OnError::Block {
                    r.allowed = false;
                    r.exit_code = -1;
                    r.stderr.clone_from(stderr);
                    acc.messages
                        .push(format!("{event} hook failed to execute: {error}"));
                } else if policy.on_error == OnError::Warn {
                    r.warnings
                        .push(format!("{event} hook `{}` failed: {error}", policy.name));
                }
            }
            Outcome::Exited {
                code: 2,
                stdout,
                stderr,
                ..
            } => {
                r.allowed = false;
                r.exit_code = 2;
                r.stderr.clone_from(stderr);
                acc.messages
                    .push(exit2_message(policy.name, stdout, stderr));
            }
            Outcome::Exited {
                code: 0,
                stdout,
                output: None,
                ..
            } => {
                let text = stdout.trim();
                if !text.is_empty() && event.plain_text_is_context() {
                    acc.contexts.push(text.to_owned());
                }
            }
            Outcome::Exited {
                code: 0,
                output: Some(out),
                ..
            } => {
                apply_output(&mut r, &mut acc, event, lane, policy.name, out);
            }
            // The newer guarding events treat any unexpected exit as a failure; pre_tool_use
            // keeps the classic rule (a warning) that existing hook scripts rely on.
            Outcome::Exited { code, stderr, .. }
                if event.fails_closed() && event != HookEvent::PreToolUse =>
            {
                r.allowed = false;
                r.exit_code = *code;
                r.stderr.clone_from(stderr);
                let detail = stderr.trim().lines().last().unwrap_or_default();
                acc.messages.push(if detail.is_empty() {
                    format!("{event} hook `{}` exited with status {code}", policy.name)
                } else {
                    format!(
                        "{event} hook `{}` exited with status {code}: {detail}",
                        policy.name
                    )
                });
            }
            Outcome::Exited { code, stderr, .. } => {
                if policy.on_error != OnError::Ignore {
                    let detail = stderr.trim().lines().last().unwrap_or_default();
                    let detail = if detail.is_empty() {
                        String::new()
                    } else {
                        format!(": {detail}")
                    };
                    r.warnings.push(format!(
                        "{event} hook `{}` exited with status {code}{detail}",
                        policy.name
                    ));
                }
            }
        }
        r.runs.push(run);
    }
    if lane == Lane::Preempt && !r.allowed && r.decision != Some(Decision::Deny) {
        // docs/design.md D2: any failure or block on the preempt lane is a deny.
        r.decision = Some(Decision::Deny);
        r.decision_reason = acc.messages.join("\n");
    }
    r.message = acc.messages.join("\n");
    r.additional_context = acc.contexts.join("\n");
    r.system_message = acc.system.join("\n");
    r
}

fn apply_output(
    r: &mut HookResult,
    acc: &mut Acc,
    event: HookEvent,
    lane: Lane,
    name: &str,
    out: &HookOutput,
) {
    let reads = event.specific_output();
    let tool_decisions = reads == SpecificOutput::ToolDecision;
    let mut blocked_here = false;
    let before = acc.messages.len();
    if out.continue_ == Some(false) {
        r.allowed = false;
        blocked_here = true;
        if !out.stop_reason.is_empty() {
            acc.messages.push(out.stop_reason.clone());
        }
    }
    if out.decision == "block" {
        r.allowed = false;
        blocked_here = true;
        if !out.reason.is_empty() {
            acc.messages.push(out.reason.clone());
        }
    }
    if !out.system_message.is_empty() {
        acc.system.push(out.system_message.clone());
    }
    if let Some(h) = &out.hook_specific_output {
        let decision = Decision::parse(&h.permission_decision);
        if tool_decisions
            && let Some(d) = decision
            && r.decision.is_none_or(|cur| d > cur)
        {
            r.decision = Some(d);
            r.decision_reason.clone_from(&h.permission_decision_reason);
        }
        if matches!(
            reads,
            SpecificOutput::ToolDecision | SpecificOutput::PermissionAnswer
        ) {
            match decision {
                Some(Decision::Deny) => {
                    r.allowed = false;
                    blocked_here = true;
                    if !h.permission_decision_reason.is_empty() {
                        acc.messages.push(h.permission_decision_reason.clone());
                    }
                }
                Some(Decision::Allow) => {
                    if reads == SpecificOutput::PermissionAnswer {
                        r.permission_allowed = true;
                    }
                    if !h.permission_decision_reason.is_empty() {
                        acc.contexts.push(h.permission_decision_reason.clone());
                    }
                }
                Some(Decision::Ask) | None => {}
            }
        }
        if decision == Some(Decision::Allow) {
            r.explicit_allows += 1;
        }
        // tool_guard and the content guards ignore rewrites: tool_input_transform makes them.
        let rewrites = (event == HookEvent::PreToolUse && lane == Lane::Default)
            || reads == SpecificOutput::InputRewrite;
        if rewrites && let Some(updates) = &h.updated_input {
            let merged = r.updated_input.get_or_insert_with(Default::default);
            for (k, v) in updates {
                merged.insert(k.clone(), v.clone());
            }
        }
        if reads == SpecificOutput::Summary && r.summary.is_empty() && !h.summary.is_empty() {
            r.summary.clone_from(&h.summary);
        }
        if reads == SpecificOutput::Messages
            && let Some(m) = &h.updated_messages
            && !m.is_empty()
        {
            // Rewrites chain (see dispatcher): the last one already includes the earlier ones.
            r.updated_messages = Some(m.clone());
        }
        if reads == SpecificOutput::Transition
            && let Some(t) = &h.transition
        {
            r.transition = Some(t.clone());
        }
        if (reads == SpecificOutput::PermissionAnswer
            || lane == Lane::Preempt
            || event == HookEvent::ToolGuard)
            && let Some(meta) = &h.metadata
        {
            r.metadata
                .extend(meta.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if !h.additional_context.is_empty() {
            acc.contexts.push(h.additional_context.clone());
        }
    }
    if blocked_here && acc.messages.len() == before {
        acc.messages.push(format!("blocked by hook {name}"));
    }
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
