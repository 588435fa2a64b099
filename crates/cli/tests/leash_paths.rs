//! A hostile model against path rules: a deny rule on a path holds however the model spells
//! the path (`..`, `//`, `.`, relative, `~`, through a symlink, inside an array), because the
//! tool opens what the OS resolves, not what the model wrote. Each case is a real
//! `tether run --exec --yolo` on the script model; the same calls without the rule write the
//! files, so each payload is real and the test can fail.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::{self, tether};
use tether_test_support::script_run::{script, tool_responses};

const DENIED: &str = "is denied by permissions configuration";

/// `protected/secret.txt`, an `open/` directory and `link` → `protected`.
fn tree(d: &Path) {
    std::fs::create_dir(d.join("protected")).unwrap();
    std::fs::write(d.join("protected/secret.txt"), "the secret").unwrap();
    std::fs::create_dir(d.join("open")).unwrap();
    std::os::unix::fs::symlink(d.join("protected"), d.join("link")).unwrap();
}

/// Runs the filesystem toolset under `--yolo` with `deny` as the only rules, `HOME` = `d`.
fn run(d: &Path, deny: &[String], calls: &[(&str, Value)]) -> Vec<(String, bool)> {
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "permissions:\n  deny: {}\nagents:\n  root:\n    model: script/s.yaml\n    toolsets: [{{type: filesystem}}]\n",
            json!(deny)
        ),
    )
    .unwrap();
    std::fs::write(d.join("s.yaml"), script(calls)).unwrap();
    let out = cli::succeeds(tether(d).env("HOME", d).args([
        "run",
        "agent.yaml",
        "--json",
        "--exec",
        "--yolo",
        "go",
    ]));
    tool_responses(&out.stdout)
}

/// Every spelling of a path inside `protected/` the model might try.
fn spellings(d: &Path) -> Vec<String> {
    let d = d.display();
    vec![
        format!("{d}/open/../protected/a"),
        "protected/b".to_owned(),
        "./protected/c".to_owned(),
        format!("{d}//protected/d"),
        format!("{d}/./protected/e"),
        "link/f".to_owned(),
        "open/../protected/g".to_owned(),
        "~/protected/h".to_owned(),
        format!("{d}/link/../protected/i"),
    ]
}

fn protected_files(d: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(d.join("protected"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn without_a_rule_every_spelling_writes_into_the_directory() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    tree(&d);
    let calls: Vec<(&str, Value)> = spellings(&d)
        .into_iter()
        .map(|p| ("write_file", json!({"path": p, "content": "x"})))
        .collect();
    let responses = run(&d, &[], &calls);
    assert!(responses.iter().all(|(_, e)| !e), "{responses:?}");
    assert_eq!(protected_files(&d).len(), 1 + calls.len(), "{responses:?}");
}

#[test]
fn a_deny_rule_on_a_path_holds_for_every_spelling_of_it() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    tree(&d);
    let mut calls: Vec<(&str, Value)> = spellings(&d)
        .into_iter()
        .map(|p| ("write_file", json!({"path": p, "content": "x"})))
        .collect();
    calls.push((
        "read_multiple_files",
        json!({"paths": ["open/../protected/secret.txt"]}),
    ));
    calls.push(("write_file", json!({"path": "open/ok", "content": "x"})));
    let deny = vec![
        format!("write_file:path={}/protected/*", d.display()),
        format!("read_multiple_files:paths={}/protected/*", d.display()),
    ];
    let responses = run(&d, &deny, &calls);
    assert_eq!(protected_files(&d), ["secret.txt"], "{responses:?}");
    assert_eq!(responses.len(), calls.len(), "{responses:?}");
    for (i, (text, is_error)) in responses[..calls.len() - 1].iter().enumerate() {
        assert!(*is_error && text.contains(DENIED), "{:?}: {text}", calls[i]);
        assert!(!text.contains("the secret"), "{text}");
    }
    assert!(d.join("open/ok").exists(), "{responses:?}");
}

#[test]
fn a_rule_written_with_a_tilde_or_relative_path_holds_for_the_absolute_path() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    tree(&d);
    let calls = [
        (
            "write_file",
            json!({"path": format!("{}/protected/a", d.display()), "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": format!("{}/open/b.env", d.display()), "content": "x"}),
        ),
        ("write_file", json!({"path": "open/c", "content": "x"})),
    ];
    let deny = vec![
        "write_file:path=~/protected/*".to_owned(),
        "write_file:path=open/b.env".to_owned(),
    ];
    let responses = run(&d, &deny, &calls);
    assert_eq!(protected_files(&d), ["secret.txt"], "{responses:?}");
    assert!(!d.join("open/b.env").exists(), "{responses:?}");
    assert!(responses[0].0.contains(DENIED), "{responses:?}");
    assert!(responses[1].0.contains(DENIED), "{responses:?}");
    assert!(d.join("open/c").exists(), "{responses:?}");
}

/// `src/evil` → `../outside/target` (outside the working directory), `src/ok` a plain file;
/// the model writes both under `allow: write_file:path=src/*` without `--yolo` (an empty
/// stdin answers any question with no).
fn allow_through_a_symlink(d: &Path, extra: &[&str]) -> Vec<(String, bool)> {
    std::fs::create_dir_all(d.join("w/src")).unwrap();
    std::fs::create_dir_all(d.join("outside")).unwrap();
    std::fs::write(d.join("outside/target"), "kept").unwrap();
    std::os::unix::fs::symlink("../../outside/target", d.join("w/src/evil")).unwrap();
    let w = d.join("w");
    std::fs::write(
        w.join("agent.yaml"),
        "permissions:\n  allow: ['write_file:path=src/*']\nagents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: filesystem}]\n",
    )
    .unwrap();
    let calls = [
        (
            "write_file",
            json!({"path": "src/evil", "content": "owned"}),
        ),
        ("write_file", json!({"path": "src/ok", "content": "x"})),
    ];
    std::fs::write(w.join("s.yaml"), script(&calls)).unwrap();
    let out = cli::succeeds(
        tether(&w)
            .args(["run", "agent.yaml", "--json", "--exec", "go"])
            .args(extra),
    );
    tool_responses(&out.stdout)
}

#[test]
fn an_allow_rule_on_a_path_never_allows_a_symlink_out_of_it() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let responses = allow_through_a_symlink(&d, &[]);
    assert_eq!(
        std::fs::read_to_string(d.join("outside/target")).unwrap(),
        "kept",
        "{responses:?}"
    );
    assert!(responses[0].1, "{responses:?}");
    assert!(d.join("w/src/ok").exists(), "{responses:?}");
    // The same write, once the user says yes, goes through the link: the payload is real.
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    let responses = allow_through_a_symlink(&d, &["--yolo"]);
    assert_eq!(
        std::fs::read_to_string(d.join("outside/target")).unwrap(),
        "owned",
        "{responses:?}"
    );
}

#[test]
fn a_rule_for_one_file_tool_holds_for_the_tools_that_reach_the_same_file() {
    let calls = |d: &Path| {
        let secret = format!("{}/protected/secret.txt", d.display());
        vec![
            (
                "read_multiple_files",
                json!({"paths": ["open/../protected/secret.txt"]}),
            ),
            (
                "search_files_content",
                json!({"path": ".", "query": "the secret", "excludePatterns": ["*.yaml"], "is_regex": false}),
            ),
            (
                "edit_file",
                json!({"path": secret, "edits": [{"oldText": "the secret", "newText": "edited"}]}),
            ),
        ]
    };
    // Without rules every call reaches the file.
    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    tree(&d);
    std::fs::write(d.join("protected/secret.txt"), "the secret").unwrap();
    let responses = run(&d, &[], &calls(&d));
    assert!(responses[0].0.contains("the secret"), "{responses:?}");
    assert!(responses[1].0.contains("secret.txt"), "{responses:?}");
    assert_eq!(
        std::fs::read_to_string(d.join("protected/secret.txt")).unwrap(),
        "edited"
    );

    let dir = TempDir::new().unwrap();
    let d = dir.path().canonicalize().unwrap();
    tree(&d);
    let deny = vec![
        format!("write_file:path={}/protected/*", d.display()),
        format!("read_file:path={}/protected/*", d.display()),
    ];
    let responses = run(&d, &deny, &calls(&d));
    assert_eq!(
        std::fs::read_to_string(d.join("protected/secret.txt")).unwrap(),
        "the secret"
    );
    for (text, is_error) in &responses {
        assert!(*is_error && text.contains(DENIED), "{responses:?}");
    }
}
