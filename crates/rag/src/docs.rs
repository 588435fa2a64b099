//! The files a strategy indexes: `docs` entries are files, directories (walked, honouring
//! `.gitignore` when `respect_vcs`) or globs (`pkg/**/*.go`), relative to the agent file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every regular file the entries name, sorted and without repeats. Entries that name
/// nothing are skipped (a directory may not exist yet; the watcher sees it appear).
pub(crate) fn collect(base: &Path, entries: &[String], respect_vcs: bool) -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    for entry in entries {
        let glob = entry.contains(['*', '?', '[']);
        let (root, matcher) = if glob {
            // Walk the part before the first wildcard; match the whole pattern.
            let cut = entry.find(['*', '?', '[']).unwrap_or(0);
            let prefix = &entry[..entry[..cut].rfind('/').map_or(0, |i| i + 1)];
            let full = base.join(entry);
            let Ok(m) = globset::Glob::new(&full.to_string_lossy()) else {
                continue;
            };
            (base.join(prefix), Some(m.compile_matcher()))
        } else {
            (base.join(entry), None)
        };
        if root.is_file() {
            out.insert(root);
            continue;
        }
        if !root.is_dir() {
            continue;
        }
        let walk = ignore::WalkBuilder::new(&root)
            .hidden(true)
            .git_ignore(respect_vcs)
            .git_global(false)
            .git_exclude(respect_vcs)
            .ignore(respect_vcs)
            .require_git(false)
            .build();
        for item in walk.flatten() {
            let p = item.path();
            if item.file_type().is_some_and(|t| t.is_file())
                && matcher.as_ref().is_none_or(|m| m.is_match(p))
            {
                out.insert(p.to_path_buf());
            }
        }
    }
    out.into_iter().collect()
}

/// The directories to watch for the entries: each existing directory root, and the parent
/// of each file.
pub(crate) fn watch_roots(base: &Path, entries: &[String]) -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    for entry in entries {
        let cut = entry.find(['*', '?', '[']).unwrap_or(entry.len());
        let p = base.join(&entry[..cut]);
        if p.is_dir() {
            out.insert(p);
        } else if let Some(parent) = p.parent().filter(|d| d.is_dir()) {
            out.insert(parent.to_path_buf());
        }
    }
    out.into_iter().collect()
}
