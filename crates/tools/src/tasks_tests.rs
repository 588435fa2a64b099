use std::path::Path;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;

async fn call(tools: &[Arc<dyn Tool>], wd: &Path, name: &str, args: Value) -> ToolResult {
    let tool = tools.iter().find(|t| t.definition().name == name).unwrap();
    let cancel = CancellationToken::new();
    let ctx = ToolContext {
        working_dir: wd,
        cancel: &cancel,
        env: &[],
        progress: None,
    };
    let Value::Object(args) = args else { panic!() };
    tool.call(&args, ctx).await
}

fn id(r: &ToolResult) -> String {
    assert!(!r.is_error, "{r:?}");
    let v: Value = serde_json::from_str(&r.content).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn tasks_are_ordered_blocked_by_dependencies_and_kept_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path();
    let tools = TasksTool::all(Some("state/tasks.json"));
    let low = id(&call(
        &tools,
        wd,
        "create_task",
        json!({"title": "low", "priority": "low"}),
    )
    .await);
    let crit = id(&call(
        &tools,
        wd,
        "create_task",
        json!({"title": "crit", "priority": "critical", "dependencies": [low]}),
    )
    .await);
    let high = id(&call(
        &tools,
        wd,
        "create_task",
        json!({"title": "high", "priority": "high"}),
    )
    .await);
    let list: Value =
        serde_json::from_str(&call(&tools, wd, "list_tasks", json!({})).await.content).unwrap();
    let order: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["title"].as_str().unwrap(),
                t["effectiveStatus"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [("high", "pending"), ("low", "pending"), ("crit", "blocked")]
    );
    let next: Value =
        serde_json::from_str(&call(&tools, wd, "next_task", json!({})).await.content).unwrap();
    assert_eq!(next["id"], json!(high));
    call(
        &tools,
        wd,
        "update_task",
        json!({"id": low, "status": "done"}),
    )
    .await;
    let got: Value = serde_json::from_str(
        &call(&tools, wd, "get_task", json!({"id": crit}))
            .await
            .content,
    )
    .unwrap();
    assert_eq!(got["effectiveStatus"], "pending");
    let stored: Value =
        serde_json::from_slice(&std::fs::read(wd.join("state/tasks.json")).unwrap()).unwrap();
    assert_eq!(stored["tasks"].as_object().unwrap().len(), 3);
    let r = call(&tools, wd, "delete_task", json!({"id": low})).await;
    assert_eq!(r.content, json!({"deleted": low}).to_string());
    let got: Value = serde_json::from_str(
        &call(&tools, wd, "get_task", json!({"id": crit}))
            .await
            .content,
    )
    .unwrap();
    assert_eq!(
        got["dependencies"],
        json!([]),
        "a deleted task leaves every dependency list"
    );
    let filtered = call(&tools, wd, "list_tasks", json!({"priority": "medium"})).await;
    assert_eq!(filtered.content, "null");
}

#[tokio::test]
async fn bad_requests_are_answered_with_docker_agents_errors() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path();
    let tools = TasksTool::all(None);
    let a = id(&call(&tools, wd, "create_task", json!({"title": "a"})).await);
    let b = id(&call(
        &tools,
        wd,
        "create_task",
        json!({"title": "b", "dependencies": [a]}),
    )
    .await);
    let cases = [
        (
            "create_task",
            json!({"title": "x", "priority": "urgent"}),
            "invalid priority: urgent",
        ),
        (
            "create_task",
            json!({"title": "x", "dependencies": ["nope"]}),
            "dependency task not found: nope",
        ),
        ("get_task", json!({"id": "nope"}), "task not found: nope"),
        (
            "update_task",
            json!({"id": a, "status": "finished"}),
            "invalid status: finished",
        ),
        (
            "update_task",
            json!({"id": a, "dependencies": [b]}),
            "adding these dependencies would create a cycle",
        ),
        (
            "add_dependency",
            json!({"taskId": a, "dependsOnId": b}),
            "adding this dependency would create a cycle",
        ),
        (
            "add_dependency",
            json!({"taskId": b, "dependsOnId": a}),
            "dependency already exists",
        ),
    ];
    for (tool, args, want) in cases {
        let r = call(&tools, wd, tool, args.clone()).await;
        assert_eq!(r, ToolResult::error(want), "{tool} {args}");
    }
    let r = call(
        &tools,
        wd,
        "remove_dependency",
        json!({"taskId": b, "dependsOnId": a}),
    )
    .await;
    assert!(!r.is_error);
    let next = call(&tools, wd, "next_task", json!({})).await;
    assert!(!next.is_error);
    assert!(
        wd.join("tasks.json").exists(),
        "the default file is tasks.json"
    );
}

#[tokio::test]
async fn a_description_file_must_stay_inside_the_task_files_directory() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path().join("wd");
    std::fs::create_dir_all(wd.join("notes")).unwrap();
    std::fs::write(wd.join("notes/spec.md"), "# spec").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), wd.join("link.md")).unwrap();
    let tools = TasksTool::all(None);
    let r = call(
        &tools,
        &wd,
        "create_task",
        json!({"title": "t", "path": "notes/spec.md"}),
    )
    .await;
    let task: Value = serde_json::from_str(&r.content).unwrap();
    assert_eq!(task["description"], "# spec");
    for bad in ["../secret.txt", "link.md", "/etc/passwd", "~/x"] {
        let r = call(
            &tools,
            &wd,
            "create_task",
            json!({"title": "t", "path": bad}),
        )
        .await;
        assert!(r.is_error, "{bad}: {r:?}");
        assert!(r.content.starts_with("invalid file path"), "{bad}: {r:?}");
        assert!(!r.content.contains("secret\""), "{bad}");
    }
}

#[tokio::test]
async fn a_symlink_at_the_task_file_is_replaced_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path();
    std::fs::write(wd.join("victim"), "{\"tasks\":{}}").unwrap();
    std::os::unix::fs::symlink(wd.join("victim"), wd.join("tasks.json")).unwrap();
    let tools = TasksTool::all(None);
    id(&call(&tools, wd, "create_task", json!({"title": "t"})).await);
    assert_eq!(
        std::fs::read_to_string(wd.join("victim")).unwrap(),
        "{\"tasks\":{}}"
    );
    assert!(
        !std::fs::symlink_metadata(wd.join("tasks.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[tokio::test]
async fn a_corrupt_task_file_is_an_error_not_an_empty_list() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tasks.json"), "not json").unwrap();
    let tools = TasksTool::all(None);
    let r = call(&tools, dir.path(), "create_task", json!({"title": "t"})).await;
    assert!(
        r.is_error && r.content.starts_with("parsing task store"),
        "{r:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tasks.json")).unwrap(),
        "not json"
    );
}
