//! The filesystem toolset against docker-agent's recorded requests: the tool definitions and
//! the instruction must be what docker-agent sent, and `list_directory` must answer what it
//! answered.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::Path;

use pretty_assertions::assert_eq;
use serde::Deserialize;
use serde_json::{Value, json};
use tether_config::ToolsetKind;
use tether_tools::{FILESYSTEM_INSTRUCTION, Tool, ToolResult, build_toolset};

use common::{call, config, find, sh, tools};

#[derive(Deserialize)]
struct Cassette {
    interactions: Vec<Interaction>,
}

#[derive(Deserialize)]
struct Interaction {
    request: Request,
}

#[derive(Deserialize)]
struct Request {
    body: String,
}

/// The JSON request bodies of a cassette, in order.
fn bodies(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-support/cassettes")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let cassette: Cassette = serde_saphyr::from_str(&text).unwrap();
    cassette
        .interactions
        .into_iter()
        .map(|i| serde_json::from_str(&i.request.body).unwrap())
        .collect()
}

/// A tool as the OpenAI Chat Completions API receives it.
fn chat_tool(tool: &dyn Tool) -> Value {
    let d = tool.definition();
    json!({
        "function": {"name": d.name, "description": d.description, "parameters": d.parameters},
        "type": "function",
    })
}

#[test]
fn filesystem_definitions_equal_the_recorded_ones_in_order() {
    let recorded = &bodies("TestExec_OpenAI_ToolCall.yaml")[0];
    let ours: Vec<Value> = tools(ToolsetKind::Filesystem)
        .iter()
        .map(|t| chat_tool(t.as_ref()))
        .collect();
    assert_eq!(Value::Array(ours), recorded["tools"]);
}

#[test]
fn filesystem_instruction_is_the_recorded_system_message() {
    let recorded = &bodies("TestExec_OpenAI_ToolCall.yaml")[0];
    assert_eq!(recorded["messages"][1]["role"], "system");
    assert_eq!(recorded["messages"][1]["content"], FILESYSTEM_INSTRUCTION);
    let set = build_toolset(&config(ToolsetKind::Filesystem), &sh());
    assert_eq!(set.instruction.as_deref(), Some(FILESYSTEM_INSTRUCTION));
}

#[test]
fn a_tools_filter_yields_the_recorded_single_tool_and_keeps_the_instruction() {
    // Recorded with `tools: [write_file]` on the Responses API.
    let recorded = &bodies("TestExec_ToolCallsNeedAcceptance.yaml")[0];
    let mut cfg = config(ToolsetKind::Filesystem);
    cfg.tools = Some(vec!["write_file".to_owned()]);
    let set = build_toolset(&cfg, &sh());
    let ours: Vec<Value> = set
        .tools
        .iter()
        .map(|t| {
            let d = t.definition();
            json!({
                "strict": true,
                "parameters": d.parameters,
                "name": d.name,
                "description": d.description,
                "type": "function",
            })
        })
        .collect();
    assert_eq!(Value::Array(ours), recorded["tools"]);
    assert_eq!(
        recorded["input"][1]["content"][0]["text"],
        set.instruction.unwrap()
    );
}

#[tokio::test]
async fn list_directory_answers_what_docker_agent_answered() {
    let bodies = bodies("TestExec_OpenAI_ToolCall.yaml");
    let messages = bodies[1]["messages"].as_array().unwrap();
    let tool_call = &messages[3]["tool_calls"][0]["function"];
    assert_eq!(tool_call["name"], "list_directory");
    let args: Value = serde_json::from_str(tool_call["arguments"].as_str().unwrap()).unwrap();
    let answer = messages[4]["content"].as_str().unwrap();

    // docker-agent's testdata: a working directory holding one file.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("testdata/working_dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("README.me"), "This is a test file.\n").unwrap();

    let tool = find(&tools(ToolsetKind::Filesystem), "list_directory");
    let result = call(tool.as_ref(), args, root.path()).await;
    assert_eq!(result, ToolResult::ok(answer));
    assert_eq!(answer, "FILE README.me\n");
}
