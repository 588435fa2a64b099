use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::chat::Usage;

use super::*;

const SEED004: &str = include_str!("../../tests/fixtures/seed004.script.yaml");

fn seed004() -> ScriptProvider {
    ScriptProvider::from_str("script/seed004", Path::new("seed004.script.yaml"), SEED004).unwrap()
}

fn req(messages: Vec<Message>) -> ChatRequest {
    ChatRequest {
        messages,
        ..ChatRequest::default()
    }
}

fn calls(resp: &ModelResponse) -> Vec<(String, String, serde_json::Value)> {
    resp.message
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.id.clone(),
                c.function.name.clone(),
                serde_json::from_str(&c.function.arguments).unwrap(),
            )
        })
        .collect()
}

#[test]
fn seed004_prompts_become_shell_calls() {
    let p = seed004();
    let prompts = [
        "Run: echo hello",
        "Run: rm -rf /tmp/test",
        "Run: sudo apt update",
        "List files in current dir",
    ];
    let got: Vec<_> = prompts
        .iter()
        .map(|prompt| {
            let resp = p
                .respond(&req(vec![Message::system("sys"), Message::user(*prompt)]))
                .unwrap();
            (calls(&resp), resp.finish_reason)
        })
        .collect();
    let call = |cmd: &str| vec![("call_1".to_owned(), "shell".to_owned(), json!({"cmd": cmd}))];
    assert_eq!(
        got,
        vec![
            (call("echo hello"), FinishReason::ToolCalls),
            (call("rm -rf /tmp/test"), FinishReason::ToolCalls),
            (call("sudo apt update"), FinishReason::ToolCalls),
            (call("ls"), FinishReason::ToolCalls),
        ]
    );
}

#[test]
fn after_a_tool_result_the_reply_quotes_it_and_ids_keep_counting() {
    let p = seed004();
    let mut assistant = Message::assistant("");
    assistant
        .tool_calls
        .push(ToolCall::new("call_1", "shell", r#"{"cmd":"echo hello"}"#));
    let mut history = vec![
        Message::system("sys"),
        Message::user("Run: echo hello"),
        assistant,
        Message::tool_result("call_1", "shell", "hello\n", false),
    ];
    let after = p.respond(&req(history.clone())).unwrap();
    history.push(after.message.clone());
    history.push(Message::user("Run: pwd"));
    let next = p.respond(&req(history)).unwrap();
    assert_eq!(
        (
            after.message.content.as_str(),
            after.finish_reason,
            calls(&next)
        ),
        (
            "The `shell` tool returned:\nhello\n",
            FinishReason::Stop,
            vec![(
                "call_2".to_owned(),
                "shell".to_owned(),
                json!({"cmd": "pwd"})
            )]
        )
    );
}

#[test]
fn captured_text_is_json_escaped_in_arguments() {
    let p = seed004();
    let cmd = r#"printf "a\tb" | grep '\"x' # ü"#;
    let resp = p
        .respond(&req(vec![Message::user(format!("Run: {cmd}"))]))
        .unwrap();
    assert_eq!(
        resp.message.tool_calls[0].function.arguments,
        serde_json::to_string(&json!({"cmd": cmd})).unwrap()
    );
}

#[test]
fn usage_is_estimated_deterministically_when_the_reply_has_none() {
    let p = seed004();
    let resp = p.respond(&req(vec![Message::user("hello there")])).unwrap();
    let text =
        "I am the offline script model. Try `Run: echo hello` or `List files in current dir`.";
    assert_eq!(
        (resp.message.content.as_str(), resp.usage),
        (
            text,
            Some(Usage {
                input_tokens: 3,
                output_tokens: (text.len() as u64).div_ceil(4),
                ..Usage::default()
            })
        )
    );
}

const ORDERED: &str = r#"
replies:
  - text: first
    reasoning: thinking about {{prompt}}
    usage: {input_tokens: 10, output_tokens: 2}
  - tool_calls: [{name: read, arguments: {path: a.txt, n: 3, deep: {list: ["$1", "{{prompt}}"]}}}]
rules:
  - match: 'fail (\w+)'
    reply:
      error: {kind: rate_limited, message: slow down}
  - match: 'overflow'
    reply:
      error: {kind: context_overflow}
"#;

#[test]
fn ordered_replies_come_first_then_rules() {
    let p = ScriptProvider::from_str("script/o", Path::new("o.yaml"), ORDERED).unwrap();
    let first = p.respond(&req(vec![Message::user("q1")])).unwrap();
    let mut history = vec![
        Message::user("q1"),
        first.message.clone(),
        Message::user("q2"),
    ];
    let second = p.respond(&req(history.clone())).unwrap();
    history.push(second.message.clone());
    history.push(Message::user("please fail now"));
    let third = p.respond(&req(history.clone())).unwrap_err();
    history.push(Message::assistant("x"));
    history.push(Message::user("overflow"));
    let fourth = p.respond(&req(history.clone())).unwrap_err();
    history.push(Message::assistant("y"));
    history.push(Message::user("something else"));
    let fifth = p.respond(&req(history)).unwrap_err();
    assert_eq!(
        (
            (
                first.message.content.as_str(),
                first.message.reasoning_content.as_str(),
                first.usage
            ),
            calls(&second),
            (third.to_string(), third.is_retryable()),
            fourth.is_context_overflow(),
            fifth.to_string(),
        ),
        (
            (
                "first",
                "thinking about q1",
                Some(Usage {
                    input_tokens: 10,
                    output_tokens: 2,
                    ..Usage::default()
                })
            ),
            vec![(
                "call_1".to_owned(),
                "read".to_owned(),
                json!({"path": "a.txt", "n": 3, "deep": {"list": ["", "q2"]}})
            )],
            ("rate limited by `script/o`: slow down".to_owned(), true),
            true,
            "o.yaml: no reply for the prompt `something else` (add a `default` reply)".to_owned(),
        )
    );
}

#[tokio::test]
async fn the_stream_ends_with_the_completed_response() {
    let p = seed004();
    let r = req(vec![Message::user("Run: ls")]);
    let events: Vec<StreamEvent> = {
        use futures::StreamExt;
        p.stream(&r)
            .await
            .unwrap()
            .map(|e| e.unwrap())
            .collect()
            .await
    };
    let resp = p.respond(&r).unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStarted {
                id: "call_1".into(),
                name: "shell".into()
            },
            StreamEvent::Completed(resp),
        ]
    );
}

#[test]
fn an_unknown_key_is_reported_with_file_line_col_and_key_path() {
    let text = "rules:\n  - match: x\n    reply:\n      txt: hi\n";
    let err = ScriptProvider::from_str("script/bad", Path::new("bad.yaml"), text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.yaml:4:7: unknown field `txt`, expected one of text, reasoning, tool_calls, usage, error (at `rules[0].reply.txt`)"
    );
}

#[test]
fn a_wrong_shape_is_reported_with_its_location() {
    let text = "default:\n  tool_calls: not-a-list\n";
    let err = ScriptProvider::from_str("script/bad", Path::new("bad.yaml"), text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.yaml:2:15: expected sequence start (at `default.tool_calls`)"
    );
}

#[test]
fn an_invalid_regex_points_at_the_match_value() {
    let text = "rules:\n  - match: '(unclosed'\n    reply: {text: x}\n";
    let err = ScriptProvider::from_str("script/bad", Path::new("bad.yaml"), text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.yaml:2:12: invalid regex in `rules[0].match`: regex parse error:"
    );
}

#[test]
fn relative_script_paths_resolve_against_the_base_dir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), "default: {text: ok}\n").unwrap();
    let mut spec = ModelSpec::parse_inline("script/s.yaml").unwrap();
    spec.base_dir = Some(dir.path().to_path_buf());
    let p = ScriptProvider::from_spec(&spec).unwrap();
    spec.base_dir = None;
    let missing = ScriptProvider::from_spec(&spec).unwrap_err();
    assert_eq!(
        (
            p.respond(&req(vec![Message::user("x")]))
                .unwrap()
                .message
                .content,
            missing
                .to_string()
                .starts_with("cannot read script `s.yaml`: ")
        ),
        ("ok".to_owned(), true)
    );
}
