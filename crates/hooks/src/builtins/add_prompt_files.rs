//! `add_prompt_files`: the contents of named files, found by walking up from the working
//! directory, plus the same names in the home directory; joined by a blank line. A first
//! argument `--depth=N` also lists, by path only, the same names found up to N directory levels
//! below the working directory (monorepos with an `AGENTS.md` per project).

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddPromptFiles;

/// Candidate paths for one name: the closest match walking up from `cwd`, then the kit
/// directory's `prompt_files/` (when `DOCKER_AGENT_KIT_DIR` is set) or the home directory.
pub(crate) fn candidates(cwd: &Path, name: &str, env: &HookEnv) -> Vec<PathBuf> {
    // An absolute name is treated as relative, as Go's filepath.Join does.
    let rel = name.trim_start_matches('/');
    let mut out = Vec::new();
    if let Some(found) = cwd.ancestors().map(|d| d.join(rel)).find(|p| p.is_file()) {
        out.push(found);
    }
    let second = match env.var("DOCKER_AGENT_KIT_DIR").filter(|k| !k.is_empty()) {
        Some(kit) => Some(Path::new(&kit).join("prompt_files").join(rel)),
        None => env
            .var("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| Path::new(&h).join(rel)),
    };
    if let Some(p) = second.filter(|p| p.is_file() && !out.contains(p)) {
        out.push(p);
    }
    out
}

/// The `--depth=N` option in front of the names (0 without it), and the names.
fn split_depth(args: &[String]) -> (usize, &[String]) {
    match args.split_first() {
        Some((first, rest)) => first
            .strip_prefix("--depth=")
            .and_then(|n| n.parse().ok())
            .map_or((0, args), |n| (n, rest)),
        None => (0, args),
    }
}

/// The files `args` load from `cwd`, as the builtin finds them (this process's environment).
pub fn prompt_file_paths(cwd: &Path, args: &[String]) -> Vec<PathBuf> {
    let env = HookEnv::default();
    split_depth(args)
        .1
        .iter()
        .flat_map(|n| candidates(cwd, n, &env))
        .collect()
}

/// Paths (relative to `cwd`, sorted) of files named like one of `names` in the directories
/// 1 to `depth` levels below `cwd`; ignored and hidden directories are skipped.
fn nested(cwd: &Path, names: &[String], depth: usize) -> Vec<String> {
    let wanted: Vec<&str> = names
        .iter()
        .filter_map(|n| Path::new(n).file_name().and_then(|f| f.to_str()))
        .collect();
    let mut found: Vec<String> = ignore::WalkBuilder::new(cwd)
        .max_depth(Some(depth + 1))
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.depth() >= 2 && e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| e.file_name().to_str().is_some_and(|f| wanted.contains(&f)))
        .filter_map(|e| {
            e.path()
                .strip_prefix(cwd)
                .ok()
                .map(|p| p.display().to_string())
        })
        .collect();
    found.sort();
    found
}

pub(crate) fn text(cwd: &Path, args: &[String], env: &HookEnv) -> String {
    let (depth, names) = split_depth(args);
    let mut contents: Vec<String> = names
        .iter()
        .flat_map(|n| candidates(cwd, n, env))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let below = if depth > 0 {
        nested(cwd, names, depth)
    } else {
        Vec::new()
    };
    if !below.is_empty() {
        contents.push(format!(
            "More of these files are in subdirectories; read the ones you need:\n{}",
            below
                .iter()
                .map(|p| format!("- {p}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    contents.join("\n\n")
}

impl Builtin for AddPromptFiles {
    fn name(&self) -> &'static str {
        "add_prompt_files"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            if call.input.cwd.is_empty() || call.args.is_empty() {
                return Ok(None);
            }
            Ok(context(
                &call,
                text(Path::new(&call.input.cwd), call.args, call.env),
            ))
        })
    }
}
