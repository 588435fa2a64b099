//! External sub-agents end to end: one pulled from a local OCI registry (bearer-token
//! challenge, manifest, digest-checked layer, as `docker agent share push` stores agents), one
//! from a URL; the root transfers a task to each and their own hooks run. With the registry
//! gone, the cached copies are used with a warning; an artifact that is not an agent, and a
//! missing one, are errors at the reference's file:line:col.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use tempfile::TempDir;
use tether_test_support::cli;

#[derive(Clone)]
struct Registry {
    base: String,
    pirate: Arc<String>,
    helper: Arc<String>,
    /// Requests seen, as `METHOD PATH`.
    log: Arc<Mutex<Vec<String>>>,
}

fn digest(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn authorized(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some("Bearer T0K3N")
}

fn challenge(base: &str, repo: &str) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(
            header::WWW_AUTHENTICATE,
            format!(
                r#"Bearer realm="{base}/token",service="fake-registry",scope="repository:{repo}:pull""#
            ),
        )],
    )
        .into_response()
}

async fn manifest(
    State(r): State<Registry>,
    UrlPath((ns, name, tag)): UrlPath<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    r.log
        .lock()
        .unwrap()
        .push(format!("manifest {ns}/{name}:{tag}"));
    let repo = format!("{ns}/{name}");
    if !authorized(&headers) {
        return challenge(&r.base, &repo);
    }
    let annotations = match name.as_str() {
        "pirate" => json!({"io.docker.agent.version": "v1.0.0"}),
        "image" => json!({"org.opencontainers.image.created": "2026-01-01T00:00:00Z"}),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    (
        [(header::CONTENT_TYPE, "application/vnd.oci.image.manifest.v1+json")],
        json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.docker.agent.config.v1+json", "digest": digest(b"{}"), "size": 2},
            "layers": [{"mediaType": "application/yaml", "digest": digest(r.pirate.as_bytes()), "size": r.pirate.len()}],
            "annotations": annotations
        })
        .to_string(),
    )
        .into_response()
}

async fn blob(
    State(r): State<Registry>,
    UrlPath((ns, name, d)): UrlPath<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    r.log.lock().unwrap().push(format!("blob {ns}/{name}"));
    if !authorized(&headers) {
        return challenge(&r.base, &format!("{ns}/{name}"));
    }
    if d != digest(r.pirate.as_bytes()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    r.pirate.as_str().to_owned().into_response()
}

/// Serves the registry and the URL agent until the returned sender is dropped or fires.
fn serve(
    pirate: String,
    helper: String,
) -> (
    String,
    Arc<Mutex<Vec<String>>>,
    tokio::sync::oneshot::Sender<()>,
) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let log = Arc::new(Mutex::new(Vec::new()));
    let shared_log = Arc::clone(&log);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let state = Registry {
                base: format!("http://{addr}"),
                pirate: Arc::new(pirate),
                helper: Arc::new(helper),
                log: shared_log,
            };
            let app = Router::new()
                .route(
                    "/token",
                    get(
                        |State(r): State<Registry>, q: axum::extract::RawQuery| async move {
                            r.log
                                .lock()
                                .unwrap()
                                .push(format!("token {}", q.0.unwrap_or_default()));
                            json!({"token": "T0K3N"}).to_string()
                        },
                    ),
                )
                .route("/v2/{ns}/{name}/manifests/{tag}", get(manifest))
                .route("/v2/{ns}/{name}/blobs/{digest}", get(blob))
                .route(
                    "/agents/helper.yaml",
                    get(|State(r): State<Registry>| async move { r.helper.as_str().to_owned() }),
                )
                .with_state(state);
            tx.send(addr).unwrap();
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
    });
    (rx.recv().unwrap().to_string(), log, stop)
}

fn run(dir: &Path) -> (i32, String, String) {
    run_with(dir, &["--trust-hooks"])
}

/// `tether run agent.yaml --exec go --yolo` with `extra` flags. Agent files fetched from a URL
/// or a registry need their command hooks trusted, so [`run`] trusts them for the run.
fn run_with(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = cli::tether(dir)
        .args(["run", "agent.yaml", "--exec", "go", "--yolo"])
        .args(extra)
        .write_stdin("")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An external agent file: a script model at an absolute path (the file is served, so it has
/// no directory of its own) and a session_start hook that records the agent's name.
fn external_agent(d: &Path, name: &str) -> String {
    let script = d.join(format!("{name}.script.yaml"));
    std::fs::write(&script, format!("default: {{text: '{name} says ahoy'}}\n")).unwrap();
    let log = d.join("starts.log");
    format!(
        "models:\n  m: {{provider: script, model: {}}}\nagents:\n  {name}:\n    model: m\n    instruction: You are {name}.\n    hooks:\n      session_start:\n        - type: command\n          command: \"echo {name} >> {}\"\n",
        script.display(),
        log.display()
    )
}

#[test]
fn agents_from_a_registry_and_a_url_run_as_sub_agents_and_are_cached() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let (addr, log, stop) = serve(external_agent(d, "pirate"), external_agent(d, "helper"));
    let pirate = format!("{addr}/team/pirate:v1");
    let helper = format!("http://{addr}/agents/helper.yaml");
    std::fs::write(
        d.join("root.yaml"),
        format!(
            "replies:\n  - tool_calls: [{{name: transfer_task, arguments: {{agent: '{pirate}', task: greet, expected_output: a greeting}}}}]\n  - tool_calls: [{{name: transfer_task, arguments: {{agent: '{helper}', task: greet, expected_output: a greeting}}}}]\n  - text: done\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: script/root.yaml\n    sub_agents:\n      - {pirate}\n      - {helper}\n"
        ),
    )
    .unwrap();

    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(r#"transfer_task response → "pirate says ahoy""#)
            && stdout.contains(r#"transfer_task response → "helper says ahoy""#),
        "{stdout}"
    );
    // Each external agent's own hooks ran.
    let starts = std::fs::read_to_string(d.join("starts.log")).unwrap();
    assert_eq!(starts, "pirate\nhelper\n");
    // The registry was asked for a token for the repository, then answered with it.
    let seen = log.lock().unwrap().clone();
    assert_eq!(seen[0], "manifest team/pirate:v1");
    assert!(
        seen[1].starts_with("token ") && seen[1].contains("repository%3Ateam%2Fpirate%3Apull"),
        "{seen:?}"
    );
    assert_eq!(seen[2..], ["manifest team/pirate:v1", "blob team/pirate"]);

    // With the registry and the URL gone, the cached copies answer, with a warning each.
    stop.send(()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    std::fs::remove_file(d.join("starts.log")).unwrap();
    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("pirate says ahoy"), "{stdout}");
    assert_eq!(
        stderr.matches("using the copy cached at").count(),
        2,
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("cannot fetch `{pirate}`")),
        "{stderr}"
    );

    // Without trust, the fetched agents' command hooks keep the run from starting.
    std::fs::remove_file(d.join("starts.log")).unwrap();
    let (code, stdout, stderr) = run_with(d, &[]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("are not trusted") && stderr.contains("tether hooks trust"),
        "{stderr}"
    );
    assert!(!d.join("starts.log").exists(), "a hook ran untrusted");
}

#[test]
fn an_artifact_that_is_no_agent_and_a_missing_one_are_errors_at_the_reference() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let (addr, _log, _stop) = serve(external_agent(d, "pirate"), String::new());
    for (name, why) in [
        ("image", "was not pushed with `docker agent share push`"),
        ("ghost", "not found in the registry"),
    ] {
        std::fs::write(
            d.join("agent.yaml"),
            format!(
                "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: [{addr}/team/{name}]\n"
            ),
        )
        .unwrap();
        let (code, stdout, stderr) = run(d);
        assert_eq!(code, 1, "{stdout}\n{stderr}");
        assert!(
            stderr.contains(&format!(
                "agent.yaml:4:18: cannot load external agent `{addr}/team/{name}`"
            )) && stderr.contains(why),
            "{stderr}"
        );
    }
    // A malformed reference is a load error of its own.
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: [Team/Pirate]\n",
    )
    .unwrap();
    let (code, _, stderr) = run(d);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "agent.yaml:4:18: agents.root.sub_agents[0]: invalid agent reference `Team/Pirate`"
        ),
        "{stderr}"
    );
}

#[test]
fn hooks_check_warns_about_an_unreachable_external_agent_and_run_still_fails_on_it() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // A port nothing listens on: the registry and the URL are unreachable, nothing is cached.
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let pirate = format!("{addr}/agentcatalog/pirate");
    let helper = format!("http://{addr}/agents/helper.yaml");
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents:\n      - {pirate}\n      - {helper}\n"
        ),
    )
    .unwrap();

    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("agent.yaml: valid; agent `root`"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for (at, reference) in [("5:9", &pirate), ("6:9", &helper)] {
        assert!(
            stderr.contains(&format!(
                "agent.yaml:{at}: cannot fetch external agent `{reference}`"
            )),
            "{stderr}"
        );
    }

    let (code, stdout, stderr) = run(d);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "agent.yaml:5:9: cannot load external agent `{pirate}`"
        )),
        "{stderr}"
    );
}
