//! `type: git`: docker-agent's five read-only git tools (`git_status`, `git_log`,
//! `git_branches`, `git_show`, `git_blame`) with its answers' layout, run with the `git` CLI
//! through `tether-exec` in the working directory. Every argument the model writes reaches
//! git as data: a revision must not start with `-` and is resolved with
//! `rev-parse --verify --end-of-options`, paths follow `--` (pathspec magic off), and the
//! repository's own configuration cannot run a program (`core.fsmonitor`, external diff
//! drivers and text conversion are turned off), since a cloned repository is not trusted.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tether_exec::ExecSpec;

use crate::args::{parse, text};
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DEFAULT_LOG_LIMIT: usize = 20;
const MAX_LOG_LIMIT: usize = 1000;
const MAX_BLAME_LINES: usize = 400;
/// The longest path or revision taken (a path longer than `PATH_MAX` names no file).
const MAX_ARG: usize = 4096;
const GIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The toolset's system-prompt text.
pub const GIT_INSTRUCTION: &str = "## Git Tool

Read-only access to the working git repository:

- git_status — current branch and changed files.
- git_log — recent commits; supports limit and path filters.
- git_branches — local branches (current marked with *).
- git_show — a commit's metadata, message, and changed files.
- git_blame — line-by-line authorship for a file.

These tools never modify the repository. To stage, commit, or checkout, use the
shell tool.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Status,
    Log,
    Branches,
    Show,
    Blame,
}

/// One of the git tools.
#[derive(Debug)]
pub struct GitTool {
    definition: ToolDefinition,
    op: Op,
}

impl GitTool {
    /// The five tools, in docker-agent's order.
    pub fn all() -> Vec<Self> {
        let limit = json!({"description": "Maximum number of commits to return (default 20)", "type": "integer"});
        let tools = [
            (
                Op::Status,
                "git_status",
                "Show the working tree status: current branch and changed files (staged, unstaged, untracked).",
                object(json!({}), &[]),
            ),
            (
                Op::Log,
                "git_log",
                "Show recent commit history (hash, date, author, subject). Optionally limit the count or filter by path.",
                object(
                    json!({"limit": limit, "path": string("Only show commits that touch this path")}),
                    &[],
                ),
            ),
            (
                Op::Branches,
                "git_branches",
                "List local branches, marking the current one with an asterisk.",
                object(json!({}), &[]),
            ),
            (
                Op::Show,
                "git_show",
                "Show a commit's metadata, message, and changed files with added/deleted line counts (default HEAD).",
                object(
                    json!({"ref": string("Commit hash or revision to show (default HEAD)")}),
                    &[],
                ),
            ),
            (
                Op::Blame,
                "git_blame",
                "Show line-by-line authorship (commit and author) for a file at a revision (default HEAD).",
                object(
                    json!({
                        "path": string("File path to blame, relative to the repository root"),
                        "rev": string("Commit or revision to blame at (default HEAD)"),
                    }),
                    &["path"],
                ),
            ),
        ];
        tools
            .into_iter()
            .map(|(op, name, description, parameters)| Self {
                definition: ToolDefinition {
                    name: name.to_owned(),
                    description: description.to_owned(),
                    parameters,
                    read_only: true,
                    category: "git",
                },
                op,
            })
            .collect()
    }
}

#[derive(Debug, Deserialize)]
struct LogArgs {
    #[serde(default)]
    limit: i64,
    #[serde(default)]
    path: String,
}

#[derive(Debug, Deserialize)]
struct ShowArgs {
    #[serde(default, rename = "ref")]
    reference: String,
}

#[derive(Debug, Deserialize)]
struct BlameArgs {
    #[serde(default)]
    path: String,
    #[serde(default)]
    rev: String,
}

/// Runs `git ARGS` in `dir`; its stdout, or its stderr as the error.
async fn git(dir: &Path, ctx: ToolContext<'_>, args: &[&str]) -> Result<String, String> {
    let mut argv: Vec<OsString> = [
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.untrackedCache=false",
        "--no-pager",
        "--literal-pathspecs",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    argv.extend(args.iter().map(OsString::from));
    let mut spec = ExecSpec::new("git", dir);
    spec.args = argv;
    spec.env = ctx.env.to_vec();
    for (k, v) in [
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_EXTERNAL_DIFF", ""),
        ("LC_ALL", "C"),
    ] {
        spec.env.push((k.into(), v.into()));
    }
    spec.timeout = Some(GIT_TIMEOUT);
    spec.cancel = Some(ctx.cancel.clone());
    let record = tether_exec::run(spec).await;
    if let Some(why) = record.spawn_error {
        return Err(format!("cannot run git: {why}"));
    }
    if record.timed_out {
        return Err("git did not finish within 30s".to_owned());
    }
    if record.exit_code != Some(0) {
        let stderr = record.stderr.lossy();
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("git failed");
        return Err(first.trim().trim_start_matches("fatal: ").to_owned());
    }
    Ok(record.stdout.lossy())
}

/// The repository's top directory, or the error docker-agent gives when there is none.
async fn open(ctx: ToolContext<'_>) -> Result<String, String> {
    git(ctx.working_dir, ctx, &["rev-parse", "--show-toplevel"])
        .await
        .map(|s| s.trim_end_matches('\n').to_owned())
        .map_err(|why| {
            format!(
                "opening git repository at {}: {why}",
                ctx.working_dir.display()
            )
        })
}

async fn current_branch(dir: &Path, ctx: ToolContext<'_>) -> Option<String> {
    git(dir, ctx, &["symbolic-ref", "--short", "-q", "HEAD"])
        .await
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// A revision the model wrote, as a full commit hash.
async fn resolve(dir: &Path, ctx: ToolContext<'_>, rev: &str) -> Result<String, String> {
    let rev = if rev.trim().is_empty() { "HEAD" } else { rev };
    if rev.starts_with('-') || rev.chars().any(char::is_control) {
        return Err(format!("resolving revision {rev:?}: not a revision"));
    }
    let spec = format!("{rev}^{{commit}}");
    git(
        dir,
        ctx,
        &["rev-parse", "--verify", "-q", "--end-of-options", &spec],
    )
    .await
    .map(|s| s.trim().to_owned())
    .map_err(|_| format!("resolving revision {rev:?}: reference not found"))
}

async fn status(ctx: ToolContext<'_>) -> Result<String, String> {
    let dir = open(ctx).await?;
    let dir = Path::new(&dir);
    let raw = git(
        dir,
        ctx,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    )
    .await
    .map_err(|why| format!("reading status: {why}"))?;
    let branch = current_branch(dir, ctx)
        .await
        .unwrap_or_else(|| "(detached HEAD)".to_owned());
    let mut entries: Vec<(String, &str)> = Vec::new();
    let mut fields = raw.split('\0');
    while let Some(entry) = fields.next() {
        if entry.len() < 4 {
            continue;
        }
        let (xy, path) = entry.split_at(3);
        // A rename or copy is followed by its source path.
        if xy.starts_with(['R', 'C']) {
            fields.next();
        }
        entries.push((path.to_owned(), &xy[..2]));
    }
    entries.sort();
    let mut out = format!("On branch {branch}\n");
    if entries.is_empty() {
        out.push_str("Working tree clean.");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "{} changed file(s) [XY = staged/worktree; M=modified A=added D=deleted R=renamed ?=untracked]:",
        entries.len()
    );
    for (path, xy) in entries {
        let _ = writeln!(out, "  {xy} {path}");
    }
    Ok(out)
}

async fn log(ctx: ToolContext<'_>, a: LogArgs) -> Result<String, String> {
    let path = text("path", &a.path, MAX_ARG)?;
    let dir = open(ctx).await?;
    let dir = Path::new(&dir);
    if resolve(dir, ctx, "HEAD").await.is_err() {
        return Ok("No commits found.".to_owned());
    }
    let limit = usize::try_from(a.limit)
        .ok()
        .filter(|l| *l > 0)
        .unwrap_or(DEFAULT_LOG_LIMIT)
        .min(MAX_LOG_LIMIT)
        .to_string();
    let mut args = vec![
        "log",
        "--date-order",
        "-n",
        &limit,
        "--date=format:%Y-%m-%d",
        "--format=%H%x1f%ad%x1f%an%x1f%B%x1e",
        "HEAD",
        "--",
    ];
    if let Some(path) = path {
        args.push(path);
    }
    let raw = git(dir, ctx, &args)
        .await
        .map_err(|why| format!("reading log: {why}"))?;
    let mut out = String::new();
    for record in raw.split('\x1e') {
        let parts: Vec<&str> = record.trim_start_matches('\n').split('\x1f').collect();
        if let [hash, date, author, message] = parts[..] {
            let subject = message.trim().lines().next().unwrap_or_default();
            let short = hash.get(..8).unwrap_or(hash);
            let _ = writeln!(out, "{short}  {date}  {author}  {subject}");
        }
    }
    if out.is_empty() {
        return Ok("No commits found.".to_owned());
    }
    Ok(out)
}

async fn branches(ctx: ToolContext<'_>) -> Result<String, String> {
    let dir = open(ctx).await?;
    let dir = Path::new(&dir);
    let current = current_branch(dir, ctx).await.unwrap_or_default();
    let raw = git(
        dir,
        ctx,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads/"],
    )
    .await
    .map_err(|why| format!("reading branches: {why}"))?;
    let mut names: Vec<&str> = raw.lines().filter(|l| !l.is_empty()).collect();
    if names.is_empty() {
        return Ok("No branches.".to_owned());
    }
    names.sort_unstable();
    let mut out = String::new();
    for n in names {
        let marker = if n == current { "* " } else { "  " };
        let _ = writeln!(out, "{marker}{n}");
    }
    Ok(out)
}

async fn show(ctx: ToolContext<'_>, a: ShowArgs) -> Result<String, String> {
    let reference = text("ref", &a.reference, MAX_ARG)?;
    let dir = open(ctx).await?;
    let dir = Path::new(&dir);
    let hash = resolve(dir, ctx, reference.unwrap_or_default()).await?;
    let meta = git(
        dir,
        ctx,
        &[
            "show",
            "-s",
            "--date=format:%Y-%m-%d %H:%M:%S %z",
            "--format=%H%x1f%an%x1f%ae%x1f%ad%x1f%B",
            &hash,
        ],
    )
    .await
    .map_err(|why| format!("reading commit: {why}"))?;
    let parts: Vec<&str> = meta.splitn(5, '\x1f').collect();
    let [full, name, email, date, message] = parts[..] else {
        return Err("reading commit: unexpected output from git".to_owned());
    };
    let mut out = format!(
        "commit {full}\nAuthor: {name} <{email}>\nDate:   {date}\n\n{}\n",
        message.trim_end_matches('\n')
    );
    let stats = git(
        dir,
        ctx,
        &[
            "show",
            "--numstat",
            "--format=",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            &hash,
        ],
    )
    .await
    .unwrap_or_default();
    let rows: Vec<String> = stats
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, '\t');
            let (add, del, name) = (f.next()?, f.next()?, f.next()?);
            let n = |s: &str| s.parse::<u64>().unwrap_or(0);
            Some(format!("  {name} (+{}, -{})", n(add), n(del)))
        })
        .collect();
    if !rows.is_empty() {
        out.push_str("\nChanged files:\n");
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    Ok(out)
}

async fn blame(ctx: ToolContext<'_>, a: BlameArgs) -> Result<String, String> {
    let Some(path) = text("path", &a.path, MAX_ARG)? else {
        return Err("path is required.".to_owned());
    };
    let rev = text("rev", &a.rev, MAX_ARG)?;
    let dir = open(ctx).await?;
    let dir = Path::new(&dir);
    let hash = resolve(dir, ctx, rev.unwrap_or_default()).await?;
    let raw = git(
        dir,
        ctx,
        &["blame", "--porcelain", "--no-textconv", &hash, "--", path],
    )
    .await
    .map_err(|why| format!("blaming {path}: {why}"))?;
    // Porcelain: a header per line (`HASH orig final [count]`), the commit's fields the first
    // time it appears, then the line itself after a tab.
    let mut authors: std::collections::HashMap<String, String> = Default::default();
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut commit = String::new();
    for l in raw.lines() {
        if let Some(text) = l.strip_prefix('\t') {
            let author = authors.get(&commit).cloned().unwrap_or_default();
            lines.push((commit.clone(), format!("{author}\x1f{text}")));
        } else if let Some(name) = l.strip_prefix("author ") {
            authors.insert(commit.clone(), name.to_owned());
        } else if l.len() >= 40 && l.as_bytes()[..40].iter().all(u8::is_ascii_hexdigit) {
            commit = l[..40].to_owned();
        }
    }
    let mut out = String::new();
    for (i, (hash, rest)) in lines.iter().enumerate() {
        if i >= MAX_BLAME_LINES {
            let _ = writeln!(
                out,
                "... ({} more lines truncated)",
                lines.len() - MAX_BLAME_LINES
            );
            break;
        }
        let (author, text) = rest.split_once('\x1f').unwrap_or(("", rest));
        let _ = writeln!(out, "{} {author:<20} {:>4}| {text}", &hash[..8], i + 1);
    }
    Ok(out)
}

impl Tool for GitTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let name = self.definition.name.as_str();
        Box::pin(async move {
            let result = match self.op {
                Op::Status => status(ctx).await,
                Op::Branches => branches(ctx).await,
                Op::Log => match parse::<LogArgs>(name, args) {
                    Ok(a) => log(ctx, a).await,
                    Err(e) => return e.into(),
                },
                Op::Show => match parse::<ShowArgs>(name, args) {
                    Ok(a) => show(ctx, a).await,
                    Err(e) => return e.into(),
                },
                Op::Blame => match parse::<BlameArgs>(name, args) {
                    Ok(a) => blame(ctx, a).await,
                    Err(e) => return e.into(),
                },
            };
            match result {
                Ok(text) => ToolResult::ok(text),
                Err(why) => ToolResult::error(format!("Error: {why}")),
            }
        })
    }
}
