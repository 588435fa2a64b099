//! Exact output texts of every builtin.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use tether_exec::ExecSpec;
use tether_protocol::{HookEvent, HookInput, HookOutput};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::registry::{Builtin, BuiltinCall, HookEnv};

fn env_with(vars: &[(&str, &str)]) -> HookEnv {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut base: Vec<(OsString, OsString)> = vec![("PATH".into(), path)];
    base.extend(
        vars.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    HookEnv {
        base: Some(Arc::from(base)),
        vars: Vec::new(),
    }
}

async fn call(
    b: &dyn Builtin,
    event: HookEvent,
    input: HookInput,
    args: &[&str],
    env: &HookEnv,
) -> Result<Option<HookOutput>, String> {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let cwd = std::path::PathBuf::from(&input.cwd);
    let cancel = CancellationToken::new();
    b.call(BuiltinCall {
        event,
        input: &input,
        args: &args,
        cwd: &cwd,
        env,
        cancel: &cancel,
        notes: &crate::registry::Notes::default(),
    })
    .await
}

fn ctx(out: Option<HookOutput>) -> Option<String> {
    out.map(|o| {
        o.hook_specific_output
            .map(|h| h.additional_context)
            .unwrap_or_default()
    })
}

fn at(dir: &Path) -> HookInput {
    HookInput {
        session_id: "s1".into(),
        cwd: dir.display().to_string(),
        ..HookInput::default()
    }
}

async fn sh(dir: &Path, script: &str) {
    let mut spec = ExecSpec::new("/bin/sh", dir);
    spec.args = vec!["-c".into(), script.into()];
    spec.env = vec![
        ("GIT_AUTHOR_NAME".into(), "T".into()),
        ("GIT_AUTHOR_EMAIL".into(), "t@example.com".into()),
        ("GIT_COMMITTER_NAME".into(), "T".into()),
        ("GIT_COMMITTER_EMAIL".into(), "t@example.com".into()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ("HOME".into(), dir.as_os_str().to_owned()),
    ];
    let r = tether_exec::run(spec).await;
    assert_eq!(r.exit_code, Some(0), "{script}: {}", r.stderr.lossy());
}

#[tokio::test]
async fn add_date_text_and_event() {
    assert_eq!(
        add_date::text(jiff::civil::date(2026, 11, 22)),
        "Today's date: 2026-11-22"
    );
    let out = call(
        &AddDate,
        HookEvent::SessionStart,
        HookInput::default(),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let h = out.hook_specific_output.unwrap();
    assert_eq!(h.hook_event_name, "session_start");
    assert_eq!(
        h.additional_context,
        add_date::text(jiff::Zoned::now().date())
    );
}

#[tokio::test]
async fn add_environment_info_text() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().display().to_string();
    let text = ctx(call(
        &AddEnvironmentInfo,
        HookEvent::SessionStart,
        at(dir.path()),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap())
    .unwrap();
    let arch = if std::env::consts::ARCH == "x86_64" {
        "x64"
    } else {
        "arm64"
    };
    assert_eq!(
        text,
        format!(
            "Here is useful information about the environment you are running in:\n\t<env>\n\tWorking directory: {cwd}\n\tIs directory a git repo: No\n\tOperating System: Linux\n\tCPU Architecture: {arch}\n\t</env>"
        )
    );
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert!(
        add_environment_info::text(&dir.path().join("sub").display().to_string())
            .contains("Is directory a git repo: Yes")
    );
    let worktree = tempfile::tempdir().unwrap();
    std::fs::write(worktree.path().join(".git"), "gitdir: elsewhere").unwrap();
    assert!(add_environment_info::is_git_repo(dir.path()));
    assert!(!add_environment_info::is_git_repo(worktree.path()));
    let none = call(
        &AddEnvironmentInfo,
        HookEvent::SessionStart,
        HookInput::default(),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap();
    assert_eq!(none, None);
}

#[tokio::test]
async fn add_prompt_files_walks_up_then_home_and_joins_with_a_blank_line() {
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let deep = root.path().join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(root.path().join("AGENTS.md"), "root agents").unwrap();
    std::fs::write(root.path().join("a/AGENTS.md"), "closer agents").unwrap();
    std::fs::write(home.path().join("AGENTS.md"), "home agents").unwrap();
    std::fs::write(root.path().join("PROJECT.md"), "project").unwrap();
    let env = env_with(&[("HOME", &home.path().display().to_string())]);
    let text = ctx(call(
        &AddPromptFiles,
        HookEvent::TurnStart,
        at(&deep),
        &["AGENTS.md", "MISSING.md", "/PROJECT.md"],
        &env,
    )
    .await
    .unwrap());
    assert_eq!(
        text.as_deref(),
        Some("closer agents\n\nhome agents\n\nproject")
    );

    let kit = tempfile::tempdir().unwrap();
    std::fs::create_dir(kit.path().join("prompt_files")).unwrap();
    std::fs::write(kit.path().join("prompt_files/AGENTS.md"), "kit agents").unwrap();
    let env = env_with(&[
        ("HOME", &home.path().display().to_string()),
        ("DOCKER_AGENT_KIT_DIR", &kit.path().display().to_string()),
    ]);
    let text = ctx(call(
        &AddPromptFiles,
        HookEvent::TurnStart,
        at(&deep),
        &["AGENTS.md"],
        &env,
    )
    .await
    .unwrap());
    assert_eq!(text.as_deref(), Some("closer agents\n\nkit agents"));

    let none = call(
        &AddPromptFiles,
        HookEvent::TurnStart,
        at(&deep),
        &["NOPE.md"],
        &env,
    )
    .await
    .unwrap();
    assert_eq!(none, None);
    let none = call(&AddPromptFiles, HookEvent::TurnStart, at(&deep), &[], &env)
        .await
        .unwrap();
    assert_eq!(none, None);
}

#[tokio::test]
async fn add_prompt_files_never_reads_a_symlink_that_leaves_the_working_tree() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    // The attack: a cloned repository whose AGENTS.md points at the user's key.
    let secret = tmp.path().join("ssh/id_rsa");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "PRIVATE-KEY-MARKER").unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    symlink(&secret, repo.join("AGENTS.md")).unwrap();
    symlink("../../ssh/id_rsa", repo.join("sub/CLAUDE.md")).unwrap();
    // A symlink that stays inside the tree is fine, from a subdirectory too.
    std::fs::write(repo.join("docs/guide.md"), "the guide").unwrap();
    symlink("docs/guide.md", repo.join("GUIDE.md")).unwrap();
    std::fs::write(repo.join("docs/sub.md"), "the sub notes").unwrap();
    symlink("../docs/sub.md", repo.join("sub/SUB.md")).unwrap();
    // A device is not a regular file: not even a candidate.
    symlink("/dev/zero", repo.join("ZERO.md")).unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    symlink(&secret, home.join("HOME.md")).unwrap();
    let env = env_with(&[("HOME", &home.display().to_string())]);

    let input = at(&repo.join("sub"));
    let args: Vec<String> = [
        "AGENTS.md",
        "CLAUDE.md",
        "GUIDE.md",
        "SUB.md",
        "ZERO.md",
        "HOME.md",
    ]
    .map(str::to_owned)
    .to_vec();
    let notes = crate::registry::Notes::default();
    let cancel = CancellationToken::new();
    let out = AddPromptFiles
        .call(BuiltinCall {
            event: HookEvent::TurnStart,
            input: &input,
            args: &args,
            cwd: &repo,
            env: &env,
            cancel: &cancel,
            notes: &notes,
        })
        .await
        .unwrap();
    assert_eq!(ctx(out).as_deref(), Some("the guide\n\nthe sub notes"));
    let notes = notes.take().unwrap();
    for name in ["AGENTS.md", "CLAUDE.md", "HOME.md"] {
        assert!(
            notes.contains(&format!("{name}` skipped: it leads to `")),
            "{name}: {notes}"
        );
    }
    assert!(
        !notes.contains("GUIDE") && !notes.contains("SUB"),
        "{notes}"
    );

    // The guard reads what the builtin would: the same checked paths.
    let paths = prompt_file_paths(&repo.join("sub"), &args);
    let real = |p: &str| repo.join(p).canonicalize().unwrap();
    assert_eq!(paths, [real("docs/guide.md"), real("docs/sub.md")]);
}

#[tokio::test]
async fn git_builtins_report_status_diff_and_commits() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let env = env_with(&[
        ("HOME", &p.display().to_string()),
        ("GIT_CONFIG_NOSYSTEM", "1"),
    ]);
    assert_eq!(
        call(&AddGitStatus, HookEvent::TurnStart, at(p), &[], &env)
            .await
            .unwrap(),
        None,
        "not a repo"
    );
    sh(p, "git init -q -b main && echo one > a.txt && git add a.txt && git commit -qm first && echo two >> a.txt && echo new > b.txt").await;

    let status = ctx(call(&AddGitStatus, HookEvent::TurnStart, at(p), &[], &env)
        .await
        .unwrap());
    assert_eq!(
        status.as_deref(),
        Some("Current git status:\n\n## main\n M a.txt\n?? b.txt")
    );

    let stat = ctx(call(&AddGitDiff, HookEvent::TurnStart, at(p), &[], &env)
        .await
        .unwrap())
    .unwrap();
    assert_eq!(
        stat,
        "Current working-tree diff (stat):\n\na.txt | 1 +\n 1 file changed, 1 insertion(+)"
    );
    let full = ctx(
        call(&AddGitDiff, HookEvent::TurnStart, at(p), &["full"], &env)
            .await
            .unwrap(),
    )
    .unwrap();
    assert!(
        full.starts_with("Current working-tree diff:\n\ndiff --git a/a.txt b/a.txt\n"),
        "{full}"
    );
    assert!(full.ends_with(" one\n+two"), "{full}");
    assert_eq!(
        AddGitDiff.check_args(&["stat".into()]),
        Err("takes no arguments or [\"full\"], got [\"stat\"]".into())
    );

    sh(
        p,
        "git add -A && git commit -qm second && git commit -q --allow-empty -m third",
    )
    .await;
    let commits = ctx(call(
        &AddRecentCommits,
        HookEvent::SessionStart,
        at(p),
        &["2"],
        &env,
    )
    .await
    .unwrap())
    .unwrap();
    let lines: Vec<&str> = commits.lines().collect();
    assert_eq!(lines[..2], ["Recent commits:", ""]);
    assert_eq!(lines.len(), 4);
    assert!(
        lines[2].ends_with(" third") && lines[3].ends_with(" second"),
        "{commits}"
    );
    assert_eq!(add_git::commit_count(&["0".into()]), 10);
    assert_eq!(add_git::commit_count(&["x".into()]), 10);
    assert_eq!(add_git::commit_count(&[]), 10);

    sh(p, "git stash -q -u").await;
    let clean = call(&AddGitDiff, HookEvent::TurnStart, at(p), &[], &env)
        .await
        .unwrap();
    assert_eq!(clean, None, "a clean tree has no diff");
}

#[test]
fn git_output_is_capped_at_4_kib_on_a_character_boundary() {
    let long = "é".repeat(3000);
    let capped = cap_output(&long, GIT_OUTPUT_CAP);
    assert!(capped.ends_with("\n... (truncated)"));
    assert!(capped.len() <= GIT_OUTPUT_CAP + "\n... (truncated)".len());
    assert_eq!(cap_output("short", GIT_OUTPUT_CAP), "short");
}

#[tokio::test]
async fn add_directory_listing_text() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("b.txt"), "").unwrap();
    std::fs::write(p.join(".hidden"), "").unwrap();
    std::fs::create_dir(p.join("a")).unwrap();
    std::fs::write(p.join("C.md"), "").unwrap();
    let text = ctx(call(
        &AddDirectoryListing,
        HookEvent::SessionStart,
        at(p),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap());
    assert_eq!(
        text.unwrap(),
        format!(
            "Top-level entries in {}:\n\n- C.md\n- a/\n- b.txt",
            p.display()
        )
    );

    for i in 0..103 {
        std::fs::write(p.join(format!("f{i:03}")), "").unwrap();
    }
    let text = add_directory_listing::text(&p.display().to_string());
    assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), 100);
    assert!(text.ends_with("\n- f096\n... and 6 more"), "{text}");

    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        call(
            &AddDirectoryListing,
            HookEvent::SessionStart,
            at(empty.path()),
            &[],
            &HookEnv::default()
        )
        .await
        .unwrap(),
        None
    );
}

#[test]
fn add_user_info_text() {
    assert_eq!(
        add_user_info::text("ada", "Ada Lovelace", "engine"),
        "Current user:\n\nUser: ada\nFull name: Ada Lovelace\nHostname: engine"
    );
    assert_eq!(
        add_user_info::text("ada", "", "engine"),
        "Current user:\n\nUser: ada\nHostname: engine"
    );
    assert_eq!(add_user_info::text("", "", ""), "");
}

#[tokio::test]
async fn max_iterations_blocks_past_the_limit() {
    let input = |i| HookInput {
        iteration: i,
        ..HookInput::default()
    };
    let env = HookEnv::default();
    assert_eq!(
        call(
            &MaxIterations,
            HookEvent::BeforeLlmCall,
            input(2),
            &["2"],
            &env
        )
        .await
        .unwrap(),
        None
    );
    assert_eq!(
        call(
            &MaxIterations,
            HookEvent::BeforeLlmCall,
            input(0),
            &["2"],
            &env
        )
        .await
        .unwrap(),
        None
    );
    let out = call(
        &MaxIterations,
        HookEvent::BeforeLlmCall,
        input(3),
        &["2"],
        &env,
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(out.decision, "block");
    assert_eq!(
        out.reason,
        "Agent terminated: max_iterations builtin reached its limit of 2 model call(s)."
    );
    assert!(MaxIterations.check_args(&[]).is_err());
    assert!(MaxIterations.check_args(&["0".into()]).is_err());
    assert!(MaxIterations.check_args(&["50".into()]).is_ok());
}

#[test]
fn line_counting_and_tails() {
    assert_eq!(limit_large_tool_results::line_count(""), 0);
    assert_eq!(limit_large_tool_results::line_count("a"), 1);
    assert_eq!(limit_large_tool_results::line_count("a\n"), 1);
    assert_eq!(limit_large_tool_results::line_count("a\nb"), 2);
    let lines: String = (0..2500).map(|i| format!("line {i}\n")).collect();
    let tail = limit_large_tool_results::tail(&lines);
    assert!(
        tail.starts_with("line 500\n") && tail.ends_with("line 2499\n"),
        "{}",
        &tail[..20]
    );
    assert_eq!(limit_large_tool_results::line_count(tail), 2000);
    let wide = "é".repeat(40_000);
    let tail = limit_large_tool_results::tail(&wide);
    assert!(tail.len() <= LIMIT_BYTES && tail.len() >= LIMIT_BYTES - 1);
    assert!(tail.chars().all(|c| c == 'é'));
}

#[tokio::test]
async fn limit_large_tool_results_writes_the_full_result_and_shows_the_tail() {
    let root = tempfile::tempdir().unwrap();
    let b = LimitLargeToolResults::with_root(root.path());
    let env = HookEnv::default();
    let big: String = (0..3000).map(|i| format!("row {i}\n")).collect();
    let mut input = HookInput {
        session_id: "sess/1".into(),
        tool_category: "shell".into(),
        tool_response: Some(big.clone()),
        ..HookInput::default()
    };
    let out = call(
        &b,
        HookEvent::ToolResponseTransform,
        input.clone(),
        &[],
        &env,
    )
    .await
    .unwrap()
    .unwrap();
    let text = out
        .hook_specific_output
        .unwrap()
        .updated_tool_response
        .unwrap();
    let dir = root.path().join("tether-tool-results/sess%2F1");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), big);
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&files[0]), mode(&dir)), (0o600, 0o700));
    }
    let expected_tail: String = (1000..3000).map(|i| format!("row {i}\n")).collect();
    assert_eq!(
        text,
        format!(
            "Tool call result was too large ({} bytes; limit 51200 bytes). The full result is available in a file: {}\n\nShowing the last 2000 lines (up to 51200 bytes):\n\n{expected_tail}",
            big.len(),
            files[0].display()
        )
    );

    input.tool_category = "think".into();
    assert_eq!(
        call(
            &b,
            HookEvent::ToolResponseTransform,
            input.clone(),
            &[],
            &env
        )
        .await
        .unwrap(),
        None
    );
    input.tool_category = "filesystem".into();
    input.tool_response = Some("small".into());
    assert_eq!(
        call(
            &b,
            HookEvent::ToolResponseTransform,
            input.clone(),
            &[],
            &env
        )
        .await
        .unwrap(),
        None
    );

    assert_eq!(
        call(&b, HookEvent::SessionEnd, input, &[], &env)
            .await
            .unwrap(),
        None
    );
    assert!(!dir.exists());
}

fn github_token() -> String {
    format!("ghp_{}", "a1B2c3D4e5F6".repeat(3))
}

#[tokio::test]
async fn redact_secrets_rewrites_only_the_changed_arguments() {
    let token = github_token();
    let mut input = HookInput {
        tool_name: "shell".into(),
        ..HookInput::default()
    };
    input.set_tool_arguments(&serde_json::json!({"cmd": format!("curl -H 'Authorization: token {token}' x"), "timeout": 30}).to_string());
    let out = call(
        &RedactSecrets,
        HookEvent::PreToolUse,
        input,
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        out.system_message,
        "redact_secrets: redacted secret material from arguments of tool \"shell\""
    );
    let updated = out.hook_specific_output.unwrap().updated_input.unwrap();
    assert_eq!(updated.len(), 1, "untouched arguments are not returned");
    let cmd = updated["cmd"].as_str().unwrap();
    assert!(cmd.contains("[REDACTED]") && !cmd.contains(&token), "{cmd}");

    let clean = HookInput {
        tool_name: "shell".into(),
        tool_input: serde_json::json!({"cmd": "ls"}).as_object().cloned(),
        ..HookInput::default()
    };
    assert_eq!(
        call(
            &RedactSecrets,
            HookEvent::PreToolUse,
            clean,
            &[],
            &HookEnv::default()
        )
        .await
        .unwrap(),
        None
    );
}

#[tokio::test]
async fn redact_secrets_rewrites_outgoing_messages_and_tool_output() {
    let token = github_token();
    let mut assistant = tether_protocol::Message::assistant("");
    assistant.tool_calls.push(tether_protocol::ToolCall::new(
        "c1",
        "shell",
        serde_json::json!({"cmd": format!("echo {token}")}).to_string(),
    ));
    let input = HookInput {
        messages: vec![
            tether_protocol::Message::user(format!("my token is {token}")),
            assistant,
            tether_protocol::Message::user("fine"),
        ],
        ..HookInput::default()
    };
    let out = call(
        &RedactSecrets,
        HookEvent::BeforeLlmCall,
        input,
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let messages = out.hook_specific_output.unwrap().updated_messages.unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0].content, "my token is [REDACTED]");
    assert!(
        !messages[1].tool_calls[0]
            .function
            .arguments
            .contains(&token)
    );
    assert_eq!(messages[2].content, "fine");

    let input = HookInput {
        tool_response: Some(format!("GITHUB_TOKEN={token}\n")),
        ..HookInput::default()
    };
    let out = call(
        &RedactSecrets,
        HookEvent::ToolResponseTransform,
        input,
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        out.hook_specific_output
            .unwrap()
            .updated_tool_response
            .as_deref(),
        Some("GITHUB_TOKEN=[REDACTED]\n")
    );
    let other = HookInput {
        tool_response: Some(token.clone()),
        ..HookInput::default()
    };
    assert_eq!(
        call(
            &RedactSecrets,
            HookEvent::Stop,
            other,
            &[],
            &HookEnv::default()
        )
        .await
        .unwrap(),
        None
    );
}

#[tokio::test]
async fn safer_shell_asks_with_metadata_and_passes_reads() {
    let shell = |cmd: &str, key: &str| HookInput {
        tool_name: "shell".into(),
        tool_input: serde_json::json!({ key: cmd }).as_object().cloned(),
        ..HookInput::default()
    };
    let out = call(
        &SaferShell,
        HookEvent::PreToolUse,
        shell("rm -rf /", "cmd"),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let h = out.hook_specific_output.unwrap();
    assert_eq!(h.permission_decision, "ask");
    assert!(
        h.permission_decision_reason
            .starts_with("Command matches destructive operation: "),
        "{}",
        h.permission_decision_reason
    );
    let meta = h.metadata.unwrap();
    assert_eq!(meta["blast_radius"], "high");
    assert_eq!(meta["category"], "fs-delete");
    assert_eq!(meta["reason"], h.permission_decision_reason);

    assert_eq!(
        call(
            &SaferShell,
            HookEvent::PreToolUse,
            shell("ls -la", "cmd"),
            &[],
            &HookEnv::default()
        )
        .await
        .unwrap(),
        None
    );
    let unknown = call(
        &SaferShell,
        HookEvent::PreToolUse,
        shell("make deploy", "command"),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let h = unknown.hook_specific_output.unwrap();
    assert_eq!(
        h.permission_decision_reason,
        "Shell command requires safer-mode confirmation."
    );
    assert_eq!(h.metadata.unwrap().get("category"), None);
    let mut other_tool = shell("rm -rf /", "cmd");
    other_tool.tool_name = "edit_file".into();
    assert_eq!(
        call(
            &SaferShell,
            HookEvent::PreToolUse,
            other_tool,
            &[],
            &HookEnv::default()
        )
        .await
        .unwrap(),
        None
    );
}

#[tokio::test]
async fn add_context_renders_each_template_over_the_input_and_joins_them() {
    let input = HookInput {
        session_id: "s1".into(),
        agent_name: "root".into(),
        cwd: "/work".into(),
        hook_event_name: "turn_start".into(),
        ..HookInput::default()
    };
    let out = call(
        &AddContext,
        HookEvent::TurnStart,
        input,
        &[
            "Session {{ .SessionID }} of agent {{ .AgentName }}",
            "{{ if .ToolName }}tool {{ .ToolName }}{{ end }}",
            "cwd: {{ .Cwd }} ({{ .HookEventName }})",
        ],
        &HookEnv::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        ctx(out),
        Some("Session s1 of agent root\ncwd: /work (turn_start)".to_owned())
    );
}

#[test]
fn add_context_rejects_unknown_fields_and_needs_an_argument() {
    let err = AddContext
        .check_args(&["{{ .SessionId }}".to_owned()])
        .unwrap_err();
    assert!(
        err.starts_with("args[0]: invalid template (line 1, column 4): the hook Input has no field \"SessionId\""),
        "{err}"
    );
    assert!(AddContext.check_args(&[]).is_err());
    assert_eq!(
        AddContext.check_args(&["{{ .ToolInput | toJSON }}".to_owned()]),
        Ok(())
    );
}

#[tokio::test]
async fn elide_repeated_tool_results_replaces_later_identical_results_with_a_reference() {
    use tether_protocol::Message;
    let big = "x".repeat(300);
    let messages = vec![
        Message::user("read it twice"),
        Message::tool_result("call_1", "read_file", big.clone(), false),
        Message::tool_result("call_2", "read_file", "short", false),
        Message::tool_result("call_3", "read_file", big.clone(), false),
        Message::tool_result("call_4", "read_file", "short", false),
        Message::tool_result("call_5", "shell", big.clone(), true),
    ];
    let input = HookInput {
        messages: messages.clone(),
        ..HookInput::default()
    };
    let out = call(
        &ElideRepeatedToolResults,
        HookEvent::BeforeLlmCall,
        input.clone(),
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let mut want = messages.clone();
    want[3].content =
        "[same output as the earlier `read_file` call call_1; elided to save context]".to_owned();
    assert_eq!(
        out.hook_specific_output.unwrap().updated_messages,
        Some(want)
    );
    // A threshold of 1 character elides the short repeat too; nothing repeated, nothing sent.
    let out = call(
        &ElideRepeatedToolResults,
        HookEvent::BeforeLlmCall,
        input,
        &["min_chars=1"],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    let got = out.hook_specific_output.unwrap().updated_messages.unwrap();
    assert_eq!(
        got[4].content,
        "[same output as the earlier `read_file` call call_2; elided to save context]"
    );
    assert_eq!(elide(&messages[..3], 1), None);
    assert!(
        ElideRepeatedToolResults
            .check_args(&["lots".to_owned()])
            .is_err()
    );
}

#[tokio::test]
async fn safer_shell_guards_a_background_job_as_it_guards_the_shell() {
    let input = HookInput {
        tool_name: "run_background_job".into(),
        tool_input: serde_json::json!({ "cmd": "sleep 1 && rm -rf /" })
            .as_object()
            .cloned(),
        ..HookInput::default()
    };
    let out = call(
        &SaferShell,
        HookEvent::PreToolUse,
        input,
        &[],
        &HookEnv::default(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(out.hook_specific_output.unwrap().permission_decision, "ask");
}
