//! `tether run --exec` against recorded provider streams (cassettes/README.md): the real
//! clients, the real runtime and the real binary; stdout byte-exact where the table says so.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pretty_assertions::assert_eq;
use tempfile::TempDir;
use tether_test_support::cassette::{CassetteServer, cassette_path};

fn cassettes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/cassettes")
}

/// A working directory holding `testdata/working_dir/README.me` and the agent files.
fn workdir() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("testdata/working_dir")).unwrap();
    std::fs::copy(
        cassettes().join("working_dir/README.me"),
        dir.path().join("testdata/working_dir/README.me"),
    )
    .unwrap();
    for agent in ["basic", "fs_tools", "file_writer"] {
        std::fs::copy(
            cassettes().join(format!("agents/{agent}.yaml")),
            dir.path().join(format!("{agent}.yaml")),
        )
        .unwrap();
    }
    dir
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    served: usize,
    recorded: usize,
}

fn run(cassette: &str, agent: &str, model: Option<&str>, prompt: &str, stdin: &str) -> Run {
    let server = CassetteServer::start_blocking(cassette_path(cassette)).unwrap();
    let dir = workdir();
    let base = server.base_url();
    let mut cmd = Command::cargo_bin("tether").unwrap();
    cmd.current_dir(dir.path())
        .env("TETHER_HOME", dir.path().join(".tether"))
        .env("XDG_CONFIG_HOME", dir.path().join(".config"))
        .env("OPENAI_BASE_URL", format!("{base}/v1"))
        .env("OPENAI_API_KEY", "test")
        .env("ANTHROPIC_BASE_URL", &base)
        .env("ANTHROPIC_API_KEY", "test")
        .env("GOOGLE_GEMINI_BASE_URL", &base)
        .env("GOOGLE_API_KEY", "test")
        .args(["run", &format!("{agent}.yaml"), "--exec", prompt]);
    if let Some(m) = model {
        cmd.args(["--model", m]);
    }
    let out = cmd.write_stdin(stdin).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        served: server.served(),
        recorded: server.len(),
    }
}

const TOOL_PROMPT: &str = "How many files in testdata/working_dir? Only output the number.";
const TOOL_OUTPUT: &str = "\n--- Agent: root ---\n\nCalling list_directory(path: \"testdata/working_dir\")\n\nlist_directory response → \"FILE README.me\\n\"\n1";

/// The tool-call run's call, its result and the answer `1` (where the text is not byte-exact),
/// every recorded response served.
fn assert_lists_one_file(r: &Run) {
    assert!(
        r.stdout
            .contains("Calling list_directory(path: \"testdata/working_dir\")"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    assert!(
        r.stdout
            .contains("list_directory response → \"FILE README.me\\n\""),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with('1'), "{}", r.stdout);
    assert_eq!((r.code, r.served), (0, r.recorded));
}

#[test]
fn openai_chat_text_is_byte_exact() {
    let r = run("TestExec_OpenAI", "basic", None, "What's 2+2?", "");
    assert_eq!(
        r.stdout, "\n--- Agent: root ---\n2 + 2 equals 4.",
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.served, r.recorded);
}

#[test]
fn openai_chat_tool_call_is_byte_exact() {
    let r = run(
        "TestExec_OpenAI_ToolCall",
        "fs_tools",
        None,
        TOOL_PROMPT,
        "",
    );
    assert_eq!(r.stdout, TOOL_OUTPUT, "{}", r.stderr);
    assert_eq!(r.code, 0);
    assert_eq!(r.served, r.recorded);
}

#[test]
fn anthropic_with_thinking_blocks() {
    let r = run(
        "TestExec_Anthropic",
        "basic",
        Some("anthropic/claude-sonnet-4-0"),
        "What's 2+2?",
        "",
    );
    assert!(r.stdout.contains("--- Agent: root ---"), "{}", r.stdout);
    assert!(r.stdout.contains("2 + 2 = 4"), "{}\n{}", r.stdout, r.stderr);
    assert_eq!((r.code, r.served), (0, r.recorded));
}

#[test]
fn anthropic_tool_call() {
    let r = run(
        "TestExec_Anthropic_ToolCall",
        "fs_tools",
        Some("anthropic/claude-sonnet-4-0"),
        TOOL_PROMPT,
        "",
    );
    assert_lists_one_file(&r);
}

#[test]
fn gemini_tool_call() {
    let r = run(
        "TestExec_Gemini_ToolCall",
        "fs_tools",
        Some("google/gemini-2.5-flash"),
        TOOL_PROMPT,
        "",
    );
    assert_lists_one_file(&r);
}

#[test]
fn openai_responses_api_for_gpt_5() {
    let r = run(
        "TestExec_OpenAI_gpt5",
        "basic",
        Some("openai/gpt-5"),
        "What's 2+2?",
        "",
    );
    assert!(r.stdout.contains("--- Agent: root ---"), "{}", r.stdout);
    assert!(r.stdout.contains('4'), "{}\n{}", r.stdout, r.stderr);
    assert_eq!((r.code, r.served), (0, r.recorded));
}

#[test]
fn a_tool_call_needing_acceptance_asks_and_end_of_input_means_no() {
    let r = run(
        "TestExec_ToolCallsNeedAcceptance",
        "file_writer",
        None,
        "Create a hello.txt file with \"Hello, World!\" content. Try only once. On error, exit without further message.",
        "",
    );
    assert!(
        r.stdout.contains("Can I run this tool? ([y]es/[a]ll/[n]o)"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    assert_eq!((r.code, r.served), (0, r.recorded));
}
