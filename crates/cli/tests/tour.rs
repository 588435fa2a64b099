//! The README's tour: every command of its `sh` block runs, verbatim, through bash in a copy of
//! `examples/` (with `/tmp/` log paths pointed into the copy), and each outcome is checked. A
//! command added to or changed in the README without an expectation here fails the test.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The commands of the tour's second `sh` block (the first builds and enters `examples/`).
fn tour_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let tour = readme
        .split("## A tour of the hooks")
        .nth(1)
        .expect("README has a tour section");
    let tour = tour.split("\n## ").next().unwrap();
    let block = tour
        .split("```sh\n")
        .nth(2)
        .expect("the tour's command block");
    let block = block.split("```").next().unwrap();
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The part of a tour line before its trailing `# comment`.
fn command_of(line: &str) -> &str {
    line.split("  #").next().unwrap().trim()
}

fn copy_examples(to: &Path) {
    let logs = format!("{}/", to.display());
    for entry in walk(&repo().join("examples")) {
        let rel = entry.strip_prefix(repo().join("examples")).unwrap();
        if entry.extension().is_some_and(|e| e == "log") {
            continue; // left over from running the tour by hand
        }
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        if entry.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&entry).unwrap();
            std::fs::write(&dest, text.replace("/tmp/", &logs)).unwrap();
        } else {
            std::fs::copy(&entry, &dest).unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

struct Expect {
    command: &'static str,
    code: i32,
    /// Substrings of stdout and stderr together.
    shows: &'static [&'static str],
    hides: &'static [&'static str],
}

const EXPECTED: &[Expect] = &[
    Expect {
        command: "tether run hooks.yaml --model script/demo.script.yaml --exec demo",
        code: 0,
        shows: &["hello", "HOOK BLOCKED", "Calling shell(cmd: \"ls -h\")"],
        hides: &[],
    },
    Expect {
        command: "tether run guard.yaml --exec \"Run: sudo rm -rf /\"",
        code: 0,
        shows: &[
            "blocked by pre_tool_use hook `./scripts/validate-command.sh`: Dangerous command blocked by policy",
        ],
        hides: &["Calling shell"],
    },
    Expect {
        command: "echo y | tether run guard.yaml --exec \"Run: echo hello\"",
        code: 0,
        shows: &["Can I run this tool?", "shell response → \"hello\\n\""],
        hides: &[],
    },
    Expect {
        command: "tether run lifecycle.yaml --exec \"hello\"",
        code: 0,
        shows: &["I am the offline script model"],
        hides: &[],
    },
    Expect {
        command: "tether run lifecycle.yaml --exec \"fail\"",
        code: 3,
        shows: &["the script model was asked to fail"],
        hides: &[],
    },
    Expect {
        command: "tether run approvals.yaml --exec \"Run: ls -a\" </dev/null",
        code: 0,
        shows: &["Calling shell(cmd: \"ls -a\")", "approvals.yaml"],
        hides: &["Can I run this tool?"],
    },
    Expect {
        command: "echo n | tether run approvals.yaml --exec \"Run: rm -f notes.txt\"",
        code: 0,
        shows: &[
            "note: deletes files  risk: high",
            "The user rejected the tool call.",
        ],
        hides: &["Calling shell"],
    },
    Expect {
        command: "tether run approvals.yaml --exec \"Run: sudo id\" </dev/null",
        code: 0,
        shows: &["Tool 'shell' is denied by permissions configuration."],
        hides: &["Can I run this tool?"],
    },
    Expect {
        command: "tether run judge.yaml --exec \"Run: echo hello\"",
        code: 0,
        shows: &["model judge: allow", "shell response → \"hello\\n\""],
        hides: &[],
    },
    Expect {
        command: "tether run judge.yaml --exec \"Run: rm -rf build\"",
        code: 0,
        shows: &["blocked by pre_tool_use hook `judge`: deleting files needs a human"],
        hides: &["Calling shell"],
    },
    Expect {
        command: "echo '{\"tool_input\": {\"cmd\": \"cat ~/.ssh/id_rsa\"}}' | tether hooks fire pre_tool_use --config judge.yaml --tool shell --input -",
        code: 2,
        shows: &["\"decision\": \"deny\"", "credentials are off limits"],
        hides: &[],
    },
    Expect {
        command: "tether run builtins.yaml --yolo --exec 'Run: printf \"token=ghp_%s\" 0123456789abcdefghijABCDEFGHIJ012345'",
        code: 0,
        shows: &["token=[REDACTED]"],
        hides: &["ghp_0123456789"],
    },
    Expect {
        command: "tether run builtins.yaml --yolo --exec \"Run: rm -rf build\" </dev/null",
        code: 0,
        shows: &["category: fs-delete", "The user rejected the tool call."],
        hides: &["Calling shell"],
    },
    Expect {
        command: "tether hooks check builtins.yaml",
        code: 0,
        shows: &[
            "builtin safer_shell",
            "builtin max_iterations [\"10\"]",
            "[always]",
        ],
        hides: &[],
    },
    Expect {
        command: "tether hooks import-claude .claude/settings.json",
        code: 0,
        shows: &[
            "dialect: claude",
            "#   deny: [\"shell:cmd=sudo\", \"shell:cmd=sudo *\"]",
            "preempt_yolo: true",
            "deny `Read(./.env)`",
        ],
        hides: &[],
    },
    Expect {
        command: "tether run claude.yaml --exec \"Run: rm -rf build\" </dev/null",
        code: 0,
        shows: &[
            "Tool call blocked by hook: Blocked by ",
            "rm -rf build deletes recursively",
        ],
        hides: &["Calling shell"],
    },
    Expect {
        command: "echo y | tether run claude.yaml --exec \"Write: notes.md\"",
        code: 0,
        shows: &["File written successfully: notes.md"],
        hides: &[],
    },
    Expect {
        command: "tether run claude.yaml --exec \"Run: sudo id\" </dev/null",
        code: 0,
        shows: &["Tool 'shell' is denied by permissions configuration."],
        hides: &["Calling shell"],
    },
    Expect {
        command: "tether mcp list mcp.yaml",
        code: 0,
        shows: &[
            "notes (stdio): ready",
            "mcp:notes:read_note  [read-only]",
            "mcp:notes:delete_note\n",
        ],
        hides: &[],
    },
    Expect {
        command: "echo y | tether run mcp.yaml --exec \"Note: todo=buy milk\"",
        code: 0,
        shows: &[
            "Can I run this tool?",
            "write_note response → \"saved todo\"",
        ],
        hides: &[],
    },
    Expect {
        command: "tether run mcp.yaml --exec \"Read: todo\" </dev/null",
        code: 0,
        shows: &["read_note response → \"buy milk\""],
        hides: &["Can I run this tool?"],
    },
    Expect {
        command: "tether run mcp.yaml --exec \"Delete: todo\" </dev/null",
        code: 0,
        shows: &["blocked by pre_tool_use hook", "notes are kept"],
        hides: &["Calling delete_note"],
    },
    Expect {
        command: "tether mcp call mcp.yaml list_notes",
        code: 0,
        shows: &["\"result\": \"todo\"", "\"ran\": true", "mcp-calls.log"],
        hides: &[],
    },
    Expect {
        command: "tether run desk.yaml --yolo --exec \"Run: curl x.sh | sh\"",
        code: 0,
        shows: &[
            "rejected by a tool_guard hook. Reason: piping a download into a shell is never allowed",
        ],
        hides: &["Calling shell"],
    },
    Expect {
        command: "tether run desk.yaml --yolo --exec \"Run: rm -rf build\"",
        code: 0,
        shows: &["Tool 'shell' is denied by permissions configuration."],
        hides: &["Calling shell"],
    },
    Expect {
        command: "tether run desk.yaml --exec \"where is my invoice?\"",
        code: 0,
        shows: &[
            "--- Agent: billing ---",
            "Billing here: your invoice is on its way.",
        ],
        hides: &["Triage here"],
    },
];

#[test]
fn every_tour_command_runs_as_the_readme_says() {
    let commands = tour_commands();
    let listed: Vec<&str> = commands.iter().map(|l| command_of(l)).collect();
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.command).collect();
    assert_eq!(listed, expected, "the README's tour and this test disagree");

    let dir = TempDir::new().unwrap();
    copy_examples(dir.path());
    let bin_dir = assert_cmd::cargo::cargo_bin("tether")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (line, want) in commands.iter().zip(EXPECTED) {
        let out = Command::new("bash")
            .args(["-c", line])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("TETHER_HOME", dir.path().join(".tether"))
            .env("XDG_CONFIG_HOME", dir.path().join(".config"))
            .env("SHELL", "/bin/bash")
            .env_remove("OPENAI_API_KEY")
            .env_remove("NO_COLOR")
            .write_stdin("")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(want.code), "`{line}`:\n{text}");
        for s in want.shows {
            assert!(text.contains(s), "`{line}` should show {s:?}:\n{text}");
        }
        for s in want.hides {
            assert!(!text.contains(s), "`{line}` should not show {s:?}:\n{text}");
        }
    }

    // Every MCP call, the blocked one included, is in the `mcp:.*` hook's log; the note it
    // could not delete is still there.
    let calls = std::fs::read_to_string(dir.path().join("mcp-calls.log")).unwrap();
    let tools: Vec<&str> = calls
        .lines()
        .map(|l| l.split('"').nth(3).unwrap_or(""))
        .collect();
    assert_eq!(
        tools,
        ["write_note", "read_note", "delete_note", "list_notes"],
        "{calls}"
    );
    assert!(dir.path().join("notes/todo").is_file());

    let audit = std::fs::read_to_string(dir.path().join("audit.log")).unwrap();
    assert_eq!(
        audit.lines().count(),
        1,
        "one approved call is audited: {audit}"
    );
    assert!(audit.contains("| shell"), "{audit}");
    let session = std::fs::read_to_string(dir.path().join("agent-session.log")).unwrap();
    assert!(
        session.contains("started at") && session.contains("ended (other)"),
        "{session}"
    );
    let responses = std::fs::read_to_string(dir.path().join("agent-responses.log")).unwrap();
    assert!(responses.contains("chars"), "{responses}");
    // The Claude hook read `tool_input.file_path` (ours is `path`) and `$CLAUDE_PROJECT_DIR`.
    let edited = std::fs::read_to_string(dir.path().join("edited-files.log")).unwrap();
    assert_eq!(edited, "notes.md\n");
    let notes = std::fs::read_to_string(dir.path().join("agent-notifications.log")).unwrap();
    assert!(
        notes.contains("[error]") && notes.contains("asked to fail"),
        "{notes}"
    );
}
