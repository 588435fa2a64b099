//! Models as docker-agent agent files write them, end to end through `tether run --exec`:
//! `fallback` (and the hooks that see each switch), model fields reaching the wire
//! (`thinking_budget`, penalties, `parallel_tool_calls`, `token_key`, `${env}` in `base_url`,
//! `structured_output`), the `providers:` section, routers, alloys, `auto`, and skills.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use assert_cmd::Command;
use serde_json::json;
use tempfile::TempDir;
use tether_test_support::cli;
use tether_test_support::fake_llm::{FakeLlm, Turn};

const KEYS: [&str; 6] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "OPENAI_BASE_URL",
];

fn tether(dir: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = cli::tether(dir);
    cmd.env("HOME", dir.join("home"));
    for k in KEYS {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs `agent.yaml` with one prompt; returns (exit code, stdout, stderr).
fn run(dir: &Path, prompt: &str, env: &[(&str, &str)]) -> (i32, String, String) {
    let out = tether(dir, env)
        .args(["run", "agent.yaml", "--exec", prompt])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn models_of(fake: &FakeLlm) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_failing_model_falls_back_and_on_error_and_notification_hooks_see_it() {
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::error(500, "primary down"))
        .push(Turn::error(503, "still down"))
        .push(Turn::text("answer from the backup"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = format!(
        r#"models:
  primary:
    provider: openai
    model: gpt-primary
    base_url: {url}
    provider_opts: {{max_retries: 0}}
  backup:
    provider: openai
    model: gpt-backup
    base_url: {url}
    provider_opts: {{max_retries: 0}}
agents:
  root:
    model: primary
    fallback:
      models: [backup]
      retries: 1
    hooks:
      notification:
        - type: command
          command: "jq -c '{{level: .notification_level, message: .notification_message}}' >> notified.jsonl"
      on_error:
        - type: command
          command: "jq -c '{{message: .notification_message}}' >> errors.jsonl"
"#,
        url = fake.base_url()
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    let (code, out, err) = run(d, "hi", &[("OPENAI_API_KEY", "k")]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("answer from the backup"), "{out}");
    // One retry on the primary (a 5xx), then the backup.
    assert_eq!(
        models_of(&fake),
        vec!["gpt-primary", "gpt-primary", "gpt-backup"]
    );
    assert!(err.contains("falling back to openai/gpt-backup"), "{err}");
    let notified = std::fs::read_to_string(d.join("notified.jsonl")).unwrap();
    let errors = std::fs::read_to_string(d.join("errors.jsonl")).unwrap();
    assert!(
        notified.contains(r#""level":"error""#)
            && notified.contains("falling back to openai/gpt-backup"),
        "{notified}"
    );
    assert!(errors.contains("503"), "{errors}");
}

#[test]
fn a_rate_limit_moves_on_at_once_and_the_last_error_ends_the_run() {
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::error(429, "slow down"))
        .push(Turn::error(400, "bad request"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = format!(
        r#"models:
  a: {{provider: openai, model: gpt-a, base_url: "{url}", provider_opts: {{max_retries: 0}}}}
  b: {{provider: openai, model: gpt-b, base_url: "{url}", provider_opts: {{max_retries: 0}}}}
agents:
  root:
    model: a
    fallback: {{models: [b]}}
"#,
        url = fake.base_url()
    );
    std::fs::write(d.join("agent.yaml"), agent).unwrap();
    let (code, out, err) = run(d, "hi", &[("OPENAI_API_KEY", "k")]);
    assert_ne!(code, 0, "{out}\n{err}");
    assert_eq!(models_of(&fake), vec!["gpt-a", "gpt-b"]);
    assert!(err.contains("bad request"), "{err}");
}

#[test]
fn model_fields_reach_the_request() {
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text(r#"{"verdict":"ok"}"#));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        r#"models:
  gpt:
    provider: openai
    model: gpt-4o
    base_url: ${env.FAKE_URL}
    token_key: MY_GATEWAY_KEY
    thinking_budget: low
    frequency_penalty: 0.5
    presence_penalty: 0.25
    parallel_tool_calls: false
    track_usage: false
agents:
  root:
    model: gpt
    toolsets: [{type: think}]
    structured_output:
      name: verdict
      description: The review verdict
      strict: true
      schema:
        type: object
        properties: {verdict: {type: string}}
        required: [verdict]
        additionalProperties: false
"#,
    )
    .unwrap();
    let (code, out, err) = run(
        d,
        "review",
        &[
            ("FAKE_URL", &fake.base_url()),
            ("MY_GATEWAY_KEY", "gw-secret"),
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let reqs = fake.requests();
    let body = &reqs[0].body;
    assert_eq!(reqs[0].header("authorization"), Some("Bearer gw-secret"));
    assert_eq!(
        (
            &body["reasoning_effort"],
            &body["frequency_penalty"],
            &body["presence_penalty"],
            &body["parallel_tool_calls"],
            body.get("stream_options"),
        ),
        (
            &json!("low"),
            &json!(0.5),
            &json!(0.25),
            &json!(false),
            None
        )
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "verdict");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
}

#[test]
fn thinking_budgets_take_each_providers_shape() {
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("a")).push(Turn::text("g"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let url = fake.base_url();
    let write = |model: &str| {
        std::fs::write(
            d.join("agent.yaml"),
            format!(
                r#"models:
  claude: {{provider: anthropic, model: claude-sonnet-4-5, base_url: "{url}", thinking_budget: 2048}}
  gemini: {{provider: google, model: gemini-2.5-flash, base_url: "{url}", thinking_budget: -1}}
agents:
  root: {{model: {model}}}
"#
            ),
        )
        .unwrap();
    };
    let env = [("ANTHROPIC_API_KEY", "a"), ("GOOGLE_API_KEY", "g")];
    write("claude");
    assert_eq!(run(d, "hi", &env).0, 0);
    write("gemini");
    assert_eq!(run(d, "hi", &env).0, 0);
    let reqs = fake.requests();
    assert_eq!(
        reqs[0].body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(
        reqs[1].body["generationConfig"]["thinkingConfig"],
        json!({"thinkingBudget": -1})
    );
}

#[test]
fn a_budget_the_provider_cannot_take_is_a_load_error() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "models:\n  m:\n    provider: openai\n    model: gpt-5\n    thinking_budget: 4096\nagents:\n  root: {model: m}\n",
    )
    .unwrap();
    let out = tether(d, &[])
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        err.contains("agent.yaml:5:22: models.m.thinking_budget: `openai` takes an effort level"),
        "{err}"
    );
}

#[test]
fn a_providers_entry_gives_models_its_endpoint_api_and_key() {
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("via the gateway"))
        .push(Turn::text("inline too"));
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let agent = |model: &str| {
        format!(
            r#"providers:
  my_gateway:
    api_type: openai_responses
    base_url: {url}
    token_key: GATEWAY_TOKEN
    temperature: 0.3
models:
  gw_model: {{provider: my_gateway, model: gpt-4o, max_tokens: 100}}
agents:
  root: {{model: {model}}}
"#,
            url = fake.base_url()
        )
    };
    std::fs::write(d.join("agent.yaml"), agent("gw_model")).unwrap();
    let (code, out, err) = run(d, "hi", &[("GATEWAY_TOKEN", "tok")]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("via the gateway"), "{out}");
    std::fs::write(d.join("agent.yaml"), agent("my_gateway/gpt-4o-mini")).unwrap();
    let (code, out, err) = run(d, "hi", &[("GATEWAY_TOKEN", "tok")]);
    assert_eq!(code, 0, "{out}\n{err}");
    let reqs = fake.requests();
    assert!(reqs[0].path.ends_with("/responses"), "{}", reqs[0].path);
    assert_eq!(reqs[0].header("authorization"), Some("Bearer tok"));
    assert_eq!(
        (
            &reqs[0].body["temperature"],
            &reqs[0].body["max_output_tokens"]
        ),
        (&json!(0.3), &json!(100))
    );
    assert_eq!(reqs[1].body["model"], "gpt-4o-mini");
    assert!(reqs[1].path.ends_with("/responses"), "{}", reqs[1].path);
}

#[test]
fn a_router_sends_each_request_to_the_model_its_examples_match() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    for (file, text) in [
        ("default", "DEFAULT"),
        ("fast", "FAST"),
        ("capable", "CAPABLE"),
    ] {
        std::fs::write(
            d.join(format!("{file}.yaml")),
            format!("default: {{text: {text}}}\n"),
        )
        .unwrap();
    }
    std::fs::write(
        d.join("agent.yaml"),
        r#"models:
  router:
    provider: script
    model: default.yaml
    routing:
      - model: script/fast.yaml
        examples: ["hello", "thanks", "good morning"]
      - model: capable
        examples: ["debug this code", "fix this error", "implement a function"]
  capable: {provider: script, model: capable.yaml}
agents:
  root: {model: router}
"#,
    )
    .unwrap();
    let said: Vec<String> = [
        "hello there",
        "please fix the errors in parser.rs",
        "capital of France?",
    ]
    .iter()
    .map(|p| {
        run(d, p, &[])
            .1
            .trim()
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned()
    })
    .collect();
    assert_eq!(said, vec!["FAST", "CAPABLE", "DEFAULT"]);
}

#[test]
fn an_alloy_alternates_its_models_and_auto_picks_the_provider_with_a_key() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.yaml"),
        "default: {tool_calls: [{name: think, arguments: {thought: planning}}]}\nafter_tool: {text: 'A after tool'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("b.yaml"),
        "default: {text: 'B answers'}\nafter_tool: {text: 'B after tool'}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        "models:\n  a: {provider: script, model: a.yaml}\n  b: {provider: script, model: b.yaml}\nagents:\n  root:\n    model: a,b\n    toolsets: [{type: think}]\n",
    )
    .unwrap();
    let (code, out, err) = run(d, "go", &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    // Call 1 went to `a` (a tool call), call 2 to `b`.
    assert!(
        out.contains("B after tool") && !out.contains("A after tool"),
        "{out}"
    );

    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("auto answer"));
    std::fs::write(d.join("agent.yaml"), "agents:\n  root: {model: auto}\n").unwrap();
    let (code, out, err) = run(
        d,
        "hi",
        &[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", &fake.base_url()),
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(models_of(&fake), vec!["gpt-5-mini"]);
}

#[test]
fn skills_are_listed_read_and_run_as_slash_commands() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let skill = d.join(".agents/skills/release");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release\ndescription: Cut a release\n---\nBump the version, tag, push.\n",
    )
    .unwrap();
    std::fs::write(skill.join("references/CHECKLIST.md"), "1. tests green").unwrap();
    std::fs::create_dir_all(d.join("home/.agents/skills/broken")).unwrap();
    std::fs::write(
        d.join("home/.agents/skills/broken/SKILL.md"),
        "no front matter",
    )
    .unwrap();
    std::fs::write(
        d.join("s.yaml"),
        r#"rules:
  - match: 'Use the following skill'
    reply: {text: 'SLASH {{prompt}}'}
  - match: 'release'
    reply: {tool_calls: [{name: read_skill, arguments: {name: release}}]}
  - match: 'inline'
    reply: {tool_calls: [{name: read_skill, arguments: {name: haiku}}]}
after_tool: {text: 'SKILL SAYS {{tool_result}}'}
"#,
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        r#"agents:
  root:
    model: script/s.yaml
    skills:
      - local
      - {name: haiku, description: Write a haiku, instructions: "Five, seven, five."}
    hooks:
      before_llm_call:
        - type: command
          command: "jq -r '.messages[0].content' > system.txt"
"#,
    )
    .unwrap();
    let (code, out, err) = run(d, "cut the release", &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("SKILL SAYS ---\nname: release"), "{out}");
    assert!(out.contains("Bump the version, tag, push."), "{out}");
    assert!(
        err.contains("skill skipped:") && err.contains("broken/SKILL.md"),
        "{err}"
    );
    let system = std::fs::read_to_string(d.join("system.txt")).unwrap();
    assert!(
        system.contains("<name>release</name>")
            && system.contains("<files>references/CHECKLIST.md</files>")
            && system.contains("<name>haiku</name>"),
        "{system}"
    );
    let (_, out, _) = run(d, "an inline one", &[]);
    assert!(out.contains("SKILL SAYS Five, seven, five."), "{out}");
    let (_, out, _) = run(d, "/release for 2.0", &[]);
    assert!(
        out.contains("SLASH Use the following skill.") && out.contains("User's request: for 2.0"),
        "{out}"
    );
}
