//! The `filesystem` toolset: docker-agent's nine tools over the local disk.
//!
//! Every call runs on tokio's blocking pool (directory walks and large reads block), resolves
//! paths against `ToolContext::working_dir`, and turns every failure into a `ToolResult`
//! error naming the path as the model wrote it. Which calls may run is the approval chain's
//! decision, made before `Tool::call`; which paths a call may touch is the toolset's
//! `allow_list` / `deny_list` (`access.rs`), checked for every path argument and every entry
//! a walk or listing shows, and a checked path is then reached without following symlinks
//! (`open.rs`).

mod access;
mod definitions;
mod dirs;
mod files;
mod open;
mod post_edit;
mod search;

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args::resolve;
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolResult};
use access::{PathRules, Roots};
use open::Fs;
use post_edit::PostEditCommands;

/// The text of the file at `path` (a real path: absolute, canonical), reached without
/// following a symlink: a directory on it swapped for a symlink since it was checked makes
/// the read fail. For tools that check a path and then use it (a language server's edits).
pub fn read_real_path(path: &std::path::Path) -> std::io::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut Fs::Checked.read(path)?, &mut text)?;
    Ok(text)
}

/// `bytes` written to the file at `path` (a real path), truncated first, reached as
/// [`read_real_path`] reaches it.
pub fn write_real_path(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    Fs::Checked.write(path, bytes)
}

/// The toolset's system-prompt text, as docker-agent sent it in the recorded request.
pub const FILESYSTEM_INSTRUCTION: &str = "## Filesystem Tools\n\n- Relative paths resolve from the working directory; absolute paths and \"..\" work as expected\n- Prefer read_multiple_files over sequential read_file calls\n- Use search_files_content to locate code or text across files\n- Use exclude patterns in searches and max_depth in directory_tree to limit output";

/// The toolset's system-prompt text: [`FILESYSTEM_INSTRUCTION`], plus a line per list when
/// `allow_list` or `deny_list` is set.
pub fn filesystem_instruction(cfg: &tether_config::Toolset) -> String {
    let rules = PathRules::new(&cfg.allow_list, &cfg.deny_list);
    format!(
        "{FILESYSTEM_INSTRUCTION}{}",
        rules.map(|r| r.describe()).unwrap_or_default()
    )
}

/// The `file` toolset's system-prompt text: its three tools, plus the lists' lines.
pub fn file_instruction(cfg: &tether_config::Toolset) -> String {
    let rules = PathRules::new(&cfg.allow_list, &cfg.deny_list);
    format!(
        "## File Tools\n\n- Relative paths resolve from the working directory; absolute paths and \"..\" work as expected\n- read_file reads a whole file or a range of lines; write_file creates or replaces a file; edit_file applies exact text replacements{}",
        rules.map(|r| r.describe()).unwrap_or_default()
    )
}

/// Which filesystem operation a tool performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    DirectoryTree,
    EditFile,
    ListDirectory,
    ReadFile,
    ReadMultipleFiles,
    SearchFilesContent,
    WriteFile,
    CreateDirectory,
    RemoveDirectory,
}

/// One filesystem tool.
#[derive(Debug)]
pub struct FilesystemTool {
    definition: ToolDefinition,
    op: Op,
    ignore_vcs: bool,
    post_edit: Option<Arc<PostEditCommands>>,
    rules: Option<Arc<PathRules>>,
}

impl FilesystemTool {
    /// All nine tools, in docker-agent's order.
    pub fn all() -> Vec<Arc<dyn Tool>> {
        Self::configured(true, None, None)
    }

    /// The nine tools with the toolset's options: `ignore_vcs`, `allow_list` / `deny_list`,
    /// and `post_edit` commands run with `shell` after `write_file` and `edit_file`.
    pub fn with_options(
        cfg: &tether_config::Toolset,
        shell: &tether_exec::Shell,
    ) -> Vec<Arc<dyn Tool>> {
        let commands = (!cfg.post_edit.is_empty())
            .then(|| PostEditCommands::new(&cfg.post_edit, shell.clone()))
            .map(Arc::new);
        let rules = PathRules::new(&cfg.allow_list, &cfg.deny_list).map(Arc::new);
        Self::configured(cfg.ignore_vcs, commands, rules)
    }

    fn configured(
        ignore_vcs: bool,
        post_edit: Option<Arc<PostEditCommands>>,
        rules: Option<Arc<PathRules>>,
    ) -> Vec<Arc<dyn Tool>> {
        definitions::table()
            .into_iter()
            .map(|(op, name, description, read_only, parameters)| {
                Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "filesystem",
                    },
                    op,
                    ignore_vcs,
                    post_edit: post_edit.clone(),
                    rules: rules.clone(),
                }) as Arc<dyn Tool>
            })
            .collect()
    }
}

/// The arguments of the tools that take one `path` (`read_file`, `list_directory`).
#[derive(Debug, Deserialize)]
struct PathArgs {
    path: String,
}

/// What every operation gets: owned, because it runs on the blocking pool.
#[derive(Debug)]
struct Call {
    tool: String,
    args: Map<String, Value>,
    working_dir: PathBuf,
    cancel: CancellationToken,
    ignore_vcs: bool,
    rules: Option<Arc<PathRules>>,
    /// `rules` expanded for this call (set by `run`).
    roots: Option<Arc<Roots>>,
}

impl Call {
    /// Where `given` points: resolved against the working directory and, with
    /// `allow_list` / `deny_list`, its real path once they admit it.
    fn path(&self, given: &str) -> Result<PathBuf, ToolError> {
        let resolved = resolve(&self.working_dir, given);
        match &self.roots {
            Some(roots) => roots.check(given, &resolved),
            None => Ok(resolved),
        }
    }

    /// How this call reaches the paths [`Self::path`] returns: with lists, without following
    /// symlinks, so what was checked is what is used.
    fn fs(&self) -> Fs {
        if self.roots.is_some() {
            Fs::Checked
        } else {
            Fs::Plain
        }
    }

    /// [`Self::path`] for an operation on the entry itself (a symlink there is not followed).
    fn entry_path(&self, given: &str) -> Result<PathBuf, ToolError> {
        let resolved = resolve(&self.working_dir, given);
        match &self.roots {
            Some(roots) => roots.check_entry(given, &resolved),
            None => Ok(resolved),
        }
    }
}

impl Tool for FilesystemTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let op = self.op;
        let call = Call {
            tool: self.definition.name.clone(),
            args: args.clone(),
            working_dir: ctx.working_dir.to_path_buf(),
            cancel: ctx.cancel.clone(),
            ignore_vcs: self.ignore_vcs,
            rules: self.rules.clone(),
            roots: None,
        };
        Box::pin(async move {
            let tool = call.tool.clone();
            let result = match tokio::task::spawn_blocking(move || run(op, call)).await {
                Ok(result) => result,
                Err(e) => ToolError::Internal(format!("`{tool}` failed: {e}")).into(),
            };
            match &self.post_edit {
                Some(commands)
                    if !result.is_error && matches!(op, Op::WriteFile | Op::EditFile) =>
                {
                    commands.after(op == Op::WriteFile, result, args, ctx).await
                }
                _ => result,
            }
        })
    }
}

/// The largest file [`read_beneath`] reads.
const MAX_BENEATH: u64 = 1 << 20;

/// The text of `given` (relative to `base`, or absolute) when its real path is inside `base`,
/// reached without following a symlink after the check: an argument cannot lead out of
/// `base` with `..`, a symlink or a swap.
pub(crate) fn read_beneath(base: &std::path::Path, given: &str) -> Result<String, ToolError> {
    use std::io::Read;
    let rules = PathRules::new(&[".".to_owned()], &[])
        .ok_or_else(|| ToolError::Internal("no path rule".to_owned()))?;
    let roots = rules.expand(base)?;
    let real = roots.check(given, &resolve(base, given))?;
    let mut file = Fs::Checked
        .read(&real)
        .map_err(|e| ToolError::io("read", given, &e))?;
    let mut text = String::new();
    file.by_ref()
        .take(MAX_BENEATH + 1)
        .read_to_string(&mut text)
        .map_err(|e| ToolError::io("read", given, &e))?;
    if text.len() as u64 > MAX_BENEATH {
        return Err(ToolError::Rejected(format!(
            "`{given}` is larger than {MAX_BENEATH} bytes"
        )));
    }
    Ok(text)
}

fn run(op: Op, mut call: Call) -> ToolResult {
    if call.cancel.is_cancelled() {
        return ToolError::Cancelled.into();
    }
    if let Some(rules) = &call.rules {
        match rules.expand(&call.working_dir) {
            Ok(roots) => call.roots = Some(Arc::new(roots)),
            Err(e) => return e.into(),
        }
    }
    let call = &call;
    let text = match op {
        Op::ReadMultipleFiles => return files::read_multiple_files(call),
        Op::DirectoryTree => dirs::directory_tree(call),
        Op::EditFile => files::edit_file(call),
        Op::ListDirectory => dirs::list_directory(call),
        Op::ReadFile => files::read_file(call),
        Op::SearchFilesContent => search::search_files_content(call),
        Op::WriteFile => files::write_file(call),
        Op::CreateDirectory => dirs::create_directory(call),
        Op::RemoveDirectory => dirs::remove_directory(call),
    };
    text.map_or_else(ToolResult::from, ToolResult::ok)
}
