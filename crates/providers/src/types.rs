//! The provider-neutral request, stream and response types, and the `Provider` trait.
//!
//! A call is always a stream: `complete` just drains it. The last item of a successful stream
//! is `Completed` with the assembled message, so callers never rebuild a message from deltas
//! and a stream that ends any other way carries no partial assistant message.

use std::pin::Pin;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt};
use serde_json::Value;
use tether_protocol::chat::{Message, Usage};

use crate::ProviderError;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// Structured output: the model must answer with JSON matching `schema` (model hooks, judges).
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseSchema {
    pub name: String,
    pub description: String,
    pub schema: Value,
    /// Ask the vendor to enforce the schema exactly (OpenAI `strict`).
    pub strict: bool,
}

/// One model call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// The whole conversation, system messages included, in order.
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDefinition>,
    pub response_schema: Option<ResponseSchema>,
    /// Whether the model must call one of `tools` (sent only when there are tools); `None`:
    /// the vendor's default, which is `Auto`.
    pub tool_choice: Option<ToolChoice>,
}

/// The agent's `tool_choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    /// Every answer calls a tool.
    Required,
    /// No tool calls.
    None,
}

impl ToolChoice {
    /// OpenAI's spelling (Chat Completions and Responses).
    pub fn openai(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Required => "required",
            Self::None => "none",
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    /// The reason in OpenAI's spelling (`stop`, `tool_calls`, `length`, `content_filter`), or
    /// the provider's own word for anything else.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Stop => "stop",
            Self::ToolCalls => "tool_calls",
            Self::Length => "length",
            Self::ContentFilter => "content_filter",
            Self::Other(s) => s,
        }
    }
}

/// The assembled result of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    /// The assistant message: text, reasoning (with signature), tool calls with their full
    /// arguments, and `provider_state` to send back verbatim.
    pub message: Message,
    /// `input_tokens` counts prompt tokens *not* served from cache (`cached_input_tokens`);
    /// `output_tokens` includes `reasoning_tokens`.
    pub usage: Option<Usage>,
    pub finish_reason: FinishReason,
}

/// What a stream yields, in order.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "`Completed` comes once per stream; boxing it would only complicate every match"
)]
pub enum StreamEvent {
    TextDelta(String),
    ReasoningDelta(String),
    /// A tool call began (its arguments are still streaming); for UIs.
    ToolCallStarted {
        id: String,
        name: String,
    },
    /// Always the last item of a successful stream.
    Completed(ModelResponse),
}

pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ProviderError>> + Send>>;

/// A model client. Cheap to share (`Arc<dyn Provider>`); calls are independent.
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// `provider/model`, e.g. `openai/gpt-4o`.
    fn id(&self) -> &str;

    /// Starts a call. Connection errors (after retries) are returned here; errors once the
    /// stream runs are stream items, after which the stream ends.
    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>>;
}

/// Runs a call to the end and returns its response, or the first error.
pub async fn complete(
    provider: &dyn Provider,
    req: &ChatRequest,
) -> Result<ModelResponse, ProviderError> {
    let mut stream = provider.stream(req).await?;
    while let Some(item) = stream.next().await {
        if let StreamEvent::Completed(resp) = item? {
            return Ok(resp);
        }
    }
    Err(ProviderError::protocol(
        provider.id(),
        "stream ended without a response",
    ))
}
