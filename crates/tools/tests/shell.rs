//! The shell tool on real processes: exit status, interleaving, timeout, cancellation (the
//! whole process group dies), environment, working directory and spooled output.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_config::ToolsetKind;
use tether_tools::{KEEP_IN_MEMORY, ShellTool, Tool, ToolResult, build_toolset};
use tokio_util::sync::CancellationToken;

use common::{call, call_with, config, err, ok, sh, wait_dead};

fn shell_in(spool: &Path) -> Arc<dyn Tool> {
    Arc::new(ShellTool::new(sh(), &[]).with_spool_dir(spool))
}

#[tokio::test]
async fn results_carry_the_output_and_how_the_command_ended() {
    let dir = tempfile::tempdir().unwrap();
    let tool = shell_in(&dir.path().join("spool"));
    let cases: Vec<(Value, ToolResult)> = vec![
        (json!({"cmd": "echo hello"}), ok("hello\n")),
        (json!({"cmd": "true"}), ok("")),
        (
            json!({"cmd": "echo oops; exit 3"}),
            err("oops\n[exit status 3]"),
        ),
        (
            json!({"cmd": "printf partial; exit 1"}),
            err("partial\n[exit status 1]"),
        ),
        (json!({"cmd": "exit 7"}), err("[exit status 7]")),
        (
            json!({"cmd": "echo a; echo b >&2; echo c; echo d >&2"}),
            ok("a\nb\nc\nd\n"),
        ),
        (
            json!({"cmd": "echo bye; kill -TERM $$"}),
            err("bye\n[killed by signal 15 (SIGTERM)]"),
        ),
        // stdin is /dev/null: `cat` ends at once instead of waiting for input.
        (json!({"cmd": "cat; echo done"}), ok("done\n")),
        // `command` is no alias of `cmd`: rules and hooks read `cmd` alone.
        (
            json!({"command": "echo alias"}),
            err("invalid arguments for `shell`: `cmd` is missing or empty"),
        ),
        (
            json!({"cmd": " ", "command": "echo alias"}),
            err("invalid arguments for `shell`: `cmd` is missing or empty"),
        ),
        (
            json!({"cmd": "  "}),
            err("invalid arguments for `shell`: `cmd` is missing or empty"),
        ),
        (
            json!({"cmd": 42}),
            err("invalid arguments for `shell`: invalid type: integer `42`, expected a string"),
        ),
    ];
    for (args, want) in cases {
        let got = call(tool.as_ref(), args.clone(), dir.path()).await;
        assert_eq!(got, want, "{args}");
    }
    assert!(
        !dir.path().join("spool").exists(),
        "small output is never spooled"
    );
}

#[tokio::test]
async fn cwd_is_relative_to_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let tool = shell_in(&dir.path().join("spool"));
    let root = dir.path().display().to_string();
    let cases: Vec<(Value, ToolResult)> = vec![
        (json!({"cmd": "pwd"}), ok(&format!("{root}\n"))),
        (
            json!({"cmd": "pwd", "cwd": "sub"}),
            ok(&format!("{root}/sub\n")),
        ),
        (json!({"cmd": "pwd", "cwd": "/"}), ok("/\n")),
        (
            json!({"cmd": "pwd", "cwd": "missing"}),
            err(&format!(
                "cannot run the command: working directory `{root}/missing` does not exist"
            )),
        ),
    ];
    for (args, want) in cases {
        let got = call(tool.as_ref(), args.clone(), dir.path()).await;
        assert_eq!(got, want, "{args}");
    }
}

#[tokio::test]
async fn the_toolset_env_is_set_over_the_context_env() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(ToolsetKind::Shell);
    cfg.env = vec![("B".to_owned(), "from-toolset".to_owned())];
    let tool = build_toolset(&cfg, &sh()).tools.remove(0);
    let ctx_env: Vec<(OsString, OsString)> = vec![
        ("A".into(), "from-context".into()),
        ("B".into(), "from-context".into()),
    ];
    let got = call_with(
        tool.as_ref(),
        json!({"cmd": "echo \"$A $B\""}),
        dir.path(),
        &CancellationToken::new(),
        &ctx_env,
    )
    .await;
    assert_eq!(got, ok("from-context from-toolset\n"));
}

#[tokio::test]
async fn a_timeout_kills_the_process_group_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tool = shell_in(&dir.path().join("spool"));
    let got = call(
        tool.as_ref(),
        json!({"cmd": "sleep 30 & echo $!; wait", "timeout": 0.5}),
        dir.path(),
    )
    .await;
    let pid: u32 = got.content.lines().next().unwrap().parse().unwrap();
    assert_eq!(
        got,
        err(&format!(
            "{pid}\n[timed out after 0.5s; the command and every process it started were killed]"
        ))
    );
    assert!(wait_dead(pid).await, "background process {pid} survived");
}

#[tokio::test]
async fn cancellation_kills_the_process_group_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let tool = shell_in(&dir.path().join("spool"));
    let cancel = CancellationToken::new();
    let cmd = format!(
        "echo working; sleep 30 & echo $$ $! > {}; wait",
        pids.display()
    );
    let run = {
        let (tool, cancel, wd) = (Arc::clone(&tool), cancel.clone(), dir.path().to_path_buf());
        tokio::spawn(async move {
            call_with(tool.as_ref(), json!({"cmd": cmd}), &wd, &cancel, &[]).await
        })
    };
    let mut written = String::new();
    for _ in 0..500 {
        written = std::fs::read_to_string(&pids).unwrap_or_default();
        if written.ends_with('\n') {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ids: Vec<u32> = written
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{written:?}");
    cancel.cancel();
    let got = run.await.unwrap();
    assert_eq!(
        got,
        err("working\n[cancelled; the command and every process it started were killed]")
    );
    for pid in ids {
        assert!(
            wait_dead(pid).await,
            "process {pid} survived the cancellation"
        );
    }
}

#[tokio::test]
async fn output_past_the_memory_budget_is_spooled_and_its_tail_shown() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let tool = shell_in(&spool);
    let total = 1_000_000usize;
    let got = call(
        tool.as_ref(),
        json!({"cmd": format!("head -c {total} /dev/zero | tr '\\0' y; exit 2")}),
        dir.path(),
    )
    .await;
    let file = got.spool.clone().unwrap();
    assert_eq!(file.parent(), Some(spool.as_path()));
    assert_eq!(std::fs::read(&file).unwrap(), vec![b'y'; total]);
    let want = format!(
        "{}\n[output truncated: {total} bytes in total, only the last {KEEP_IN_MEMORY} are shown; the full output is in `{}`]\n[exit status 2]",
        "y".repeat(KEEP_IN_MEMORY),
        file.display()
    );
    assert_eq!(
        got,
        ToolResult {
            content: want,
            is_error: true,
            spool: Some(file),
            structured: None,
        }
    );
}
