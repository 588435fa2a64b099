use serde_json::json;

use super::*;

fn hook(text: &str) -> PolicyHook {
    let set: PolicySet = text.parse().unwrap();
    let config = PolicyConfig {
        count: set.policies().count(),
        set: Arc::new(set),
        source: "inline".to_owned(),
        validated: false,
        text: Arc::from(text),
    };
    PolicyHook::compile(&config, "balanced").unwrap()
}

fn call(tool: &str, args: serde_json::Value) -> HookInput {
    let mut input = HookInput {
        agent_name: "root".to_owned(),
        session_id: "s1".to_owned(),
        tool_name: tool.to_owned(),
        ..HookInput::default()
    };
    input.tool_input = args.as_object().cloned();
    input
}

fn decision(answer: &PolicyAnswer) -> (String, String) {
    let h = answer
        .outcome
        .output()
        .and_then(|o| o.hook_specific_output.as_ref());
    h.map_or_else(Default::default, |h| {
        (
            h.permission_decision.clone(),
            h.permission_decision_reason.clone(),
        )
    })
}

const RULES: &str = r#"
@id("shell-ok")
permit(principal, action == Action::"pre_tool_use", resource == Tool::"shell");

@id("no-rm")
@reason("rm -rf is not allowed here")
forbid(principal, action, resource == Tool::"shell")
when { context.tool_input has command && context.tool_input.command like "*rm -rf*" };
"#;

#[test]
fn a_forbid_that_applies_beats_a_permit_and_gives_its_reason() {
    let h = hook(RULES);
    let a = h.decide(
        HookEvent::PreToolUse,
        &call("shell", json!({"command": "rm -rf /"})),
    );
    assert_eq!(
        decision(&a),
        ("deny".to_owned(), "rm -rf is not allowed here".to_owned())
    );
    assert_eq!(a.policies, ["no-rm"]);
}

#[test]
fn a_permit_alone_allows_and_names_its_policy() {
    let h = hook(RULES);
    let a = h.decide(
        HookEvent::PreToolUse,
        &call("shell", json!({"command": "ls"})),
    );
    assert_eq!(decision(&a).0, "allow");
    assert_eq!(a.policies, ["shell-ok"]);
}

#[test]
fn no_applicable_policy_is_no_opinion() {
    let h = hook(RULES);
    let a = h.decide(
        HookEvent::PreToolUse,
        &call("read_file", json!({"path": "x"})),
    );
    assert!(a.outcome.output().is_none());
    assert!(a.policies.is_empty());
}

#[test]
fn a_forbid_without_reason_gives_its_id() {
    let h = hook(r#"forbid(principal, action, resource);"#);
    let a = h.decide(HookEvent::ToolGuard, &call("shell", json!({})));
    assert_eq!(decision(&a), ("deny".to_owned(), "policy0".to_owned()));
}

#[test]
fn mcp_tools_are_their_qualified_names() {
    let h = hook(r#"forbid(principal, action, resource == Tool::"mcp:git:push");"#);
    let mut input = call("push", json!({}));
    input.tool_qualified_name = "mcp:git:push".to_owned();
    assert_eq!(decision(&h.decide(HookEvent::PreToolUse, &input)).0, "deny");
    let plain = call("push", json!({}));
    assert!(
        h.decide(HookEvent::PreToolUse, &plain)
            .outcome
            .output()
            .is_none()
    );
}

#[test]
fn json_nulls_are_left_out_and_fractions_become_text() {
    let h = hook(
        r#"forbid(principal, action, resource)
           when { !(context.tool_input has gone) && context.tool_input.ratio == "0.5"
                  && context.tool_input.n == 3 && context.tool_input.tags.contains("a")
                  && context.tool_input.nested.ok && context.safety == "balanced" };"#,
    );
    let args =
        json!({"gone": null, "ratio": 0.5, "n": 3, "tags": ["a", null], "nested": {"ok": true}});
    let a = h.decide(HookEvent::PreToolUse, &call("x", args));
    assert_eq!(decision(&a).0, "deny");
}

#[test]
fn a_forbidden_prompt_is_blocked() {
    let h = hook(
        r#"@reason("no secrets in prompts")
           forbid(principal, action == Action::"user_prompt_submit", resource == Prompt::"user")
           when { context.prompt like "*password*" };"#,
    );
    let mut input = call("", json!({}));
    input.prompt = "my password is hunter2".to_owned();
    let a = h.decide(HookEvent::UserPromptSubmit, &input);
    let out = a.outcome.output().unwrap();
    assert_eq!(
        (out.decision.as_str(), out.reason.as_str()),
        ("block", "no secrets in prompts")
    );
}
