//! Issue 22, findings 9 and 10, written as the attacks: what Tether keeps under `$TETHER_HOME`
//! (prompts, tool output, tool arguments with a `ghp_` token) must be readable by its owner
//! only, also when an older Tether left the home readable by every local user; and a
//! repository's `AGENTS.md` symlinked to a file outside it must never reach the model.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;
use tether_test_support::mcp;

/// What the hostile model sends: a token in a memory, and a tool argument.
const TOKEN: &str = "ghp_leashLeashLeashLeashLeashLeash0000";

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every directory and file under `root` (itself included), symlinks not followed.
fn walk(root: &Path) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
        out.push((p, meta.is_dir()));
    }
    out.sort();
    out
}

/// Every path under `root` whose mode is not 0700 (directories) or 0600 (files).
fn not_private(root: &Path) -> Vec<String> {
    walk(root)
        .into_iter()
        .filter(|(p, dir)| mode(p) != if *dir { 0o700 } else { 0o600 })
        .map(|(p, _)| format!("{:o} {}", mode(&p), p.display()))
        .collect()
}

/// A home, a project and a temp directory, all temporary.
struct Setup {
    _tmp: TempDir,
    home: PathBuf,
    project: PathBuf,
    tmpdir: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let tmp = TempDir::new().unwrap();
        let home = tmp.path().join("tether-home");
        let project = tmp.path().join("project");
        let tmpdir = tmp.path().join("tmp");
        for d in [&project, &tmpdir] {
            std::fs::create_dir(d).unwrap();
            set_mode(d, 0o700);
        }
        Self {
            _tmp: tmp,
            home,
            project,
            tmpdir,
        }
    }

    /// The agent: a memory, a shell, an MCP server (its log under `$TETHER_HOME/logs`) and a
    /// response cache under `$TETHER_HOME/cache`; the model stores the token, prints enough
    /// to be spooled, calls the server and records the spool's modes while it exists.
    fn write_agent(&self) {
        let server = format!(
            "command: {}\n        args: [{}, --log, {}]",
            mcp::python().display(),
            mcp::test_server().display(),
            self.project.join("calls.log").display()
        );
        std::fs::write(
            self.project.join("agent.yaml"),
            format!(
                "agents:\n  root:\n    model: script/model.yaml\n    cache: {{enabled: true, path: {}}}\n    toolsets:\n      - type: memory\n      - type: shell\n      - type: mcp\n        {server}\n",
                self.home.join("cache/answers.json").display()
            ),
        )
        .unwrap();
        let spool = self.tmpdir.join("tether-shell-output-*");
        let spool = spool.display();
        std::fs::write(
            self.project.join("model.yaml"),
            format!(
                "replies:
  - tool_calls:
      - {{name: add_memory, arguments: {{memory: 'deploy token {TOKEN}'}}}}
      - {{name: echo, arguments: {{text: '{TOKEN}'}}}}
  - tool_calls:
      - {{name: shell, arguments: {{cmd: 'echo {TOKEN}; seq 1 100000'}}}}
  - tool_calls:
      - {{name: shell, arguments: {{cmd: \"stat -c '%a %F' {spool} {spool}/* > modes.txt\"}}}}
  - text: stored
"
            ),
        )
        .unwrap();
    }

    fn run(&self, prompt: &str) -> Out {
        let out = Command::cargo_bin("tether")
            .unwrap()
            .current_dir(&self.project)
            .env("TETHER_HOME", &self.home)
            .env("HOME", self.project.join("user-home"))
            .env("XDG_CONFIG_HOME", self.project.join(".config"))
            .env("TMPDIR", &self.tmpdir)
            .env("SHELL", "/bin/bash")
            .env_remove("TETHER_LOG")
            .args(["run", "agent.yaml", "--yolo", "--exec", prompt])
            .output()
            .unwrap();
        Out {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The run went through every writer: the files the walk must cover exist.
    fn assert_every_writer_wrote(&self, out: &Out) {
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("stored"), "{}", out.stdout);
        for f in [
            "sessions.db",
            "memory/default/memory.db",
            "cache/answers.json",
        ] {
            assert!(self.home.join(f).is_file(), "{f} missing");
        }
        let mcp_log = walk(&self.home.join("logs"))
            .into_iter()
            .any(|(p, _)| p.file_name().unwrap().to_string_lossy().starts_with("mcp-"));
        assert!(mcp_log, "the MCP server's log is under `logs/SESSION`");
        // The spool held the whole output while the session lasted, privately.
        let modes = std::fs::read_to_string(self.project.join("modes.txt")).unwrap();
        // (Each run has its spool directory; the earlier ones are empty by now.)
        let files = modes
            .lines()
            .filter(|l| l.ends_with("regular file"))
            .count();
        assert_eq!(files, 1, "{modes}");
        assert!(
            modes
                .lines()
                .all(|l| l == "700 directory" || l == "600 regular file"),
            "{modes}"
        );
        let memories = std::fs::read(self.home.join("memory/default/memory.db")).unwrap();
        assert!(
            String::from_utf8_lossy(&memories).contains(TOKEN),
            "the token is in the memory file, which is why it must be private"
        );
    }
}

#[test]
fn every_file_tether_keeps_is_readable_by_its_owner_only() {
    let s = Setup::new();
    s.write_agent();
    let out = s.run("remember the deploy token");
    s.assert_every_writer_wrote(&out);
    assert_eq!(not_private(&s.home), Vec::<String>::new());
    assert_eq!(not_private(&s.tmpdir), Vec::<String>::new());
    assert!(
        !out.stderr.contains("readable by other users"),
        "nothing was wide: {}",
        out.stderr
    );
}

#[test]
fn a_home_an_older_tether_left_readable_is_tightened_and_said_once() {
    let s = Setup::new();
    s.write_agent();
    s.assert_every_writer_wrote(&s.run("remember the deploy token"));
    // As an older Tether (umask 022) left them.
    for (p, dir) in walk(&s.home) {
        set_mode(&p, if dir { 0o755 } else { 0o644 });
    }
    assert_ne!(not_private(&s.home), Vec::<String>::new());

    // Another question: a cached answer would skip the tools.
    let out = s.run("remember it again");
    s.assert_every_writer_wrote(&out);
    assert_eq!(not_private(&s.home), Vec::<String>::new());
    assert_eq!(
        out.stderr.matches("readable by other users").count(),
        1,
        "one notice: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "warning: `{}` was readable by other users",
            s.home.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn a_symlinked_agents_md_never_brings_a_file_from_outside_the_repository_to_the_model() {
    let tmp = TempDir::new().unwrap();
    let secret = tmp.path().join("user-home/.ssh/id_rsa");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "-----BEGIN KEY----- LEASH-SECRET-MARKER").unwrap();
    // The hostile repository: AGENTS.md points at the key, RULES.md is an honest file.
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::os::unix::fs::symlink(&secret, repo.join("AGENTS.md")).unwrap();
    std::fs::write(repo.join("RULES.md"), "RULES-MARKER: be kind").unwrap();
    std::fs::write(
        repo.join("agent.yaml"),
        r#"agents:
  root:
    model: script/model.yaml
    add_prompt_files: [AGENTS.md, RULES.md]
    hooks:
      prompt_file_guard:
        - {type: command, command: 'cat >> guard-input.jsonl; echo; echo "{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}"'}
      before_llm_call:
        - {type: command, command: 'cat >> llm-input.jsonl; echo >> llm-input.jsonl'}
"#,
    )
    .unwrap();
    std::fs::write(repo.join("model.yaml"), "default: {text: answered}\n").unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(&repo)
        .env("TETHER_HOME", tmp.path().join("tether-home"))
        .env("HOME", tmp.path().join("user-home"))
        .env("XDG_CONFIG_HOME", tmp.path().join("config"))
        .env("SHELL", "/bin/bash")
        .env("TETHER_LOG", "warn")
        .args(["run", "agent.yaml", "--exec", "hello", "--hook-log"])
        .arg(tmp.path().join("hooks.jsonl"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The turn goes on without the refused file.
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("answered"), "{stdout}");

    // What the model was sent: the honest file, not the key.
    let sent = std::fs::read_to_string(repo.join("llm-input.jsonl")).unwrap();
    assert!(sent.contains("RULES-MARKER"), "the channel works: {sent}");
    assert!(!sent.contains("LEASH-SECRET-MARKER"), "{sent}");
    // Nor did any guard hook see it.
    let guarded = std::fs::read_to_string(repo.join("guard-input.jsonl")).unwrap();
    assert!(guarded.contains("RULES-MARKER"), "{guarded}");
    assert!(!guarded.contains("LEASH-SECRET-MARKER"), "{guarded}");
    let session = std::fs::read(tmp.path().join("tether-home/sessions.db")).unwrap();
    assert!(!String::from_utf8_lossy(&session).contains("LEASH-SECRET-MARKER"));

    // It is said: a warning in the debug log and a note in the hook log.
    let skipped = format!("prompt file `{}` skipped", repo.join("AGENTS.md").display());
    assert!(stderr.contains(&skipped), "{stderr}");
    let log = std::fs::read_to_string(tmp.path().join("hooks.jsonl")).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("add_prompt_files") && l.contains(&skipped)),
        "{log}"
    );
    assert!(!log.contains("LEASH-SECRET-MARKER"), "{log}");
}
