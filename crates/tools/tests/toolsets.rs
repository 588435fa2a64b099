//! `build_toolset` for every toolset kind (names, categories, read-only hints, the `tools:`
//! filter, instructions) and the think and todo tools.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_config::ToolsetKind;
use tether_tools::{SHELL_INSTRUCTION, TODO_INSTRUCTION, ToolResult, build_toolset};

use common::{call, config, err, find, ok, sh, tools};

/// (name, category, read-only) of one tool.
type Row = (String, &'static str, bool);

/// The rows of a toolset's tools, in the order the toolset gives them.
fn summary(kind: ToolsetKind, filter: Option<&[&str]>) -> Vec<Row> {
    let mut cfg = config(kind);
    cfg.tools = filter.map(|f| f.iter().map(|s| (*s).to_owned()).collect());
    build_toolset(&cfg, &sh())
        .tools
        .iter()
        .map(|t| {
            let d = t.definition();
            (d.name.clone(), d.category, d.read_only)
        })
        .collect()
}

fn rows(rows: &[(&str, &'static str, bool)]) -> Vec<Row> {
    rows.iter()
        .map(|(n, c, r)| ((*n).to_owned(), *c, *r))
        .collect()
}

#[test]
fn every_toolset_has_its_tools_categories_and_read_only_hints() {
    let cases: [(ToolsetKind, Vec<Row>); 4] = [
        (
            ToolsetKind::Filesystem,
            rows(&[
                ("directory_tree", "filesystem", true),
                ("edit_file", "filesystem", false),
                ("list_directory", "filesystem", true),
                ("read_file", "filesystem", true),
                ("read_multiple_files", "filesystem", true),
                ("search_files_content", "filesystem", true),
                ("write_file", "filesystem", false),
                ("create_directory", "filesystem", false),
                ("remove_directory", "filesystem", false),
            ]),
        ),
        (ToolsetKind::Shell, rows(&[("shell", "shell", false)])),
        (ToolsetKind::Think, rows(&[("think", "think", true)])),
        (
            ToolsetKind::Todo,
            rows(&[
                ("create_todo", "todo", false),
                ("create_todos", "todo", false),
                ("update_todos", "todo", false),
                ("list_todos", "todo", true),
            ]),
        ),
    ];
    for (kind, want) in cases {
        assert_eq!(summary(kind, None), want, "{kind:?}");
        // Every tool the config layer knows of is built, and no other.
        let mut names: Vec<String> = want.into_iter().map(|(n, _, _)| n).collect();
        names.sort();
        let mut known: Vec<String> = kind.tool_names().iter().map(|s| (*s).to_owned()).collect();
        known.sort();
        assert_eq!(names, known, "{kind:?}");
    }
}

#[test]
fn the_tools_filter_keeps_definition_order_and_drops_the_rest() {
    assert_eq!(
        summary(
            ToolsetKind::Filesystem,
            Some(&["write_file", "read_file", "list_directory"])
        ),
        rows(&[
            ("list_directory", "filesystem", true),
            ("read_file", "filesystem", true),
            ("write_file", "filesystem", false),
        ])
    );
    assert_eq!(
        summary(ToolsetKind::Todo, Some(&["list_todos"])),
        rows(&[("list_todos", "todo", true)])
    );
    assert_eq!(summary(ToolsetKind::Shell, Some(&[])), rows(&[]));
}

#[test]
fn instructions_go_with_the_toolsets_that_have_tools() {
    let instruction = |kind, filter: Option<Vec<String>>| {
        let mut cfg = config(kind);
        cfg.tools = filter;
        build_toolset(&cfg, &sh()).instruction
    };
    assert_eq!(
        instruction(ToolsetKind::Shell, None).as_deref(),
        Some(SHELL_INSTRUCTION)
    );
    assert_eq!(
        instruction(ToolsetKind::Todo, None).as_deref(),
        Some(TODO_INSTRUCTION)
    );
    assert_eq!(instruction(ToolsetKind::Think, None), None);
    assert_eq!(instruction(ToolsetKind::Filesystem, Some(Vec::new())), None);
}

#[test]
fn every_schema_is_a_closed_object_whose_required_fields_exist() {
    for &kind in ToolsetKind::ALL {
        for tool in tools(kind) {
            let p = &tool.definition().parameters;
            let name = &tool.definition().name;
            assert_eq!(p["type"], "object", "{name}");
            assert_eq!(p["additionalProperties"], false, "{name}");
            let props = p["properties"].as_object().unwrap();
            for field in p["required"].as_array().unwrap() {
                assert!(
                    props.contains_key(field.as_str().unwrap()),
                    "{name}: {field}"
                );
            }
        }
    }
}

#[tokio::test]
async fn think_acknowledges_a_thought() {
    let think = find(&tools(ToolsetKind::Think), "think");
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            json!({"thought": "the test failed because of X"}),
            ok("Thought recorded."),
        ),
        (
            json!({}),
            err("invalid arguments for `think`: missing field `thought`"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(
            call(think.as_ref(), args.clone(), dir.path()).await,
            want,
            "{args}"
        );
    }
}

#[tokio::test]
async fn todo_tools_share_one_list_per_toolset() {
    let set = tools(ToolsetKind::Todo);
    let other = tools(ToolsetKind::Todo);
    let dir = tempfile::tempdir().unwrap();
    let steps: Vec<(&str, Value, ToolResult)> = vec![
        (
            "list_todos",
            json!({}),
            ok(&json!({"todos": []}).to_string()),
        ),
        (
            "create_todo",
            json!({"description": "write tests"}),
            ok(&json!({
                "created": {"id": "todo_1", "description": "write tests", "status": "pending"},
                "todos": [{"id": "todo_1", "description": "write tests", "status": "pending"}],
                "reminder": "these todos are not completed yet: [todo_1] write tests",
            })
            .to_string()),
        ),
        (
            "create_todos",
            json!({"descriptions": ["fix bug", "ship"]}),
            ok(&json!({
                "created": [
                    {"id": "todo_2", "description": "fix bug", "status": "pending"},
                    {"id": "todo_3", "description": "ship", "status": "pending"},
                ],
                "todos": [
                    {"id": "todo_1", "description": "write tests", "status": "pending"},
                    {"id": "todo_2", "description": "fix bug", "status": "pending"},
                    {"id": "todo_3", "description": "ship", "status": "pending"},
                ],
                "reminder": "these todos are not completed yet: [todo_1] write tests; [todo_2] fix bug; [todo_3] ship",
            })
            .to_string()),
        ),
        (
            "update_todos",
            json!({"updates": [
                {"id": "todo_1", "status": "completed"},
                {"id": "todo_2", "status": "in-progress"},
                {"id": "todo_9", "status": "completed"},
            ]}),
            ok(&json!({
                "updated": [
                    {"id": "todo_1", "status": "completed"},
                    {"id": "todo_2", "status": "in_progress"},
                ],
                "not_found": ["todo_9"],
                "todos": [
                    {"id": "todo_1", "description": "write tests", "status": "completed"},
                    {"id": "todo_2", "description": "fix bug", "status": "in_progress"},
                    {"id": "todo_3", "description": "ship", "status": "pending"},
                ],
                "reminder": "these todos are not completed yet: [todo_2] fix bug; [todo_3] ship",
            })
            .to_string()),
        ),
        (
            "update_todos",
            json!({"updates": [{"id": "todo_7", "status": "completed"}]}),
            ToolResult::error(
                json!({
                    "updated": [],
                    "not_found": ["todo_7"],
                    "todos": [
                        {"id": "todo_1", "description": "write tests", "status": "completed"},
                        {"id": "todo_2", "description": "fix bug", "status": "in_progress"},
                        {"id": "todo_3", "description": "ship", "status": "pending"},
                    ],
                    "reminder": "these todos are not completed yet: [todo_2] fix bug; [todo_3] ship",
                })
                .to_string(),
            ),
        ),
        (
            "update_todos",
            json!({"updates": [{"id": "todo_2", "status": "done"}, {"id": "todo_3", "status": "completed"}]}),
            err("invalid arguments for `update_todos`: unknown status `done` (expected pending, in_progress or completed)"),
        ),
        (
            "update_todos",
            json!({"updates": [{"id": "todo_2", "status": "completed"}, {"id": "todo_3", "status": "completed"}]}),
            ok(&json!({
                "updated": [
                    {"id": "todo_2", "status": "completed"},
                    {"id": "todo_3", "status": "completed"},
                ],
                "todos": [
                    {"id": "todo_1", "description": "write tests", "status": "completed"},
                    {"id": "todo_2", "description": "fix bug", "status": "completed"},
                    {"id": "todo_3", "description": "ship", "status": "completed"},
                ],
            })
            .to_string()),
        ),
        (
            "create_todos",
            json!({"descriptions": []}),
            err("invalid arguments for `create_todos`: `descriptions` is empty"),
        ),
    ];
    for (name, args, want) in steps {
        let tool = find(&set, name);
        let got = call(tool.as_ref(), args.clone(), dir.path()).await;
        assert_eq!(got, want, "{name} {args}");
    }
    // Another toolset instance has its own, empty list.
    let list = find(&other, "list_todos");
    assert_eq!(
        call(list.as_ref(), json!({}), dir.path()).await,
        ok(&json!({"todos": []}).to_string())
    );
}

#[tokio::test]
async fn a_script_tool_passes_only_its_declared_arguments_to_the_command() {
    // Even past the runtime's argument check, an undeclared argument never becomes a variable:
    // bash would run `BASH_ENV` before the command.
    let dir = tempfile::tempdir().unwrap();
    let script = tether_config::Script {
        name: "greet".to_owned(),
        cmd: "echo \"hello ${name}\"; printenv EXTRA || echo no-extra".to_owned(),
        description: String::new(),
        args: vec![("name".to_owned(), json!({"description": "who"}))],
        required: vec!["name".to_owned()],
        env: Vec::new(),
        working_dir: None,
    };
    let bash = tether_exec::Shell {
        program: "/bin/bash".into(),
        kind: tether_exec::ShellKind::Bash,
    };
    let tool = tether_tools::ScriptTool::new(&script, bash, &[]);
    let marker = dir.path().join("pwned");
    let got = call(
        &tool,
        json!({
            "name": "x",
            "EXTRA": "leak",
            "BASH_ENV": format!("$(touch {})", marker.display()),
        }),
        dir.path(),
    )
    .await;
    assert_eq!(got, ok("hello x\nno-extra\n"));
    assert!(!marker.exists());
}
