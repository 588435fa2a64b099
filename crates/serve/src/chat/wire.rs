//! The OpenAI chat completions wire: requests as clients send them, responses, stream chunks
//! and errors exactly as OpenAI shapes them.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tether_protocol::chat::ImageUrl;
use tether_protocol::{ContentPart, Message};

/// `POST /v1/chat/completions`; fields we do not use (temperature, tools, …) are ignored.
#[derive(Debug, Deserialize)]
pub(super) struct RequestWire {
    #[serde(default)]
    pub(super) model: String,
    pub(super) messages: Vec<MessageWire>,
    #[serde(default)]
    pub(super) stream: bool,
    #[serde(default)]
    pub(super) stream_options: Option<StreamOptions>,
}

#[derive(Debug, Deserialize)]
pub(super) struct StreamOptions {
    /// A last chunk with no choices carries the usage, as OpenAI sends it.
    #[serde(default)]
    pub(super) include_usage: bool,
}

#[derive(Debug, Deserialize)]
pub(super) struct MessageWire {
    pub(super) role: String,
    #[serde(default)]
    pub(super) content: Option<ContentWire>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum ContentWire {
    Text(String),
    Parts(Vec<PartWire>),
}

#[derive(Debug, Deserialize)]
pub(super) struct PartWire {
    #[serde(rename = "type")]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) text: Option<String>,
    #[serde(default)]
    pub(super) image_url: Option<ImageUrl>,
}

impl MessageWire {
    /// The text of the message (text parts joined by newlines).
    pub(super) fn text(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(ContentWire::Text(t)) => t.clone(),
            Some(ContentWire::Parts(parts)) => parts
                .iter()
                .filter_map(|p| p.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// As a Tether message of the history; `None` for roles the agent keeps itself (tool
    /// results of calls it did not make).
    pub(super) fn to_message(&self) -> Option<Message> {
        let mut m = match self.role.as_str() {
            "user" => Message::user(self.text()),
            "assistant" => Message::assistant(self.text()),
            "system" | "developer" => Message::system(self.text()),
            _ => return None,
        };
        if let Some(ContentWire::Parts(parts)) = &self.content
            && parts.iter().any(|p| p.image_url.is_some())
        {
            m.multi_content = parts
                .iter()
                .filter_map(|p| match (p.kind.as_str(), &p.text, &p.image_url) {
                    ("text", Some(text), _) => Some(ContentPart::Text { text: text.clone() }),
                    ("image_url", _, Some(url)) => Some(ContentPart::ImageUrl {
                        image_url: url.clone(),
                    }),
                    _ => None,
                })
                .collect();
        }
        Some(m)
    }

    pub(super) fn is_user(&self) -> bool {
        self.role == "user"
    }
}

#[derive(Debug, Serialize)]
pub(super) struct Completion<'a> {
    pub(super) id: &'a str,
    pub(super) object: &'static str,
    pub(super) created: u64,
    pub(super) model: &'a str,
    pub(super) choices: [Choice<'a>; 1],
    pub(super) usage: Usage,
}

#[derive(Debug, Serialize)]
pub(super) struct Choice<'a> {
    pub(super) index: u32,
    pub(super) message: AssistantMessage<'a>,
    pub(super) logprobs: Option<()>,
    pub(super) finish_reason: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct AssistantMessage<'a> {
    pub(super) role: &'static str,
    pub(super) content: &'a str,
}

#[derive(Debug, Serialize, Default, Clone, Copy)]
pub(super) struct Usage {
    pub(super) prompt_tokens: u64,
    pub(super) completion_tokens: u64,
    pub(super) total_tokens: u64,
}

#[derive(Debug, Serialize)]
pub(super) struct Chunk<'a> {
    pub(super) id: &'a str,
    pub(super) object: &'static str,
    pub(super) created: u64,
    pub(super) model: &'a str,
    pub(super) choices: [ChunkChoice<'a>; 1],
}

/// The usage chunk of `stream_options.include_usage`.
#[derive(Debug, Serialize)]
pub(super) struct UsageChunk<'a> {
    pub(super) id: &'a str,
    pub(super) object: &'static str,
    pub(super) created: u64,
    pub(super) model: &'a str,
    pub(super) choices: [(); 0],
    pub(super) usage: Usage,
}

#[derive(Debug, Serialize)]
pub(super) struct ChunkChoice<'a> {
    pub(super) index: u32,
    pub(super) delta: Delta<'a>,
    pub(super) logprobs: Option<()>,
    pub(super) finish_reason: Option<&'static str>,
}

#[derive(Debug, Serialize, Default)]
pub(super) struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) content: Option<&'a str>,
}

/// An error as OpenAI sends it: `{"error": {"message", "type", "code"}}` with a status.
#[derive(Debug, Clone)]
pub(super) struct ApiError {
    pub(super) status: StatusCode,
    pub(super) message: String,
    pub(super) kind: &'static str,
    pub(super) code: &'static str,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorFields<'a>,
}

#[derive(Serialize)]
struct ErrorFields<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<()>,
    code: &'a str,
}

impl ApiError {
    pub(super) fn new(
        status: StatusCode,
        kind: &'static str,
        code: &'static str,
        message: String,
    ) -> Self {
        Self {
            status,
            message,
            kind,
            code,
        }
    }

    pub(super) fn bad_request(message: String) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_request",
            message,
        )
    }

    /// The `{"error": …}` object.
    pub(super) fn body(&self) -> String {
        serde_json::to_string(&ErrorBody {
            error: ErrorFields {
                message: &self.message,
                kind: self.kind,
                param: None,
                code: self.code,
            },
        })
        .unwrap_or_default()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tether_protocol::Role;

    #[test]
    fn content_may_be_text_or_parts() {
        let r: RequestWire = serde_json::from_str(
            r#"{"model":"root","messages":[
                {"role":"system","content":"be brief"},
                {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
                {"role":"tool","content":"x","tool_call_id":"c1"}],"temperature":0}"#,
        )
        .unwrap();
        assert_eq!(r.messages[1].text(), "a\nb");
        assert_eq!(r.messages[0].to_message().unwrap().role, Role::System);
        assert!(r.messages[2].to_message().is_none());
        assert!(!r.stream);
    }

    #[test]
    fn errors_have_openais_shape() {
        let e = ApiError::bad_request("no".to_owned());
        let v: serde_json::Value = serde_json::from_str(&e.body()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"error": {"message": "no", "type": "invalid_request_error", "param": null, "code": "invalid_request"}})
        );
    }

    #[test]
    fn chunks_have_openais_shape() {
        let c = Chunk {
            id: "chatcmpl-1",
            object: "chat.completion.chunk",
            created: 7,
            model: "root",
            choices: [ChunkChoice {
                index: 0,
                delta: Delta {
                    role: None,
                    content: Some("hi"),
                },
                logprobs: None,
                finish_reason: None,
            }],
        };
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"root","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}"#
        );
    }
}
