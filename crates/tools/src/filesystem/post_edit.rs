//! `post_edit`: commands run after `write_file` or `edit_file` changed a file whose name
//! matches a glob (a formatter, a linter). They run through the shell tool's spawn path, in
//! the working directory, with the file's absolute path in `$path` (what docker-agent sets)
//! and `$file` (what its documentation shows). A pattern with a `/` matches the path relative
//! to the working directory instead of the name, so `src/**/*.ts` works as documented. The
//! first failing command turns the call into an error that says the file was changed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use serde_json::{Map, Value};
use tether_exec::Shell;

use crate::args::resolve;
use crate::shell::{DEFAULT_TIMEOUT, command_spec, default_spool_dir};
use crate::{ToolContext, ToolResult};

#[derive(Debug)]
struct Entry {
    glob: GlobMatcher,
    /// Matches the relative path, not the name.
    whole_path: bool,
    cmd: String,
}

/// A toolset's `post_edit` commands.
#[derive(Debug)]
pub(crate) struct PostEditCommands {
    entries: Vec<Entry>,
    shell: Shell,
    spool_dir: PathBuf,
}

impl PostEditCommands {
    /// Globs were checked at load; one that still fails to compile is skipped.
    pub(crate) fn new(post_edit: &[tether_config::PostEdit], shell: Shell) -> Self {
        let entries = post_edit
            .iter()
            .filter_map(|p| {
                Some(Entry {
                    glob: Glob::new(&p.path).ok()?.compile_matcher(),
                    whole_path: p.path.contains('/'),
                    cmd: p.cmd.clone(),
                })
            })
            .collect();
        Self {
            entries,
            shell,
            spool_dir: default_spool_dir(),
        }
    }

    fn matches(&self, entry: &Entry, file: &Path, working_dir: &Path) -> bool {
        if entry.whole_path {
            file.strip_prefix(working_dir)
                .is_ok_and(|rel| entry.glob.is_match(rel))
        } else {
            file.file_name().is_some_and(|n| entry.glob.is_match(n))
        }
    }

    /// Runs the commands matching the changed file; `result` is the tool's own.
    pub(crate) async fn after(
        &self,
        written: bool,
        result: ToolResult,
        args: &Map<String, Value>,
        ctx: ToolContext<'_>,
    ) -> ToolResult {
        let Some(given) = args.get("path").and_then(Value::as_str) else {
            return result;
        };
        let file = resolve(ctx.working_dir, given);
        for entry in &self.entries {
            if !self.matches(entry, &file, ctx.working_dir) {
                continue;
            }
            let env = [
                (OsString::from("path"), file.clone().into_os_string()),
                (OsString::from("file"), file.clone().into_os_string()),
            ];
            let spec = command_spec(
                &self.shell,
                &entry.cmd,
                ctx.working_dir.to_path_buf(),
                &env,
                DEFAULT_TIMEOUT,
                &ctx,
                &self.spool_dir,
            );
            let r = tether_exec::run(spec).await;
            let why = if let Some(e) = &r.spawn_error {
                Some(format!("cannot run it: {e}"))
            } else if r.timed_out {
                Some(format!("timed out after {}s", DEFAULT_TIMEOUT.as_secs()))
            } else if r.cancelled {
                Some("cancelled".to_owned())
            } else {
                match r.exit_code {
                    Some(0) => None,
                    Some(code) => Some(format!("exit status {code}")),
                    None => Some("killed by a signal".to_owned()),
                }
            };
            if let Some(why) = why {
                let output = String::from_utf8_lossy(&r.stdout.bytes);
                let verb = if written { "written" } else { "edited" };
                let mut text = format!(
                    "File {verb} successfully but post-edit command failed: post-edit command failed for {}: {why}",
                    file.display()
                );
                if !output.trim().is_empty() {
                    text.push('\n');
                    text.push_str(output.trim_end());
                }
                return ToolResult::error(text);
            }
        }
        result
    }
}
