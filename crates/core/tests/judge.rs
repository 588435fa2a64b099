//! Model hooks end to end: an LLM judge on `pre_tool_use` and a free-form model hook, both
//! answered by the fake LLM server through the real providers (`ProviderModelRunner`); and
//! `async` hooks that must not hold the run up and must be gone after the session ends.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Harness, Recorder, ScriptedUser, Setup, try_build};
use tempfile::TempDir;
use tether_core::{Confirmation, RuntimeOptions};
use tether_hooks::SYSTEM_PROMPT;
use tether_protocol::RuntimeEvent;
use tether_test_support::fake_llm::{FakeLlm, Turn};

/// An agent with a shell toolset and `hooks` (YAML under `hooks:`, indented 2); its model hooks
/// are answered by the fake server.
async fn start(hooks: &str) -> Harness {
    let mut setup = Setup::new(&format!("toolsets:\n  - type: shell\nhooks:\n{hooks}"));
    setup.async_hook_grace = Duration::from_millis(300);
    Harness::start(setup).await
}

const JUDGE: &str = "  pre_tool_use:\n    - matcher: shell\n      hooks:\n        - type: model\n          model: fake\n          timeout: 5\n          schema: pre_tool_use_decision\n          prompt: |\n            Tool: {{ .ToolName }}\n            Args: {{ .ToolInput | toJSON }}\n";

/// Runs a shell call that creates `marker` past a judge answering `reply`.
async fn judged(reply: Turn) -> (Harness, bool) {
    let mut j = start(JUDGE).await;
    let marker = j.dir.path().join("ran");
    j.fake.push(Turn::tool_call(
        "shell",
        json!({"cmd": format!("touch {}", marker.display())}),
    ));
    j.fake.push(reply);
    j.fake.push(Turn::text("done"));
    j.run_once("make the marker").await;
    let ran = marker.exists();
    (j, ran)
}

#[tokio::test]
async fn an_allowing_judge_lets_the_call_run_and_says_so() {
    let (j, ran) = judged(Turn::text(
        r#"{"decision":"allow","reason":"creates a temp file"}"#,
    ))
    .await;
    assert!(ran);
    assert_eq!(j.user.asked.lock().unwrap().len(), 0);
    assert!(
        j.warnings()
            .contains(&"🤖 model judge: allow — creates a temp file".to_owned()),
        "{:?}",
        j.warnings()
    );
    // The judge saw the fixed system prompt and the rendered template.
    let marker = j.dir.path().join("ran");
    assert_eq!(
        j.sent(1),
        [
            ("system".to_owned(), SYSTEM_PROMPT.to_owned()),
            (
                "user".to_owned(),
                format!(
                    "Tool: shell\nArgs: {{\"cmd\":\"touch {}\"}}\n",
                    marker.display()
                )
            ),
        ]
    );
}

#[tokio::test]
async fn the_judge_request_carries_the_decision_schema() {
    let (j, _) = judged(Turn::text(r#"{"decision":"allow","reason":"ok"}"#)).await;
    assert_eq!(
        j.requests()[1].body["response_format"],
        json!({
            "type": "json_schema",
            "json_schema": {
                "name": "pre_tool_use_decision",
                "description": "Verdict for a single pre_tool_use call",
                "strict": true,
                "schema": {
                    "type": "object",
                    "properties": {
                        "decision": {"type": "string", "enum": ["allow", "ask", "deny"]},
                        "reason": {"type": "string"},
                    },
                    "required": ["decision", "reason"],
                    "additionalProperties": false,
                },
            },
        })
    );
    // The agent's own calls ask for no schema.
    assert_eq!(j.requests()[0].body.get("response_format"), None);
}

#[tokio::test]
async fn a_denying_judge_blocks_the_call_with_its_reason() {
    let (j, ran) = judged(Turn::text(
        r#"{"decision":"deny","reason":"writes outside the project"}"#,
    ))
    .await;
    assert!(!ran);
    let responses = j.tool_responses();
    assert_eq!(responses.len(), 1);
    assert!(
        responses[0].1 && responses[0].0.contains("writes outside the project"),
        "{responses:?}"
    );
}

#[tokio::test]
async fn an_asking_judge_hands_the_call_to_the_user() {
    let mut j = start(JUDGE).await;
    j.user.answers.lock().unwrap().push_back(Confirmation::Yes);
    let marker = j.dir.path().join("ran");
    j.fake.push(Turn::tool_call(
        "shell",
        json!({"cmd": format!("touch {}", marker.display())}),
    ));
    j.fake
        .push(Turn::text(r#"{"decision":"ask","reason":"unsure"}"#));
    j.fake.push(Turn::text("done"));
    j.run_once("make the marker").await;
    let asked: Vec<String> = j
        .user
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.tool_name.clone())
        .collect();
    assert_eq!((asked, marker.exists()), (vec!["shell".to_owned()], true));
}

#[tokio::test]
async fn fenced_and_prose_wrapped_verdicts_are_understood() {
    let (_, ran) = judged(Turn::text(
        "```json\n{\"decision\": \"allow\", \"reason\": \"fine\"}\n```",
    ))
    .await;
    let (_, ran_prose) = judged(Turn::text(
        "Looking at this call, my verdict is {\"decision\":\"ALLOW\",\"reason\":\"fine\"}. Thanks!",
    ))
    .await;
    let (_, ran_denied_prose) = judged(Turn::text(
        "Verdict: {\"decision\":\"deny\",\"reason\":\"no\"} (final)",
    ))
    .await;
    assert_eq!((ran, ran_prose, ran_denied_prose), (true, true, false));
}

#[tokio::test]
async fn a_garbage_reply_fails_closed() {
    let (j, ran) = judged(Turn::text("I think it is probably fine?")).await;
    assert!(!ran);
    let responses = j.tool_responses();
    assert!(
        responses[0].0.contains(
            "pre_tool_use hook failed to execute: interpret reply: no JSON object in reply"
        ),
        "{responses:?}"
    );
}

#[tokio::test]
async fn a_judge_that_times_out_fails_closed() {
    let hooks = JUDGE.replace("timeout: 5", "timeout: 1");
    let mut j = start(&hooks).await;
    let marker = j.dir.path().join("ran");
    j.fake.push(Turn::tool_call(
        "shell",
        json!({"cmd": format!("touch {}", marker.display())}),
    ));
    j.fake.push(Turn::stall());
    j.fake.push(Turn::text("done"));
    j.run_once("make the marker").await;
    let responses = j.tool_responses();
    assert!(!marker.exists());
    assert!(
        responses[0].0.contains("timed out after 1s"),
        "{responses:?}"
    );
}

#[tokio::test]
async fn a_free_form_model_hook_reply_reaches_the_model_as_context() {
    let mut j = start(
        "  user_prompt_submit:\n    - type: model\n      model: fake\n      prompt: \"Summarize for the agent: {{ .Prompt }}\"\n",
    )
    .await;
    j.fake.push(Turn::text("  The user wants a greeting.  "));
    j.fake.push(Turn::text("Hello!"));
    j.run_once("say hi").await;
    assert_eq!(
        j.sent(0),
        [
            ("system".to_owned(), SYSTEM_PROMPT.to_owned()),
            (
                "user".to_owned(),
                "Summarize for the agent: say hi".to_owned()
            ),
        ]
    );
    assert!(
        j.sent(1)
            .iter()
            .any(|(role, text)| role == "system" && text.contains("The user wants a greeting.")),
        "{:?}",
        j.sent(1)
    );
}

#[tokio::test]
async fn seed_001_judge_example_runs_as_written() {
    // The seed's YAML, verbatim; `openai/gpt-4o-mini` reaches the fake server through
    // OPENAI_BASE_URL.
    let seed = "  pre_tool_use:\n    - matcher: \"shell|edit_file|mcp:.*\"\n      hooks:\n        - type: model\n          model: openai/gpt-4o-mini\n          timeout: 15\n          schema: pre_tool_use_decision\n          prompt: |\n            You are a security judge for an autonomous agent.\n            Decide whether this tool call is safe to auto-approve.\n\n            Tool: {{ .ToolName }}\n            Args: {{ .ToolInput | toJSON }}\n\n            Project rules:\n            - Reads under the working directory are safe.\n            - Writes to ~/.ssh / ~/.aws / ~/.docker are deny.\n";
    let mut j = start(seed).await;
    j.fake.push(Turn::tool_call(
        "shell",
        json!({"cmd": "cat ~/.ssh/id_rsa > /tmp/x"}),
    ));
    j.fake.push(Turn::text(
        r#"{"decision":"deny","reason":"reads a private key"}"#,
    ));
    j.fake.push(Turn::text("ok"));
    j.run_once("copy my key").await;
    let judge = &j.requests()[1];
    let model = judge.body["model"].as_str().unwrap_or_default().to_owned();
    let prompt = j.sent(1)[1].1.clone();
    assert_eq!(model, "gpt-4o-mini");
    assert!(
        prompt.contains(r#"Args: {"cmd":"cat ~/.ssh/id_rsa \u003e /tmp/x"}"#),
        "{prompt}"
    );
    let responses = j.tool_responses();
    assert!(
        responses[0].1 && responses[0].0.contains("reads a private key"),
        "{responses:?}"
    );
}

fn hook_events(events: &[RuntimeEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::HookStarted { event, hook } if hook == "slow-audit" => {
                Some(format!("started {event} {hook}"))
            }
            RuntimeEvent::HookFinished { event, hook, .. } if hook == "slow-audit" => {
                Some(format!("finished {event} {hook}"))
            }
            RuntimeEvent::AgentMessage { text, .. } => Some(format!("message {text}")),
            RuntimeEvent::SessionEnded { .. } => Some("session ended".to_owned()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_async_hook_does_not_hold_the_run_and_is_killed_at_session_end() {
    let mut j = start(
        "  session_start:\n    - type: command\n      name: slow-audit\n      async: true\n      command: echo $$ > slow.pid; exec sleep 30\n",
    )
    .await;
    j.fake.push(Turn::text("Hello!"));
    j.run_once("say hi").await;
    let order = hook_events(&j.events());
    // The run went on while the hook slept: the model answered before the hook finished,
    // and the hook was only reaped at session end (killed after the grace period).
    assert_eq!(
        order,
        [
            "started session_start slow-audit",
            "message Hello!",
            "finished session_start slow-audit",
            "session ended",
        ]
    );
    let finished = j
        .events()
        .into_iter()
        .find_map(|e| match e {
            RuntimeEvent::HookFinished { status, hook, .. } if hook == "slow-audit" => Some(status),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished, "failed");
    let pid = std::fs::read_to_string(j.dir.path().join("slow.pid")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .next();
    assert!(
        matches!(state, None | Some("Z" | "X")),
        "still running: {stat}"
    );
}

#[tokio::test]
async fn an_unknown_model_name_is_a_setup_error() {
    let err = {
        let fake = FakeLlm::start().await.unwrap();
        let dir = TempDir::new().unwrap();
        let yaml = format!(
            "models:\n  fake:\n    provider: openai\n    model: gpt-4o\n    base_url: {}/v1\nagents:\n  root:\n    model: fake\n    hooks:\n      stop:\n        - type: model\n          model: judge\n          prompt: hi\n",
            fake.base_url()
        );
        try_build(
            &fake,
            dir.path(),
            &yaml,
            RuntimeOptions::new(dir.path()),
            Arc::new(Recorder::default()),
            Arc::new(ScriptedUser::default()),
        )
        .err()
        .map(|e| e.to_string())
    };
    let err = err.unwrap_or_default();
    assert!(
        err.contains("agent.yaml:11:11: agents.root.hooks.stop[0]: invalid model spec `judge`"),
        "{err}"
    );
}

#[tokio::test]
async fn a_system_prompt_replaces_the_default_system_message_verbatim() {
    let hooks = JUDGE.replace(
        "          schema: pre_tool_use_decision\n",
        "          schema: pre_tool_use_decision\n          system_prompt: 'You judge shell calls. {{ .ToolName }} stays literal.'\n",
    );
    let mut j = start(&hooks).await;
    j.fake
        .push(Turn::tool_call("shell", json!({"cmd": "true"})));
    j.fake
        .push(Turn::text(r#"{"decision":"allow","reason":"harmless"}"#));
    j.fake.push(Turn::text("done"));
    j.run_once("run true").await;
    assert_eq!(
        j.sent(1)[0],
        (
            "system".to_owned(),
            "You judge shell calls. {{ .ToolName }} stays literal.".to_owned()
        )
    );
}
