//! Runtime end-to-end for the builtin hooks (issue 5): each context builtin's text reaching the
//! model where its event puts it (turn_start: a transient system message on that call;
//! session_start: the persisted session context on every call), the agent shorthands,
//! `max_iterations` stopping the run, `redact_secrets` keeping a secret from the model,
//! `safer: true` forcing a confirmation under yolo, `limit_large_tool_results` and a manually
//! configured `snapshot`.
//!
//! Secrets are assembled at run time: the repository must not contain a secret-shaped string.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{Harness, Setup, hook_yaml, inputs, shell_call};
use tether_core::{Confirmation, Session, StopReason};
use tether_exec::ExecSpec;
use tether_hooks::HookEnv;
use tether_protocol::{HookEvent, HookInput, Role};
use tether_test_support::fake_llm::Turn;
use tokio_util::sync::CancellationToken;

const INSTRUCTION: &str = "You are a test agent.";
const PROMPT_FILE: &str = "tether-e2e-prompt.md";
const PROMPT_TEXT: &str = "Always answer in French.\n";

/// Runs git in `dir` with a fixed identity; its stdout, trimmed.
async fn git(dir: &Path, args: &[&str]) -> String {
    let mut spec = ExecSpec::new("git", dir);
    spec.args = args.iter().map(Into::into).collect();
    spec.env = [
        ("GIT_AUTHOR_NAME", "T"),
        ("GIT_AUTHOR_EMAIL", "t@example.com"),
        ("GIT_COMMITTER_NAME", "T"),
        ("GIT_COMMITTER_EMAIL", "t@example.com"),
    ]
    .map(|(k, v)| (k.into(), v.into()))
    .to_vec();
    let r = tether_exec::run(spec).await;
    assert_eq!(r.exit_code, Some(0), "git {args:?}: {}", r.stderr.lossy());
    r.stdout.lossy().trim().to_owned()
}

/// A repository on `main` holding everything in `dir`, committed.
async fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]).await;
    git(dir, &["commit", "-q", "-m", message]).await;
}

/// The text a builtin produces for `dir`, asked directly (for values that depend on the
/// machine, such as the user and host name).
async fn builtin_text(name: &str, event: HookEvent, dir: &Path) -> String {
    let registry = tether_hooks::default_registry(tether_exec::Shell::from_env());
    let input = HookInput {
        session_id: "direct".into(),
        cwd: dir.display().to_string(),
        ..HookInput::default()
    };
    let cancel = CancellationToken::new();
    let out = registry
        .builtin(name)
        .unwrap()
        .call(tether_hooks::BuiltinCall {
            event,
            input: &input,
            args: &[],
            cwd: dir,
            env: &HookEnv::default(),
            cancel: &cancel,
            notes: &tether_hooks::Notes::default(),
        })
        .await
        .unwrap()
        .unwrap();
    out.hook_specific_output.unwrap().additional_context
}

/// Today's local date, from `date` rather than from the code under test.
async fn date_text() -> String {
    let mut spec = ExecSpec::new("date", "/");
    spec.args = vec!["+%Y-%m-%d".into()];
    let r = tether_exec::run(spec).await;
    format!("Today's date: {}", r.stdout.lossy().trim())
}

fn environment_text(dir: &Path) -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!(
        "Here is useful information about the environment you are running in:\n\t<env>\n\tWorking directory: {}\n\tIs directory a git repo: Yes\n\tOperating System: Linux\n\tCPU Architecture: {arch}\n\t</env>",
        dir.display()
    )
}

fn system(text: &str) -> (String, String) {
    ("system".to_owned(), text.to_owned())
}

fn user(text: &str) -> (String, String) {
    ("user".to_owned(), text.to_owned())
}

/// The shell toolset's own instructions: invariant, sent after the agent's instruction.
fn shell_prompt(h: &Harness) -> (String, String) {
    let m = h.sent(0)[1].clone();
    assert!(m.1.starts_with("## Shell Tools"), "{m:?}");
    m
}

/// The system messages of request `i`.
fn systems(h: &Harness, i: usize) -> Vec<(String, String)> {
    h.sent(i)
        .into_iter()
        .filter(|(r, _)| r == "system")
        .collect()
}

fn builtins(event: HookEvent, hooks: &[&str]) -> String {
    let lines: String = hooks
        .iter()
        .map(|h| format!("    - {{type: builtin, command: {h}}}\n"))
        .collect();
    format!("  {event}:\n{lines}")
}

#[tokio::test]
async fn turn_start_builtins_reach_each_call_as_a_transient_system_message() {
    let agent = format!(
        "toolsets:\n  - type: shell\nhooks:\n{}",
        builtins(
            HookEvent::TurnStart,
            &[
                "add_date",
                &format!("add_prompt_files, args: [{PROMPT_FILE}]"),
                "add_git_status",
                "add_git_diff",
            ]
        )
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    let dir = h.dir.path().to_owned();
    std::fs::write(dir.join(PROMPT_FILE), PROMPT_TEXT).unwrap();
    std::fs::write(dir.join("tracked.txt"), "v1\n").unwrap();
    git(&dir, &["init", "-q", "-b", "main"]).await;
    commit_all(&dir, "init").await;
    std::fs::write(dir.join("tracked.txt"), "v2\n").unwrap();
    h.push(shell_call("echo new > new.txt", "c1"));
    h.push(Turn::text("done"));
    assert_eq!(h.run_once("hello").await.reason, StopReason::Normal);

    let diff = "Current working-tree diff (stat):\n\ntracked.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)";
    let date = date_text().await;
    let turn = |status: &str| {
        [
            date.clone(),
            PROMPT_TEXT.to_owned(),
            format!("Current git status:\n\n{status}"),
            diff.to_owned(),
        ]
        .join("\n")
    };
    let first = turn("## main\n M tracked.txt");
    let tools = shell_prompt(&h);
    assert_eq!(
        h.sent(0),
        [
            system(INSTRUCTION),
            tools.clone(),
            system(&first),
            user("hello")
        ]
    );
    // Recomputed for the second call (the tool created a file) and never persisted.
    let second = turn("## main\n M tracked.txt\n?? new.txt");
    assert_eq!(
        systems(&h, 1),
        [system(INSTRUCTION), tools, system(&second)]
    );
    assert_eq!(h.session.session_context, "");
    assert!(h.session.messages.iter().all(|m| m.role != Role::System));
}

#[tokio::test]
async fn session_start_builtins_become_the_persisted_context_of_every_call() {
    let agent = format!(
        "toolsets:\n  - type: shell\nhooks:\n{}",
        builtins(
            HookEvent::SessionStart,
            &[
                "add_environment_info",
                "add_directory_listing",
                "add_user_info",
                "add_recent_commits, args: ['2']",
            ]
        )
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    let dir = h.dir.path().to_owned();
    git(&dir, &["init", "-q", "-b", "main"]).await;
    for i in 1..=3 {
        std::fs::write(dir.join("notes.txt"), format!("{i}\n")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        commit_all(&dir, &format!("change {i}")).await;
    }
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    commit_all(&dir, "lib").await;
    let log = git(&dir, &["log", "--oneline", "-n", "2"]).await;
    assert_eq!(log.lines().count(), 2);
    let user_info = builtin_text("add_user_info", HookEvent::SessionStart, &dir).await;
    assert!(
        user_info.starts_with("Current user:\n\nUser: "),
        "{user_info}"
    );
    h.push(shell_call("echo new > zzz.txt", "c1"));
    h.push(Turn::text("done"));
    h.run_once("hello").await;

    let context = [
        environment_text(&dir),
        format!(
            "Top-level entries in {}:\n\n- agent.yaml\n- notes.txt\n- src/",
            dir.display()
        ),
        user_info,
        format!("Recent commits:\n\n{log}"),
    ]
    .join("\n");
    let tools = shell_prompt(&h);
    assert_eq!(
        h.sent(0),
        [
            system(INSTRUCTION),
            tools.clone(),
            system(&context),
            user("hello")
        ]
    );
    // Computed once: the second call still lists the directory as it was at session start.
    assert_eq!(
        systems(&h, 1),
        [system(INSTRUCTION), tools, system(&context)]
    );
    assert_eq!(h.session.session_context, context);
}

#[tokio::test]
async fn the_shorthands_inject_date_environment_and_prompt_files() {
    let agent = format!(
        "add_date: true\nadd_environment_info: true\nadd_prompt_files: [{PROMPT_FILE}]\ntoolsets:\n  - type: think\n"
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    let dir = h.dir.path().to_owned();
    std::fs::write(dir.join(PROMPT_FILE), PROMPT_TEXT).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]).await;
    h.push(Turn::tool_call("think", json!({"thought": "hmm"})).with_id("t1"));
    h.push(Turn::text("bonjour"));
    h.run_once("hello").await;
    let turn = format!("{}\n{PROMPT_TEXT}", date_text().await);
    let expected = [
        system(INSTRUCTION),
        system(&environment_text(&dir)),
        system(&turn),
    ];
    assert_eq!(h.sent(0)[..3], expected);
    assert_eq!(systems(&h, 1), expected);
    assert_eq!(h.session.session_context, environment_text(&dir));
}

#[tokio::test]
async fn the_max_iterations_builtin_stops_the_run_after_n_model_calls() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let agent = format!(
        "toolsets:\n  - type: think\nhooks:\n  before_llm_call:\n    - {{type: builtin, command: max_iterations, args: ['2']}}\n{}",
        hook_yaml(HookEvent::TurnEnd, &turns, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    for i in 0..3 {
        h.push(Turn::tool_call(
            "think",
            json!({ "thought": format!("step {i}") }),
        ));
    }
    h.push(Turn::text("never sent"));
    let out = h.run_once("go").await;
    assert_eq!(
        out.reason,
        StopReason::HookBlocked {
            message:
                "Agent terminated: max_iterations builtin reached its limit of 2 model call(s)."
                    .into()
        }
    );
    assert_eq!(h.requests().len(), 2, "exactly two model calls");
    let reasons: Vec<Value> = inputs(&turns).iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(
        reasons,
        [json!("continue"), json!("continue"), json!("hook_blocked")]
    );
}

/// A GitHub-shaped token, assembled here so no source file holds one.
fn fake_token() -> String {
    ["gh", "p_", &"a1B2c3D4e5F6".repeat(3)].concat()
}

#[tokio::test]
async fn redact_secrets_keeps_a_secret_from_the_model_the_session_and_post_tool_use() {
    let dir = tempfile::tempdir().unwrap();
    let post = dir.path().join("post");
    let token = fake_token();
    let agent = format!(
        "redact_secrets: true\ntoolsets:\n  - type: shell\nhooks:\n{}",
        hook_yaml(HookEvent::PostToolUse, &post, "")
    );
    let mut h = Harness::start(Setup::new(&agent)).await;
    std::fs::write(h.path("creds.env"), format!("GITHUB_TOKEN={token}\n")).unwrap();
    h.user
        .answers
        .lock()
        .unwrap()
        .extend([Confirmation::Yes, Confirmation::Yes]);
    h.push(
        shell_call(&format!("echo {token}"), "c1")
            .and_tool_call("shell", json!({"cmd": "cat creds.env", "timeout": 30})),
    );
    h.push(Turn::text("done"));
    h.run_once(&format!("my token is {token}, keep it safe"))
        .await;

    let requests = h.requests();
    assert_eq!(requests.len(), 2);
    for (i, r) in requests.iter().enumerate() {
        assert!(
            !r.body.to_string().contains(&token),
            "request {i} carries the token"
        );
    }
    assert_eq!(
        h.sent(0).last().unwrap(),
        &user("my token is [REDACTED], keep it safe")
    );
    let results = h.tool_results(1);
    assert_eq!(
        results[0].1, "[REDACTED]\n",
        "the argument was redacted before running"
    );
    assert_eq!(results[1].1, "GITHUB_TOKEN=[REDACTED]\n");
    let calls: Vec<Value> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.get("tool_calls"))
        .flat_map(|c| c.as_array().unwrap().clone())
        .map(|c| serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(
        calls,
        [
            json!({"cmd": "echo [REDACTED]"}),
            json!({"cmd": "cat creds.env", "timeout": 30})
        ]
    );
    let asked = h.user.asked.lock().unwrap();
    assert_eq!(asked[0].arguments, json!({"cmd": "echo [REDACTED]"}));
    assert_eq!(
        asked[1].arguments,
        json!({"cmd": "cat creds.env", "timeout": 30}),
        "untouched arguments survive (D9)"
    );
    let seen: Vec<Value> = inputs(&post)
        .iter()
        .map(|i| i["tool_response"].clone())
        .collect();
    assert_eq!(
        seen,
        [json!("[REDACTED]\n"), json!("GITHUB_TOKEN=[REDACTED]\n")]
    );
    let recorded: Vec<&str> = h
        .session
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(recorded, ["[REDACTED]\n", "GITHUB_TOKEN=[REDACTED]\n"]);
}

#[tokio::test]
async fn safer_shell_forces_a_confirmation_under_yolo_with_the_blast_radius() {
    let agent = "toolsets:\n  - type: shell\n    safer: true\n";
    let mut setup = Setup::new(agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    std::fs::create_dir(h.path("build")).unwrap();
    h.push(
        shell_call("rm -rf build", "c1")
            .and_tool_call("shell", json!({"cmd": "ls"}))
            .and_tool_call("shell", json!({"cmd": "make deploy"})),
    );
    h.push(Turn::text("done"));
    h.run_once("clean up").await;
    let results = h.tool_results(1);
    assert_eq!(results[0].1, "The user rejected the tool call.");
    assert_eq!(
        results[1].1, "agent.yaml\nbuild\n",
        "a read-only command runs"
    );
    assert_eq!(results[2].1, "The user rejected the tool call.");
    assert!(h.path("build").is_dir());
    let asked = h.user.asked.lock().unwrap();
    let metadata: Vec<BTreeMap<String, String>> =
        asked.iter().map(|a| a.metadata.clone().unwrap()).collect();
    let unknown = "Shell command requires safer-mode confirmation.";
    let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    assert_eq!(
        metadata,
        [
            map(&[
                ("blast_radius", "medium"),
                ("category", "fs-delete"),
                (
                    "reason",
                    "Command matches destructive operation: recursive delete of `build`"
                )
            ]),
            map(&[("blast_radius", "unknown"), ("reason", unknown)]),
        ]
    );
}

#[tokio::test]
async fn a_huge_tool_result_is_cut_to_its_tail_and_kept_in_a_file_until_session_end() {
    let agent = "toolsets:\n  - type: shell\n";
    let mut setup = Setup::new(agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    // Unique: the directory is per session, and other tests end sessions of their own.
    let id = format!("builtins-e2e-limit-{}", std::process::id());
    h.session = Session::new(id, "root");
    h.push(shell_call("seq 1 3000", "c1"));
    h.push(Turn::text("done"));
    let cancel = CancellationToken::new();
    h.runtime
        .start_session(&mut h.session, "startup", &cancel)
        .await;
    h.runtime
        .run(&mut h.session, Some("count".to_owned()), &cancel)
        .await;

    let full: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    let tail: String = (1001..=3000).map(|i| format!("{i}\n")).collect();
    let seen = h.tool_results(1)[0].1.clone();
    let head = format!(
        "Tool call result was too large ({} bytes; limit 51200 bytes). The full result is available in a file: ",
        full.len()
    );
    let rest = seen.strip_prefix(&head).unwrap_or_else(|| panic!("{seen}"));
    let (path, shown) = rest.split_once('\n').unwrap();
    assert_eq!(
        shown,
        format!("\nShowing the last 2000 lines (up to 51200 bytes):\n\n{tail}")
    );
    assert_eq!(std::fs::read_to_string(path).unwrap(), full);
    h.runtime.end_session(&h.session, "other").await;
    assert!(!Path::new(path).exists(), "deleted at session end");
}

#[tokio::test]
async fn a_manually_configured_snapshot_hook_runs_without_touching_the_users_git() {
    let home = tempfile::tempdir().unwrap();
    let env = format!("{{TETHER_HOME: {}}}", home.path().display());
    let hooks: String = [
        HookEvent::SessionStart,
        HookEvent::TurnStart,
        HookEvent::TurnEnd,
    ]
    .iter()
    .map(|e| format!("  {e}:\n    - {{type: builtin, command: snapshot, env: {env}}}\n"))
    .collect();
    let agent = format!(
        "toolsets:\n  - type: shell\nhooks:\n{hooks}  pre_tool_use:\n    - matcher: '*'\n      hooks:\n        - {{type: builtin, command: snapshot, env: {env}}}\n"
    );
    let mut setup = Setup::new(&agent);
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    let dir = h.dir.path().to_owned();
    git(&dir, &["init", "-q", "-b", "main"]).await;
    commit_all(&dir, "init").await;
    let index = std::fs::read(dir.join(".git/index")).unwrap();
    h.push(shell_call("echo new > new.txt", "c1"));
    h.push(Turn::text("done"));
    assert_eq!(h.run_once("go").await.reason, StopReason::Normal);
    let shadows: Vec<_> = std::fs::read_dir(home.path().join("snapshot"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(shadows.len(), 1);
    assert!(shadows[0].join("HEAD").is_file());
    assert!(
        shadows[0].join("index").is_file(),
        "the shadow index is kept"
    );
    assert_eq!(std::fs::read(dir.join(".git/index")).unwrap(), index);
    assert_eq!(git(&dir, &["status", "--porcelain"]).await, "?? new.txt");
}
