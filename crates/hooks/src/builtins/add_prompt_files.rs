//! `add_prompt_files`: the contents of named files, found by walking up from the working
//! directory, plus the same names in the home directory; joined by a blank line.

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

/// The files `names` load from `cwd`, as the builtin finds them (this process's environment).
pub fn prompt_file_paths(cwd: &Path, names: &[String]) -> Vec<PathBuf> {
    let env = HookEnv::default();
    names
        .iter()
        .flat_map(|n| candidates(cwd, n, &env))
        .collect()
}

pub(crate) fn text(cwd: &Path, names: &[String], env: &HookEnv) -> String {
    let contents: Vec<String> = names
        .iter()
        .flat_map(|n| candidates(cwd, n, env))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
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
