//! The small built-in toolsets (`calculator`, `random`, `datetime`, `environment`, `open_url`,
//! `webhook`) end to end: each tool called by the script model through `tether run --exec`,
//! seen by a `pre_tool_use` hook (which blocks the first call of every tool), then answering
//! as docker-agent's does. The opener is a real process standing in for `xdg-open`; webhooks
//! go to a local HTTP server, or are refused before connecting to a private address.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};
use tempfile::TempDir;
use tether_test_support::cli::{assert_load_errors, tether};
use tether_test_support::script_run::{
    self, BLOCK_FIRST_CALLS, hook_inputs, script, tool_responses,
};

struct Run {
    /// `(tool response text, is_error)` in call order.
    responses: Vec<(String, bool)>,
    /// What the `pre_tool_use` hook read, in call order.
    hook_inputs: Vec<Value>,
}

fn run(d: &Path, toolsets: &str, calls: &[(&str, Value)], env: &[(&str, &str)]) -> Run {
    std::fs::write(
        d.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n{toolsets}{BLOCK_FIRST_CALLS}"),
    )
    .unwrap();
    std::fs::write(d.join("s.yaml"), script(calls)).unwrap();
    let mut cmd = tether(d);
    cmd.args(["run", "agent.yaml", "--json", "--exec", "go"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
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

#[test]
fn calculator_random_datetime_and_environment_answer_as_docker_agent_does() {
    let dir = TempDir::new().unwrap();
    let toolsets = "      - type: calculator\n      - type: random\n      - type: datetime\n      - type: environment\n";
    let calls = [
        ("calculate", json!({"expression": "1 + 1"})),
        ("calculate", json!({"expression": "2 + 3 * 4"})),
        ("calculate", json!({"expression": "1 / 3"})),
        ("calculate", json!({"expression": "1 / (2 - 2)"})),
        ("random_int", json!({"min": 1, "max": 6})),
        ("random_int", json!({"min": -4, "max": -4})),
        ("random_int", json!({"min": 9, "max": 1})),
        ("get_datetime", json!({"format": "2006"})),
        (
            "get_datetime",
            json!({"format": "2006-01-02T15:04:05Z07:00", "timezone": "UTC"}),
        ),
        (
            "get_datetime",
            json!({"format": "2006", "timezone": "../../etc/passwd"}),
        ),
        ("get_environment_info", json!({})),
        ("get_environment_info", json!({})),
    ];
    let r = run(dir.path(), toolsets, &calls, &[]);
    assert_hooks_saw(&r, &calls);
    let text = |i: usize| r.responses[i].0.as_str();
    let failed = |i: usize| r.responses[i].1;
    assert_eq!(
        text(1),
        r#"{"result":"14","decimal":"14","approximate":false}"#
    );
    assert_eq!(
        text(2),
        r#"{"result":"1/3","decimal":"0.33333333333333333333","approximate":true}"#
    );
    assert_eq!((text(3), failed(3)), ("Error: division by zero", true));
    assert_eq!((text(5), failed(5)), ("-4", false));
    assert_eq!(
        (text(6), failed(6)),
        ("min must be less than or equal to max", true)
    );
    let stamp = text(8);
    let shape: String = stamp
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    assert_eq!(shape, "9999-99-99T99:99:99Z", "{stamp}");
    assert!(
        failed(9) && text(9).starts_with("Error: invalid timezone"),
        "{}",
        text(9)
    );
    assert_eq!(
        (text(11), failed(11)),
        (r#"{"os":"Linux","shell":"bash"}"#, false)
    );
}

#[test]
fn open_url_runs_the_opener_with_the_fixed_url_and_says_when_no_browser_can_be_shown() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" >> {}\n",
            d.join("opened.txt").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let toolsets = "      - type: open_url\n        name: open_docs\n        url: \"https://docs.example.com/${env.DOC_PAGE}\"\n";
    let calls = [("open_docs", json!({})), ("open_docs", json!({}))];
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let env = [("PATH", path.as_str()), ("DOC_PAGE", "agents")];
    // No display: nothing is opened, and the answer says why.
    let r = run(d, toolsets, &calls, &env);
    assert_hooks_saw(&r, &calls);
    let (text, failed) = &r.responses[1];
    assert!(*failed, "{text}");
    assert!(
        text.starts_with(
            "failed to open https://docs.example.com/agents: no browser can be shown here"
        ),
        "{text}"
    );
    assert!(!d.join("opened.txt").exists());
    // With a display, the opener gets the URL as its one argument.
    std::fs::remove_file(d.join("hooks.jsonl")).unwrap();
    let env = [
        ("PATH", path.as_str()),
        ("DOC_PAGE", "agents"),
        ("DISPLAY", ":0"),
    ];
    let r = run(d, toolsets, &calls[1..], &env);
    assert_eq!(
        r.responses,
        [("Opened https://docs.example.com/agents".to_owned(), false)]
    );
    assert_eq!(
        std::fs::read_to_string(d.join("opened.txt")).unwrap(),
        "https://docs.example.com/agents\n"
    );
}

/// Serves on 127.0.0.1 from a thread of its own, recording each request's body; returns the
/// base URL.
fn webhook_server(bodies: Arc<Mutex<Vec<String>>>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let record = move |body: String| {
                let bodies = bodies.clone();
                async move {
                    bodies.lock().unwrap().push(body);
                    "ok"
                }
            };
            let app = Router::new()
                .route("/hook/secret-token", post(record))
                .route(
                    "/gone",
                    post(|| async { (axum::http::StatusCode::GONE, "no such hook") }),
                );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

#[test]
fn webhooks_are_delivered_with_the_providers_payload_and_failures_are_errors() {
    let dir = TempDir::new().unwrap();
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let base = webhook_server(bodies.clone());
    let toolsets = "      - type: webhook\n        allow_private_ips: true\n        webhook_config:\n          provider: discord\n          url: \"${env.HOOK_URL}\"\n";
    let calls = [
        ("send_webhook", json!({"message": "first"})),
        ("send_webhook", json!({"message": "build green"})),
    ];
    let url = format!("{base}/hook/secret-token");
    let r = run(dir.path(), toolsets, &calls, &[("HOOK_URL", &url)]);
    assert_hooks_saw(&r, &calls);
    assert_eq!(
        r.responses[1],
        (
            "Delivered to the discord webhook (attempt 1/4).".to_owned(),
            false
        )
    );
    assert_eq!(*bodies.lock().unwrap(), [r#"{"content":"build green"}"#]);
    // A permanent HTTP failure is an error, and the URL's secret is never shown.
    let gone = TempDir::new().unwrap();
    let url = format!("{base}/gone");
    let r = run(gone.path(), toolsets, &calls, &[("HOOK_URL", &url)]);
    assert_eq!(
        r.responses[1],
        (
            "Delivery to the discord webhook failed permanently: HTTP 410: no such hook".to_owned(),
            true
        )
    );
}

#[test]
fn a_webhook_to_a_private_address_is_refused_without_a_connection() {
    let dir = TempDir::new().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let toolsets = format!(
        "      - type: webhook\n        webhook_config:\n          provider: slack\n          url: \"http://localhost:{port}/x\"\n"
    );
    let calls = [
        ("send_webhook", json!({"message": "a"})),
        ("send_webhook", json!({"message": "b"})),
    ];
    let r = run(dir.path(), &toolsets, &calls, &[]);
    assert_hooks_saw(&r, &calls);
    let (text, failed) = &r.responses[1];
    assert!(*failed, "{text}");
    assert_eq!(
        text,
        "Delivery to the slack webhook failed permanently: the webhook's host resolves to no public address; private addresses are refused (set `allow_private_ips: true` on the toolset to allow them)"
    );
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock,
        "the listener saw a connection"
    );
}

#[test]
fn small_toolset_options_are_checked_at_load() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    assert_load_errors(
        d,
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: webhook\n      - type: webhook\n        webhook_config: {provider: telegram, url: \"https://api.example.com/x\"}\n      - type: webhook\n        webhook_config: {provider: pager, url: \"ftp://x\"}\n      - type: open_url\n      - type: calculator\n        url: https://x.example.com\n      - type: datetime\n        webhook_config: {url: \"https://x.example.com\"}\n      - type: scheduler\n        recall: true\n",
        &[
            "agents.root.toolsets[0]: webhook tool requires a url in webhook_config",
            "agents.root.toolsets[1].webhook_config: webhook tool: provider telegram requires chat_id in webhook_config",
            "agents.root.toolsets[2].webhook_config.provider: webhook tool: unknown provider `pager`",
            "agents.root.toolsets[2].webhook_config.url: invalid url `ftp://x`",
            "agents.root.toolsets[3]: open_url toolset requires a url to be set",
            "agents.root.toolsets[4].url: `url` only applies to `type: openapi`, `open_url` and `a2a` toolsets, not `type: calculator`",
            "agents.root.toolsets[5].webhook_config: `webhook_config` only applies to `type: webhook` toolsets, not `type: datetime`",
            "agents.root.toolsets[6].recall: `recall` only applies to `type: background_jobs` toolsets, not `type: scheduler`",
        ],
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = assert_cmd::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_AUTHOR_DATE", "2026-03-03T10:00:00+01:00")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_DATE", "2026-03-03T10:00:00+01:00")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn git_tools_read_the_repository_and_refuse_option_injection() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    std::fs::write(d.join("a.txt"), "one\ntwo\n").unwrap();
    git(d, &["add", "a.txt"]);
    git(d, &["commit", "-q", "-m", "First commit\n\nWith a body."]);
    git(d, &["branch", "feature"]);
    std::fs::write(d.join("a.txt"), "one\nthree\n").unwrap();
    std::fs::write(d.join("new.txt"), "x").unwrap();
    // The agent's own files are untracked too: keep them out of the status.
    std::fs::write(
        d.join(".git/info/exclude"),
        "agent.yaml\ns.yaml\nhooks.jsonl\nseen-*\n.tether/\n.config/\n",
    )
    .unwrap();
    let toolsets = "      - type: git\n";
    let calls = [
        ("git_status", json!({})),
        ("git_status", json!({})),
        ("git_log", json!({"limit": 5})),
        ("git_log", json!({"limit": 5})),
        ("git_branches", json!({})),
        ("git_branches", json!({})),
        ("git_show", json!({"ref": "--output=pwned"})),
        ("git_show", json!({"ref": "--output=pwned"})),
        ("git_show", json!({})),
        ("git_blame", json!({"path": "a.txt"})),
        ("git_blame", json!({"path": "a.txt"})),
        (
            "git_blame",
            json!({"path": "a.txt", "rev": "--upload-pack=touch pwned"}),
        ),
        ("git_log", json!({"path": "--output=x"})),
    ];
    let r = run(d, toolsets, &calls, &[]);
    assert_hooks_saw(&r, &calls);
    let text = |i: usize| r.responses[i].0.as_str();
    assert_eq!(
        text(1),
        "On branch main\n2 changed file(s) [XY = staged/worktree; M=modified A=added D=deleted R=renamed ?=untracked]:\n   M a.txt\n  ?? new.txt\n"
    );
    assert_eq!(text(5), "  feature\n* main\n");
    let (show_error, failed) = &r.responses[7];
    assert!(*failed, "{show_error}");
    assert_eq!(
        show_error,
        "Error: resolving revision \"--output=pwned\": not a revision"
    );
    let show = text(8);
    assert!(show.starts_with("commit "), "{show}");
    assert!(
        show.ends_with("Author: Ada <ada@example.com>\nDate:   2026-03-03 10:00:00 +0100\n\nFirst commit\n\nWith a body.\n\nChanged files:\n  a.txt (+2, -0)\n"),
        "{show}"
    );
    let hash = &show[7..15];
    assert_eq!(
        text(10),
        format!(
            "{hash} {:<20} {:>4}| one\n{hash} {:<20} {:>4}| two\n",
            "Ada", 1, "Ada", 2
        )
    );
    assert!(r.responses[11].1, "{:?}", r.responses[11]);
    assert_eq!(r.responses[12], ("No commits found.".to_owned(), false));
    assert!(!d.join("pwned").exists() && !d.join("x").exists());
    assert_eq!(text(3), format!("{hash}  2026-03-03  Ada  First commit\n"));
}

#[test]
fn unknown_keys_and_case_tricks_never_reach_a_small_tool_or_its_hooks() {
    let dir = TempDir::new().unwrap();
    let toolsets = "      - type: calculator\n      - type: datetime\n      - type: random\n      - type: environment\n      - type: git\n      - type: webhook\n        webhook_config:\n          provider: slack\n          url: \"http://127.0.0.1:9/x\"\n";
    let calls = [
        (
            "calculate",
            json!({"Expression": "1+1"}),
            "unknown argument `Expression`",
        ),
        (
            "calculate",
            json!({"expression": "1+1", "EXPRESSION": "2"}),
            "differ only in case",
        ),
        (
            "get_datetime",
            json!({"format": "2006", "tz": "UTC"}),
            "unknown argument `tz`",
        ),
        (
            "random_int",
            json!({"min": 1, "max": 2, "Max": 3}),
            "differ only in case",
        ),
        (
            "get_environment_info",
            json!({"shell": "zsh"}),
            "the tool takes no arguments",
        ),
        ("git_log", json!({"Path": "a"}), "unknown argument `Path`"),
        (
            "send_webhook",
            json!({"Message": "hi"}),
            "unknown argument `Message`",
        ),
        (
            "send_webhook",
            json!({"message": "hi", "message\u{0}": "x"}),
            "unknown argument",
        ),
    ];
    let plain: Vec<(&str, Value)> = calls.iter().map(|(n, a, _)| (*n, a.clone())).collect();
    let r = run(dir.path(), toolsets, &plain, &[]);
    assert_eq!(r.responses.len(), calls.len(), "{:?}", r.responses);
    for ((name, args, want), (text, is_error)) in calls.iter().zip(&r.responses) {
        assert!(*is_error && text.contains(want), "{name} {args}: {text}");
    }
    // Refused before any hook: the arguments hooks read are always ones the tool takes.
    assert_eq!(r.hook_inputs, Vec::<Value>::new());
}
