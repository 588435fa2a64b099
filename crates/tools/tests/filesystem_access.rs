//! The filesystem tools with `allow_list` / `deny_list`, on real files: every path argument of
//! every tool is checked, refusals change nothing on disk, and walks and listings leave out
//! what the lists refuse.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// ```text
/// wd/src/d/k.txt                 "public\n"   (exchanged, again and again, with ↓)
/// base/aside -> wd/src/secret    a symlink into the denied directory
/// wd/src/secret/k.txt            "SECRET-MARKER\n"
/// wd/src/secret/secret-name.txt
/// ```
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<usize>>,
}

impl Swapper {
    /// Exchanges `wd/src/d` and `base/aside` atomically until stopped, so `src/d` is either
    /// the real directory or a symlink to `src/secret` at any instant.
    fn start(f: &Fixture) -> Self {
        let base = f.wd.parent().unwrap().to_path_buf();
        std::fs::create_dir_all(f.wd.join("src/d")).unwrap();
        std::fs::write(f.wd.join("src/d/k.txt"), "public\n").unwrap();
        std::fs::write(f.wd.join("src/secret/k.txt"), "SECRET-MARKER\n").unwrap();
        std::fs::write(f.wd.join("src/secret/secret-name.txt"), "SECRET-MARKER\n").unwrap();
        symlink(f.wd.join("src/secret"), base.join("aside")).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (d, aside, flag) = (f.wd.join("src/d"), base.join("aside"), stop.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut swaps = 0;
            while !flag.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &d,
                    rustix::fs::CWD,
                    &aside,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
                if swaps == 1 {
                    tx.send(()).unwrap();
                }
            }
            swaps
        });
        // The calls start once the swapping has.
        rx.recv().unwrap();
        Self {
            stop,
            thread: Some(thread),
        }
    }

    fn stop(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

/// The attack the lists must survive: a directory under an allowed root swapped for a symlink
/// into a denied one between the check and the open. Each tool runs `TRIES` times while
/// another thread keeps swapping; the denied content and names must never come back. Before
/// the tools opened checked paths without following symlinks, reads won this race.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swapping_a_directory_for_a_symlink_never_reaches_the_denied_one() {
    const TRIES: usize = 1000;
    let f = fixture();
    let tools = fenced(&["src"], &["src/secret"]);
    let swapper = Swapper::start(&f);
    let calls = [
        ("read_file", json!({"path": "src/d/k.txt"})),
        ("read_multiple_files", json!({"paths": ["src/d/k.txt"]})),
        ("list_directory", json!({"path": "src/d"})),
        ("directory_tree", json!({"path": "src"})),
        (
            "search_files_content",
            json!({"path": "src/d", "query": "MARKER"}),
        ),
        (
            "search_files_content",
            json!({"path": "src", "query": "MARKER"}),
        ),
    ];
    let mut leaks = Vec::new();
    for (name, args) in &calls {
        for _ in 0..TRIES {
            let got = run(&tools, name, args.clone(), &f.wd).await;
            if got.contains("SECRET") || got.contains("secret-name") {
                leaks.push(format!("{name}: {got}"));
            }
        }
    }
    let swaps = swapper.stop();
    assert!(swaps > 0);
    assert_eq!(leaks, Vec::<String>::new());
}

/// Lists that admit everything change nothing: the same calls, errors included, answer the
/// same with and without them, though with them every path is reached without following
/// symlinks (`src/out` and `src/flink` are symlinks the lists resolve before the check).
#[tokio::test]
async fn lists_that_admit_everything_answer_as_no_lists_do() {
    let calls = [
        ("read_file", json!({"path": "src/a.txt"})),
        ("read_file", json!({"path": "src/flink"})),
        ("read_file", json!({"path": "src/out/x.txt"})),
        ("read_file", json!({"path": "nope.txt"})),
        ("read_file", json!({"path": "src"})),
        (
            "read_multiple_files",
            json!({"paths": ["src/a.txt", "nope"]}),
        ),
        ("write_file", json!({"path": "src", "content": "x"})),
        ("write_file", json!({"path": "top.txt/x", "content": "x"})),
        (
            "write_file",
            json!({"path": "new/deep/w.txt", "content": "w"}),
        ),
        (
            "write_file",
            json!({"path": "src/out/w.txt", "content": "w"}),
        ),
        ("read_file", json!({"path": "new/deep/w.txt"})),
        (
            "edit_file",
            json!({"path": "src/a.txt", "edits": [{"oldText": "needle", "newText": "pin"}]}),
        ),
        (
            "edit_file",
            json!({"path": "nope", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
        ("read_file", json!({"path": "src/a.txt"})),
        ("list_directory", json!({"path": "src"})),
        ("list_directory", json!({"path": "src/out"})),
        ("list_directory", json!({"path": "top.txt"})),
        ("list_directory", json!({"path": "nope"})),
        ("directory_tree", json!({"path": "."})),
        ("directory_tree", json!({"path": "top.txt"})),
        ("directory_tree", json!({"path": "nope"})),
        (
            "search_files_content",
            json!({"path": ".", "query": "needle"}),
        ),
        (
            "search_files_content",
            json!({"path": "src/out", "query": "needle"}),
        ),
        (
            "search_files_content",
            json!({"path": "nope", "query": "needle"}),
        ),
        (
            "create_directory",
            json!({"paths": ["src/made/deeper", "src"]}),
        ),
        ("create_directory", json!({"paths": ["top.txt"]})),
        ("create_directory", json!({"paths": ["top.txt/inner"]})),
        ("create_directory", json!({"paths": ["src/out/made"]})),
        (
            "remove_directory",
            json!({"paths": ["src/made/deeper", "src/made"]}),
        ),
        ("remove_directory", json!({"paths": ["src"]})),
        ("remove_directory", json!({"paths": ["gone"]})),
        ("remove_directory", json!({"paths": ["src/out"]})),
        ("remove_directory", json!({"paths": ["src/out/made"]})),
    ];
    let mut answers = Vec::new();
    for lists in [false, true] {
        let f = fixture();
        symlink(f.wd.join("top.txt"), f.wd.join("src/flink")).unwrap();
        let base = f.wd.parent().unwrap().display().to_string();
        let tools = if lists {
            fenced(&[&base], &[])
        } else {
            build_toolset(&config(ToolsetKind::Filesystem), &sh()).tools
        };
        let mut got = Vec::new();
        for (name, args) in &calls {
            got.push(format!(
                "{name} {args}: {}",
                run(&tools, name, args.clone(), &f.wd).await
            ));
        }
        answers.push(got);
    }
    assert_eq!(answers[1], answers[0]);
}
