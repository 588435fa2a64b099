//! `search_files_content`: a small grep over a `.gitignore`-aware walk.
//!
//! The walk is the `ignore` crate's (ripgrep's): `.gitignore`, `.ignore` and
//! `.git/info/exclude` are honoured even outside a git repository, the user's global excludes
//! are not (so results do not depend on the machine), hidden files are searched, `.git` never
//! is. Output is `path:line: text`, one line per matching line, capped so one broad query
//! cannot flood the context.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobBuilder, GlobMatcher};
use ignore::{DirEntry, WalkBuilder};
use regex::Regex;
use serde::Deserialize;

use super::Call;
use super::access::Roots;
use super::files::decode_text;
use crate::ToolError;
use crate::args::parse;

/// Files larger than this are not searched.
pub(super) const MAX_SEARCH_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// The search stops after this many matching lines...
pub(super) const MAX_MATCHES: usize = 1_000;
/// ...or this much output.
pub(super) const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// Longer lines are shown as a window around the match.
const MAX_LINE_CHARS: usize = 200;
const CONTEXT_CHARS: usize = 60;

#[derive(Debug, Deserialize)]
struct SearchArgs {
    path: String,
    query: String,
    is_regex: Option<bool>,
    #[serde(rename = "excludePatterns")]
    exclude_patterns: Option<Vec<String>>,
}

/// The walk every recursive filesystem tool uses (sorted, so output is deterministic).
/// `ignore_vcs: false` (the toolset's option) walks everything, `.git` and ignored files too.
/// Below the root, only entries `keep` accepts are yielded, and only such directories entered.
pub(super) fn walker(
    root: &Path,
    ignore_vcs: bool,
    keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(Ord::cmp)
        .filter_entry(move |e| {
            e.depth() == 0 || ((!ignore_vcs || e.file_name() != ".git") && keep(e))
        });
    if !ignore_vcs {
        builder.git_ignore(false).git_exclude(false).ignore(false);
    }
    builder
}

/// A walk's `keep` for the toolset's `allow_list` / `deny_list`: entries outside them are not
/// shown, and denied directories not entered (the walk's root is a real path, see `access`).
pub(super) fn admitted(roots: Option<Arc<Roots>>) -> impl Fn(&DirEntry) -> bool + Send + Sync {
    move |e| {
        roots
            .as_ref()
            .is_none_or(|r| r.admit_found(e.path(), e.path_is_symlink()).is_some())
    }
}

/// docker-agent's exclude rules: a pattern excludes an entry when it matches its path
/// relative to the search root or its base name (`*` does not cross `/`), and `dir/*`
/// excludes `dir` itself. An excluded directory is not descended into.
#[derive(Debug)]
struct Excludes(Vec<(GlobMatcher, Option<String>)>);

impl Excludes {
    fn new(tool: &str, patterns: &[String]) -> Result<Self, ToolError> {
        let mut out = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map(|g: Glob| g.compile_matcher())
                .map_err(|e| ToolError::invalid(tool, format!("bad exclude pattern: {e}")))?;
            let dir = pattern.strip_suffix("/*").map(str::to_owned);
            out.push((glob, dir));
        }
        Ok(Self(out))
    }

    fn excludes(&self, rel: &str) -> bool {
        let base = rel.rsplit('/').next().unwrap_or(rel);
        self.0.iter().any(|(glob, dir)| {
            dir.as_deref().is_some_and(|d| rel == d) || glob.is_match(rel) || glob.is_match(base)
        })
    }
}

/// How matches are found on one line: the byte range of the first match.
#[derive(Debug)]
enum Matcher {
    Literal(String),
    Regex(Regex),
}

impl Matcher {
    fn find(&self, line: &str) -> Option<(usize, usize)> {
        match self {
            Self::Literal(q) => line.find(q.as_str()).map(|i| (i, i + q.len())),
            Self::Regex(r) => r.find(line).map(|m| (m.start(), m.end())),
        }
    }
}

pub(super) fn search_files_content(call: &Call) -> Result<String, ToolError> {
    let args: SearchArgs = parse(&call.tool, &call.args)?;
    let tool = call.tool.as_str();
    if args.query.is_empty() {
        return Err(ToolError::invalid(tool, "`query` is empty"));
    }
    let matcher = if args.is_regex.unwrap_or(false) {
        let regex = Regex::new(&args.query)
            .map_err(|e| ToolError::invalid(tool, format!("bad regex: {e}")))?;
        Matcher::Regex(regex)
    } else {
        Matcher::Literal(args.query.clone())
    };
    let excludes = Excludes::new(tool, &args.exclude_patterns.unwrap_or_default())?;
    let path = args.path.as_str();
    let root = call.path(path)?;
    call.fs()
        .metadata(&root)
        .map_err(|e| ToolError::io("search", path, &e))?;
    // Results name files the way the model named the root, so it can pass them back as is.
    let shown_root = match path {
        "" | "." | "./" => PathBuf::new(),
        p => PathBuf::from(p),
    };

    let filter_root = root.clone();
    let admitted = admitted(call.roots.clone());
    let builder = walker(&root, call.ignore_vcs, move |e| {
        let rel = e.path().strip_prefix(&filter_root).unwrap_or(e.path());
        !excludes.excludes(&rel.to_string_lossy()) && admitted(e)
    });
    let mut out = String::new();
    let mut matches = 0usize;
    'walk: for entry in builder.build() {
        if call.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let Ok(entry) = entry else { continue };
        let Some(text) = searchable_text(call, &entry) else {
            continue;
        };
        let rel = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        let shown = if rel.as_os_str().is_empty() {
            PathBuf::from(path)
        } else {
            shown_root.join(rel)
        };
        for (i, line) in text.lines().enumerate() {
            let Some((start, end)) = matcher.find(line) else {
                continue;
            };
            out.push_str(&format!(
                "{}:{}: {}\n",
                shown.display(),
                i + 1,
                preview(line, start, end)
            ));
            matches += 1;
            if matches >= MAX_MATCHES || out.len() >= MAX_OUTPUT_BYTES {
                out.push_str(&format!(
                    "[search stopped after {matches} matches; narrow it with a more specific query, path or excludePatterns]\n"
                ));
                break 'walk;
            }
        }
    }
    if matches == 0 {
        return Ok("No results found".to_owned());
    }
    Ok(out)
}

/// The entry's text, or `None` for directories, special files, huge or binary files.
fn searchable_text(call: &Call, entry: &DirEntry) -> Option<String> {
    // Follows symlinks, like a read would: with lists, to where the link leads now, checked
    // again, since the walk's check is already in the past.
    let target = match &call.roots {
        Some(roots) if entry.path_is_symlink() => {
            Cow::Owned(roots.admit_found(entry.path(), true)?)
        }
        _ => Cow::Borrowed(entry.path()),
    };
    let fs = call.fs();
    // Looked at before it is opened, so a device or a FIFO is never opened.
    let meta = fs.metadata(&target).ok()?;
    if !meta.is_file() || meta.len() > MAX_SEARCH_FILE_BYTES {
        return None;
    }
    let mut file = fs.read(&target).ok()?;
    // With lists, each file is read without following symlinks, so what a swapped
    // directory fed the walk cannot be read.
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    decode_text(bytes)
}

/// The line, or at most `MAX_LINE_CHARS` of it around the match when it is longer.
fn preview(line: &str, start: usize, end: usize) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_owned();
    }
    let (start, end) = (start.min(line.len()), end.min(line.len()));
    let from = line[..start]
        .char_indices()
        .rev()
        .nth(CONTEXT_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let after = line[end..]
        .char_indices()
        .nth(CONTEXT_CHARS)
        .map_or(line.len(), |(i, _)| end + i);
    let cap = line[from..]
        .char_indices()
        .nth(MAX_LINE_CHARS)
        .map_or(line.len(), |(i, _)| from + i);
    let to = after.min(cap);
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.push_str(&line[from..to]);
    if to < line.len() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclude_patterns_match_relative_paths_base_names_and_dir_stars() {
        let ex = Excludes::new(
            "t",
            &[
                "*.log".to_owned(),
                "vendor/*".to_owned(),
                "docs/gen".to_owned(),
                "**/fixtures".to_owned(),
            ],
        )
        .unwrap();
        let cases = [
            ("app.log", true),
            ("sub/app.log", true),
            ("vendor", true),
            ("vendor/lib.rs", true),
            ("docs/gen", true),
            ("docs/genx", false),
            ("a/b/fixtures", true),
            ("src/main.rs", false),
            ("src/log.rs", false),
        ];
        for (rel, want) in cases {
            assert_eq!(ex.excludes(rel), want, "{rel}");
        }
    }

    #[test]
    fn a_bad_exclude_glob_is_an_argument_error() {
        let err = Excludes::new("search_files_content", &["a[".to_owned()]).unwrap_err();
        let ToolError::InvalidArguments { tool, message } = err else {
            panic!("{err:?}");
        };
        assert_eq!(tool, "search_files_content");
        assert!(message.starts_with("bad exclude pattern: "), "{message}");
    }

    #[test]
    fn long_lines_are_shown_around_the_match() {
        let line = format!("{}NEEDLE{}", "a".repeat(300), "b".repeat(300));
        let want = format!("…{}NEEDLE{}…", "a".repeat(60), "b".repeat(60));
        assert_eq!(preview(&line, 300, 306), want);
        let short = "x NEEDLE y\r";
        assert_eq!(preview(short, 2, 8), "x NEEDLE y");
        let multibyte = format!("{}ü{}", "é".repeat(250), "z".repeat(10));
        let start = "é".len() * 250;
        let want = format!("…{}ü{}", "é".repeat(60), "z".repeat(10));
        assert_eq!(preview(&multibyte, start, start + 2), want);
        let huge_match = "m".repeat(500);
        assert_eq!(
            preview(&huge_match, 0, 500),
            format!("{}…", "m".repeat(200))
        );
    }
}
