//! Request options that come from the agent file rather than the conversation: `tool_choice`
//! in each dialect's form, a provider's `headers` on every request, and declared
//! `capabilities` removing media the model cannot take.

#![cfg(test)]

mod common;

use std::collections::BTreeMap;

use common::{ALL, env, model_for, provider};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tether_protocol::chat::{ContentPart, ImageUrl, Message};
use tether_providers::{
    ChatRequest, InputMedia, MapEnv, ModelSpec, ToolChoice, ToolDefinition, build_provider,
    complete,
};
use tether_test_support::fake_llm::{Dialect, FakeLlm, Turn};

fn spec(server: &FakeLlm, dialect: Dialect) -> ModelSpec {
    let mut spec = ModelSpec::parse_inline(model_for(dialect)).unwrap();
    spec.base_url = Some(server.base_url_for(dialect));
    spec.provider_opts
        .insert("idle_timeout_ms".into(), json!(2000));
    spec
}

fn with_tool(tool_choice: Option<ToolChoice>) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("list the files")],
        tools: vec![ToolDefinition {
            name: "shell".into(),
            description: "Runs a command".into(),
            parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}}),
        }],
        response_schema: None,
        tool_choice,
    }
}

fn choice_part(dialect: Dialect, body: &Value) -> Value {
    match dialect {
        Dialect::Gemini => body.get("toolConfig").cloned().unwrap_or(Value::Null),
        _ => body.get("tool_choice").cloned().unwrap_or(Value::Null),
    }
}

#[tokio::test]
async fn tool_choice_reaches_each_dialect_in_its_own_form() {
    let mut got = Vec::new();
    for choice in [ToolChoice::Required, ToolChoice::None] {
        for dialect in ALL {
            let server = FakeLlm::start().await.unwrap();
            server.push(Turn::text("ok"));
            let p = build_provider(&spec(&server, dialect), &env()).unwrap();
            complete(p.as_ref(), &with_tool(Some(choice)))
                .await
                .unwrap();
            got.push(choice_part(dialect, &server.requests()[0].body));
        }
    }
    assert_eq!(
        got,
        vec![
            json!("required"),
            json!("required"),
            json!({"type": "any"}),
            json!({"functionCallingConfig": {"mode": "ANY"}}),
            json!("none"),
            json!("none"),
            json!({"type": "none"}),
            json!({"functionCallingConfig": {"mode": "NONE"}}),
        ]
    );
}

#[tokio::test]
async fn no_tool_choice_and_no_tools_send_nothing() {
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(Turn::text("ok"));
        server.push(Turn::text("ok"));
        let p = provider(&server, dialect, json!({}));
        complete(p.as_ref(), &with_tool(None)).await.unwrap();
        let mut no_tools = with_tool(Some(ToolChoice::Required));
        no_tools.tools.clear();
        complete(p.as_ref(), &no_tools).await.unwrap();
        for r in server.requests() {
            assert_eq!(choice_part(dialect, &r.body), Value::Null, "{dialect:?}");
        }
    }
}

#[tokio::test]
async fn provider_headers_expand_the_environment_and_go_on_every_request() {
    for dialect in ALL {
        let server = FakeLlm::start().await.unwrap();
        server.push(Turn::text("one"));
        server.push(Turn::text("two"));
        let mut spec = spec(&server, dialect);
        spec.headers = BTreeMap::from([
            (
                "cf-aig-authorization".to_owned(),
                "Bearer ${GATEWAY_TOKEN}".to_owned(),
            ),
            ("x-team".to_owned(), "${env.TEAM}-agents".to_owned()),
        ]);
        let env = MapEnv::new([
            ("OPENAI_API_KEY", "sk-openai"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GOOGLE_API_KEY", "g-key"),
            ("GATEWAY_TOKEN", "gw-123"),
            ("TEAM", "infra"),
        ]);
        let p = build_provider(&spec, &env).unwrap();
        complete(p.as_ref(), &with_tool(None)).await.unwrap();
        complete(p.as_ref(), &with_tool(None)).await.unwrap();
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        for r in requests {
            assert_eq!(
                (r.header("cf-aig-authorization"), r.header("x-team")),
                (Some("Bearer gw-123"), Some("infra-agents")),
                "{dialect:?}"
            );
        }
    }
}

#[test]
fn a_header_naming_an_unset_variable_is_an_error_naming_both() {
    let mut spec = ModelSpec::parse_inline("openai/gpt-4o").unwrap();
    spec.headers = BTreeMap::from([("x-token".to_owned(), "${MISSING_TOKEN}".to_owned())]);
    let err = build_provider(&spec, &env()).unwrap_err().to_string();
    assert!(
        err.contains("header `x-token`") && err.contains("MISSING_TOKEN"),
        "{err}"
    );
}

#[tokio::test]
async fn a_model_declared_without_image_input_never_receives_an_image() {
    let mut got = Vec::new();
    for image in [false, true] {
        let server = FakeLlm::start().await.unwrap();
        server.push(Turn::text("ok"));
        let mut spec = spec(&server, Dialect::OpenAiChat);
        spec.input_media = Some(InputMedia {
            image,
            ..InputMedia::default()
        });
        let p = build_provider(&spec, &env()).unwrap();
        let mut m = Message::user("");
        m.multi_content = vec![
            ContentPart::Text {
                text: "what is this?".into(),
            },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:image/png;base64,iVBORw0KGgo=".into(),
                },
            },
        ];
        let req = ChatRequest {
            messages: vec![m],
            ..ChatRequest::default()
        };
        complete(p.as_ref(), &req).await.unwrap();
        let body = server.requests()[0].body.to_string();
        got.push((body.contains("what is this?"), body.contains("image/png")));
    }
    assert_eq!(got, vec![(true, false), (true, true)]);
}
