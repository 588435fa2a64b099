//! Directory listings and directory changes.
//!
//! `list_directory` shows one directory exactly as it is (sorted, nothing hidden), in
//! docker-agent's `FILE name` / `DIR  name` format. `directory_tree` walks recursively, so it
//! skips what `.gitignore` ignores and `.git` itself, and stops at a node budget: a tree of
//! `node_modules` would otherwise swamp the context.

use std::ffi::OsStr;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use rustix::fs::FileType;
use serde::{Deserialize, Serialize};

use super::open::{self, Fs};
use super::search::{admitted, walker};
use super::{Call, PathArgs};
use crate::ToolError;
use crate::args::parse;

/// `list_directory` lists at most this many entries.
pub(super) const MAX_LIST_ENTRIES: usize = 10_000;

/// `directory_tree` includes at most this many nodes below the root.
pub(super) const MAX_TREE_NODES: usize = 5_000;

#[derive(Debug, Deserialize)]
struct TreeArgs {
    path: String,
    /// Not in docker-agent's schema, but its instruction text tells the model to use it.
    max_depth: Option<usize>,
}

#[derive(Debug, Deserialize)]
struct PathsArgs {
    paths: Option<Vec<String>>,
}

pub(super) fn list_directory(call: &Call) -> Result<String, ToolError> {
    let args: PathArgs = parse(&call.tool, &call.args)?;
    let path = args.path.as_str();
    let resolved = call.path(path)?;
    let fs = call.fs();
    let list_err = |e: std::io::Error| ToolError::io("list", path, &e);
    // Names come from the opened directory, and are looked at relative to it.
    let dir = fs.dir(&resolved).map_err(list_err)?;
    let entries = open::entries(dir.try_clone().map_err(list_err)?).map_err(list_err)?;
    let mut rows: Vec<(String, bool)> = Vec::new();
    let mut fenced = 0usize;
    for (name, listed) in entries {
        // Follows symlinks, so a link to a directory lists as one.
        let is_dir = match &call.roots {
            None => open::stat_in(dir.as_fd(), &name, true).is_some_and(FileType::is_dir),
            Some(roots) => {
                let kind = match listed {
                    FileType::Unknown => open::stat_in(dir.as_fd(), &name, false),
                    known => Some(known),
                };
                let is_symlink = kind == Some(FileType::Symlink);
                let found = resolved.join(OsStr::from_bytes(&name));
                let Some(real) = roots.admit_found(&found, is_symlink) else {
                    fenced += 1;
                    continue;
                };
                if is_symlink {
                    // Where the link leads, reached as any checked path.
                    fs.metadata(&real).is_ok_and(|m| m.is_dir())
                } else {
                    kind.is_some_and(FileType::is_dir)
                }
            }
        };
        rows.push((String::from_utf8_lossy(&name).into_owned(), is_dir));
    }
    let fenced_note = (fenced > 0).then(|| {
        format!("[{fenced} entries not shown: outside `allow_list` or inside `deny_list`]\n")
    });
    if rows.is_empty() {
        return Ok(format!(
            "directory `{path}` is empty\n{}",
            fenced_note.unwrap_or_default()
        ));
    }
    rows.sort_unstable();
    let mut out = String::new();
    for (name, is_dir) in rows.iter().take(MAX_LIST_ENTRIES) {
        out.push_str(if *is_dir { "DIR  " } else { "FILE " });
        out.push_str(name);
        out.push('\n');
    }
    if rows.len() > MAX_LIST_ENTRIES {
        out.push_str(&format!(
            "[{} more entries not shown]\n",
            rows.len() - MAX_LIST_ENTRIES
        ));
    }
    out.push_str(&fenced_note.unwrap_or_default());
    Ok(out)
}

/// One node of `directory_tree`'s JSON.
#[derive(Debug, Serialize)]
struct Node {
    name: String,
    #[serde(rename = "type")]
    kind: &'static str,
    /// Directories always have it (maybe empty); files never.
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<Self>>,
    /// Set on the root when the node budget cut the walk short.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

impl Node {
    fn new(name: String, is_dir: bool) -> Self {
        Self {
            name,
            kind: if is_dir { "directory" } else { "file" },
            children: is_dir.then(Vec::new),
            truncated: false,
        }
    }

    fn adopt(&mut self, child: Self) {
        if let Some(children) = &mut self.children {
            children.push(child);
        }
    }
}

pub(super) fn directory_tree(call: &Call) -> Result<String, ToolError> {
    let args: TreeArgs = parse(&call.tool, &call.args)?;
    let path = args.path.as_str();
    let resolved = call.path(path)?;
    let fs = call.fs();
    let walk_err = |e: std::io::Error| ToolError::io("walk", path, &e);
    let (real, is_dir) = match fs {
        Fs::Plain => {
            let real = std::fs::canonicalize(&resolved).map_err(walk_err)?;
            let is_dir = real.is_dir();
            (real, is_dir)
        }
        Fs::Checked => (
            resolved.clone(),
            fs.metadata(&resolved).map_err(walk_err)?.is_dir(),
        ),
    };
    if !is_dir {
        return Err(ToolError::Rejected(format!("`{path}` is not a directory")));
    }
    let root_name = real
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut builder = walker(&resolved, call.ignore_vcs, admitted(call.roots.clone()));
    builder.max_depth(args.max_depth);
    // stack[d] is the open directory at depth d; entries arrive depth-first, sorted.
    let mut stack = vec![Node::new(root_name, true)];
    let mut nodes = 0usize;
    let mut truncated = false;
    // With lists, a directory that was not what the walk read (see below): its entries are
    // left out with it.
    let mut dropped: Option<PathBuf> = None;
    for entry in builder.build().skip(1) {
        if call.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let Ok(entry) = entry else { continue };
        if dropped
            .as_ref()
            .is_some_and(|d| entry.path().starts_with(d))
        {
            continue;
        }
        let is_dir = match fs {
            Fs::Plain => entry.file_type().is_some_and(|t| t.is_dir()),
            // The walk reads directories by path, so a directory swapped for a symlink can
            // feed it another directory's entries: each is shown only if it is there,
            // reached without following symlinks, and as what it is there.
            Fs::Checked => match fs.symlink_metadata(entry.path()) {
                Ok(meta) => meta.is_dir(),
                Err(_) => {
                    dropped = Some(entry.path().to_path_buf());
                    continue;
                }
            },
        };
        if nodes == MAX_TREE_NODES {
            truncated = true;
            break;
        }
        nodes += 1;
        close_to_depth(&mut stack, entry.depth());
        let node = Node::new(entry.file_name().to_string_lossy().into_owned(), is_dir);
        if is_dir {
            stack.push(node);
        } else if let Some(parent) = stack.last_mut() {
            parent.adopt(node);
        }
    }
    close_to_depth(&mut stack, 1);
    let Some(mut root) = stack.pop() else {
        return Err(ToolError::Internal("the tree lost its root".to_owned()));
    };
    root.truncated = truncated;
    serde_json::to_string(&root).map_err(|e| ToolError::Internal(e.to_string()))
}

/// Closes open directories until the innermost one is at `depth - 1`.
fn close_to_depth(stack: &mut Vec<Node>, depth: usize) {
    while stack.len() > depth.max(1) {
        let Some(done) = stack.pop() else { return };
        if let Some(parent) = stack.last_mut() {
            parent.adopt(done);
        }
    }
}

fn paths(call: &Call) -> Result<Vec<String>, ToolError> {
    let args: PathsArgs = parse(&call.tool, &call.args)?;
    let paths = args.paths.unwrap_or_default();
    if paths.is_empty() {
        return Err(ToolError::invalid(&call.tool, "`paths` is empty"));
    }
    Ok(paths)
}

/// The call's `paths`, each with where it points; one the lists refuse fails the call
/// before anything changed.
fn checked_paths(call: &Call, entry: bool) -> Result<Vec<(String, PathBuf)>, ToolError> {
    paths(call)?
        .into_iter()
        .map(|p| {
            let real = if entry {
                call.entry_path(&p)
            } else {
                call.path(&p)
            };
            real.map(|real| (p, real))
        })
        .collect()
}

pub(super) fn create_directory(call: &Call) -> Result<String, ToolError> {
    let mut lines = Vec::new();
    let fs = call.fs();
    for (path, resolved) in checked_paths(call, false)? {
        fs.create_dirs(&resolved)
            .map_err(|e| ToolError::io("create directory", &path, &e))?;
        lines.push(format!("Directory created successfully: {path}"));
    }
    Ok(lines.join("\n"))
}

pub(super) fn remove_directory(call: &Call) -> Result<String, ToolError> {
    let mut lines = Vec::new();
    let fs = call.fs();
    for (path, resolved) in checked_paths(call, true)? {
        fs.remove_dir(&resolved).map_err(|e| {
            let mut err = ToolError::io("remove directory", &path, &e);
            if e.kind() == std::io::ErrorKind::DirectoryNotEmpty
                && let ToolError::Io { message, .. } = &mut err
            {
                message.push_str(" (remove_directory only removes empty directories)");
            }
            err
        })?;
        lines.push(format!("Directory removed successfully: {path}"));
    }
    Ok(lines.join("\n"))
}
