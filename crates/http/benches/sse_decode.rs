//! Decoding speed of the SSE layer and the OpenAI chunk decoder's input: a recorded
//! Chat Completions stream decoded chunk by chunk. Goal: well under the network's pace
//! (a 100-event stream in well under a millisecond).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tether_http::SseDecoder;

fn stream_bytes() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..100 {
        out.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"token {i} \"}},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

fn decode(c: &mut Criterion) {
    let bytes = stream_bytes();
    c.bench_function("sse_decode_100_events_in_64_byte_chunks", |b| {
        b.iter(|| {
            let mut d = SseDecoder::new();
            let mut n = 0;
            for chunk in bytes.chunks(64) {
                n += d.push(black_box(chunk)).map(|v| v.len()).unwrap_or(0);
            }
            n
        });
    });
}

criterion_group!(benches, decode);
criterion_main!(benches);
