//! Entry points for the fuzz targets in `fuzz/`; not part of the API (hidden from the docs).
//!
//! The vendors' stream decoders are crate-private because the HTTP loop is their only caller.
//! This facade drives them through that loop's own steps (`decode_chunk`, `decode_end`) —
//! bytes in chunks → SSE events → decoder, stopping after the chunk that completed the
//! response, `eof` when the body ends without one — so a fuzzer reaches exactly the code a
//! broken or hostile server reaches.

use crate::anthropic::AnthropicDecoder;
use crate::google::GeminiDecoder;
use crate::http::{Decoder, decode_chunk, decode_end};
use crate::openai::chat::ChatDecoder;
use crate::openai::responses::ResponsesDecoder;
use crate::{ProviderError, StreamEvent};
use tether_http::SseDecoder;

/// The provider id the decoders put in their errors.
const PROVIDER: &str = "fuzz/model";

/// A vendor's streaming wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    OpenAiChat,
    OpenAiResponses,
    /// Anthropic Messages; `schema_tool` as when structured output was requested (the
    /// answer then arrives as a forced tool call).
    Anthropic {
        schema_tool: bool,
    },
    Gemini,
}

/// Decodes a response `body` delivered in chunks of `chunk_len` bytes (0: one chunk), the
/// way the HTTP loop feeds a decoder. Returns what the stream would yield, or its error.
pub fn decode_stream(
    dialect: Dialect,
    body: &[u8],
    chunk_len: usize,
) -> Result<Vec<StreamEvent>, ProviderError> {
    let mut decoder: Box<dyn Decoder> = match dialect {
        Dialect::OpenAiChat => Box::new(ChatDecoder::new(PROVIDER)),
        Dialect::OpenAiResponses => Box::new(ResponsesDecoder::new(PROVIDER)),
        Dialect::Anthropic { schema_tool } => Box::new(AnthropicDecoder::new(
            PROVIDER,
            schema_tool.then(|| "structured_output".to_owned()),
        )),
        Dialect::Gemini => Box::new(GeminiDecoder::new(PROVIDER)),
    };
    let mut sse = SseDecoder::new();
    let mut out = Vec::new();
    let chunk_len = if chunk_len == 0 {
        body.len().max(1)
    } else {
        chunk_len
    };
    for chunk in body.chunks(chunk_len) {
        decode_chunk(PROVIDER, &mut sse, decoder.as_mut(), chunk, &mut out)?;
        if out.iter().any(|e| matches!(e, StreamEvent::Completed(_))) {
            return Ok(out);
        }
    }
    decode_end(PROVIDER, &mut sse, decoder.as_mut(), &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FinishReason, ModelResponse};
    use pretty_assertions::assert_eq;
    use tether_protocol::Message;

    const CHAT: &str = concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":\"2 + 2\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\" = 4\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn a_stream_decodes_the_same_whole_and_byte_by_byte() {
        let expected = vec![
            StreamEvent::TextDelta("2 + 2".into()),
            StreamEvent::TextDelta(" = 4".into()),
            StreamEvent::Completed(ModelResponse {
                message: Message::assistant("2 + 2 = 4"),
                usage: None,
                finish_reason: FinishReason::Stop,
            }),
        ];
        let whole = decode_stream(Dialect::OpenAiChat, CHAT.as_bytes(), 0).unwrap();
        let bytewise = decode_stream(Dialect::OpenAiChat, CHAT.as_bytes(), 1).unwrap();
        assert_eq!((whole, bytewise), (expected.clone(), expected));
    }

    #[test]
    fn a_body_cut_before_the_terminal_event_is_a_protocol_error() {
        let cut = &CHAT.as_bytes()[..CHAT.find("\n\n").unwrap() + 2];
        let err = decode_stream(Dialect::OpenAiChat, cut, 7).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad stream from `fuzz/model`: stream ended before `[DONE]`"
        );
    }
}
