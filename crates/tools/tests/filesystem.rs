//! The filesystem tools on real files in temp directories, table-driven per tool.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_config::ToolsetKind;
use tether_tools::{ToolResult, build_toolset};

use common::{call, config, err, find, ok, sh, tools};

/// A small tree:
/// ```text
/// a.txt            "alpha\nbeta\n"
/// latin1.txt       "caf\xe9\n"
/// img.png          PNG signature
/// sub/b.txt        "beta in b\n"
/// sub/deep/c.md    "# Title\nbeta gamma\n"
/// empty/
/// ```
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("sub/deep")).unwrap();
    std::fs::create_dir_all(root.join("empty")).unwrap();
    std::fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(root.join("latin1.txt"), b"caf\xe9\n").unwrap();
    std::fs::write(root.join("img.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    std::fs::write(root.join("sub/b.txt"), "beta in b\n").unwrap();
    std::fs::write(root.join("sub/deep/c.md"), "# Title\nbeta gamma\n").unwrap();
    dir
}

/// Runs each (arguments, expected result) case against one tool in `wd`.
async fn table(name: &str, wd: &Path, cases: Vec<(Value, ToolResult)>) {
    let tool = find(&tools(ToolsetKind::Filesystem), name);
    for (args, want) in cases {
        let got = call(tool.as_ref(), args.clone(), wd).await;
        assert_eq!(got, want, "{name} {args}");
    }
}

#[tokio::test]
async fn read_file_reads_text_and_describes_the_rest() {
    let dir = fixture();
    let root = dir.path();
    let abs = root.join("a.txt").display().to_string();
    table(
        "read_file",
        root,
        vec![
            (json!({"path": "a.txt"}), ok("alpha\nbeta\n")),
            (
                json!({"path": "sub/deep/c.md"}),
                ok("# Title\nbeta gamma\n"),
            ),
            (json!({"path": abs}), ok("alpha\nbeta\n")),
            (json!({"path": "sub/../a.txt"}), ok("alpha\nbeta\n")),
            (json!({"path": "latin1.txt"}), ok("caf\u{fffd}\n")),
            (
                json!({"path": "img.png"}),
                ok("`img.png` is a PNG image (8 bytes); its content is not shown"),
            ),
            (
                json!({"path": "nope.txt"}),
                err("cannot read `nope.txt`: no such file or directory"),
            ),
            (
                json!({"path": "sub"}),
                err("`sub` is a directory; use list_directory or directory_tree"),
            ),
            (
                json!({"file": "a.txt"}),
                err("invalid arguments for `read_file`: missing field `path`"),
            ),
        ],
    )
    .await;
    // `..` climbs out of the working directory.
    table(
        "read_file",
        &root.join("sub"),
        vec![(json!({"path": "../a.txt"}), ok("alpha\nbeta\n"))],
    )
    .await;
}

#[tokio::test]
async fn read_multiple_files_reports_each_file_in_text_or_json() {
    let dir = fixture();
    table(
        "read_multiple_files",
        dir.path(),
        vec![
            (
                json!({"paths": ["a.txt", "missing.txt"], "json": null}),
                ok("=== a.txt ===\nalpha\nbeta\n\n\n=== missing.txt ===\nerror: cannot read `missing.txt`: no such file or directory\n\n"),
            ),
            (
                json!({"paths": ["sub/b.txt", "a.txt", "missing.txt"], "json": true}),
                ok(&json!({
                    "a.txt": "alpha\nbeta\n",
                    "missing.txt": {"error": "cannot read `missing.txt`: no such file or directory"},
                    "sub/b.txt": "beta in b\n",
                })
                .to_string()),
            ),
            (
                json!({"paths": ["x", "y"], "json": false}),
                err("=== x ===\nerror: cannot read `x`: no such file or directory\n\n=== y ===\nerror: cannot read `y`: no such file or directory\n\n"),
            ),
            (
                json!({"paths": null, "json": null}),
                err("invalid arguments for `read_multiple_files`: `paths` is empty"),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn write_file_creates_parents_and_overwrites() {
    let dir = fixture();
    let root = dir.path();
    table(
        "write_file",
        root,
        vec![
            (
                json!({"path": "new/nested/n.txt", "content": "hello\n"}),
                ok("File written successfully: new/nested/n.txt (6 bytes)"),
            ),
            (
                json!({"path": "a.txt", "content": "replaced"}),
                ok("File written successfully: a.txt (8 bytes)"),
            ),
            (
                json!({"path": "sub", "content": "x"}),
                err("cannot write `sub`: it is a directory"),
            ),
        ],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(root.join("new/nested/n.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "replaced"
    );
}

#[tokio::test]
async fn edit_file_applies_edits_in_order_or_writes_nothing() {
    let cases: Vec<(Value, ToolResult, &str)> = vec![
        (
            json!({"path": "f.txt", "edits": [
                {"oldText": "one", "newText": "uno"},
                {"oldText": "uno two", "newText": "uno dos"},
            ]}),
            ok("File edited successfully: f.txt (2 edits applied)"),
            "uno dos three\n",
        ),
        (
            // Some models send the array JSON-encoded.
            json!({"path": "f.txt", "edits": "[{\"oldText\":\"three\",\"newText\":\"3\"}]"}),
            ok("File edited successfully: f.txt (1 edit applied)"),
            "one two 3\n",
        ),
        (
            json!({"path": "f.txt", "edits": [
                {"oldText": "one", "newText": "1"},
                {"oldText": "four", "newText": "4"},
            ]}),
            err(
                "edit 2 of 2: `oldText` was not found in `f.txt` (after the edits before it); nothing was written",
            ),
            "one two three\n",
        ),
        (
            json!({"path": "f.txt", "edits": [{"oldText": "o", "newText": "0"}]}),
            err(
                "edit 1 of 1: `oldText` appears 2 times in `f.txt`; include more surrounding text so it matches once, or send one edit per occurrence; nothing was written",
            ),
            "one two three\n",
        ),
        (
            json!({"path": "f.txt", "edits": [{"oldText": "", "newText": "x"}]}),
            err("edit 1 of 1: `oldText` is empty; nothing was written"),
            "one two three\n",
        ),
        (
            json!({"path": "f.txt", "edits": null}),
            err("invalid arguments for `edit_file`: `edits` is empty"),
            "one two three\n",
        ),
        (
            json!({"path": "f.txt", "edits": [{"old": "one"}]}),
            err("invalid arguments for `edit_file`: `edits`: missing field `oldText`"),
            "one two three\n",
        ),
        (
            json!({"path": "gone.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
            err("cannot read `gone.txt`: no such file or directory"),
            "one two three\n",
        ),
    ];
    let tool = find(&tools(ToolsetKind::Filesystem), "edit_file");
    for (args, want, file_after) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), "one two three\n").unwrap();
        let got = call(tool.as_ref(), args.clone(), dir.path()).await;
        assert_eq!(got, want, "{args}");
        let after = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
        assert_eq!(after, file_after, "{args}");
    }
}

#[tokio::test]
async fn list_directory_lists_sorted_entries_with_their_kind() {
    let dir = fixture();
    std::os::unix::fs::symlink(dir.path().join("sub"), dir.path().join("link-to-sub")).unwrap();
    table(
        "list_directory",
        dir.path(),
        vec![
            (
                json!({"path": "."}),
                ok("FILE a.txt\nDIR  empty\nFILE img.png\nFILE latin1.txt\nDIR  link-to-sub\nDIR  sub\n"),
            ),
            (json!({"path": "sub"}), ok("FILE b.txt\nDIR  deep\n")),
            (json!({"path": "empty"}), ok("directory `empty` is empty\n")),
            (
                json!({"path": "nope"}),
                err("cannot list `nope`: no such file or directory"),
            ),
            (
                json!({"path": "a.txt"}),
                err("cannot list `a.txt`: not a directory"),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn directory_tree_is_nested_json_without_ignored_entries() {
    let dir = fixture();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::write(root.join(".gitignore"), "*.png\nbuild/\n").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.o"), "x").unwrap();
    std::fs::write(root.join(".env"), "A=1\n").unwrap();
    let tool = find(&tools(ToolsetKind::Filesystem), "directory_tree");

    let got = call(tool.as_ref(), json!({"path": "sub"}), root).await;
    assert!(!got.is_error, "{}", got.content);
    let tree: Value = serde_json::from_str(&got.content).unwrap();
    assert_eq!(
        tree,
        json!({"name": "sub", "type": "directory", "children": [
            {"name": "b.txt", "type": "file"},
            {"name": "deep", "type": "directory", "children": [
                {"name": "c.md", "type": "file"},
            ]},
        ]})
    );

    let got = call(tool.as_ref(), json!({"path": "."}), root).await;
    let tree: Value = serde_json::from_str(&got.content).unwrap();
    let name = root.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        tree,
        json!({"name": name, "type": "directory", "children": [
            {"name": ".env", "type": "file"},
            {"name": ".gitignore", "type": "file"},
            {"name": "a.txt", "type": "file"},
            {"name": "empty", "type": "directory", "children": []},
            {"name": "latin1.txt", "type": "file"},
            {"name": "sub", "type": "directory", "children": [
                {"name": "b.txt", "type": "file"},
                {"name": "deep", "type": "directory", "children": [
                    {"name": "c.md", "type": "file"},
                ]},
            ]},
        ]})
    );

    let got = call(tool.as_ref(), json!({"path": "sub", "max_depth": 1}), root).await;
    let tree: Value = serde_json::from_str(&got.content).unwrap();
    assert_eq!(
        tree,
        json!({"name": "sub", "type": "directory", "children": [
            {"name": "b.txt", "type": "file"},
            {"name": "deep", "type": "directory", "children": []},
        ]})
    );

    table(
        "directory_tree",
        root,
        vec![
            (json!({"path": "a.txt"}), err("`a.txt` is not a directory")),
            (
                json!({"path": "nope"}),
                err("cannot walk `nope`: no such file or directory"),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn search_files_content_finds_lines_and_honours_ignores_and_excludes() {
    let dir = fixture();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir_all(root.join("ignored")).unwrap();
    std::fs::write(root.join("ignored/x.txt"), "beta hidden by gitignore\n").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "beta in git\n").unwrap();
    std::fs::write(root.join("bin.dat"), b"beta\x00\x01").unwrap();
    let search = |path: &str, query: &str, regex: Option<bool>, exclude: Value| json!({"path": path, "query": query, "is_regex": regex, "excludePatterns": exclude});
    table(
        "search_files_content",
        root,
        vec![
            (
                search(".", "beta", None, Value::Null),
                ok("a.txt:2: beta\nsub/b.txt:1: beta in b\nsub/deep/c.md:2: beta gamma\n"),
            ),
            (
                search("sub", "beta", Some(false), json!(["*.md"])),
                ok("sub/b.txt:1: beta in b\n"),
            ),
            (
                search(".", "beta", None, json!(["sub/*"])),
                ok("a.txt:2: beta\n"),
            ),
            (
                search(".", "^(alpha|# T)", Some(true), json!([])),
                ok("a.txt:1: alpha\nsub/deep/c.md:1: # Title\n"),
            ),
            (
                search("sub/deep/c.md", "gamma", None, Value::Null),
                ok("sub/deep/c.md:2: beta gamma\n"),
            ),
            (search(".", "zeta", None, Value::Null), ok("No results found")),
            (
                search(".", "(", Some(true), Value::Null),
                err("invalid arguments for `search_files_content`: bad regex: regex parse error:\n    (\n    ^\nerror: unclosed group"),
            ),
            (
                search(".", "", None, Value::Null),
                err("invalid arguments for `search_files_content`: `query` is empty"),
            ),
            (
                search("nope", "x", None, Value::Null),
                err("cannot search `nope`: no such file or directory"),
            ),
        ],
    )
    .await;
    let abs = root.join("sub").display().to_string();
    table(
        "search_files_content",
        root,
        vec![(
            search(&abs, "gamma", None, Value::Null),
            ok(&format!("{abs}/deep/c.md:2: beta gamma\n")),
        )],
    )
    .await;
}

#[tokio::test]
async fn search_files_content_stops_at_its_match_cap() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..1500).map(|i| format!("hit {i}\n")).collect();
    std::fs::write(dir.path().join("many.txt"), lines).unwrap();
    let tool = find(&tools(ToolsetKind::Filesystem), "search_files_content");
    let got = call(
        tool.as_ref(),
        json!({"path": ".", "query": "hit", "is_regex": null, "excludePatterns": null}),
        dir.path(),
    )
    .await;
    let mut want: String = (0..1000)
        .map(|i| format!("many.txt:{}: hit {i}\n", i + 1))
        .collect();
    want.push_str("[search stopped after 1000 matches; narrow it with a more specific query, path or excludePatterns]\n");
    assert_eq!(got, ok(&want));
}

#[tokio::test]
async fn create_and_remove_directory_change_the_tree() {
    let dir = fixture();
    let root = dir.path();
    table(
        "create_directory",
        root,
        vec![
            (
                json!({"paths": ["x/y/z", "w"]}),
                ok("Directory created successfully: x/y/z\nDirectory created successfully: w"),
            ),
            (
                json!({"paths": ["a.txt/inner"]}),
                err("cannot create directory `a.txt/inner`: not a directory"),
            ),
            (
                json!({"paths": []}),
                err("invalid arguments for `create_directory`: `paths` is empty"),
            ),
        ],
    )
    .await;
    assert!(root.join("x/y/z").is_dir() && root.join("w").is_dir());
    table(
        "remove_directory",
        root,
        vec![
            (
                json!({"paths": ["x/y/z", "w"]}),
                ok("Directory removed successfully: x/y/z\nDirectory removed successfully: w"),
            ),
            (
                json!({"paths": ["sub"]}),
                err("cannot remove directory `sub`: the directory is not empty (remove_directory only removes empty directories)"),
            ),
            (
                json!({"paths": ["gone"]}),
                err("cannot remove directory `gone`: no such file or directory"),
            ),
        ],
    )
    .await;
    assert!(!root.join("x/y/z").exists() && !root.join("w").exists());
    assert!(root.join("x/y").is_dir() && root.join("sub/b.txt").is_file());
}

#[tokio::test]
async fn a_cancelled_call_does_nothing() {
    let dir = fixture();
    let tool = find(&tools(ToolsetKind::Filesystem), "write_file");
    let cancel = tokio_util::sync::CancellationToken::new();
    cancel.cancel();
    let got = common::call_with(
        tool.as_ref(),
        json!({"path": "c.txt", "content": "x"}),
        dir.path(),
        &cancel,
        &[],
    )
    .await;
    assert_eq!(got, err("cancelled"));
    assert!(!dir.path().join("c.txt").exists());
}

#[tokio::test]
async fn ignore_vcs_false_walks_ignored_files_and_git_too() {
    let dir = tempfile::TempDir::new().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "ignored.txt\n").unwrap();
    std::fs::write(dir.path().join("ignored.txt"), "needle\n").unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "needle\n").unwrap();
    let search = |ignore_vcs: bool| {
        let mut cfg = config(ToolsetKind::Filesystem);
        cfg.ignore_vcs = ignore_vcs;
        find(&build_toolset(&cfg, &sh()).tools, "search_files_content")
    };
    let args = serde_json::json!({"path": ".", "query": "needle"});
    let hidden = call(search(true).as_ref(), args.clone(), dir.path()).await;
    assert!(
        !hidden.content.contains("ignored.txt"),
        "{}",
        hidden.content
    );
    let all = call(search(false).as_ref(), args, dir.path()).await;
    assert!(all.content.contains("ignored.txt"), "{}", all.content);
    assert!(all.content.contains(".git/config"), "{}", all.content);
}

#[test]
fn a_real_path_is_read_and_rewritten_only_while_no_symlink_is_on_it() {
    let dir = tempfile::TempDir::new().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(base.join("ws/src")).unwrap();
    std::fs::create_dir_all(base.join("outside/src")).unwrap();
    std::fs::write(base.join("ws/src/a.py"), "x = 1\n").unwrap();
    std::fs::write(base.join("outside/src/a.py"), "secret\n").unwrap();
    let checked = base.join("ws/src/a.py");
    assert_eq!(tether_tools::read_real_path(&checked).unwrap(), "x = 1\n");
    tether_tools::write_real_path(&checked, b"y = 2\n").unwrap();
    assert_eq!(std::fs::read_to_string(&checked).unwrap(), "y = 2\n");

    // The workspace's directory swapped for a symlink after the path was checked.
    std::fs::rename(base.join("ws"), base.join("ws-old")).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), base.join("ws")).unwrap();
    assert!(tether_tools::read_real_path(&checked).is_err());
    let err = tether_tools::write_real_path(&checked, b"pwned\n").unwrap_err();
    assert!(err.to_string().contains("symlink"), "{err}");
    assert_eq!(
        std::fs::read_to_string(base.join("outside/src/a.py")).unwrap(),
        "secret\n"
    );
}
