//! `type: policy` hooks: Cedar policy sets load from a file or inline text, are validated
//! against their schema, and every parse or validation error points at its line and column.

#![allow(clippy::unwrap_used, reason = "test helpers panic on purpose")]

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{ConfigError, HookKind, load_str};
use tether_protocol::HookEvent;

const SCHEMA: &str = r#"entity Agent;
entity Tool;
action "pre_tool_use" appliesTo {
  principal: [Agent],
  resource: [Tool],
  context: {
    tool_input: { command?: String },
    session_id: String,
    cwd: String,
    agent: String,
    safety: String,
  }
};
"#;

const POLICIES: &str = r#"@id("balanced-ok")
permit(principal, action == Action::"pre_tool_use", resource)
when { context.safety == "balanced" };

@reason("no rm")
forbid(principal, action == Action::"pre_tool_use", resource)
when { context.tool_input has command && context.tool_input.command like "*rm *" };
"#;

fn agent(hooks: &str) -> String {
    format!("agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n{hooks}")
}

fn pre_tool_use(fields: &str) -> String {
    agent(&format!(
        "      pre_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: policy\n{fields}"
    ))
}

fn errors(yaml: &str, dir: &Path) -> Vec<String> {
    match load_str(yaml, "agent.yaml", dir) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => {
            d.0.iter()
                .map(|d| d.to_string().lines().next().unwrap_or_default().to_owned())
                .collect()
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn a_policy_file_loads_validated_against_its_schema() {
    let dir = dir_with(&[("tools.cedar", POLICIES), ("tools.cedarschema", SCHEMA)]);
    let yaml = pre_tool_use(
        "              policy: tools.cedar\n              schema: tools.cedarschema\n",
    );
    let file = load_str(&yaml, "agent.yaml", dir.path()).unwrap();
    let hook = &file.agents[0].hooks.entries(HookEvent::PreToolUse)[0].hooks[0];
    let HookKind::Policy(p) = &hook.kind else {
        panic!("not a policy hook: {hook:?}");
    };
    assert_eq!(
        (hook.type_name(), p.source.as_str(), p.count, p.validated),
        ("policy", "tools.cedar", 2, true)
    );
}

#[test]
fn a_schema_violation_is_a_load_error_at_its_position_in_the_policy_file() {
    let bad = POLICIES.replace(
        "context.tool_input.command like",
        "context.tool_input.cmd like",
    );
    let dir = dir_with(&[("tools.cedar", &bad), ("tools.cedarschema", SCHEMA)]);
    let yaml = pre_tool_use(
        "              policy: tools.cedar\n              schema: tools.cedarschema\n",
    );
    let errs = errors(&yaml, dir.path());
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].starts_with("tools.cedar:7:"),
        "not at the policy's line: {errs:?}"
    );
    assert!(errs[0].contains("does not match the schema"), "{errs:?}");
    assert!(errs[0].contains("cmd"), "{errs:?}");
}

#[test]
fn a_parse_error_in_a_policy_file_points_at_its_line_and_column() {
    let dir = dir_with(&[(
        "tools.cedar",
        "permit(principal, action, resource);\n\nforbid(principal, action, resource) when { context.x == };\n",
    )]);
    let yaml = pre_tool_use("              policy: tools.cedar\n");
    let errs = errors(&yaml, dir.path());
    assert!(
        errs[0].starts_with("tools.cedar:3:"),
        "not at the error's line: {errs:?}"
    );
    assert!(errs[0].contains("Cedar policy parse error"), "{errs:?}");
}

#[test]
fn a_parse_error_in_inline_policy_text_points_into_the_agent_file() {
    let yaml = pre_tool_use(
        "              policy_text: |\n                permit(principal, action, resource);\n                forbid(principal, action, resourc);\n",
    );
    let errs = errors(&yaml, Path::new("."));
    // Line 11 of agent.yaml, `resourc` at column 43.
    assert!(errs[0].starts_with("agent.yaml:11:43:"), "{errs:?}");
}

#[test]
fn policy_hooks_on_events_without_a_verdict_are_load_errors() {
    let yaml = agent(
        "      post_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: policy\n              policy_text: 'forbid(principal, action, resource);'\n",
    );
    let errs = errors(&yaml, Path::new("."));
    assert_eq!(
        errs,
        [
            "agent.yaml:8:15: agents.root.hooks.post_tool_use[0].hooks[0]: `type: policy` does not run on `post_tool_use`"
        ]
    );
}

#[test]
fn policy_fields_belong_to_policy_hooks_and_a_missing_file_is_named() {
    let yaml = agent(
        "      stop:\n        - type: command\n          command: 'true'\n          policy: x.cedar\n",
    );
    assert_eq!(
        errors(&yaml, Path::new(".")),
        [
            "agent.yaml:8:19: agents.root.hooks.stop[0].policy: `policy` only applies to `type: policy` hooks"
        ]
    );
    let dir = dir_with(&[]);
    let errs = errors(
        &pre_tool_use("              policy: missing.cedar\n"),
        dir.path(),
    );
    assert!(errs[0].contains("cannot read the policy file"), "{errs:?}");
    let both = pre_tool_use(
        "              policy: a.cedar\n              policy_text: 'permit(principal, action, resource);'\n",
    );
    assert!(errors(&both, dir.path())[0].contains("not both"));
}
