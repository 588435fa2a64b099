use std::time::Duration;

use super::*;
use crate::Spool;

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

#[tokio::test]
async fn merged_stderr_interleaves_in_write_order() {
    let mut spec = sh("echo one; echo two >&2; echo three; echo four >&2");
    spec.merge_stderr = true;
    let r = run(spec).await;
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.stdout.lossy(), "one\ntwo\nthree\nfour\n");
    assert_eq!(r.stderr, Output::default());
    // Our copies of the write end were closed: end of file came with the exit, no drain kill.
    assert!(!r.drain_killed);
}

#[tokio::test]
async fn merged_output_still_obeys_the_cap() {
    let mut spec = sh("yes 2>&1 >&2");
    spec.merge_stderr = true;
    spec.output_cap = 8 * 1024;
    let r = run(spec).await;
    assert!(r.overflowed);
    assert_eq!(r.stdout.bytes.len(), 8 * 1024);
}

#[tokio::test]
async fn merged_output_is_cut_by_the_drain_like_separate_pipes() {
    let mut spec = sh("sleep 30 & echo $!");
    spec.merge_stderr = true;
    let r = run(spec).await;
    assert!(r.drain_killed);
    let grandchild: u32 = r.stdout.lossy().trim().parse().unwrap();
    assert!(
        wait_dead(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn cancelling_a_merged_run_kills_the_group() {
    let token = CancellationToken::new();
    let mut spec = sh("echo started >&2; sleep 30");
    spec.merge_stderr = true;
    spec.cancel = Some(token.clone());
    let handle = tokio::spawn(run(spec));
    tokio::time::sleep(Duration::from_millis(100)).await;
    token.cancel();
    let r = handle.await.unwrap();
    assert!(r.cancelled);
    assert_eq!(r.stdout.lossy(), "started\n");
}

/// `spec` with stdout spooled to `dir` past `keep_in_memory` bytes.
fn spooled(mut spec: ExecSpec, dir: &std::path::Path, keep_in_memory: usize) -> ExecSpec {
    spec.spool = Some(Spool {
        dir: dir.to_path_buf(),
        keep_in_memory,
    });
    spec
}

fn numbers(n: u32) -> String {
    (1..=n).map(|i| format!("{i}\n")).collect()
}

#[tokio::test]
async fn output_past_the_spool_threshold_goes_to_a_file_and_keeps_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spooled(sh("seq 1 100000"), &dir.path().join("spool"), 1000);
    // The spool replaces the cap: the child must not be killed.
    spec.output_cap = 4096;
    let r = run(spec).await;
    let expected = numbers(100_000);
    assert_eq!(r.exit_code, Some(0));
    assert!(!r.overflowed);
    assert_eq!(r.spool_error, None);
    assert_eq!(r.stdout.total, expected.len() as u64);
    assert_eq!(r.stdout.lossy(), expected[expected.len() - 1000..]);
    let path = r.spooled.unwrap();
    assert_eq!(path.parent(), Some(dir.path().join("spool").as_path()));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[tokio::test]
async fn a_spool_directory_others_can_read_is_tightened_before_the_file_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    std::fs::create_dir(&spool).unwrap();
    std::fs::set_permissions(&spool, std::fs::Permissions::from_mode(0o777)).unwrap();
    let r = run(spooled(sh("seq 1 10000"), &spool, 100)).await;
    assert_eq!(r.spool_error, None);
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&spool), 0o700);
    assert_eq!(mode(&r.spooled.unwrap()), 0o600);
}

#[tokio::test]
async fn output_within_the_spool_threshold_stays_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spooled(sh("seq 1 100"), &dir.path().join("spool"), 4096);
    let r = run(spec).await;
    assert_eq!(r.spooled, None);
    assert_eq!(r.stdout.lossy(), numbers(100));
    assert_eq!(r.stdout.total, numbers(100).len() as u64);
    assert!(!dir.path().join("spool").exists());
}

#[tokio::test]
async fn a_spool_of_exactly_the_threshold_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spooled(sh("printf 0123456789"), dir.path(), 10);
    let r = run(spec).await;
    assert_eq!(r.spooled, None);
    assert_eq!(r.stdout.lossy(), "0123456789");
}

#[tokio::test]
async fn merged_output_is_spooled_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spooled(
        sh("for i in $(seq 1 2000); do echo out$i; echo err$i >&2; done"),
        dir.path(),
        64,
    );
    spec.merge_stderr = true;
    let r = run(spec).await;
    let expected: String = (1..=2000).map(|i| format!("out{i}\nerr{i}\n")).collect();
    let path = r.spooled.unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), expected);
    assert_eq!(r.stdout.lossy(), expected[expected.len() - 64..]);
}

#[tokio::test]
async fn an_unwritable_spool_directory_keeps_the_tail_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let spec = spooled(sh("seq 1 10000"), &blocker.join("spool"), 100);
    let r = run(spec).await;
    let expected = numbers(10_000);
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.spooled, None);
    let error = r.spool_error.unwrap();
    assert!(
        error.starts_with(&format!(
            "cannot create `{}`",
            blocker.join("spool").display()
        )),
        "{error}"
    );
    assert_eq!(r.stdout.total, expected.len() as u64);
    assert_eq!(r.stdout.lossy(), expected[expected.len() - 100..]);
}

#[tokio::test]
async fn a_spool_keeping_nothing_in_memory_writes_everything_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spooled(sh("echo hello"), dir.path(), 0);
    let r = run(spec).await;
    assert_eq!(r.stdout.bytes, b"");
    assert_eq!(r.stdout.total, 6);
    assert_eq!(
        std::fs::read_to_string(r.spooled.unwrap()).unwrap(),
        "hello\n"
    );
}

/// Gone: neither running nor a zombie waiting to be reaped.
fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

fn pids(out: &Output) -> Vec<u32> {
    out.lossy()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[tokio::test]
async fn descendants_that_left_the_group_are_gone_when_the_run_returns() {
    // A grandchild in its own session (through an intermediate shell that exits), a child in
    // its own session, and a plain background child: none holds the pipes.
    let r = run(sh("sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo $!'; \
         setsid sleep 301 >/dev/null 2>&1 & echo $!; \
         sleep 302 >/dev/null 2>&1 & echo $!"))
    .await;
    assert_eq!(r.exit_code, Some(0));
    let pids = pids(&r.stdout);
    assert_eq!(pids.len(), 3, "{:?}", r.stdout.lossy());
    for pid in pids {
        assert!(gone(pid), "pid {pid} survived the run");
    }
}

#[tokio::test]
async fn descendants_that_left_the_group_are_gone_after_a_timeout() {
    let mut spec = sh("sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo $!'; sleep 30");
    spec.timeout = Some(Duration::from_millis(300));
    let r = run(spec).await;
    assert!(r.timed_out);
    let pids = pids(&r.stdout);
    assert_eq!(pids.len(), 1, "{:?}", r.stdout.lossy());
    assert!(gone(pids[0]), "pid {} survived the timeout", pids[0]);
}

#[tokio::test]
async fn each_run_carries_its_own_marker() {
    let a = run(sh("echo $TETHER_EXEC_RUN")).await;
    let b = run(sh("echo $TETHER_EXEC_RUN")).await;
    assert!(!a.stdout.lossy().trim().is_empty());
    assert_ne!(a.stdout.lossy(), b.stdout.lossy());
}
