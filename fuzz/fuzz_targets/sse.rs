#![no_main]
//! The SSE decoder: no input may crash it, and how the bytes are chunked must not change
//! what it decodes. The first byte picks the chunk size.

use libfuzzer_sys::fuzz_target;
use tether_http::{SseDecoder, SseEvent};

fn decode(body: &[u8], chunk_len: usize) -> Result<Vec<SseEvent>, std::str::Utf8Error> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    for chunk in body.chunks(chunk_len) {
        out.extend(d.push(chunk)?);
    }
    out.extend(d.finish()?);
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let chunk_len = usize::from(first & 0x3f).max(1);
    let whole = decode(body, body.len().max(1));
    let chunked = decode(body, chunk_len);
    match (&whole, &chunked) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "chunks of {chunk_len} bytes decode differently"),
        (Err(_), Err(_)) => {}
        _ => panic!("chunks of {chunk_len} bytes: {whole:?} vs {chunked:?}"),
    }
});
