use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::*;

fn tools(table: &Arc<JobTable>) -> Vec<Arc<dyn Tool>> {
    let shell = Shell {
        program: PathBuf::from("/bin/sh"),
        kind: tether_exec::ShellKind::Sh,
    };
    JobTool::all(
        table,
        &shell,
        &[("JOB_GREETING".to_owned(), "hi".to_owned())],
    )
}

async fn call(tools: &[Arc<dyn Tool>], name: &str, args: Value, dir: &Path) -> ToolResult {
    let tool = tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool");
    let cancel = CancellationToken::new();
    let ctx = ToolContext {
        working_dir: dir,
        cancel: &cancel,
        env: &[],
        progress: None,
    };
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    tool.call(&args, ctx).await
}

fn job_id(started: &ToolResult) -> String {
    let line = started.content.lines().next().unwrap_or_default();
    line.trim_start_matches("Background job started with ID: ")
        .to_owned()
}

async fn until_done(table: &JobTable, id: &str) {
    let job = table.find(id).expect("job");
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut done = job.done.clone();
        let _ = done.wait_for(|d| *d).await;
    })
    .await
    .expect("the job ends");
}

fn alive(pid: i32) -> bool {
    rustix::process::test_kill_process(rustix::process::Pid::from_raw(pid).expect("pid")).is_ok()
}

#[tokio::test]
async fn a_finished_job_shows_its_joined_output_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let table = Arc::new(JobTable::default());
    let tools = tools(&table);
    let started = call(
        &tools,
        "run_background_job",
        json!({"cmd": "echo $JOB_GREETING; echo oops >&2; exit 3"}),
        dir.path(),
    )
    .await;
    assert!(!started.is_error, "{}", started.content);
    assert!(started.content.contains("Command: echo $JOB_GREETING"));
    let id = job_id(&started);
    until_done(&table, &id).await;
    let viewed = call(
        &tools,
        "view_background_job",
        json!({"job_id": id}),
        dir.path(),
    )
    .await;
    assert!(!viewed.is_error);
    assert!(
        viewed.content.contains("Status: failed"),
        "{}",
        viewed.content
    );
    assert!(viewed.content.contains("Exit Code: 3"));
    assert!(
        viewed.content.ends_with("--- Output ---\nhi\noops\n"),
        "{}",
        viewed.content
    );
    let listed = call(&tools, "list_background_jobs", json!({}), dir.path()).await;
    assert!(listed.content.contains(&format!("ID: {id}")));
    assert!(listed.content.contains("  Status: failed"));
}

#[tokio::test]
async fn stopping_a_job_kills_everything_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let table = Arc::new(JobTable::default());
    let tools = tools(&table);
    let started = call(
        &tools,
        "run_background_job",
        json!({"cmd": "sleep 300 & echo $!; wait"}),
        dir.path(),
    )
    .await;
    let id = job_id(&started);
    let job = table.find(&id).unwrap();
    let pid = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let text = String::from_utf8_lossy(&job.output.lock().unwrap().bytes).into_owned();
            if let Ok(pid) = text.trim().parse::<i32>() {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the job prints its child's pid");
    assert!(alive(pid));
    let stopped = call(
        &tools,
        "stop_background_job",
        json!({"job_id": id}),
        dir.path(),
    )
    .await;
    assert_eq!(stopped.content, format!("Job {id} stopped successfully"));
    assert!(!alive(pid), "the grandchild is gone");
    let again = call(
        &tools,
        "stop_background_job",
        json!({"job_id": id}),
        dir.path(),
    )
    .await;
    assert!(again.is_error);
    assert_eq!(
        again.content,
        format!("Job {id} is not running (current status: stopped)")
    );
}

#[tokio::test]
async fn stop_all_ends_every_running_job() {
    let dir = tempfile::tempdir().unwrap();
    let table = Arc::new(JobTable::default());
    let tools = tools(&table);
    for _ in 0..2 {
        call(
            &tools,
            "run_background_job",
            json!({"cmd": "sleep 300"}),
            dir.path(),
        )
        .await;
    }
    assert_eq!(table.running(), 2);
    tokio::time::timeout(Duration::from_secs(10), table.stop_all())
        .await
        .expect("stops in time");
    assert_eq!(table.running(), 0);
}

#[tokio::test]
async fn bad_arguments_are_answered_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let table = Arc::new(JobTable::default());
    let tools = tools(&table);
    let empty = call(
        &tools,
        "run_background_job",
        json!({"cmd": "  "}),
        dir.path(),
    )
    .await;
    assert!(empty.is_error);
    assert!(empty.content.contains("missing or empty \"cmd\""));
    // `command` is not read: hooks and permission rules only see `cmd`.
    let alias = call(
        &tools,
        "run_background_job",
        json!({"command": "touch x"}),
        dir.path(),
    )
    .await;
    assert!(alias.is_error);
    let missing = call(
        &tools,
        "view_background_job",
        json!({"job_id": "job_1_1"}),
        dir.path(),
    )
    .await;
    assert_eq!(missing.content, "Job not found: job_1_1");
    let nowhere = call(
        &tools,
        "run_background_job",
        json!({"cmd": "true", "cwd": "no/such/dir"}),
        dir.path(),
    )
    .await;
    assert!(nowhere.is_error);
    assert!(
        nowhere
            .content
            .starts_with("Error starting background command: working directory")
    );
    assert!(!dir.path().join("x").exists());
    let listed = call(&tools, "list_background_jobs", json!({}), dir.path()).await;
    assert_eq!(
        listed.content,
        "Background Jobs:\n\nNo background jobs found.\n"
    );
}

#[test]
fn output_past_the_cap_is_counted_and_dropped() {
    let mut c = Captured::default();
    c.push(&vec![b'a'; OUTPUT_CAP - 1]);
    c.push(b"bcd");
    assert_eq!(c.bytes.len(), OUTPUT_CAP);
    assert_eq!(c.bytes.last(), Some(&b'b'));
    assert_eq!(c.dropped, 2);
}

#[test]
fn only_posix_shells_get_stderr_joined_by_the_script() {
    assert_eq!(script(Path::new("/bin/bash"), "ls"), "exec 2>&1\nls");
    assert_eq!(script(Path::new("/usr/bin/fish"), "ls"), "ls");
}

#[test]
fn runtimes_read_like_go_durations() {
    let now = Instant::now();
    assert_eq!(runtime(now), "0s");
}
