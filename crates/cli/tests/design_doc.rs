//! docs/design.md's claims that a test can check: the crate table against the Cargo manifests,
//! the number of events, the "where to find things" paths, the file-size rule and its listed
//! exceptions, and every reference to it from a code comment.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Non-test lines a source file may have (docs/design.md, Where to find things).
const MAX_LINES: usize = 650;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn design() -> String {
    std::fs::read_to_string(root().join("docs/design.md")).unwrap()
}

/// The rows of the markdown table whose header row starts with `| {first} |`.
fn table(doc: &str, first: &str) -> Vec<Vec<String>> {
    let header = format!("| {first} |");
    let mut lines = doc.lines().skip_while(|l| !l.starts_with(&header)).skip(2);
    let mut rows = Vec::new();
    for line in lines.by_ref() {
        if !line.starts_with('|') {
            break;
        }
        let cells = line
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_owned())
            .collect();
        rows.push(cells);
    }
    assert!(
        !rows.is_empty(),
        "no table headed `{header}` in docs/design.md"
    );
    rows
}

/// `` `a`, `b` `` → {a, b}.
fn ticked(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Every workspace crate's name and the `tether-*` crates among its `[dependencies]`.
fn manifests() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let path = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|n| n.strip_suffix('"'))
            .unwrap()
            .to_owned();
        let mut deps = BTreeSet::new();
        let mut section = "";
        for line in text.lines() {
            if line.starts_with('[') {
                section = line.trim();
            } else if section == "[dependencies]"
                && let Some(dep) = line.split(['.', ' ', '=']).next()
                && dep.starts_with("tether-")
            {
                deps.insert(dep.to_owned());
            }
        }
        out.insert(name, deps);
    }
    out
}

#[test]
fn the_crate_table_is_the_manifests() {
    let mut documented = BTreeMap::new();
    for row in table(&design(), "crate") {
        let uses = ticked(&row[1]);
        for name in ticked(&row[0]) {
            documented.insert(name, uses.clone());
        }
    }
    assert_eq!(documented, manifests());
}

#[test]
fn the_event_count_is_the_event_tables() {
    let n = tether_protocol::HookEvent::ALL.len();
    assert!(
        design().contains(&format!("Tether has {n} events")),
        "docs/design.md does not say `Tether has {n} events`"
    );
}

#[test]
fn every_place_to_look_exists() {
    for row in table(&design(), "to change") {
        for path in ticked(&row[1]) {
            assert!(root().join(&path).exists(), "{path} (for: {})", row[0]);
        }
    }
}

/// Lines of a source file before its `#[cfg(test)]` module.
fn code_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .count()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Shipped source files: each crate's `src/`, without test modules kept in files of their own.
fn shipped() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            sources(&src, &mut files);
        }
    }
    files.retain(|f| {
        let name = f.file_name().unwrap().to_string_lossy();
        name != "tests.rs" && !name.ends_with("_tests.rs")
    });
    files
}

#[test]
fn long_files_are_only_the_listed_tables() {
    let exceptions: BTreeSet<String> = table(&design(), "file")
        .iter()
        .flat_map(|row| ticked(&row[0]))
        .collect();
    let mut long = BTreeSet::new();
    for file in shipped() {
        let text = std::fs::read_to_string(&file).unwrap();
        if code_lines(&text) > MAX_LINES {
            let rel = file.strip_prefix(root()).unwrap_or(&file);
            long.insert(rel.to_string_lossy().replace("crates/cli/../../", ""));
        }
    }
    let long: BTreeSet<String> = long
        .into_iter()
        .map(|p| p.trim_start_matches("./").to_owned())
        .collect();
    let unlisted: Vec<&String> = long.difference(&exceptions).collect();
    assert!(
        unlisted.is_empty(),
        "over {MAX_LINES} lines and not listed: {unlisted:?}"
    );
    let stale: Vec<&String> = exceptions.difference(&long).collect();
    assert!(stale.is_empty(), "listed but no longer long: {stale:?}");
}

/// The headings and bold terms of the design doc, lower-cased, without backticks or a last
/// `.`.
fn sections(doc: &str) -> BTreeSet<String> {
    let norm = |s: &str| {
        s.replace('`', "")
            .trim()
            .trim_end_matches('.')
            .to_lowercase()
    };
    let mut out: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| norm(l.trim_start_matches('#')))
        .collect();
    out.extend(doc.split("**").skip(1).step_by(2).map(norm));
    out
}

/// The references a comment line makes to docs/design.md: `D` numbers and section names.
fn references(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in line.match_indices("design.md") {
        let rest = &line[i + "design.md".len()..];
        let rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        let rest = rest.strip_prefix("Decisions ").unwrap_or(rest).trim_start();
        if let Some(quoted) = rest.strip_prefix('"') {
            out.push(format!("\"{}", quoted.split('"').next().unwrap_or("")));
            continue;
        }
        let mut words = rest;
        while let Some(d) = words
            .strip_prefix('D')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            let end = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
            out.push(format!("D{}", &d[..end]));
            words = d[end..].trim_start_matches(['–', '-', ',', ' ', 'D']);
            if let Some(q) = words.strip_prefix('"') {
                out.push(format!("\"{}", q.split('"').next().unwrap_or("")));
                break;
            }
        }
        // A section name follows a comma: `design.md, Budgets)`.
        if line[i..].starts_with("design.md,") && !rest.starts_with('D') {
            let name = rest.split([')', ';', ':', ',']).next().unwrap_or("").trim();
            if !name.is_empty() {
                out.push(name.to_owned());
            }
        }
    }
    out
}

#[test]
fn every_comment_reference_resolves() {
    let doc = design();
    let known = sections(&doc);
    // `D` numbers are defined by bold terms: `**D1 session_start.**`, `**D7, D8 …**`.
    let numbers: BTreeSet<String> = doc
        .split("**")
        .skip(1)
        .step_by(2)
        .flat_map(|term| {
            term.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| {
                    w.len() > 1 && w.starts_with('D') && w[1..].chars().all(|c| c.is_ascii_digit())
                })
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let lower = doc.to_lowercase();
    let mut files = shipped();
    for dir in [
        "crates/cli/tests",
        "crates/core/tests",
        "crates/hooks/tests",
    ] {
        sources(&root().join(dir), &mut files);
    }
    let mut bad = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let Some(comment) = line.trim_start().strip_prefix("//") else {
                continue;
            };
            let place = format!("{}:{}", file.display(), n + 1);
            if comment.contains("CLI.md") {
                bad.push(format!("{place}: CLI.md (the file is docs/cli.md)"));
            }
            if comment.contains("(X") && comment.contains(|c: char| c.is_ascii_digit()) {
                let x = comment.split("(X").nth(1).unwrap_or("");
                if x.starts_with(|c: char| c.is_ascii_digit()) {
                    bad.push(format!(
                        "{place}: X-number (docs/design.md numbers are D1–D17)"
                    ));
                }
            }
            for r in references(comment) {
                let ok = if let Some(q) = r.strip_prefix('"') {
                    lower.contains(&q.to_lowercase())
                } else if r.starts_with('D') && r[1..].chars().all(|c| c.is_ascii_digit()) {
                    numbers.contains(&r)
                } else {
                    known.contains(&r.replace('`', "").to_lowercase())
                };
                if !ok {
                    bad.push(format!("{place}: `{r}` is no section of docs/design.md"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
