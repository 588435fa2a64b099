//! Zero findings on ordinary text: the hand-written fixtures (code in several languages, config,
//! shell, JSON, prose, git output, hashes, base64 images, URLs) and every Rust file of the
//! workspace's crates, read at test time so new code is checked too.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use tether_secrets::find;

/// A finding in a file that should have none, shaped for a readable failure.
#[derive(Debug, PartialEq, Eq)]
struct FalsePositive {
    file: PathBuf,
    line: usize,
    rule_id: &'static str,
    text: String,
}

fn false_positives(files: &[PathBuf]) -> Vec<FalsePositive> {
    let mut found = Vec::new();
    for file in files {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        for finding in find(&text) {
            found.push(FalsePositive {
                file: file.clone(),
                line: text[..finding.start].matches('\n').count() + 1,
                rule_id: finding.rule_id,
                text: text[finding.start..finding.end].to_owned(),
            });
        }
    }
    found
}

fn crate_dir() -> PathBuf {
    // Canonical, so a symlinked checkout still finds its sibling crates.
    fs::canonicalize(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into())
}

fn walk(dir: &Path, skip: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.starts_with(skip) || path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            walk(&path, skip, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
}

#[test]
fn fixtures_of_ordinary_code_and_prose_contain_no_secrets() {
    let dir = crate_dir().join("tests/fixtures");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        names,
        [
            "cli.py",
            "data.txt",
            "deploy.yaml",
            "guide.md",
            "history.txt",
            "lexer.rs",
            "release.sh",
            "responses.json",
            "server.go",
        ]
    );
    assert_eq!(false_positives(&files), Vec::new());
}

#[test]
fn rust_sources_of_every_workspace_crate_contain_no_secrets() {
    let own = crate_dir();
    let crates = own
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| own.clone());
    let mut files = Vec::new();
    walk(&crates, &own.join("tests"), "rs", &mut files);
    files.sort();
    // The walk must really cover the workspace, including this crate's own rule table.
    assert!(
        files.contains(&own.join("src/rules.rs")),
        "walk missed src/rules.rs: {files:?}"
    );
    assert!(
        files.iter().any(|f| !f.starts_with(&own)),
        "walk found no other crate under {}",
        crates.display()
    );
    assert_eq!(false_positives(&files), Vec::new());
}
