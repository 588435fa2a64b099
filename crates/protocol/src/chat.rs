//! Chat messages as they travel between the runtime, hooks (`messages`, `updated_messages`)
//! and the session store. Providers translate them to each vendor's dialect.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

/// One chat message. Empty fields are omitted on the wire, as docker-agent does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: String,
    /// Structured content (text and image parts); when present it is what the model sees.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub multi_content: Vec<ContentPart>,
    /// The model's visible reasoning, kept so it can be sent back where the API requires it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning_content: String,
    /// Anthropic's signature over `reasoning_content`; required to send thinking blocks back.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub thinking_signature: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On `role: tool` messages: the id of the call this is the result of.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_call_id: String,
    /// On `role: tool` messages: the tool's name; on assistant messages: the agent's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// On `role: tool` messages: the result is an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Legacy single function call (OpenAI `function_call`); read, never produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    /// Opaque provider data that must be sent back verbatim (e.g. encrypted reasoning items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_state: Option<Value>,
}

impl Message {
    fn with_role(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            multi_content: Vec::new(),
            reasoning_content: String::new(),
            thinking_signature: String::new(),
            tool_calls: Vec::new(),
            tool_call_id: String::new(),
            name: String::new(),
            is_error: false,
            function_call: None,
            provider_state: None,
        }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::with_role(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::with_role(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::with_role(Role::Assistant, content)
    }

    /// A tool result for the call `tool_call_id`.
    pub fn tool_result(
        tool_call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        let mut m = Self::with_role(Role::Tool, content);
        m.tool_call_id = tool_call_id.into();
        m.name = name.into();
        m.is_error = is_error;
        m
    }

    /// The text of the message: `content`, else its text parts joined.
    pub fn text(&self) -> String {
        if !self.content.is_empty() || self.multi_content.is_empty() {
            return self.content.clone();
        }
        let parts: Vec<&str> = self
            .multi_content
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } => Some(text.as_str()),
                ContentPart::ImageUrl { .. } => None,
            })
            .collect();
        parts.join("\n")
    }
}

/// A part of a structured message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    pub url: String,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type", default = "function_kind")]
    pub kind: String,
    pub function: FunctionCall,
}

fn function_kind() -> String {
    "function".to_owned()
}

impl ToolCall {
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            kind: function_kind(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }
}

/// A function name and its JSON-encoded arguments (as the model produced them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    #[serde(default)]
    pub arguments: String,
}

/// Token usage of one model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cached_input_tokens: u64,
    #[serde(default)]
    pub cached_write_tokens: u64,
    /// Absent for models that do not report reasoning tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn empty_fields_are_omitted_on_the_wire() {
        let m = Message::user("hi");
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"role": "user", "content": "hi"})
        );
    }

    #[test]
    fn tool_calls_use_the_openai_shape() {
        let mut m = Message::assistant("");
        m.tool_calls
            .push(ToolCall::new("call_1", "shell", r#"{"cmd":"ls"}"#));
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": "{\"cmd\":\"ls\"}"}}
            ]})
        );
    }

    #[test]
    fn text_falls_back_to_text_parts() {
        let mut m = Message::user("");
        m.multi_content = vec![
            ContentPart::Text { text: "a".into() },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:".into(),
                },
            },
            ContentPart::Text { text: "b".into() },
        ];
        assert_eq!(m.text(), "a\nb");
    }
}
