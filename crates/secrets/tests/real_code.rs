//! Secrets planted in real source code (this workspace's own Rust sources and, where installed,
//! the Python standard library) are all found: the keyword pre-filter wakes on such text far
//! more often than on prose, and whatever makes it cheaper there must not skip a secret.

#[path = "support/cases.rs"]
#[expect(dead_code, reason = "shared corpus; this test uses only part of it")]
mod cases;

use std::path::{Path, PathBuf};

use tether_secrets::{find, redact};

fn sources(dir: &Path, ext: &str, out: &mut Vec<PathBuf>, cap: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if out.len() >= cap {
            return;
        }
        if p.is_dir() && !p.ends_with("target") && !p.ends_with("fixtures") {
            sources(&p, ext, out, cap);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn real_code() -> String {
    let mut files = Vec::new();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    sources(&workspace.join("crates"), "rs", &mut files, 400);
    sources(Path::new("/usr/lib/python3.11"), "py", &mut files, 800);
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect()
}

#[test]
fn every_secret_planted_in_real_code_is_found_and_redacted() {
    let code = real_code();
    assert!(
        code.len() > 1 << 20,
        "too little real code: {} bytes",
        code.len()
    );
    let planted: Vec<(String, Vec<String>)> = cases::cases()
        .into_iter()
        .filter(|c| c.input != c.expected)
        .map(|c| {
            let secrets = find(&c.input)
                .iter()
                .map(|f| c.input[f.start..f.end].to_owned())
                .collect();
            (c.input, secrets)
        })
        .collect();
    let lines: Vec<&str> = code.split_inclusive('\n').collect();
    let every = (lines.len() / planted.len()).max(1);
    let mut text = String::with_capacity(code.len() + planted.len() * 128);
    let mut next = planted.iter();
    for (i, line) in lines.iter().enumerate() {
        if i % every == every / 2
            && let Some((input, _)) = next.next()
        {
            text.push_str(input);
            text.push('\n');
        }
        text.push_str(line);
    }
    assert!(next.next().is_none(), "not every secret was planted");
    let redacted = redact(&text);
    let missed: Vec<&String> = planted
        .iter()
        .flat_map(|(_, secrets)| secrets)
        // The code itself may hold the same text (this crate's tests do): only more copies
        // than the code had mean a planted one survived.
        .filter(|s| redacted.matches(s.as_str()).count() > code.matches(s.as_str()).count())
        .collect();
    assert!(missed.is_empty(), "secrets left in real code: {missed:?}");
}
