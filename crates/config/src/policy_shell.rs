//! Forbids about the shell tool that a background job goes round: `run_background_job` runs a
//! shell line too, so a `forbid` that names `Tool::"shell"` alone does not stop the same
//! command started as a job. `tether hooks check` warns of them.

use cedar_policy::{ActionConstraint, Effect, EntityUid, Policy, ResourceConstraint};
use serde_json::Value;
use tether_protocol::HookEvent;

use crate::diagnostic::Origin;
use crate::policy::{POLICY_EVENTS, PolicyHook};

const SHELL: &str = "shell";
const JOB: &str = "run_background_job";

/// A `forbid` that names `Tool::"shell"` but not `Tool::"run_background_job"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOnlyForbid {
    /// Its `@id`, else Cedar's id.
    pub id: String,
    /// Where the policy starts: in its file, or inside the agent file for `policy_text`.
    pub origin: Origin,
}

impl PolicyHook {
    /// The forbids on tool events whose scope names the shell tool (`resource == Tool::"shell"`)
    /// or, with the resource open, whose `when` requires it (`resource == Tool::"shell"`,
    /// `resource in [Tool::"shell", …]`), without naming `run_background_job`; in text order.
    pub fn shell_only_forbids(&self) -> Vec<ShellOnlyForbid> {
        let starts = statement_starts(&self.text);
        let mut found: Vec<(usize, ShellOnlyForbid)> = self
            .set
            .policies()
            .filter(|p| p.effect() == Effect::Forbid && on_tool_events(p))
            .filter(|p| {
                tools(p)
                    .is_some_and(|t| t.iter().any(|n| n == SHELL) && !t.iter().any(|n| n == JOB))
            })
            .map(|p| {
                let id = p
                    .annotation("id")
                    .map_or_else(|| p.id().to_string(), str::to_owned);
                // Cedar names parsed policies `policy0`, `policy1`, … in statement order.
                let cedar_id: &str = p.id().as_ref();
                let at = cedar_id
                    .strip_prefix("policy")
                    .and_then(|n| n.parse::<usize>().ok())
                    .and_then(|n| starts.get(n).copied());
                let origin = self.at.origin(&self.text, at.unwrap_or(0), "policy");
                (at.unwrap_or(usize::MAX), ShellOnlyForbid { id, origin })
            })
            .collect();
        found.sort_by_key(|(at, _)| *at);
        found.into_iter().map(|(_, f)| f).collect()
    }
}

/// Whether the policy can apply on an event that takes a tool verdict.
fn on_tool_events(p: &Policy) -> bool {
    let tool_event = |a: &EntityUid| {
        a.type_name().to_string() == "Action"
            && POLICY_EVENTS
                .iter()
                .any(|e| *e != HookEvent::UserPromptSubmit && a.id().unescaped() == e.wire_name())
    };
    match p.action_constraint() {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(a) => tool_event(&a),
        ActionConstraint::In(list) => list.iter().any(tool_event),
    }
}

/// The id of a `Tool::"…"` entity.
fn tool_id(uid: &EntityUid) -> Option<String> {
    (uid.type_name().to_string() == "Tool").then(|| uid.id().unescaped().to_owned())
}

/// The tools the policy is restricted to, when its scope or a `when` conjunct names them.
fn tools(p: &Policy) -> Option<Vec<String>> {
    match p.resource_constraint() {
        ResourceConstraint::Eq(u) | ResourceConstraint::In(u) | ResourceConstraint::IsIn(_, u) => {
            return Some(tool_id(&u).into_iter().collect());
        }
        ResourceConstraint::Any | ResourceConstraint::Is(_) => {}
    }
    let est = p.to_json().ok()?;
    for clause in est.get("conditions")?.as_array()? {
        if clause.get("kind")?.as_str()? != "when" {
            continue;
        }
        let mut conjuncts = Vec::new();
        split_and(clause.get("body")?, &mut conjuncts);
        if let Some(tools) = conjuncts.into_iter().find_map(resource_is_one_of) {
            return Some(tools);
        }
    }
    None
}

/// The operands of a chain of `&&`.
fn split_and<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    match v.get("&&") {
        Some(pair) => {
            for side in ["left", "right"] {
                if let Some(e) = pair.get(side) {
                    split_and(e, out);
                }
            }
        }
        None => out.push(v),
    }
}

fn is_resource(v: &Value) -> bool {
    v.get("Var").and_then(Value::as_str) == Some("resource")
}

/// A `Tool::"…"` literal's id.
fn literal_tool(v: &Value) -> Option<String> {
    let e = v.get("Value")?.get("__entity")?;
    (e.get("type")?.as_str()? == "Tool").then(|| e.get("id")?.as_str().map(str::to_owned))?
}

/// The tools of `resource == Tool::"X"`, `Tool::"X" == resource`, `resource in Tool::"X"` or
/// `resource in [Tool::"X", …]`.
fn resource_is_one_of(v: &Value) -> Option<Vec<String>> {
    if let Some(eq) = v.get("==") {
        let (l, r) = (eq.get("left")?, eq.get("right")?);
        let other = if is_resource(l) {
            r
        } else if is_resource(r) {
            l
        } else {
            return None;
        };
        return Some(vec![literal_tool(other)?]);
    }
    let within = v.get("in")?;
    if !is_resource(within.get("left")?) {
        return None;
    }
    let right = within.get("right")?;
    match right.get("Set") {
        Some(items) => Some(items.as_array()?.iter().filter_map(literal_tool).collect()),
        None => Some(vec![literal_tool(right)?]),
    }
}

/// The byte offset where each statement of Cedar `text` starts (its first annotation or its
/// effect), skipping comments and string literals.
fn statement_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let mut in_statement = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                if !in_statement {
                    starts.push(i);
                    in_statement = true;
                }
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    i += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
                continue;
            }
            b';' => in_statement = false,
            c if c.is_ascii_whitespace() => {}
            _ if !in_statement => {
                starts.push(i);
                in_statement = true;
            }
            _ => {}
        }
        i += 1;
    }
    starts
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::policy::TextAt;

    fn hook(text: &str) -> PolicyHook {
        let set: cedar_policy::PolicySet = text.parse().unwrap();
        PolicyHook {
            count: set.policies().count(),
            set: Arc::new(set),
            source: "p.cedar".to_owned(),
            validated: false,
            text: Arc::from(text),
            at: TextAt::File(Arc::from("p.cedar")),
        }
    }

    fn found(text: &str) -> Vec<(String, String)> {
        hook(text)
            .shell_only_forbids()
            .into_iter()
            .map(|f| (f.id, f.origin.location()))
            .collect()
    }

    #[test]
    fn a_forbid_scoped_to_shell_alone_is_found_at_its_line() {
        let text = "// team rules; with a \"quote\n@id(\"ok\") permit(principal, action, resource == Tool::\"shell\");\n\n  @id(\"no-rm\")\nforbid(principal, action == Action::\"pre_tool_use\", resource == Tool::\"shell\")\n  when { context.tool_input.cmd like \"*;*\" };\n";
        assert_eq!(
            found(text),
            [("no-rm".to_owned(), "p.cedar:4:3".to_owned())]
        );
    }

    #[test]
    fn a_forbid_whose_when_names_shell_and_the_job_is_not_found() {
        let both = r#"forbid(principal, action, resource)
            when { resource in [Tool::"shell", Tool::"run_background_job"] && context.tool_input has cmd };"#;
        assert!(found(both).is_empty());
        let shell = r#"forbid(principal, action, resource)
            when { context.tool_input has cmd && resource == Tool::"shell" };"#;
        assert_eq!(
            found(shell),
            [("policy0".to_owned(), "p.cedar:1:1".to_owned())]
        );
        let in_list = r#"forbid(principal, action, resource) when { resource in [Tool::"shell", Tool::"fetch"] };"#;
        assert_eq!(found(in_list).len(), 1);
    }

    #[test]
    fn forbids_elsewhere_or_off_tool_events_are_not_found() {
        for text in [
            r#"forbid(principal, action, resource);"#,
            r#"forbid(principal, action, resource == Tool::"run_background_job");"#,
            r#"permit(principal, action, resource == Tool::"shell");"#,
            r#"forbid(principal, action == Action::"user_prompt_submit", resource == Tool::"shell");"#,
            r#"forbid(principal, action, resource) unless { resource == Tool::"shell" };"#,
            r#"forbid(principal, action, resource) when { resource == Tool::"shell" || true };"#,
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
