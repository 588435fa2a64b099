//! The builtin hooks: in-process, no fork (docs/hooks.md, Builtins). One file per builtin.
//!
//! Context builtins return `additional_context` (or nothing when they have nothing to say);
//! the dispatching event decides where that context goes, not the builtin.

mod add_context;
mod add_date;
mod add_directory_listing;
mod add_environment_info;
mod add_git;
mod add_prompt_files;
mod add_user_info;
mod catalog;
mod elide_repeated_tool_results;
mod http_post;
mod limit_large_tool_results;
mod max_iterations;
mod redact_secrets;
mod safer_shell;
mod snapshot;
mod unload;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tether_exec::{ExecSpec, find_in_path};
use tether_protocol::HookOutput;

pub use add_context::AddContext;
pub use add_date::AddDate;
pub use add_directory_listing::AddDirectoryListing;
pub use add_environment_info::AddEnvironmentInfo;
pub use add_git::{AddGitDiff, AddGitStatus, AddRecentCommits};
pub use add_prompt_files::{AddPromptFiles, prompt_file_paths};
pub use add_user_info::AddUserInfo;
pub use catalog::{BuiltinDoc, CATALOG};
pub use elide_repeated_tool_results::{
    DEFAULT_MIN_CHARS, ElideRepeatedToolResults, elide, reference as elided_reference,
};
pub use http_post::{ALLOW_PRIVATE_ENV, HttpPost, SCHEME_ERROR};
pub use limit_large_tool_results::{LIMIT_BYTES, LIMIT_LINES, LimitLargeToolResults};
pub use max_iterations::MaxIterations;
pub use redact_secrets::RedactSecrets;
pub use safer_shell::SaferShell;
pub use snapshot::{Checkpoint, MAX_CHECKPOINTS, MAX_NEW_FILE_BYTES, Snapshot, UndoReport};
pub use unload::Unload;

use crate::registry::{BuiltinCall, Registry};

/// Registers every builtin; `snapshot` starts with no sessions (an embedder offering `/undo`
/// registers its own [`Snapshot`] over this one and keeps a handle to it).
pub fn register_defaults(registry: &mut Registry) {
    registry.register(Arc::new(AddContext));
    registry.register(Arc::new(AddDate));
    registry.register(Arc::new(AddEnvironmentInfo));
    registry.register(Arc::new(AddPromptFiles));
    registry.register(Arc::new(AddGitStatus));
    registry.register(Arc::new(AddGitDiff));
    registry.register(Arc::new(AddDirectoryListing));
    registry.register(Arc::new(AddUserInfo));
    registry.register(Arc::new(AddRecentCommits));
    registry.register(Arc::new(MaxIterations));
    registry.register(Arc::new(ElideRepeatedToolResults));
    registry.register(Arc::new(LimitLargeToolResults::default()));
    registry.register(Arc::new(RedactSecrets));
    registry.register(Arc::new(SaferShell));
    registry.register(Arc::new(HttpPost));
    registry.register(Arc::new(Unload));
    // Always registered (docs/design.md D17); only its injection depends on `settings.snapshot`.
    registry.register(Arc::new(Snapshot::new()));
}

/// `additional_context` for the dispatching event, or nothing for empty text.
fn context(call: &BuiltinCall<'_>, text: String) -> Option<HookOutput> {
    (!text.is_empty()).then(|| HookOutput::context(call.event.wire_name(), text))
}

/// Output of git's commands is capped at this many bytes.
const GIT_OUTPUT_CAP: usize = 4096;

/// Cuts `text` to at most `cap` bytes (on a character boundary) and marks the cut.
fn cap_output(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_owned();
    }
    format!(
        "{}\n... (truncated)",
        &text[..text.floor_char_boundary(cap)]
    )
}

/// Runs `git -C <cwd> ARGS` with the hook's environment; the trimmed stdout on success.
async fn git(call: &BuiltinCall<'_>, args: &[&str]) -> Option<String> {
    if call.input.cwd.is_empty() {
        return None;
    }
    let path = call.env.var("PATH").unwrap_or_default();
    let program = find_in_path("git", &path)?;
    let mut spec = ExecSpec::new(program, call.cwd);
    spec.args = ["-C", call.input.cwd.as_str()]
        .iter()
        .chain(args)
        .map(Into::into)
        .collect();
    spec.base_env = call.env.base.clone();
    spec.env = call.env.vars.clone();
    spec.timeout = Some(Duration::from_secs(30));
    spec.cancel = Some(call.cancel.clone());
    if !Path::new(&call.input.cwd).is_dir() {
        return None;
    }
    let record = tether_exec::run(spec).await;
    if record.exit_code != Some(0) {
        return None;
    }
    let out = record.stdout.lossy();
    let out = out.trim();
    (!out.is_empty()).then(|| cap_output(out, GIT_OUTPUT_CAP))
}

#[cfg(test)]
mod tests;
