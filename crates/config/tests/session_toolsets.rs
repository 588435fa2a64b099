//! The options of `file`, `tasks`, `plan` and `session_context` toolsets, and agent commands
//! that switch agents: honoured, or a load error naming the field.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{ConfigError, ToolsetKind, load_str};

fn load(yaml: &str) -> tether_config::AgentFile {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

fn first_error(yaml: &str) -> String {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => d.0[0].to_string().lines().next().unwrap().to_owned(),
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn agent(toolsets: &str) -> String {
    format!("agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n{toolsets}")
}

#[test]
fn the_four_toolsets_load_with_their_options() {
    let file = load(&agent(
        "      - type: file\n        allow_list: [src]\n        deny_list: [src/secret]\n        post_edit:\n          - {path: '*.rs', cmd: 'rustfmt $path'}\n      - type: tasks\n        path: state/tasks.json\n      - type: plan\n        tools: [read_plan]\n      - type: session_context\n",
    ));
    let sets = &file.agents[0].toolsets;
    let kinds: Vec<ToolsetKind> = sets.iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        [
            ToolsetKind::File,
            ToolsetKind::Tasks,
            ToolsetKind::Plan,
            ToolsetKind::SessionContext
        ]
    );
    assert_eq!(sets[0].allow_list, ["src"]);
    assert_eq!(sets[0].deny_list, ["src/secret"]);
    assert_eq!(sets[0].post_edit.len(), 1);
    assert_eq!(sets[1].path.as_deref(), Some("state/tasks.json"));
    assert_eq!(sets[2].tools, Some(vec!["read_plan".to_owned()]));
}

#[test]
fn options_of_other_toolsets_are_errors_naming_them() {
    let cases = [
        (
            "      - type: plan\n        path: plans\n",
            "`path` only applies to `type: memory` and `tasks` toolsets, not `type: plan`",
        ),
        (
            "      - type: tasks\n        path: ../elsewhere/tasks.json\n",
            "the tasks path `../elsewhere/tasks.json` leaves the working directory",
        ),
        (
            "      - type: file\n        ignore_vcs: false\n",
            "`ignore_vcs` only applies to `type: filesystem` toolsets, not `type: file`",
        ),
        (
            "      - type: session_context\n        allow_list: [.]\n",
            "`allow_list` only applies to `type: filesystem` and `file` toolsets, not `type: session_context`",
        ),
        (
            "      - type: file\n        tools: [list_directory]\n",
            "unknown tool `list_directory` in a `file` toolset",
        ),
        (
            "      - type: tasks\n        tools: [create_todo]\n",
            "unknown tool `create_todo` in a `tasks` toolset",
        ),
    ];
    for (toolsets, want) in cases {
        let got = first_error(&agent(toolsets));
        assert!(got.ends_with(want), "{toolsets}\ngot: {got}\nwant: {want}");
    }
}

#[test]
fn a_command_may_switch_to_another_agent_of_the_file() {
    let file = load(
        "agents:\n  root:\n    model: openai/gpt-4o\n    commands:\n      plan:\n        description: Switch to the planner\n        agent: planner\n      ask: {agent: planner, instruction: review the plan}\n  planner:\n    model: openai/gpt-4o\n",
    );
    let root = &file.agents[0];
    let plan = root.command("plan").unwrap();
    assert_eq!(plan.agent.as_deref(), Some("planner"));
    assert_eq!(plan.instruction, "", "typed text is the prompt");
    let ask = root.command("ask").unwrap();
    assert_eq!(ask.agent.as_deref(), Some("planner"));
    assert_eq!(ask.instruction, "review the plan");
    let got = first_error(
        "agents:\n  root:\n    model: openai/gpt-4o\n    commands:\n      plan: {agent: nobody}\n",
    );
    assert!(
        got.ends_with("command `plan`: unknown agent `nobody` (agents: root)"),
        "{got}"
    );
    let got = first_error(
        "agents:\n  root:\n    model: openai/gpt-4o\n    commands:\n      docs: {url: 'https://docs.docker.com'}\n",
    );
    assert!(
        got.ends_with("command `docs`: the field `url` is not supported yet"),
        "{got}"
    );
}
