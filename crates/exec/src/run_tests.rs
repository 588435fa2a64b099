use std::time::Duration;

use super::*;

fn sh(script: &str) -> ExecSpec {
    let mut spec = ExecSpec::new("/bin/sh", std::env::temp_dir());
    spec.args = vec!["-c".into(), script.into()];
    spec
}

/// Alive and not a zombie.
fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

async fn wait_dead(pid: u32) -> bool {
    for _ in 0..200 {
        if !is_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn captures_exit_code_stdout_and_stderr() {
    let r = run(sh("echo out; echo err >&2; exit 3")).await;
    assert_eq!(r.exit_code, Some(3));
    assert_eq!(r.stdout.lossy(), "out\n");
    assert_eq!(r.stderr.lossy(), "err\n");
    assert!(r.exited_normally());
    assert!(!r.timed_out && !r.overflowed && !r.drain_killed);
}

#[tokio::test]
async fn stdin_bytes_reach_the_child() {
    let mut spec = sh("cat");
    spec.stdin = Stdin::Bytes(Arc::from(&b"{\"a\":1}"[..]));
    let r = run(spec).await;
    assert_eq!(r.stdout.lossy(), "{\"a\":1}");
}

#[tokio::test]
async fn a_child_that_never_reads_a_large_stdin_still_completes() {
    let mut spec = sh("echo done");
    spec.stdin = Stdin::Bytes(vec![b'x'; 4 * 1024 * 1024].into());
    let r = run(spec).await;
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.stdout.lossy(), "done\n");
}

#[tokio::test]
async fn environment_is_explicit_when_a_base_is_given() {
    let mut spec = sh("echo \"[$FOO][$HOME]\"");
    spec.base_env = Some(Arc::from(vec![("PATH".into(), "/usr/bin:/bin".into())]));
    spec.env = vec![("FOO".into(), "bar".into())];
    let r = run(spec).await;
    assert_eq!(r.stdout.lossy(), "[bar][]\n");
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let mut spec = sh("sleep 30 & echo $!; wait");
    spec.timeout = Some(Duration::from_millis(300));
    let r = run(spec).await;
    assert!(r.timed_out);
    assert_eq!(r.exit_code, None);
    assert_eq!(r.signal, Some(9));
    let grandchild: u32 = r.stdout.lossy().trim().parse().unwrap();
    assert!(
        wait_dead(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn a_grandchild_holding_the_pipes_is_killed_after_the_drain() {
    let r = run(sh("sleep 30 & echo $!")).await;
    assert_eq!(r.exit_code, Some(0));
    assert!(r.drain_killed);
    assert!(!r.timed_out);
    let grandchild: u32 = r.stdout.lossy().trim().parse().unwrap();
    assert!(
        wait_dead(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn a_detached_background_job_without_the_pipes_is_left_alone() {
    let r = run(sh("sleep 2 >/dev/null 2>&1 & echo $!")).await;
    assert_eq!(r.exit_code, Some(0));
    assert!(!r.drain_killed);
    let grandchild: u32 = r.stdout.lossy().trim().parse().unwrap();
    assert!(is_alive(grandchild));
    kill_group(r.pid);
}

#[tokio::test]
async fn output_over_the_cap_kills_the_child() {
    let mut spec = sh("yes");
    spec.output_cap = 64 * 1024;
    let r = run(spec).await;
    assert!(r.overflowed);
    assert_eq!(r.stdout.bytes.len(), 64 * 1024);
    assert!(r.stdout.total > 64 * 1024);
    assert!(!r.exited_normally());
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let r = run(ExecSpec::new("/nonexistent/prog", std::env::temp_dir())).await;
    assert_eq!(
        r.spawn_error.as_deref(),
        Some("`/nonexistent/prog` not found")
    );
    assert_eq!(r.exit_code, None);
}

#[tokio::test]
async fn a_missing_working_directory_is_a_spawn_error() {
    let mut spec = sh("true");
    spec.cwd = "/nonexistent/dir".into();
    let r = run(spec).await;
    assert_eq!(
        r.spawn_error.as_deref(),
        Some("working directory `/nonexistent/dir` does not exist")
    );
}

#[tokio::test]
async fn cancellation_kills_the_group() {
    let token = CancellationToken::new();
    let mut spec = sh("echo started; sleep 30");
    spec.cancel = Some(token.clone());
    let handle = tokio::spawn(run(spec));
    tokio::time::sleep(Duration::from_millis(100)).await;
    token.cancel();
    let r = handle.await.unwrap();
    assert!(r.cancelled);
    assert_eq!(r.signal, Some(9));
    assert_eq!(r.stdout.lossy(), "started\n");
}

#[tokio::test]
async fn death_by_signal_is_reported() {
    let r = run(sh("kill -TERM $$")).await;
    assert_eq!(r.exit_code, None);
    assert_eq!(r.signal, Some(15));
    assert!(!r.exited_normally());
}

#[tokio::test]
async fn invalid_utf8_output_is_kept_as_bytes() {
    let r = run(sh("printf '\\377\\376ok'")).await;
    assert_eq!(r.stdout.bytes, b"\xff\xfeok");
    assert_eq!(r.stdout.lossy(), "\u{fffd}\u{fffd}ok");
}
