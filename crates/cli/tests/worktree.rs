//! `tether run --worktree[=NAME]` (docs/design.md, Worktrees): a git worktree under `$TETHER_HOME`,
//! `worktree_create` fired inside it (and able to abort the run), resume re-attaching to it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Repo {
    dir: TempDir,
}

impl Repo {
    fn new(hook: &str) -> Self {
        let dir = TempDir::new().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("README.md"), "hello\n").unwrap();
        std::fs::write(
            repo.join("echo.script.yaml"),
            "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: '{{tool_result}}'}\ndefault: {text: ok}\n",
        )
        .unwrap();
        std::fs::write(
            repo.join("agent.yaml"),
            format!(
                "agents:\n  root:\n    model: script/echo.script.yaml\n    toolsets: [{{type: shell}}]\n    hooks:\n      worktree_create:\n        - {{type: command, command: {}}}\n",
                serde_json::to_string(hook).unwrap()
            ),
        )
        .unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-qm", "init"]);
        Self { dir }
    }

    fn repo(&self) -> std::path::PathBuf {
        self.dir.path().join("repo")
    }

    fn home(&self) -> std::path::PathBuf {
        self.dir.path().join("home")
    }

    fn tether(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::cargo_bin("tether")
            .unwrap()
            .current_dir(self.repo())
            .env("TETHER_HOME", self.home())
            .env("SHELL", "/bin/bash")
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }
}

#[test]
fn a_worktree_is_created_the_hook_runs_inside_it_and_resume_reattaches() {
    let seen = TempDir::new().unwrap();
    let log = seen.path().join("input.json");
    let repo = Repo::new(&format!(
        "cat > {l}; echo >> {l}; pwd >> {l}; echo Prepared worktree",
        l = log.display()
    ));
    let (code, out, err) = repo.tether(&[
        "run",
        "agent.yaml",
        "--worktree=feat",
        "--yolo",
        "--exec",
        "Run: pwd",
    ]);
    assert_eq!(code, 0, "{err}");
    let wt = repo.home().join("worktrees/repo/feat");
    assert!(
        wt.join("README.md").is_file(),
        "the worktree has the checkout"
    );
    assert!(
        out.ends_with(&format!("{}\n", wt.display())),
        "tools run in the worktree: {out}"
    );
    assert!(
        err.contains("Prepared worktree"),
        "the hook's output is shown: {err}"
    );

    let text = std::fs::read_to_string(&log).unwrap();
    let (json, pwd) = text.split_once('\n').unwrap();
    let input: Value = serde_json::from_str(json).unwrap();
    assert_eq!(input["hook_event_name"], "worktree_create");
    assert_eq!(input["worktree_path"], wt.display().to_string());
    assert_eq!(input["worktree_branch"], "tether/feat");
    assert_eq!(
        input["worktree_source_dir"],
        repo.repo().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(input["cwd"], wt.display().to_string());
    assert_eq!(input["session_id"], "");
    assert_eq!(
        pwd.trim(),
        wt.display().to_string(),
        "the hook runs inside the worktree"
    );

    // --exec keeps the worktree; resuming the session works in it again.
    let (code, out, err) = repo.tether(&[
        "run",
        "agent.yaml",
        "--resume",
        "--yolo",
        "--exec",
        "Run: pwd",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with(&format!("{}\n", wt.display())), "{out}");
}

#[test]
fn a_blocking_worktree_create_hook_aborts_the_run() {
    let repo = Repo::new("echo '{\"continue\": false, \"stop_reason\": \"npm install failed\"}'");
    let (code, out, err) = repo.tether(&["run", "agent.yaml", "--worktree", "--exec", "hello"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("worktree_create hook aborted the run: npm install failed"),
        "{err}"
    );
    assert!(!out.contains("--- Agent"), "no session ran: {out}");
}
