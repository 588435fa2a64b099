//! The `lsp_*` tools against `echo_server.py`, a language server that answers at once: what
//! does not depend on a real server's analysis (restarts, the server's environment, where
//! edits may be written).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests panic on purpose"
)]

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tether_config::LspServer as Config;
use tether_lsp::{LspServer, LspToolset};
use tether_test_support::mcp::{echo_lsp, group_members};
use tether_tools::{ToolContext, ToolResult};
use tokio_util::sync::CancellationToken;

fn echo(root: &Path, env: &[(&str, &str)]) -> LspToolset {
    let config = Config {
        command: "python3".to_owned(),
        args: vec![echo_lsp().display().to_string()],
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        file_types: vec![".py".to_owned()],
        working_dir: None,
        version: None,
    };
    LspToolset::new(vec![Arc::new(LspServer::new(config, root, None))])
}

async fn call(set: &LspToolset, root: &Path, name: &str, args: Value) -> ToolResult {
    let tools = set.tools();
    let tool = tools
        .iter()
        .find(|t| t.definition().name == name)
        .unwrap_or_else(|| panic!("no tool {name}"));
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let cancel = CancellationToken::new();
    let ctx = ToolContext {
        working_dir: root,
        cancel: &cancel,
        env: &[],
        progress: None,
    };
    tool.call(&args, ctx).await
}

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
    std::fs::write(root.join("b.py"), "y = 2\n").unwrap();
    (dir, root)
}

fn kill(pid: u32) {
    let pgid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_right_after_the_server_was_killed_is_answered_by_a_new_server() {
    let (_dir, root) = workspace();
    let set = echo(&root, &[]);
    assert_eq!(set.start().await, Vec::<String>::new());
    let hover = json!({"file": "a.py", "line": 1, "character": 1});
    let mut pids = vec![set.servers()[0].pid().await.unwrap()];
    // Each round kills the server and calls at once, sometimes before the process is gone,
    // sometimes after it is gone but before the client read its output's end (the write
    // then fails with a broken pipe): every call must be answered by a new server.
    for round in 0..20 {
        let pid = *pids.last().unwrap();
        kill(pid);
        if round % 2 == 1 {
            while !group_members(pid).is_empty() {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        }
        let r = call(&set, &root, "lsp_hover", hover.clone()).await;
        assert!(!r.is_error, "round {round}: {}", r.content);
        assert!(r.content.starts_with("echo file://"), "{}", r.content);
        let new = set.servers()[0].pid().await.unwrap();
        assert!(!pids.contains(&new), "round {round}: {new} in {pids:?}");
        pids.push(new);
    }
    let last = *pids.last().unwrap();
    set.stop().await;
    assert_eq!(group_members(last), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_env_values_expand_variables_and_name_a_missing_one() {
    let (_dir, root) = workspace();
    let home = std::env::var("HOME").unwrap();
    let set = echo(&root, &[("ECHO_LSP_TAG", "~/x|${env.HOME}|${HOME}|$HOME")]);
    assert_eq!(set.start().await, Vec::<String>::new());
    let ws = call(&set, &root, "lsp_workspace", json!({})).await;
    assert!(
        ws.content.contains(&format!(
            "- Server: echo-lsp {home}/x|{home}|{home}|{home}\n"
        )),
        "{}",
        ws.content
    );
    set.stop().await;

    let set = echo(
        &root,
        &[("ECHO_LSP_TAG", "${env.TETHER_TEST_SURELY_UNSET_VARIABLE}")],
    );
    assert_eq!(
        set.start().await,
        vec![
            "language server `python3`: env `ECHO_LSP_TAG`: environment variable `TETHER_TEST_SURELY_UNSET_VARIABLE` is not set"
                .to_owned()
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn edits_never_go_through_a_symlink_that_leads_out_of_the_workspace() {
    let (_dir, root) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.py");
    std::fs::write(&victim, "secret = 1\n").unwrap();
    let set = echo(&root, &[]);
    assert_eq!(set.start().await, Vec::<String>::new());

    // After the server started, b.py (which a rename of a.py also edits) becomes a link to a
    // file outside the workspace, and so does a new link.py.
    std::fs::remove_file(root.join("b.py")).unwrap();
    std::os::unix::fs::symlink(&victim, root.join("b.py")).unwrap();
    std::os::unix::fs::symlink(&victim, root.join("link.py")).unwrap();

    let renamed = call(
        &set,
        &root,
        "lsp_rename",
        json!({"file": "a.py", "line": 1, "character": 1, "new_name": "z"}),
    )
    .await;
    assert!(renamed.is_error, "{}", renamed.content);
    assert!(
        renamed.content.contains("outside the workspace"),
        "{}",
        renamed.content
    );
    // Every file is checked before any is written: a.py is untouched too.
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        "x = 1\n"
    );

    for file in ["link.py", "b.py"] {
        let formatted = call(&set, &root, "lsp_format", json!({"file": file})).await;
        assert!(formatted.is_error, "{file}: {}", formatted.content);
        assert!(
            formatted.content.contains("outside the workspace"),
            "{file}: {}",
            formatted.content
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret = 1\n");

    // Inside the workspace, both write.
    std::fs::remove_file(root.join("b.py")).unwrap();
    std::fs::write(root.join("b.py"), "y = 2\n").unwrap();
    let renamed = call(
        &set,
        &root,
        "lsp_rename",
        json!({"file": "a.py", "line": 1, "character": 1, "new_name": "z"}),
    )
    .await;
    assert!(!renamed.is_error, "{}", renamed.content);
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        "z = 1\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("b.py")).unwrap(),
        "z = 2\n"
    );
    set.stop().await;
}
