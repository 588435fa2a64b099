#![no_main]
//! OpenAI Chat Completions stream decoding (SSE → deltas → assembled message).
//! The first byte picks the chunk size the body arrives in.

use libfuzzer_sys::fuzz_target;
use tether_providers::fuzzing::{Dialect, decode_stream};

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let chunk_len = usize::from(first & 0x3f);
    let dialect = Dialect::OpenAiChat;
    if let Err(e) = decode_stream(dialect, body, chunk_len) {
        let _ = e.to_string();
    }
});
