//! The OpenTelemetry GenAI semantic conventions (`gen_ai.*`), set beside Tether's own
//! `tether.*` attributes so that LLM-aware backends (Langfuse, Datadog LLM Observability,
//! Honeycomb, Jaeger) show a session as an agent invocation, a model call as a chat and a tool
//! call as a tool execution, with the span names the conventions recommend.
//!
//! Why it is shaped this way:
//! - Only what the runtime's events carry is recorded (`agent_message`'s finish reason becomes
//!   `gen_ai.response.finish_reasons`); a provider prefix the conventions do not name (`dmr`,
//!   `script`, a custom `base_url` provider) is passed on as is.
//! - No message text: the conventions' opt-in content attributes (`gen_ai.input.messages`,
//!   `gen_ai.output.messages`, tool arguments and results) are not emitted.
//! - `gen_ai.usage.input_tokens` counts every prompt token, cache reads and writes included,
//!   as the conventions ask; `tether.usage.input_tokens` keeps Tether's meaning (cache reads
//!   and writes excluded), so the two differ when a prompt cache was used.
//! - The agent span names the agent's model and provider when `session_started` names a
//!   model, as the conventions list both.

use opentelemetry::KeyValue;
use tether_protocol::Usage;

const OPERATION: &str = "gen_ai.operation.name";
const CONVERSATION: &str = "gen_ai.conversation.id";

/// The name of a tool span whose call has not been announced yet.
pub(crate) const TOOL_SPAN: &str = "execute_tool";

/// The conventions' name for a provider prefix of a model id (`google/…` → `gcp.gemini`).
pub(crate) fn provider_name(prefix: &str) -> &str {
    match prefix {
        // Tether's Google client calls the Gemini API (generativelanguage.googleapis.com).
        "google" | "gemini" => "gcp.gemini",
        "mistral" => "mistral_ai",
        // `openai` and `anthropic` are already the conventions' names.
        other => other,
    }
}

/// A model call's span name and attributes, from its `provider/model` id.
pub(crate) fn chat(model_id: &str, session_id: &str) -> (String, Vec<KeyValue>) {
    let mut attrs = vec![KeyValue::new(OPERATION, "chat")];
    let model = push_model(&mut attrs, model_id);
    attrs.push(KeyValue::new(CONVERSATION, session_id.to_owned()));
    (format!("chat {model}"), attrs)
}

/// `gen_ai.provider.name` (when the id names one) and `gen_ai.request.model`; the model part.
fn push_model<'a>(attrs: &mut Vec<KeyValue>, model_id: &'a str) -> &'a str {
    let (provider, model) = match model_id.split_once('/') {
        Some((p, m)) if !p.is_empty() && !m.is_empty() => (Some(provider_name(p)), m),
        _ => (None, model_id),
    };
    if let Some(p) = provider {
        attrs.push(KeyValue::new("gen_ai.provider.name", p.to_owned()));
    }
    attrs.push(KeyValue::new("gen_ai.request.model", model.to_owned()));
    model
}

/// A token count as an attribute value (OTel integers are signed).
pub(crate) fn tokens(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A model call's token counts; the cache counts only when the provider reported some.
pub(crate) fn usage(u: &Usage) -> Vec<KeyValue> {
    let input = u
        .input_tokens
        .saturating_add(u.cached_input_tokens)
        .saturating_add(u.cached_write_tokens);
    let mut attrs = vec![
        KeyValue::new("gen_ai.usage.input_tokens", tokens(input)),
        KeyValue::new("gen_ai.usage.output_tokens", tokens(u.output_tokens)),
    ];
    if u.cached_input_tokens > 0 {
        attrs.push(KeyValue::new(
            "gen_ai.usage.cache_read.input_tokens",
            tokens(u.cached_input_tokens),
        ));
    }
    if u.cached_write_tokens > 0 {
        attrs.push(KeyValue::new(
            "gen_ai.usage.cache_creation.input_tokens",
            tokens(u.cached_write_tokens),
        ));
    }
    attrs
}

/// A tool span's attributes when it opens (its call may not be known yet).
pub(crate) fn tool_opened() -> Vec<KeyValue> {
    vec![KeyValue::new(OPERATION, "execute_tool")]
}

/// A tool span's name and the attributes its call's name gives.
pub(crate) fn tool_named(name: &str) -> (String, Vec<KeyValue>) {
    (
        format!("execute_tool {name}"),
        vec![
            KeyValue::new("gen_ai.tool.name", name.to_owned()),
            // Every Tether tool is offered to the model as a function and run by the runtime.
            KeyValue::new("gen_ai.tool.type", "function"),
        ],
    )
}

/// The attribute a tool span's call id gives.
pub(crate) fn tool_call_id(id: &str) -> KeyValue {
    KeyValue::new("gen_ai.tool.call.id", id.to_owned())
}

/// A session span's name and attributes.
pub(crate) fn invoke_agent(
    agent: &str,
    model_id: &str,
    session_id: &str,
) -> (String, Vec<KeyValue>) {
    let mut attrs = vec![
        KeyValue::new(OPERATION, "invoke_agent"),
        KeyValue::new("gen_ai.agent.name", agent.to_owned()),
        KeyValue::new(CONVERSATION, session_id.to_owned()),
    ];
    if !model_id.is_empty() {
        push_model(&mut attrs, model_id);
    }
    (format!("invoke_agent {agent}"), attrs)
}

/// The conventions' class of the error a span ended with: the runtime's error code.
pub(crate) fn error_type(code: &str) -> KeyValue {
    KeyValue::new("error.type", code.to_owned())
}

/// `gen_ai.response.finish_reasons`: an array, one reason per choice (Tether asks for one).
pub(crate) fn finish_reason(reason: String) -> KeyValue {
    KeyValue::new(
        "gen_ai.response.finish_reasons",
        opentelemetry::Value::Array(opentelemetry::Array::String(vec![reason.into()])),
    )
}
