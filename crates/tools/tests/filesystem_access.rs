//! The filesystem tools with `allow_list` / `deny_list`, on real files: every path argument of
//! every tool is checked, refusals change nothing on disk, and walks and listings leave out
//! what the lists refuse.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_config::ToolsetKind;
use tether_tools::{Tool, build_toolset};

use common::{call, config, err, find, ok, sh};

/// ```text
/// wd/src/a.txt             "needle a\n"
/// wd/src/secret/k.txt      "needle k\n"
/// wd/src/out -> outside
/// wd/src/keep/
/// wd/top.txt               "needle top\n"
/// outside/x.txt            "needle x\n"
/// outside/keep/
/// ```
struct Fixture {
    _dir: tempfile::TempDir,
    wd: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (wd, outside) = (base.join("wd"), base.join("outside"));
    for d in [
        wd.join("src/secret"),
        wd.join("src/keep"),
        outside.join("keep"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(wd.join("src/a.txt"), "needle a\n").unwrap();
    std::fs::write(wd.join("src/secret/k.txt"), "needle k\n").unwrap();
    std::fs::write(wd.join("top.txt"), "needle top\n").unwrap();
    std::fs::write(outside.join("x.txt"), "needle x\n").unwrap();
    symlink(&outside, wd.join("src/out")).unwrap();
    Fixture {
        _dir: dir,
        wd,
        outside,
    }
}

fn fenced(allow: &[&str], deny: &[&str]) -> Vec<Arc<dyn Tool>> {
    let mut cfg = config(ToolsetKind::Filesystem);
    cfg.allow_list = allow.iter().map(|s| (*s).to_owned()).collect();
    cfg.deny_list = deny.iter().map(|s| (*s).to_owned()).collect();
    build_toolset(&cfg, &sh()).tools
}

async fn run(tools: &[Arc<dyn Tool>], name: &str, args: serde_json::Value, wd: &Path) -> String {
    let got = call(find(tools, name).as_ref(), args, wd).await;
    if got.is_error {
        format!("error: {}", got.content)
    } else {
        got.content
    }
}

const OUTSIDE: &str = "is outside the allowed directories (`allow_list`: `src`)";
const DENIED: &str = "is inside a denied directory (`deny_list`: `src/secret`)";

#[tokio::test]
async fn every_path_argument_is_checked_and_a_refusal_changes_nothing() {
    let f = fixture();
    let tools = fenced(&["src"], &["src/secret"]);
    let outside_file = f.outside.join("x.txt").display().to_string();
    let cases = [
        (
            "read_file",
            json!({"path": "src/a.txt"}),
            "needle a\n".to_owned(),
        ),
        (
            "read_file",
            json!({"path": "top.txt"}),
            format!("error: `top.txt` {OUTSIDE}"),
        ),
        (
            "read_file",
            json!({"path": "src/../top.txt"}),
            format!("error: `src/../top.txt` {OUTSIDE}"),
        ),
        (
            "read_file",
            json!({"path": "src/out/x.txt"}),
            format!("error: `src/out/x.txt` {OUTSIDE}"),
        ),
        (
            "read_file",
            json!({"path": outside_file}),
            format!("error: `{outside_file}` {OUTSIDE}"),
        ),
        (
            "read_file",
            json!({"path": "src/secret/k.txt"}),
            format!("error: `src/secret/k.txt` {DENIED}"),
        ),
        (
            "write_file",
            json!({"path": "top.txt", "content": "x"}),
            format!("error: `top.txt` {OUTSIDE}"),
        ),
        (
            "write_file",
            json!({"path": "src/out/new/y.txt", "content": "x"}),
            format!("error: `src/out/new/y.txt` {OUTSIDE}"),
        ),
        (
            "write_file",
            json!({"path": "src/secret/k.txt", "content": "x"}),
            format!("error: `src/secret/k.txt` {DENIED}"),
        ),
        (
            "edit_file",
            json!({"path": "src/secret/k.txt", "edits": [{"oldText": "needle", "newText": "pin"}]}),
            format!("error: `src/secret/k.txt` {DENIED}"),
        ),
        (
            "edit_file",
            json!({"path": "top.txt", "edits": [{"oldText": "needle", "newText": "pin"}]}),
            format!("error: `top.txt` {OUTSIDE}"),
        ),
        (
            "list_directory",
            json!({"path": "."}),
            format!("error: `.` {OUTSIDE}"),
        ),
        (
            "list_directory",
            json!({"path": "src/out"}),
            format!("error: `src/out` {OUTSIDE}"),
        ),
        (
            "directory_tree",
            json!({"path": "src/secret"}),
            format!("error: `src/secret` {DENIED}"),
        ),
        (
            "directory_tree",
            json!({"path": "src/out"}),
            format!("error: `src/out` {OUTSIDE}"),
        ),
        (
            "search_files_content",
            json!({"path": ".", "query": "needle"}),
            format!("error: `.` {OUTSIDE}"),
        ),
        (
            "search_files_content",
            json!({"path": "src/out", "query": "needle"}),
            format!("error: `src/out` {OUTSIDE}"),
        ),
        (
            "create_directory",
            json!({"paths": ["src/new", "src/out/made"]}),
            format!("error: `src/out/made` {OUTSIDE}"),
        ),
        (
            "create_directory",
            json!({"paths": ["src/secret/sub"]}),
            format!("error: `src/secret/sub` {DENIED}"),
        ),
        (
            "remove_directory",
            json!({"paths": ["src/keep", "src/out/keep"]}),
            format!("error: `src/out/keep` {OUTSIDE}"),
        ),
        (
            "remove_directory",
            json!({"paths": ["src/secret"]}),
            format!("error: `src/secret` {DENIED}"),
        ),
    ];
    for (name, args, want) in cases {
        assert_eq!(
            run(&tools, name, args.clone(), &f.wd).await,
            want,
            "{name} {args}"
        );
    }
    // Nothing was written, edited, created or removed, not even the admitted paths of a
    // call that had a refused one.
    assert_eq!(
        std::fs::read_to_string(f.wd.join("top.txt")).unwrap(),
        "needle top\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.wd.join("src/secret/k.txt")).unwrap(),
        "needle k\n"
    );
    assert!(!f.outside.join("new").exists() && !f.outside.join("made").exists());
    assert!(!f.wd.join("src/new").exists() && !f.wd.join("src/secret/sub").exists());
    assert!(f.wd.join("src/keep").is_dir() && f.outside.join("keep").is_dir());
    // What the lists admit still works, writes through `..` included.
    let write = json!({"path": "src/keep/../b.txt", "content": "bee"});
    assert_eq!(
        run(&tools, "write_file", write, &f.wd).await,
        "File written successfully: src/keep/../b.txt (3 bytes)"
    );
    assert_eq!(
        std::fs::read_to_string(f.wd.join("src/b.txt")).unwrap(),
        "bee"
    );
    let remove = json!({"paths": ["src/keep"]});
    assert_eq!(
        run(&tools, "remove_directory", remove, &f.wd).await,
        "Directory removed successfully: src/keep"
    );
}

#[tokio::test]
async fn read_multiple_files_refuses_path_by_path() {
    let f = fixture();
    let tools = fenced(&["src"], &["src/secret"]);
    let got = call(
        find(&tools, "read_multiple_files").as_ref(),
        json!({"paths": ["src/a.txt", "top.txt", "src/secret/k.txt"]}),
        &f.wd,
    )
    .await;
    assert_eq!(
        got,
        ok(&format!(
            "=== src/a.txt ===\nneedle a\n\n\n=== top.txt ===\nerror: `top.txt` {OUTSIDE}\n\n=== src/secret/k.txt ===\nerror: `src/secret/k.txt` {DENIED}\n\n"
        ))
    );
}

#[tokio::test]
async fn walks_and_listings_leave_out_what_the_lists_refuse() {
    let f = fixture();
    let tools = fenced(&["src"], &["src/secret"]);
    let search = run(
        &tools,
        "search_files_content",
        json!({"path": "src", "query": "needle"}),
        &f.wd,
    )
    .await;
    assert_eq!(search, "src/a.txt:1: needle a\n");
    let tree = run(&tools, "directory_tree", json!({"path": "src"}), &f.wd).await;
    assert_eq!(
        tree,
        r#"{"name":"src","type":"directory","children":[{"name":"a.txt","type":"file"},{"name":"keep","type":"directory","children":[]}]}"#
    );
    let list = run(&tools, "list_directory", json!({"path": "src"}), &f.wd).await;
    assert_eq!(
        list,
        "FILE a.txt\nDIR  keep\n[2 entries not shown: outside `allow_list` or inside `deny_list`]\n"
    );
    // The same calls without lists see everything, so the lists made the difference.
    let open = build_toolset(&config(ToolsetKind::Filesystem), &sh()).tools;
    let all = run(
        &open,
        "search_files_content",
        json!({"path": "src", "query": "needle"}),
        &f.wd,
    )
    .await;
    assert_eq!(all, "src/a.txt:1: needle a\nsrc/secret/k.txt:1: needle k\n");
    let all = run(&open, "list_directory", json!({"path": "src"}), &f.wd).await;
    assert_eq!(all, "FILE a.txt\nDIR  keep\nDIR  out\nDIR  secret\n");
}

#[tokio::test]
async fn a_deny_list_alone_leaves_the_rest_reachable() {
    let f = fixture();
    let tools = fenced(&[], &["src/secret"]);
    let outside_file = f.outside.join("x.txt").display().to_string();
    assert_eq!(
        run(&tools, "read_file", json!({"path": outside_file}), &f.wd).await,
        "needle x\n"
    );
    let search = run(
        &tools,
        "search_files_content",
        json!({"path": ".", "query": "needle"}),
        &f.wd,
    )
    .await;
    assert_eq!(search, "src/a.txt:1: needle a\ntop.txt:1: needle top\n");
}

#[tokio::test]
async fn the_instruction_names_the_lists_and_a_broken_entry_disables_the_tools() {
    let mut cfg = config(ToolsetKind::Filesystem);
    cfg.allow_list = vec![".".to_owned(), "~/notes".to_owned()];
    cfg.deny_list = vec!["~/.ssh".to_owned()];
    let instruction = build_toolset(&cfg, &sh()).instruction.unwrap();
    assert!(
        instruction.ends_with("\n- These tools are restricted to paths under: ., ~/notes. Any other path is rejected.\n- These tools must not access paths under: ~/.ssh. Such paths are rejected."),
        "{instruction}"
    );
    let f = fixture();
    cfg.allow_list = vec!["${env.TETHER_SURELY_UNSET_DIR}".to_owned()];
    let tools = build_toolset(&cfg, &sh()).tools;
    assert_eq!(
        call(
            find(&tools, "read_file").as_ref(),
            json!({"path": "top.txt"}),
            &f.wd
        )
        .await,
        err(
            "the filesystem tools are disabled: `allow_list` entry `${env.TETHER_SURELY_UNSET_DIR}`: environment variable `TETHER_SURELY_UNSET_DIR` is not set"
        )
    );
}
