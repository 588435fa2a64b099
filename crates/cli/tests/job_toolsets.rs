//! `background_jobs`, `scheduler` and `mcp_catalog` end to end: each tool called by the script
//! model through `tether run --exec`, seen by a `pre_tool_use` hook (which blocks the first
//! call of every tool, and puts the last started job's id in place of `LAST`), then answering
//! as docker-agent's does. Jobs are real processes, killed when the run ends; the catalog is
//! served by a local HTTP server and its server is a real MCP server over Streamable HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::{assert_load_errors, tether};
use tether_test_support::mcp;
use tether_test_support::script_run::{self, hook_inputs, script, tool_responses};

/// Logs every `pre_tool_use` input, blocks the first call of each tool, and rewrites a
/// `job_id` of `LAST` to the id the last `run_background_job` answered.
const HOOKS: &str = r#"    hooks:
      permission_request:
        - matcher: '.*'
          hooks:
            - type: command
              command: "echo '{\"hook_specific_output\":{\"permission_decision\":\"allow\"}}'"
      pre_tool_use:
        - matcher: '.*'
          hooks:
            - type: command
              command: 'input=$(cat); printf "%s\n" "$input" >> hooks.jsonl; name=$(printf "%s" "$input" | jq -r .tool_name); if [ ! -e "seen-$name" ]; then touch "seen-$name"; echo "first call of $name blocked" >&2; exit 2; fi; if [ "$(printf "%s" "$input" | jq -r .tool_input.job_id)" = LAST ]; then jq -cn --arg id "$(cat last-job)" ''{hook_specific_output: {permission_decision: "allow", updated_input: {job_id: $id}}}''; fi; exit 0'
      post_tool_use:
        - matcher: 'run_background_job'
          hooks:
            - type: command
              command: 'jq -r .tool_response | head -n 1 | sed "s/.*ID: //" > last-job'
"#;

struct Run {
    /// `(tool response text, is_error)` in call order.
    responses: Vec<(String, bool)>,
    /// What the `pre_tool_use` hook read, in call order.
    hook_inputs: Vec<Value>,
}

fn run(d: &Path, toolsets: &str, calls: &[(&str, Value)], env: &[(&str, &str)]) -> Run {
    std::fs::write(
        d.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n{toolsets}{HOOKS}"),
    )
    .unwrap();
    std::fs::write(d.join("s.yaml"), script(calls)).unwrap();
    let mut cmd = tether(d);
    cmd.args(["run", "agent.yaml", "--json", "--exec", "go"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    Run {
        responses: tool_responses(&out.stdout),
        hook_inputs: hook_inputs(d),
    }
}

fn assert_hooks_saw(r: &Run, calls: &[(&str, Value)]) {
    script_run::assert_hooks_saw(&r.hook_inputs, &r.responses, calls);
}

fn alive(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let state = stat.rsplit_once(") ").map(|(_, r)| r.chars().next());
    !stat.is_empty() && state != Some(Some('Z'))
}

#[test]
fn background_jobs_run_show_list_and_stop_and_none_outlives_the_run() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let toolsets = "      - type: background_jobs\n        env: {JOB_TAG: tagged}\n";
    let long = "sleep 301 & echo $! > grandchild.pid; sh -c 'echo $PPID' > job.pid; echo hi-$JOB_TAG; echo err >&2; wait";
    let calls = [
        ("run_background_job", json!({"cmd": long})),
        ("run_background_job", json!({"cmd": long})),
        ("view_background_job", json!({"job_id": "LAST"})),
        ("view_background_job", json!({"job_id": "LAST"})),
        ("list_background_jobs", json!({})),
        ("list_background_jobs", json!({})),
        (
            "run_background_job",
            json!({"cmd": "sleep 302", "cwd": "."}),
        ),
        ("stop_background_job", json!({"job_id": "LAST"})),
        ("stop_background_job", json!({"job_id": "LAST"})),
        ("stop_background_job", json!({"job_id": "LAST"})),
        ("view_background_job", json!({"job_id": "job_0_0"})),
    ];
    let r = run(d, toolsets, &calls, &[]);
    assert_hooks_saw(&r, &calls);
    let text = |i: usize| r.responses[i].0.as_str();
    let failed = |i: usize| r.responses[i].1;
    assert!(
        text(1).starts_with("Background job started with ID: job_")
            && text(1).ends_with(&format!("\nCommand: {long}\nWorking directory: ")),
        "{}",
        text(1)
    );
    let first_id = text(1).lines().next().unwrap().rsplit(' ').next().unwrap();
    assert!(
        text(3).starts_with(&format!(
            "Job ID: {first_id}\nCommand: {long}\nStatus: running\n"
        )),
        "{}",
        text(3)
    );
    assert!(
        text(3).contains("--- Output ---\nhi-tagged\nerr\n"),
        "{}",
        text(3)
    );
    assert!(
        text(5).starts_with("Background Jobs:\n\nID: job_"),
        "{}",
        text(5)
    );
    assert!(text(5).contains("  Status: running\n"), "{}", text(5));
    let second_id = text(6).lines().next().unwrap().rsplit(' ').next().unwrap();
    assert_eq!(text(8), format!("Job {second_id} stopped successfully"));
    assert_eq!(
        (text(9), failed(9)),
        (
            format!("Job {second_id} is not running (current status: stopped)").as_str(),
            true
        )
    );
    assert_eq!((text(10), failed(10)), ("Job not found: job_0_0", true));
    // The first job was still running when the run ended: it and its child are gone.
    let deadline = Instant::now() + Duration::from_secs(5);
    let pids = [
        std::fs::read_to_string(d.join("job.pid")).unwrap(),
        std::fs::read_to_string(d.join("grandchild.pid")).unwrap(),
    ];
    while pids.iter().any(|p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in &pids {
        assert!(!alive(pid), "process {} outlived the run", pid.trim());
    }
}

#[test]
fn scheduler_never_claims_a_schedule_a_one_shot_run_cannot_keep() {
    let dir = TempDir::new().unwrap();
    let calls = [
        (
            "create_schedule",
            json!({"prompt": "check CI", "when": "every 5m"}),
        ),
        (
            "create_schedule",
            json!({"prompt": "check CI", "when": "every 5m"}),
        ),
        (
            "create_schedule",
            json!({"prompt": "check CI", "when": "whenever"}),
        ),
        ("list_schedules", json!({})),
        ("list_schedules", json!({})),
        ("cancel_schedule", json!({"id": "s1"})),
        ("cancel_schedule", json!({"id": "s1"})),
    ];
    let r = run(dir.path(), "      - type: scheduler\n", &calls, &[]);
    assert_hooks_saw(&r, &calls);
    let text = |i: usize| r.responses[i].0.as_str();
    assert!(r.responses[1].1);
    assert!(
        text(1).starts_with("schedule not created: it would have fired every 300s, but this Tether session cannot deliver a message back to the agent later"),
        "{}",
        text(1)
    );
    assert!(
        r.responses[2].1 && text(2).contains("cannot read `when` \"whenever\""),
        "{}",
        text(2)
    );
    assert_eq!(r.responses[4], ("No active schedules.".to_owned(), false));
    assert!(r.responses[6].1 && text(6).starts_with("no schedule with id \"s1\""));
}

/// Serves `catalog` at `/catalog.yaml` on a thread of its own; returns its base URL.
fn serve_catalog(catalog: String) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = Router::new().route("/catalog.yaml", get(move || async move { catalog }));
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    base
}

#[test]
fn mcp_catalog_searches_a_served_catalog_and_enables_a_real_server() {
    let dir = TempDir::new().unwrap();
    let server = mcp::spawn_test_server_http("streamable-http", &[]);
    let catalog = format!(
        "registry:\n  echoer:\n    type: remote\n    title: Echoer\n    description: Echoes text back\n    metadata: {{category: testing, tags: [echo]}}\n    remote: {{url: '{}/mcp', transport_type: streamable-http}}\n  notion:\n    type: remote\n    title: Notion\n    description: Notes\n    remote: {{url: 'https://mcp.notion.example/mcp'}}\n    oauth: {{providers: [{{provider: notion}}]}}\n  legacy:\n    type: remote\n    remote: {{url: 'https://legacy.example/sse', transport_type: sse}}\n",
        server.base
    );
    let base = serve_catalog(catalog);
    let calls = [
        ("search_remote_mcp_servers", json!({"query": "ECHO"})),
        ("search_remote_mcp_servers", json!({"query": "ECHO"})),
        ("search_remote_mcp_servers", json!({"query": "legacy"})),
        ("enable_remote_mcp_server", json!({"id": "notion"})),
        ("enable_remote_mcp_server", json!({"id": "notion"})),
        ("enable_remote_mcp_server", json!({"id": "echoer"})),
        ("echoer_echo", json!({"text": "hello"})),
        ("echoer_echo", json!({"text": "hello"})),
        ("list_remote_mcp_servers", json!({})),
        ("list_remote_mcp_servers", json!({})),
        ("disable_remote_mcp_server", json!({"id": "echoer"})),
        ("disable_remote_mcp_server", json!({"id": "echoer"})),
    ];
    let catalog_url = format!("{base}/catalog.yaml");
    let r = run(
        dir.path(),
        "      - type: mcp_catalog\n        blocked_servers: [nothing]\n",
        &calls,
        &[("TETHER_MCP_CATALOG", &catalog_url)],
    );
    assert_hooks_saw(&r, &calls);
    let text = |i: usize| r.responses[i].0.as_str();
    let failed = |i: usize| r.responses[i].1;
    let (head, body) = text(1).split_once('\n').unwrap();
    assert_eq!(head, "found 1 server(s):");
    let hits: Value = serde_json::from_str(body).unwrap();
    assert_eq!(hits[0]["id"], "echoer");
    assert_eq!(hits[0]["auth"], "none");
    assert_eq!(hits[0]["enabled"], false);
    assert_eq!(
        (text(2), failed(2)),
        (
            "no remote MCP servers match \"legacy\" (catalog has 2 entries)",
            true
        )
    );
    assert!(
        failed(4)
            && text(4).contains("needs an OAuth authorization, which Tether does not support yet"),
        "{}",
        text(4)
    );
    assert!(
        !failed(5) && text(5).starts_with("enabled \"echoer\" (Echoer)"),
        "{}",
        text(5)
    );
    assert_eq!((text(7), failed(7)), ("hello", false));
    let (head, body) = text(9).split_once('\n').unwrap();
    assert_eq!(head, "1 enabled server(s):");
    let rows: Value = serde_json::from_str(body).unwrap();
    assert_eq!(rows[0]["id"], "echoer");
    assert_eq!(rows[0]["started"], true);
    assert_eq!((text(11), failed(11)), ("disabled \"echoer\"", false));
}

#[test]
fn an_unreachable_catalog_is_an_error_naming_it() {
    let dir = TempDir::new().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/catalog.yaml");
    let calls = [
        ("search_remote_mcp_servers", json!({"query": ""})),
        ("search_remote_mcp_servers", json!({"query": ""})),
    ];
    let r = run(
        dir.path(),
        "      - type: mcp_catalog\n",
        &calls,
        &[("TETHER_MCP_CATALOG", &url)],
    );
    assert_hooks_saw(&r, &calls);
    let (text, failed) = &r.responses[1];
    assert!(*failed);
    assert!(
        text.starts_with(&format!(
            "the MCP catalog is unavailable: cannot download the MCP catalog `{url}`"
        )),
        "{text}"
    );
}

#[test]
fn job_and_catalog_options_are_checked_at_load() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    assert_load_errors(
        d,
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: background_jobs\n        recall: true\n      - type: scheduler\n        allowed_servers: [x]\n      - type: shell\n        recall: false\n      - type: mcp_catalog\n        env: {A: b}\n",
        &[
            "agents.root.toolsets[0].recall: `recall` is not supported yet",
            "agents.root.toolsets[1].allowed_servers: `allowed_servers` only applies to `type: mcp_catalog` toolsets, not `type: scheduler`",
            "agents.root.toolsets[2].recall: `recall` only applies to `type: background_jobs` toolsets, not `type: shell`",
            "agents.root.toolsets[3]: env can only be used with type 'shell', 'background_jobs', 'script', 'mcp' or 'lsp'",
        ],
    );
}
