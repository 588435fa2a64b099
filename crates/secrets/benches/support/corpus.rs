//! The benchmark corpus, shared by the `redact` bench and the `corpus` example (which writes it
//! out for the end-to-end benchmark in `scripts/bench.sh`).
//!
//! The real text is source code found on the machine (the Python standard library); the ordinary
//! text, its fallback, is the false-positive fixtures (code, config, shell, JSON, prose, git
//! output, hashes, base64) repeated, so it is dense in words like `token` and `password` that
//! wake the key-name rules: a realistic worst case for the keyword pre-filter.

#[path = "../../tests/support/cases.rs"]
#[expect(dead_code, reason = "shared corpus; the bench uses only part of it")]
mod cases;

use tether_secrets::find;

const FIXTURES: &[&str] = &[
    include_str!("../../tests/fixtures/lexer.rs"),
    include_str!("../../tests/fixtures/server.go"),
    include_str!("../../tests/fixtures/cli.py"),
    include_str!("../../tests/fixtures/deploy.yaml"),
    include_str!("../../tests/fixtures/release.sh"),
    include_str!("../../tests/fixtures/responses.json"),
    include_str!("../../tests/fixtures/guide.md"),
    include_str!("../../tests/fixtures/history.txt"),
    include_str!("../../tests/fixtures/data.txt"),
];

/// Ordinary text cut to exactly `len` bytes (on a `char` boundary).
pub(crate) fn ordinary(len: usize) -> String {
    let mut text = String::with_capacity(len + 64 * 1024);
    while text.len() < len {
        for fixture in FIXTURES {
            text.push_str(fixture);
        }
    }
    let cut = text.floor_char_boundary(len);
    text.truncate(cut);
    text
}

/// Real source code: the UTF-8 `.py`, `.rs`, `.go`, `.js`, `.c` and `.h` files under `dir`
/// (walked in name order, so the corpus is the same every run), concatenated and repeated up to
/// `len` bytes. `None` when `dir` holds none.
pub(crate) fn real(dir: &std::path::Path, len: usize) -> Option<String> {
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_symlink() {
                continue;
            }
            if p.is_dir() {
                walk(&p, files);
            } else if p
                .extension()
                .is_some_and(|e| ["py", "rs", "go", "js", "c", "h"].iter().any(|x| e == *x))
            {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    let mut text = String::with_capacity(len + 64 * 1024);
    let mut any = false;
    while text.len() < len {
        for f in &files {
            if let Ok(s) = std::fs::read_to_string(f) {
                any = true;
                text.push_str(&s);
                if text.len() >= len {
                    break;
                }
            }
        }
        if !any {
            return None;
        }
    }
    let cut = text.floor_char_boundary(len);
    text.truncate(cut);
    Some(text)
}

/// `base` with corpus secrets spliced in at line starts until secret bytes reach 1% of `len`,
/// cut to `len` bytes.
pub(crate) fn splice_secrets(base: String, len: usize) -> String {
    let positives: Vec<String> = cases::cases()
        .into_iter()
        .filter(|c| c.input != c.expected)
        .map(|c| c.input)
        .collect();
    let target = len / 100;
    let mut secret_bytes = 0;
    let mut inserts = Vec::new();
    for input in positives.iter().cycle() {
        if secret_bytes >= target {
            break;
        }
        secret_bytes += find(input).iter().map(|f| f.end - f.start).sum::<usize>();
        inserts.push(input.as_str());
    }
    let lines: Vec<&str> = base.split_inclusive('\n').collect();
    let every = (lines.len() / inserts.len().max(1)).max(1);
    let mut out = String::with_capacity(len + secret_bytes * 2);
    let mut next = inserts.iter();
    for (i, line) in lines.iter().enumerate() {
        if i % every == 0
            && let Some(secret) = next.next()
        {
            out.push_str(secret);
            out.push('\n');
        }
        out.push_str(line);
    }
    let cut = out.floor_char_boundary(len);
    out.truncate(cut);
    out
}
