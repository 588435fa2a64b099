//! Issue 22: a hostile model against the filesystem toolset's `allow_list` / `deny_list`,
//! through `tether run --exec` on the script model. The model reads through a symlink planted
//! into a denied directory, and, while the test keeps swapping a directory under the
//! allowed root for such a symlink, reads, lists, walks and searches it again and again: the
//! denied directory's content and names must never reach the output or the session.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

const MARKER: &str = "SECRET-MARKER-7f3a";
const SECRET_NAME: &str = "secret-name-7f3a.txt";
const TRIES: usize = 150;

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path);
            } else if meta.is_file()
                && String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains(needle)
            {
                found.push(path);
            }
        }
    }
    found
}

/// `src/d` is, at every instant but the renames' own, either the real directory or a
/// symlink to the denied `secret`, until `stop` is set.
fn swap_until(base: &Path, stop: &Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    let (d, real, link) = (
        base.join("src/d"),
        base.join("parked-dir"),
        base.join("parked-link"),
    );
    let stop = stop.clone();
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            std::fs::rename(&d, &real).unwrap();
            std::fs::rename(&link, &d).unwrap();
            std::fs::rename(&d, &link).unwrap();
            std::fs::rename(&real, &d).unwrap();
            swaps += 1;
        }
        swaps
    })
}

#[test]
fn a_symlink_swapped_in_never_reveals_a_denied_directory() {
    let dir = TempDir::new().unwrap();
    let base = &std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(base.join("src/d")).unwrap();
    std::fs::create_dir_all(base.join("secret")).unwrap();
    write(&base.join("src/d/k.txt"), "public\n");
    write(&base.join("secret/k.txt"), &format!("{MARKER}\n"));
    write(
        &base.join("secret").join(SECRET_NAME),
        &format!("{MARKER}\n"),
    );
    // Planted before the run: a link inside the allowed root into the denied directory. The
    // model's arguments never hold the marker or the secret file's name, so any sight of them
    // is a leak.
    std::os::unix::fs::symlink(base.join("secret"), base.join("src/planted")).unwrap();
    // Parked outside the allowed root, swapped in for `src/d` during the run.
    std::os::unix::fs::symlink(base.join("secret"), base.join("parked-link")).unwrap();
    write(
        &base.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n      - type: filesystem\n        allow_list: [src]\n        deny_list: [secret]\n",
    );
    let mut calls = vec![
        "{name: read_file, arguments: {path: src/planted/k.txt}}".to_owned(),
        "{name: list_directory, arguments: {path: src/planted}}".to_owned(),
        "{name: list_directory, arguments: {path: src}}".to_owned(),
    ];
    for _ in 0..TRIES {
        calls.extend([
            "{name: read_file, arguments: {path: src/d/k.txt}}".to_owned(),
            "{name: read_multiple_files, arguments: {paths: [src/d/k.txt, src/planted/k.txt]}}"
                .to_owned(),
            "{name: list_directory, arguments: {path: src/d}}".to_owned(),
            "{name: directory_tree, arguments: {path: src}}".to_owned(),
            // Matches the marker's line without holding the whole marker itself.
            "{name: search_files_content, arguments: {path: src, query: MARKER-7f}}".to_owned(),
        ]);
    }
    let script = format!(
        "replies:\n  - tool_calls:\n{}  - text: done\n",
        calls
            .iter()
            .map(|c| format!("      - {c}\n"))
            .collect::<String>()
    );
    write(&base.join("s.yaml"), &script);

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = swap_until(base, &stop);
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(base)
        .env("TETHER_HOME", base.join(".tether"))
        .env("XDG_CONFIG_HOME", base.join(".config"))
        .args(["run", "agent.yaml", "--json", "--yolo", "--exec", "go"])
        .output()
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 0);

    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Every call ran (so each had its chance), and the planted link was refused outright.
    let responses: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect();
    assert_eq!(responses.len(), calls.len(), "{stdout}");
    assert_eq!(
        responses[0]["response"],
        "`src/planted/k.txt` is inside a denied directory (`deny_list`: `secret`)"
    );
    assert_eq!(
        responses[1]["response"],
        "`src/planted` is inside a denied directory (`deny_list`: `secret`)"
    );
    for needle in [MARKER, SECRET_NAME] {
        assert!(!stdout.contains(needle), "{needle} in stdout:\n{stdout}");
        assert!(!stderr.contains(needle), "{needle} in stderr:\n{stderr}");
        assert_eq!(
            files_holding(&base.join(".tether"), needle),
            Vec::<PathBuf>::new()
        );
    }
    // Nothing moved into or out of the denied directory.
    let mut names: Vec<String> = std::fs::read_dir(base.join("secret"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["k.txt", SECRET_NAME]);
}
