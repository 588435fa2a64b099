//! The interactive session on a real terminal, driven through tmux (send-keys /
//! capture-pane): a prompt, a confirmation answered `y`, a blocked call shown with its hook and
//! reason, and `/exit` firing `session_end`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use tempfile::TempDir;

struct Tmux {
    socket: String,
}

impl Tmux {
    /// A 160x50 tmux session `t` on socket `NAME-PID` running `tether run agent.yaml EXTRA` in
    /// `cwd`, with `TETHER_HOME` and `XDG_CONFIG_HOME` under `root`; returns once the banner
    /// shows.
    fn start(name: &str, cwd: &Path, root: &Path, extra: &str) -> Self {
        let tmux = Self {
            socket: format!("{name}-{}", std::process::id()),
        };
        let command = format!(
            "cd {} && env TETHER_HOME={} XDG_CONFIG_HOME={} SHELL=/bin/bash TERM=xterm {} run agent.yaml{extra}",
            cwd.display(),
            root.join("home").display(),
            root.join("config").display(),
            assert_cmd::cargo::cargo_bin("tether").display()
        );
        tmux.cmd(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "160",
            "-y",
            "50",
            &command,
        ]);
        tmux.wait_for("/help for commands");
        tmux
    }

    fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, keys: &str) {
        self.cmd(&["send-keys", "-t", "t", "-l", keys]);
        self.cmd(&["send-keys", "-t", "t", "Enter"]);
    }

    fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-t", "t", "-p", "-S", "-200"])
    }

    /// Waits until the screen shows `text`.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "never saw {text:?} on:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cmd(&["kill-server"]);
    }
}

fn wait_file(path: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if let Ok(t) = std::fs::read_to_string(path)
            && !t.trim().is_empty()
        {
            return t;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn an_interactive_session_in_tmux() {
    let dir = TempDir::new().unwrap();
    let ended = dir.path().join("ended.json");
    std::fs::write(
        dir.path().join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: 'tool said: {{tool_result}}'}\ndefault: {text: 'hello from the script model'}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{{type: shell}}]\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - {{type: command, name: guard, command: {}}}\n      session_end:\n        - {{type: command, command: 'cat > {}'}}\n",
            serde_json::to_string(r#"grep -q '"cmd":"rm' && { echo 'no deletions here' >&2; exit 2; }; exit 0"#).unwrap(),
            ended.display()
        ),
    )
    .unwrap();
    let tmux = Tmux::start("tether-test", dir.path(), dir.path(), "");

    tmux.send("hi there");
    tmux.wait_for("hello from the script model");

    tmux.send("Run: echo confirmed-and-ran");
    tmux.wait_for("Can I run this tool? ([y]es/[a]ll/[n]o)");
    tmux.send("y");
    tmux.wait_for("tool said: confirmed-and-ran");

    tmux.send("Run: rm -rf /tmp/nothing-here");
    let screen = tmux.wait_for("no deletions here");
    assert!(
        screen.contains("blocked by pre_tool_use hook `guard`: no deletions here"),
        "{screen}"
    );

    tmux.send("/exit");
    let end: serde_json::Value = serde_json::from_str(&wait_file(&ended)).unwrap();
    assert_eq!(end["reason"], "prompt_input_exit");
}

#[test]
fn snapshots_and_undo_in_tmux() {
    let dir = TempDir::new().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(&repo)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@e")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@e")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("keep.txt"), "original\n").unwrap();
    std::fs::write(
        repo.join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: 'ran it'}\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: shell}]\n",
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "init"]);
    std::fs::create_dir_all(dir.path().join("config/tether")).unwrap();
    std::fs::write(
        dir.path().join("config/tether/config.yaml"),
        "settings:\n  snapshot: true\n",
    )
    .unwrap();

    let tmux = Tmux::start("tether-undo", &repo, dir.path(), " --yolo");
    tmux.send("Run: echo changed > keep.txt; echo new > added.txt");
    tmux.wait_for("ran it");
    assert_eq!(
        std::fs::read_to_string(repo.join("keep.txt")).unwrap(),
        "changed\n"
    );
    tmux.send("/snapshots");
    tmux.wait_for("#1 ");
    tmux.send("/undo");
    let screen = tmux.wait_for("undid #1");
    assert!(
        screen.contains("restored keep.txt") && screen.contains("removed added.txt"),
        "{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("keep.txt")).unwrap(),
        "original\n"
    );
    assert!(!repo.join("added.txt").exists());
    tmux.send("/exit");
}

#[test]
fn welcome_message_help_and_agent_commands_in_tmux() {
    let dir = TempDir::new().unwrap();
    let ended = dir.path().join("ended.json");
    std::fs::write(
        dir.path().join("s.yaml"),
        "rules:\n  - match: '(?s)^(?P<p>.+)$'\n    reply: {text: 'PROMPT WAS <${p}>'}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/s.yaml\n    welcome_message: 'Welcome to the notes desk.'\n    toolsets: [{{type: shell}}]\n    commands:\n      greet:\n        description: Say hello\n        instruction: \"Greet ${{args[0]}}: ${{shell({{cmd: 'echo from-a-tool'}})}}\"\n    hooks:\n      session_end:\n        - {{type: command, command: 'cat > {}'}}\n",
            ended.display()
        ),
    )
    .unwrap();
    let tmux = Tmux::start("tether-cmds", dir.path(), dir.path(), "");
    tmux.wait_for("Welcome to the notes desk.");
    tmux.send("/help");
    tmux.wait_for("/greet            Say hello");
    // The command's shell call is asked like any other.
    tmux.send("/greet Ada");
    tmux.wait_for("Can I run this tool? ([y]es/[a]ll/[n]o)");
    tmux.send("y");
    tmux.wait_for("PROMPT WAS <Greet Ada: from-a-tool>");
    tmux.send("/nope");
    tmux.wait_for("unknown command `/nope`");
    tmux.send("/exit");
    wait_file(&ended);
}

#[test]
fn a_fallback_model_answers_in_tmux() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("down.yaml"),
        "default: {error: {kind: server, message: primary is down}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("up.yaml"),
        "default: {text: 'BACKUP ANSWERS'}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        "agents:\n  root:\n    model: script/down.yaml\n    welcome_message: 'Resilient desk.'\n    fallback:\n      models: [script/up.yaml]\n      retries: -1\n",
    )
    .unwrap();
    let tmux = Tmux::start("tether-fallback", dir.path(), dir.path(), "");
    tmux.wait_for("Resilient desk.");
    tmux.send("hello");
    tmux.wait_for("falling back to script/up.yaml");
    tmux.wait_for("BACKUP ANSWERS");
    tmux.send("/exit");
}
