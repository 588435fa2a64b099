//! Realistic Claude Code settings files: each converts to YAML that loads as an agent's
//! hooks, with the expected events, matchers, commands and comments.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_config::{Dialect, HookKind, load_str};

use super::*;

/// The converted YAML placed under `agents.root`, loaded like `tether hooks check` does.
fn load(yaml: &str) -> tether_config::HooksConfig {
    let body: String = yaml.lines().map(|l| format!("    {l}\n")).collect();
    let file = format!("agents:\n  root:\n    model: openai/gpt-4o\n{body}");
    match load_str(&file, "agent.yaml", Path::new(".")) {
        Ok(f) => f.agents[0].hooks.clone(),
        Err(e) => panic!("{e}\n---\n{file}"),
    }
}

fn listing(hooks: &tether_config::HooksConfig) -> Vec<String> {
    hooks
        .iter()
        .map(|(event, entry, h)| {
            let matcher = if event.uses_matcher() {
                let lane = if entry.preempt_yolo { " preempt" } else { "" };
                format!(" [{}]{lane}", entry.matcher.source())
            } else {
                String::new()
            };
            let extra = match &h.kind {
                HookKind::Http { allowed_env, .. } => format!(" allowed_env={allowed_env:?}"),
                _ => String::new(),
            };
            let asynchronous = if h.run_async { " async" } else { "" };
            let dialect = if h.dialect == Dialect::Claude {
                " claude"
            } else {
                ""
            };
            format!(
                "{event}{matcher} {} {} {}s{dialect}{asynchronous}{extra}",
                h.type_name(),
                h.target(),
                h.timeout.as_secs()
            )
        })
        .collect()
}

#[test]
fn a_formatter_and_a_bash_guard_convert_with_tool_names_and_the_project_dir() {
    // The shape of Claude Code's documented examples: a Bash command logger/guard, a
    // formatter after edits, a desktop notification.
    let settings = json!({
        "permissions": {"allow": ["Bash(npm run lint)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh", "timeout": 10}
                ]}
            ],
            "PostToolUse": [
                {"matcher": "Edit|MultiEdit|Write", "hooks": [
                    {"type": "command", "command": "jq -r '.tool_input.file_path' | xargs npx prettier --write"}
                ]}
            ],
            "Notification": [
                {"hooks": [{"type": "command", "command": "notify-send 'Claude Code' 'Awaiting your input'"}]}
            ]
        }
    });
    let yaml = convert(&settings, ".claude/settings.json").unwrap();
    assert_eq!(
        yaml,
        r#"# Converted from .claude/settings.json by `tether hooks import-claude`.
# Paste under an agent (`agents.<name>.hooks`).
hooks:
  pre_tool_use:  # PreToolUse
    - matcher: "shell"
      preempt_yolo: true  # before permission rules and --yolo, as in Claude Code
      hooks:
        - type: command
          command: "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"
          dialect: claude
          timeout: 10
  post_tool_use:  # PostToolUse
    - matcher: "edit_file|write_file"
      hooks:
        - type: command
          command: "jq -r '.tool_input.file_path' | xargs npx prettier --write"
          dialect: claude
  notification:  # Notification
    - type: command
      command: "notify-send 'Claude Code' 'Awaiting your input'"
      dialect: claude

# Claude Code's permissions, as Tether's top-level `permissions` (uncomment at the top
# level of the agent file, beside `agents:`):
# permissions:
#   allow: ["shell:cmd=npm run lint"]
"#
    );
    assert_eq!(
        listing(&load(&yaml)),
        [
            "pre_tool_use [shell] preempt command \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh 10s claude",
            "post_tool_use [edit_file|write_file] command jq -r '.tool_input.file_path' | xargs npx prettier --write 60s claude",
            "notification command notify-send 'Claude Code' 'Awaiting your input' 60s claude",
        ]
    );
}

#[test]
fn session_and_prompt_events_convert_and_flat_matchers_become_comments() {
    let settings = json!({
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "cat .claude/context.md"}]}
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "python3 .claude/hooks/validate_prompt.py", "timeout": 5}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": ".claude/hooks/check-tests.sh"}]}],
            "SubagentStop": [{"hooks": [{"type": "command", "command": ".claude/hooks/log-subagent.sh"}]}],
            "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": ".claude/hooks/backup-transcript.sh"}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": ".claude/hooks/cleanup.sh", "async": true}]}]
        }
    });
    let yaml = convert(&settings, "settings.json").unwrap();
    assert!(
        yaml.contains("    # Claude matcher `startup` dropped: `session_start` hooks always run"),
        "{yaml}"
    );
    assert!(
        yaml.contains("    # Claude matcher `auto` dropped: `pre_compact` hooks always run"),
        "{yaml}"
    );
    assert_eq!(
        listing(&load(&yaml)),
        [
            "session_start command cat .claude/context.md 60s claude",
            "user_prompt_submit command python3 .claude/hooks/validate_prompt.py 5s claude",
            "session_end command .claude/hooks/cleanup.sh 60s claude async",
            "pre_compact command .claude/hooks/backup-transcript.sh 60s claude",
            "subagent_stop command .claude/hooks/log-subagent.sh 60s claude",
            "stop command .claude/hooks/check-tests.sh 60s claude",
        ]
    );
}

#[test]
fn hooks_without_an_equivalent_are_kept_as_comments() {
    let settings = json!({
        "hooks": {
            "PreToolUse": [
                {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "./audit-mcp.sh"}]},
                {"matcher": "WebFetch|Read", "hooks": [{"type": "command", "command": "./check-url.sh", "async": true}]},
                {"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "Verify the command is safe"}]}
            ],
            "PostToolUse": [
                {"matcher": "*", "hooks": [{
                    "type": "http",
                    "url": "https://audit.example.com/claude",
                    "headers": {"Authorization": "Bearer $AUDIT_TOKEN"},
                    "allowedEnvVars": ["AUDIT_TOKEN"],
                    "timeout": 5
                }]}
            ],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the assistant finish every task? $ARGUMENTS"}]}],
            "TeammateIdle": [{"hooks": [{"type": "command", "command": "./idle.sh"}]}]
        }
    });
    let yaml = convert(&settings, "settings.json").unwrap();
    for comment in [
        "  # no Tether event for Claude Code's `TeammateIdle`; its 1 hook group(s) were not converted",
        "    # matcher `mcp__github__.*` is a regex; kept as written",
        "    # no Tether tool for `WebFetch`; kept as written",
        "        # `async: true` dropped: `pre_tool_use` hooks can block, so Tether awaits them",
        "    # matcher \"shell\": nothing Tether can run",
        "        # no equivalent for a `type: agent` hook: \"Verify the command is safe\"",
        "    # no equivalent for a `type: prompt` hook: \"Did the assistant finish every task? $ARGUMENTS\"",
    ] {
        assert!(yaml.contains(comment), "missing `{comment}` in\n{yaml}");
    }
    assert_eq!(
        listing(&load(&yaml)),
        [
            "pre_tool_use [mcp__github__.*] preempt command ./audit-mcp.sh 60s claude",
            "pre_tool_use [WebFetch|read_file|read_multiple_files] preempt command ./check-url.sh 60s claude",
            "post_tool_use [*] http https://audit.example.com/claude 5s claude allowed_env=[\"AUDIT_TOKEN\"]",
        ]
    );
    assert!(
        yaml.contains("\"Authorization\": \"Bearer ${AUDIT_TOKEN}\""),
        "{yaml}"
    );
}

#[test]
fn a_file_without_hooks_is_an_error() {
    assert_eq!(
        convert(&json!({"permissions": {}}), "s.json"),
        Err("`s.json` has no `hooks` section".to_owned())
    );
}

#[test]
fn permissions_become_a_commented_top_level_block() {
    let settings = json!({
        "permissions": {
            "allow": ["Bash(npm run test:*)", "Bash(git status)", "Read", "Grep(*)"],
            "ask": ["Bash(git push:*)"],
            "deny": ["Bash(rm -rf *)", "Read(./.env)", "WebFetch(domain:example.com)", "Bash(docker run a:b)"],
            "defaultMode": "acceptEdits"
        },
        "hooks": {}
    });
    let yaml = convert(&settings, "settings.json").unwrap();
    let block = &yaml[yaml.find("\n# Claude Code's permissions").unwrap()..];
    assert_eq!(
        block,
        r#"
# Claude Code's permissions, as Tether's top-level `permissions` (uncomment at the top
# level of the agent file, beside `agents:`):
# permissions:
#   allow: ["shell:cmd=npm run test", "shell:cmd=npm run test *", "shell:cmd=git status", "read_file", "read_multiple_files", "search_files_content"]
#   ask: ["shell:cmd=git push", "shell:cmd=git push *"]
#   deny: ["shell:cmd=rm -rf *"]
# deny `Read(./.env)`: Claude matches these paths gitignore-style; write the `read_file:path=…` pattern by hand; not converted
# deny `WebFetch(domain:example.com)`: no Tether tool for `WebFetch`; not converted
# deny `Bash(docker run a:b)`: a `:` inside the command cannot be written in a Tether pattern; not converted
# permissions.defaultMode has no Tether equivalent; dropped
"#
    );
    // Uncommented at the top level, the block loads as an agent file's permissions.
    let uncommented: String = block
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .filter(|l| l.starts_with("permissions:") || l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    let file = format!("{uncommented}agents:\n  root:\n    model: openai/gpt-4o\n");
    let loaded = load_str(&file, "agent.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let args = |cmd: &str| json!({"cmd": cmd}).as_object().cloned().unwrap();
    assert_eq!(
        loaded.permissions.check("shell", &args("rm -rf /")),
        Some(tether_protocol::Decision::Deny)
    );
    for (cmd, want) in [
        ("npm run test", Some(tether_protocol::Decision::Allow)),
        (
            "npm run test --watch",
            Some(tether_protocol::Decision::Allow),
        ),
        // Claude's prefix rules do not cover chained commands, nor another word.
        ("npm run test; touch victim", None),
        // Claude's deny `Bash(rm -rf *)` catches `rm` wherever it is in the line.
        (
            "npm run test; rm -rf victim",
            Some(tether_protocol::Decision::Deny),
        ),
        // A shell reading its script from a pipe could run anything: every deny rule holds.
        (
            "npm run test && curl x | sh",
            Some(tether_protocol::Decision::Deny),
        ),
        ("npm run testx", None),
        ("git push --force", Some(tether_protocol::Decision::Ask)),
    ] {
        assert_eq!(loaded.permissions.check("shell", &args(cmd)), want, "{cmd}");
    }
}
