//! `add_prompt_files`: the contents of named files, found by walking up from the working
//! directory, plus the same names in the home directory; joined by a blank line. A first
//! argument `--depth=N` also lists, by path only, the same names found up to N directory levels
//! below the working directory (monorepos with an `AGENTS.md` per project). Only regular files
//! whose real path stays inside the working tree or the directory they were found in are read
//! (see [`candidates`]).

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddPromptFiles;

/// Candidate paths for one name: the closest match walking up from `cwd`, then the kit
/// directory's `prompt_files/` (when `DOCKER_AGENT_KIT_DIR` is set) or the home directory.
/// Each is the file's real path (symlinks resolved), and only a regular file that stays inside
/// the directory it was found in or inside the working tree: a symlinked `AGENTS.md` in a
/// repository must not bring another file of the machine (`~/.ssh/id_rsa`) to the model. A
/// refused candidate is skipped, never read, and described in `refused`.
pub(crate) fn candidates(
    cwd: &Path,
    name: &str,
    env: &HookEnv,
    refused: &mut Vec<String>,
) -> Vec<PathBuf> {
    // An absolute name is treated as relative, as Go's filepath.Join does.
    let rel = name.trim_start_matches('/');
    let tree = working_tree(cwd);
    let mut out = Vec::new();
    let mut keep =
        |found: &Path, dir: &Path, out: &mut Vec<PathBuf>| match checked(found, &[dir, tree]) {
            Ok(real) if !out.contains(&real) => out.push(real),
            Ok(_) => {}
            Err(why) => {
                tracing::warn!(target: "tether_hooks::add_prompt_files", "{why}");
                refused.push(why);
            }
        };
    if let Some((dir, found)) = cwd
        .ancestors()
        .map(|d| (d, d.join(rel)))
        .find(|(_, p)| p.is_file())
    {
        keep(&found, dir, &mut out);
    }
    let second = match env.var("DOCKER_AGENT_KIT_DIR").filter(|k| !k.is_empty()) {
        Some(kit) => Some(Path::new(&kit).join("prompt_files")),
        None => env.var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
    };
    if let Some(dir) = second {
        let found = dir.join(rel);
        if found.is_file() {
            keep(&found, &dir, &mut out);
        }
    }
    out
}

/// The working tree holding `cwd`: its nearest ancestor with a `.git`, else `cwd` itself.
fn working_tree(cwd: &Path) -> &Path {
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd)
}

/// The real path of `found` when it is a regular file inside one of `roots` (all compared
/// with symlinks resolved); else why not.
fn checked(found: &Path, roots: &[&Path]) -> Result<PathBuf, String> {
    let refuse = |why: String| format!("prompt file `{}` skipped: {why}", found.display());
    let real = found
        .canonicalize()
        .map_err(|e| refuse(format!("cannot resolve it: {e}")))?;
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Err(refuse(format!(
            "`{}` is not a regular file",
            real.display()
        )));
    }
    if roots
        .iter()
        .filter_map(|r| r.canonicalize().ok())
        .any(|r| real.starts_with(r))
    {
        Ok(real)
    } else {
        Err(refuse(format!(
            "it leads to `{}`, outside the working tree and the directory it is in",
            real.display()
        )))
    }
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
    let mut refused = Vec::new();
    split_depth(args)
        .1
        .iter()
        .flat_map(|n| candidates(cwd, n, &env, &mut refused))
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

/// The text for `args`; files refused (see [`candidates`]) are described in `refused`.
pub(crate) fn text(
    cwd: &Path,
    args: &[String],
    env: &HookEnv,
    refused: &mut Vec<String>,
) -> String {
    let (depth, names) = split_depth(args);
    let mut contents: Vec<String> = names
        .iter()
        .flat_map(|n| candidates(cwd, n, env, refused))
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
            let mut refused = Vec::new();
            let text = text(
                Path::new(&call.input.cwd),
                call.args,
                call.env,
                &mut refused,
            );
            // Not a failure: the turn goes on without those files; the hook log says why.
            for why in refused {
                call.notes.push(why);
            }
            Ok(context(&call, text))
        })
    }
}
