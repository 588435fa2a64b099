//! Writes the benchmark corpus as a hook Input JSON whose `tool_response` is `LEN` bytes of
//! ordinary text (`clean`) or of text with about 1% secrets (`secrets`), for the end-to-end
//! `redact_secrets` rows of `scripts/bench.sh`. With `SOURCE_DIR`, the text is the real source
//! files under it (e.g. `/usr/lib/python3.11`) instead of the repeated fixtures.
//!
//!     cargo run --release -p tether-secrets --example corpus -- clean 20971520 /usr/lib/python3.11 > input.json

#![expect(clippy::print_stderr, reason = "a command-line tool")]

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, len, dir) = match args.as_slice() {
        [kind, len] => (kind.as_str(), len.parse::<usize>().ok(), None),
        [kind, len, dir] => (kind.as_str(), len.parse::<usize>().ok(), Some(dir)),
        _ => ("", None, None),
    };
    let base = match (len, dir) {
        (Some(len), Some(dir)) => match corpus::real(std::path::Path::new(dir), len) {
            Some(text) => Some(text),
            None => {
                eprintln!("corpus: no source files under {dir}");
                return ExitCode::FAILURE;
            }
        },
        (Some(len), None) => Some(corpus::ordinary(len)),
        (None, _) => None,
    };
    let text = match (kind, len, base) {
        ("clean", Some(_), Some(base)) => base,
        ("secrets", Some(len), Some(base)) => corpus::splice_secrets(base, len),
        _ => {
            eprintln!("usage: corpus clean|secrets LEN [SOURCE_DIR]");
            return ExitCode::from(2);
        }
    };
    let input = serde_json::json!({
        "session_id": "bench",
        "tool_name": "fetch",
        "tool_use_id": "call_1",
        "tool_response": text,
    });
    let mut stdout = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut stdout, &input)
        .map_err(std::io::Error::from)
        .and_then(|()| stdout.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::FAILURE
        }
    }
}
