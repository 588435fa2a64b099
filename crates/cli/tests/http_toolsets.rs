//! `type: api` and `type: openapi` against a local HTTP server that serves an OpenAPI document
//! and implements its operations: arguments reach the server (path, query, JSON body, headers
//! with `${env.NAME}`), read-only operations run unasked while writes go through the approval
//! chain, hooks see the tools' categories, and private addresses are refused unless allowed.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeMap;

use assert_cmd::Command;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use tempfile::TempDir;

fn spec() -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "pets", "version": "1"},
        "servers": [{"url": "/api"}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "summary": "List pets",
                    "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}}]
                },
                "post": {
                    "operationId": "create-pet",
                    "summary": "Create a pet",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}}
                }
            },
            "/pets/{petId}": {
                "get": {
                    "summary": "Find a pet",
                    "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "string"}}]
                }
            }
        },
        "components": {"schemas": {"NewPet": {"required": ["name"], "properties": {"name": {"type": "string"}}}}}
    })
}

/// The query string of `uri`, percent-decoded.
fn query(uri: &Uri) -> BTreeMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
                i += 1;
            }
        }
        String::from_utf8(out).unwrap()
    };
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

/// Serves on 127.0.0.1 from a thread of its own; returns the base URL.
fn server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = Router::new()
                .route("/openapi.json", get(|| async { Json(spec()) }))
                .route(
                    "/api/pets",
                    get(|uri: Uri| async move {
                        let q = query(&uri);
                        let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(9);
                        Json(json!(
                            ["rex", "tom", "kit"]
                                .into_iter()
                                .take(limit)
                                .collect::<Vec<_>>()
                        ))
                    })
                    .post(|Json(body): Json<Value>| async move {
                        (StatusCode::CREATED, Json(json!({"id": 7, "created": body})))
                    }),
                )
                .route(
                    "/api/pets/{id}",
                    get(|Path(id): Path<String>| async move {
                        if id == "missing" {
                            (StatusCode::NOT_FOUND, "no such pet".to_owned())
                        } else {
                            (StatusCode::OK, format!("pet {id}"))
                        }
                    }),
                )
                .route(
                    "/weather",
                    get(|uri: Uri, h: HeaderMap| async move {
                        let q = query(&uri);
                        let key = h.get("x-key").map(|v| v.to_str().unwrap().to_owned());
                        format!("weather in {} (key {key:?})", q["city"])
                    })
                    .post(
                        |h: HeaderMap, Json(body): Json<Value>| async move {
                            let ct = h.get("content-type").unwrap().to_str().unwrap().to_owned();
                            format!("posted {body} as {ct}")
                        },
                    ),
                );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

struct Run {
    events: Vec<Value>,
    code: Option<i32>,
}

impl Run {
    fn responses(&self) -> Vec<(String, bool)> {
        self.events
            .iter()
            .filter(|e| e["type"] == "tool_response")
            .map(|e| {
                (
                    e["response"].as_str().unwrap().to_owned(),
                    e["is_error"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    }
}

/// Runs `agent.yaml` (written from `toolsets`) on a script model that makes `calls`.
fn run(dir: &std::path::Path, toolsets: &str, calls: &[&str], extra: &[&str], stdin: &str) -> Run {
    std::fs::write(
        dir.join("agent.yaml"),
        format!("agents:\n  root:\n    model: script/s.yaml\n    toolsets:\n{toolsets}"),
    )
    .unwrap();
    let mut replies = String::from("replies:\n  - tool_calls:\n");
    for call in calls {
        replies.push_str(&format!("      - {call}\n"));
    }
    replies.push_str("  - text: done\n");
    std::fs::write(dir.join("s.yaml"), replies).unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(dir)
        .env("TETHER_HOME", dir.join(".tether"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("PETS_KEY", "k-123")
        .args(["run", "agent.yaml", "--json"])
        .args(extra)
        .args(["--exec", "go"])
        .write_stdin(stdin)
        .output()
        .unwrap();
    Run {
        events: String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect(),
        code: out.status.code(),
    }
}

#[test]
fn api_tool_expands_arguments_and_environment_and_posts_json() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let toolsets = format!(
        "      - type: api\n        allow_private_ips: true\n        api_config:\n          name: weather\n          instruction: Get the weather\n          endpoint: \"{base}/weather?city=${{city}}\"\n          method: GET\n          headers: {{X-Key: \"${{env.PETS_KEY}}\"}}\n          args: {{city: {{type: string}}}}\n          required: [city]\n      - type: api\n        allow_private_ips: true\n        api_config:\n          name: post_weather\n          endpoint: \"{base}/weather\"\n          method: POST\n          args: {{city: {{type: string}}, days: {{type: integer}}}}\n"
    );
    // The log hook records what `pre_tool_use` hooks see of the call.
    let hooks = "    hooks:\n      pre_tool_use:\n        - hooks: [{type: command, command: 'cat >> hook.log; echo >> hook.log'}]\n";
    let r = run(
        dir.path(),
        &format!("{toolsets}{hooks}"),
        &[
            "{name: weather, arguments: {city: 'São Paulo&x=1'}}",
            "{name: weather, arguments: {}}",
            "{name: post_weather, arguments: {city: Oslo, days: 2}}",
        ],
        &[],
        "",
    );
    assert_eq!(r.code, Some(0), "{:?}", r.events);
    assert_eq!(
        r.responses(),
        [
            (
                "weather in São Paulo&x=1 (key Some(\"k-123\"))".to_owned(),
                false
            ),
            ("missing required argument(s): city".to_owned(), true),
            ("The user rejected the tool call.".to_owned(), true),
        ],
        "a GET api tool runs without asking, even without --yolo; a POST is asked (no here)"
    );
    let log = std::fs::read_to_string(dir.path().join("hook.log")).unwrap();
    let inputs: Vec<Value> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 3);
    assert_eq!(inputs[0]["tool_category"], "api");
    assert_eq!(inputs[0]["tool_input"]["city"], "São Paulo&x=1");
    let r = run(
        dir.path(),
        &toolsets,
        &["{name: post_weather, arguments: {city: Oslo, days: 2}}"],
        &["--yolo"],
        "",
    );
    assert_eq!(
        r.responses(),
        [(
            "posted {\"city\":\"Oslo\",\"days\":2} as application/json".to_owned(),
            false
        )]
    );
}

#[test]
fn api_and_openapi_refuse_private_addresses_unless_allowed() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let toolsets = format!(
        "      - type: api\n        api_config: {{name: weather, endpoint: \"{base}/weather?city=x\", method: GET}}\n      - type: openapi\n        url: {base}/openapi.json\n"
    );
    let r = run(
        dir.path(),
        &toolsets,
        &["{name: weather, arguments: {}}"],
        &[],
        "",
    );
    let responses = r.responses();
    assert!(responses[0].1, "{responses:?}");
    assert!(
        responses[0].0.contains("private addresses are refused"),
        "{responses:?}"
    );
    let warnings: Vec<&str> = r
        .events
        .iter()
        .filter(|e| e["type"] == "warning")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("failed to read the OpenAPI document")
                && w.contains("private addresses are refused")),
        "{warnings:?}"
    );
}

#[test]
fn openapi_operations_become_tools_that_call_the_server() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let toolsets = format!(
        "      - type: openapi\n        url: {base}/openapi.json\n        allow_private_ips: true\n        headers: {{Authorization: \"Bearer ${{env.PETS_KEY}}\"}}\n"
    );
    let r = run(
        dir.path(),
        &toolsets,
        &[
            "{name: listPets, arguments: {limit: 2}}",
            "{name: get_pets_petId, arguments: {petId: 'a b'}}",
            "{name: get_pets_petId, arguments: {petId: missing}}",
            "{name: create_pet, arguments: {body_name: rex}}",
        ],
        &[],
        // The write is asked about, and refused.
        "n\n",
    );
    assert_eq!(
        r.responses(),
        [
            ("[\"rex\",\"tom\"]".to_owned(), false),
            ("pet a b".to_owned(), false),
            ("HTTP 404: no such pet".to_owned(), true),
            ("The user rejected the tool call.".to_owned(), true),
        ],
        "{:?}",
        r.events
    );
    let r = run(
        dir.path(),
        &toolsets,
        &["{name: create_pet, arguments: {body_name: rex}}"],
        &["--yolo"],
        "",
    );
    assert_eq!(
        r.responses(),
        [(
            "{\"created\":{\"name\":\"rex\"},\"id\":7}".to_owned(),
            false
        )]
    );
}

#[test]
fn openapi_reads_a_document_from_a_file_beside_the_agent_file() {
    let base = server();
    let dir = TempDir::new().unwrap();
    let mut doc = spec();
    doc["servers"][0]["url"] = json!(format!("{base}/api"));
    std::fs::create_dir(dir.path().join("specs")).unwrap();
    std::fs::write(
        dir.path().join("specs/pets.json"),
        serde_json::to_string(&doc).unwrap(),
    )
    .unwrap();
    let r = run(
        dir.path(),
        "      - type: openapi\n        url: specs/pets.json\n        allow_private_ips: true\n        max_output_bytes: 5\n",
        &["{name: listPets, arguments: {}}"],
        &[],
        "",
    );
    assert_eq!(
        r.responses(),
        [(
            "[\"rex\n\n[Output truncated: exceeded 5 character limit]".to_owned(),
            false
        )]
    );
}
