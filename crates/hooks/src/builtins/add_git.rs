//! `add_git_status`, `add_git_diff` and `add_recent_commits`: git's own output, capped at
//! 4 KiB, under a fixed header. Nothing outside a repository or without git.

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::{context, git};
use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddGitStatus;

impl Builtin for AddGitStatus {
    fn name(&self) -> &'static str {
        "add_git_status"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let Some(out) = git(&call, &["status", "--short", "--branch"]).await else {
                return Ok(None);
            };
            Ok(context(&call, format!("Current git status:\n\n{out}")))
        })
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct AddGitDiff;

impl Builtin for AddGitDiff {
    fn name(&self) -> &'static str {
        "add_git_diff"
    }

    fn check_args(&self, args: &[String]) -> Result<(), String> {
        match args {
            [] => Ok(()),
            [a] if a == "full" => Ok(()),
            _ => Err(format!("takes no arguments or [\"full\"], got {args:?}")),
        }
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let full = call.args.first().is_some_and(|a| a == "full");
            let (args, header): (&[&str], &str) = if full {
                (&["diff"], "Current working-tree diff:\n\n")
            } else {
                (&["diff", "--stat"], "Current working-tree diff (stat):\n\n")
            };
            let Some(out) = git(&call, args).await else {
                return Ok(None);
            };
            Ok(context(&call, format!("{header}{out}")))
        })
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct AddRecentCommits;

/// `args[0]` when it is an integer > 0, else 10.
pub(crate) fn commit_count(args: &[String]) -> u32 {
    args.first()
        .and_then(|a| a.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(10)
}

impl Builtin for AddRecentCommits {
    fn name(&self) -> &'static str {
        "add_recent_commits"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let n = commit_count(call.args).to_string();
            let Some(out) = git(&call, &["log", "--oneline", "-n", &n]).await else {
                return Ok(None);
            };
            Ok(context(&call, format!("Recent commits:\n\n{out}")))
        })
    }
}
