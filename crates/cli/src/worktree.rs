//! `--worktree[=NAME]` (docs/design.md, Worktrees): a git worktree of the working directory's repository
//! under `$TETHER_HOME/worktrees/`, on a new branch `tether/NAME`, so the agent works on an
//! isolated checkout. Interactive sessions remove a clean worktree on exit and ask before
//! removing a dirty one; `--exec` runs keep it (the session resumes in it).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tether_exec::{ExecSpec, find_in_path};

use crate::common::{tether_home, user_error};

/// A created worktree.
#[derive(Debug, Clone)]
pub(crate) struct Worktree {
    /// The worktree's root.
    pub(crate) path: PathBuf,
    pub(crate) branch: String,
    /// The repository root it was branched from.
    pub(crate) source: PathBuf,
    /// Where the run works inside it (the original directory's place in the repository).
    pub(crate) working_dir: PathBuf,
}

/// Runs git; its trimmed stdout, or its stderr as the error.
async fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let program = find_in_path("git", &std::env::var("PATH").unwrap_or_default())
        .ok_or_else(|| user_error("`--worktree` needs git on PATH"))?;
    let mut spec = ExecSpec::new(program, dir);
    spec.args = args.iter().map(OsString::from).collect();
    let r = tether_exec::run(spec).await;
    if r.exit_code == Some(0) {
        Ok(r.stdout.lossy().trim().to_owned())
    } else {
        let why = r
            .spawn_error
            .unwrap_or_else(|| r.stderr.lossy().trim().to_owned());
        Err(anyhow::anyhow!("git {}: {why}", args.join(" ")))
    }
}

/// A name from the clock, unique enough per repository.
fn generated_name() -> String {
    let now = jiff::Zoned::now();
    format!(
        "{}-{:04x}",
        now.strftime("%Y%m%d-%H%M%S"),
        now.timestamp().subsec_nanosecond() & 0xffff
    )
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.')
}

pub(crate) async fn create(dir: &Path, name: &str) -> anyhow::Result<Worktree> {
    let source = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"]).await.map_err(
        |_| {
            user_error(format!(
                "`--worktree` needs a git repository; `{}` is not in one",
                dir.display()
            ))
        },
    )?);
    let name = if name.is_empty() {
        generated_name()
    } else {
        name.to_owned()
    };
    if !valid_name(&name) {
        return Err(user_error(format!(
            "invalid worktree name `{name}`: use letters, digits, `-`, `_` and `.`"
        )));
    }
    let repo = source
        .file_name()
        .map_or_else(|| "repo".into(), |n| n.to_string_lossy().into_owned());
    let path = tether_home().join("worktrees").join(&repo).join(&name);
    if path.exists() {
        return Err(user_error(format!(
            "the worktree `{}` already exists",
            path.display()
        )));
    }
    if let Some(parent) = path.parent() {
        // `$TETHER_HOME/worktrees/REPO` is Tether's (private); the worktree itself is git's.
        tether_exec::private::create_dir(&tether_home(), parent)
            .map_err(|e| user_error(format!("cannot create `{}`: {e}", parent.display())))?;
    }
    let branch = format!("tether/{name}");
    let target = path.display().to_string();
    git(
        &source,
        &["worktree", "add", "-b", &branch, &target, "HEAD"],
    )
    .await?;
    let relative = dir.strip_prefix(&source).unwrap_or(Path::new(""));
    let working_dir = path.join(relative);
    Ok(Worktree {
        working_dir: if working_dir.is_dir() {
            working_dir
        } else {
            path.clone()
        },
        path,
        branch,
        source,
    })
}

/// Whether the worktree has uncommitted changes.
pub(crate) async fn is_dirty(wt: &Worktree) -> bool {
    git(&wt.path, &["status", "--porcelain"])
        .await
        .map_or(true, |s| !s.is_empty())
}

/// Removes the worktree and its branch.
pub(crate) async fn remove(wt: &Worktree) -> anyhow::Result<()> {
    let target = wt.path.display().to_string();
    git(&wt.source, &["worktree", "remove", "--force", &target]).await?;
    git(&wt.source, &["branch", "-D", &wt.branch]).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain() {
        assert!(valid_name("fix-bug_2.x"));
        assert!(!valid_name("../escape"));
        assert!(!valid_name(".hidden"));
        assert!(!valid_name("a b"));
        assert!(valid_name(&generated_name()));
    }
}
