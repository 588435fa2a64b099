//! Agent fields that shape what the model sees, end to end: `max_tool_result_tokens`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use tempfile::TempDir;
use tether_test_support::cli;

#[test]
fn max_tool_result_tokens_cuts_the_middle_of_long_results() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s.yaml"),
        "rules:\n  - match: '^Run: (?P<c>.+)$'\n    reply:\n      tool_calls: [{name: shell, arguments: {cmd: '${c}'}}]\nafter_tool: {text: 'SAW {{tool_result}}'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    max_tool_result_tokens: 25\n    toolsets: [{type: shell}]\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["run", "agent.yaml", "--yolo", "--exec", "Run: seq 1 1000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let saw = stdout.split("SAW ").nth(1).unwrap();
    assert!(saw.starts_with("1\n2\n3\n"), "{saw}");
    assert!(
        saw.contains("bytes truncated (max_tool_result_tokens)"),
        "{saw}"
    );
    assert!(
        saw.trim_end().ends_with("999\n1000") && !saw.contains("\n500\n"),
        "{saw}"
    );
}

#[test]
fn add_description_parameter_gives_every_tool_a_why_that_hooks_see_and_tools_do_not() {
    use serde_json::json;
    use tether_test_support::fake_llm::{FakeLlm, Turn};
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::tool_call(
        "shell",
        json!({"cmd": "echo hi", "description": "greet the user"}),
    ))
    .push(Turn::text("done"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: m\n    add_description_parameter: true\n    toolsets: [{{type: shell}}]\n    hooks:\n      post_tool_use:\n        - matcher: shell\n          hooks:\n            - {{type: command, command: \"jq -r .tool_input.description >> why.log\"}}\nmodels:\n  m: {{provider: openai, model: gpt-4o, base_url: \"{}\"}}\n",
            fake.base_url()
        ),
    )
    .unwrap();
    let out = cli::tether(d)
        .env("OPENAI_API_KEY", "k")
        .args(["run", "agent.yaml", "--yolo", "--exec", "hi"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("shell response → \"hi\\n\""), "{stdout}");
    let tools = &fake.requests()[0].body["tools"];
    let shell = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "shell")
        .unwrap();
    assert_eq!(
        shell["function"]["parameters"]["properties"]["description"]["type"],
        "string"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("why.log")).unwrap(),
        "greet the user\n"
    );
}

#[test]
fn compaction_model_writes_the_summary() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // A first exchange to summarize, then a call that fills 96% of the window.
    std::fs::write(
        d.join("main.yaml"),
        "rules:\n  - match: '^hi$'\n    reply: {text: hello, usage: {input_tokens: 10, output_tokens: 2}}\ndefault: {tool_calls: [{name: think, arguments: {thought: long}}], usage: {input_tokens: 950, output_tokens: 10}}\nafter_tool: {text: done, usage: {input_tokens: 100, output_tokens: 5}}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("sum.yaml"),
        "default: {text: SUMMARY FROM THE SUMMARIZER}\n",
    )
    .unwrap();
    // On the agent; then on its model, whose threshold (0.95 < 96%) wins over the agent's 0.99.
    for (model_fields, agent_fields) in [
        ("", "    compaction_model: summarizer\n"),
        (
            ", compaction_model: summarizer, compaction_threshold: 0.95",
            "    compaction_threshold: 0.99\n",
        ),
    ] {
        let _ = std::fs::remove_dir_all(d.join(".tether"));
        std::fs::write(
        d.join("agent.yaml"),
        format!("models:\n  main: {{provider: script, model: main.yaml, provider_opts: {{context_size: 1000}}{model_fields}}}\n  summarizer: {{provider: script, model: sum.yaml}}\nagents:\n  root:\n    model: main\n{agent_fields}    toolsets: [{{type: think}}]\n    hooks:\n      after_compaction:\n        - {{type: command, command: \"jq -r .summary >> summary.log\"}}\n"),
    )
    .unwrap();
        for args in [&["--exec", "hi"][..], &["--resume", "--exec", "go"][..]] {
            let out = cli::tether(d)
                .args(["run", "agent.yaml"])
                .args(args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{out:?}");
        }
        assert_eq!(
            std::fs::read_to_string(d.join("summary.log")).unwrap(),
            "SUMMARY FROM THE SUMMARIZER\n"
        );
        std::fs::remove_file(d.join("summary.log")).unwrap();
    }
}

fn fake_agent(d: &std::path::Path, base_url: &str, fields: &str) {
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: m\n{fields}    toolsets: [{{type: shell}}]\nmodels:\n  m: {{provider: openai, model: gpt-4o, base_url: \"{base_url}\"}}\n"
        ),
    )
    .unwrap();
}

fn run_yolo(d: &std::path::Path, prompt: &str) -> String {
    let out = cli::tether(d)
        .env("OPENAI_API_KEY", "k")
        .args(["run", "agent.yaml", "--yolo", "--exec", prompt])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn max_old_tool_call_tokens_sends_older_calls_as_placeholders() {
    use serde_json::{Value, json};
    use tether_test_support::fake_llm::{FakeLlm, Turn};
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::tool_call("shell", json!({"cmd": "seq 1 300"})))
        .push(Turn::tool_call("shell", json!({"cmd": "echo small"})))
        .push(Turn::tool_call("shell", json!({"cmd": "seq 1 301"})))
        .push(Turn::text("done"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    fake_agent(d, &fake.base_url(), "    max_old_tool_call_tokens: 50\n");
    let stdout = run_yolo(d, "go");
    // The session itself keeps every result whole.
    assert!(stdout.contains(r"\n299\n300\n"), "{stdout}");
    let requests = fake.requests();
    let of = |i: usize, role: &str| -> Vec<Value> {
        requests[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == role)
            .cloned()
            .collect()
    };
    // Third call: the latest batch (`echo small`) is whole; the big result before it is over the
    // budget, and so is everything older, its call's arguments included.
    let tools: Vec<Value> = of(2, "tool").iter().map(|m| m["content"].clone()).collect();
    assert!(
        tools[0]
            .as_str()
            .unwrap()
            .starts_with("[Content of an older tool call removed")
    );
    assert_eq!(tools[1], json!("small\n"));
    let args: Vec<Value> = of(2, "assistant")
        .iter()
        .map(|m| m["tool_calls"][0]["function"]["arguments"].clone())
        .collect();
    assert_eq!(args[0], json!("{}"));
    assert_eq!(args[1], json!("{\"cmd\":\"echo small\"}"));
    // Last call: the latest big result is whole; `small` fits the budget, the first does not.
    let tools: Vec<Value> = of(3, "tool").iter().map(|m| m["content"].clone()).collect();
    assert!(tools[2].as_str().unwrap().ends_with("300\n301\n"));
    assert_eq!(tools[1], json!("small\n"));
    assert!(
        tools[0]
            .as_str()
            .unwrap()
            .starts_with("[Content of an older tool call removed")
    );
}

#[test]
fn add_prompt_files_depth_lists_the_files_below_by_path() {
    use tether_test_support::fake_llm::{FakeLlm, Turn};
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("done"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    for (path, text) in [
        ("AGENTS.md", "root rules"),
        ("api/AGENTS.md", "api rules"),
        ("web/AGENTS.md", "web rules"),
        ("web/deep/AGENTS.md", "deep rules"),
    ] {
        std::fs::create_dir_all(d.join(path).parent().unwrap()).unwrap();
        std::fs::write(d.join(path), text).unwrap();
    }
    fake_agent(
        d,
        &fake.base_url(),
        "    add_prompt_files: [AGENTS.md]\n    add_prompt_files_depth: 1\n",
    );
    run_yolo(d, "go");
    let body = fake.requests()[0].body.to_string();
    assert!(body.contains("root rules"), "{body}");
    assert!(
        body.contains(
            r"More of these files are in subdirectories; read the ones you need:\n- api/AGENTS.md\n- web/AGENTS.md"
        ),
        "{body}"
    );
    // Listed, not loaded; and deeper than the depth, not listed.
    assert!(
        !body.contains("api rules") && !body.contains("deep/AGENTS.md"),
        "{body}"
    );
}

#[test]
fn a_models_cost_prices_its_calls() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s.yaml"),
        "default: {text: hi, usage: {input_tokens: 1000, output_tokens: 500}}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "models:\n  m: {provider: script, model: s.yaml, cost: {input: 2, output: 10}}\nagents:\n  root:\n    model: m\n    hooks:\n      after_llm_call:\n        - {type: command, command: \"jq -c .cost >> cost.log\"}\n",
    )
    .unwrap();
    run_yolo(d, "go");
    let cost: f64 = std::fs::read_to_string(d.join("cost.log"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // 1000 × $2/M + 500 × $10/M.
    assert!((cost - 0.007).abs() < 1e-12, "{cost}");
}

#[test]
fn runtime_safety_is_the_default_an_agent_or_the_user_can_override() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("s.yaml"),
        "replies:\n  - tool_calls: [{name: shell, arguments: {cmd: echo ran}}]\n  - text: '{{tool_result}}'\n",
    )
    .unwrap();
    for (agent_safety, denied) in [("", true), ("    safety: autonomous\n", false)] {
        std::fs::write(
            d.join("agent.yaml"),
            format!("runtime: {{safety: restricted}}\nagents:\n  root:\n    model: script/s.yaml\n{agent_safety}    toolsets: [{{type: shell}}]\n"),
        )
        .unwrap();
        let out = cli::tether(d)
            .args(["run", "agent.yaml", "--exec", "go"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert_eq!(
            stdout.contains("not allowed in restricted mode"),
            denied,
            "{stdout}"
        );
        assert_eq!(
            stdout.contains("shell response → \"ran\\n\""),
            !denied,
            "{stdout}"
        );
    }
}

#[test]
fn a_cached_answer_is_replayed_in_a_later_run_without_the_model() {
    use serde_json::json;
    use tether_test_support::fake_llm::{FakeLlm, Turn};
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::tool_call("shell", json!({"cmd": "echo 42"})))
        .push(Turn::text("The answer is 42."));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "agents:\n  root:\n    model: m\n    cache: {{enabled: true, trim_spaces: true, path: cache/answers.json}}\n    toolsets: [{{type: shell}}]\n    hooks:\n      user_prompt_submit:\n        - {{type: command, command: \"jq -r .prompt >> asked.log\"}}\nmodels:\n  m: {{provider: openai, model: gpt-4o, base_url: \"{}\"}}\n",
            fake.base_url()
        ),
    )
    .unwrap();
    let first = run_yolo(d, "What is the answer?");
    assert!(first.contains("The answer is 42."), "{first}");
    // A second process: same question, other case and spaces; the model has nothing left to
    // say, so only the cache can answer.
    let second = run_yolo(d, "  what is THE answer? ");
    assert!(second.contains("The answer is 42."), "{second}");
    assert!(!second.contains("Calling shell"), "{second}");
    assert_eq!(fake.requests().len(), 2);
    // The prompt hooks saw both questions.
    assert_eq!(
        std::fs::read_to_string(d.join("asked.log")).unwrap(),
        "What is the answer?\n  what is THE answer? \n"
    );
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cache/answers.json")).unwrap())
            .unwrap();
    assert_eq!(stored, json!({"what is the answer?": "The answer is 42."}));
}
