//! `add_environment_info`: working directory, git-repo status, OS and CPU architecture.

use std::path::Path;

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddEnvironmentInfo;

/// A `.git` directory in `dir` or an ancestor (a `.git` file, as in worktrees, does not count).
pub(crate) fn is_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").is_dir())
}

fn os_name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "MacOS",
        "windows" => "Windows",
        "linux" => "Linux",
        other => other,
    }
}

fn arch_name() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}

pub(crate) fn text(cwd: &str) -> String {
    let git = if is_git_repo(Path::new(cwd)) {
        "Yes"
    } else {
        "No"
    };
    format!(
        "Here is useful information about the environment you are running in:\n\t<env>\n\tWorking directory: {cwd}\n\tIs directory a git repo: {git}\n\tOperating System: {}\n\tCPU Architecture: {}\n\t</env>",
        os_name(),
        arch_name()
    )
}

impl Builtin for AddEnvironmentInfo {
    fn name(&self) -> &'static str {
        "add_environment_info"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            if call.input.cwd.is_empty() {
                return Ok(None);
            }
            Ok(context(&call, text(&call.input.cwd)))
        })
    }
}
