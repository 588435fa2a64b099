#![no_main]
//! The `script` model: parse any script text, then answer a prompt with it (rule regexes,
//! `${name}` captures, `{{placeholders}}`). Input: script, a NUL byte, the prompt.

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tether_protocol::Message;
use tether_providers::{ChatRequest, ScriptProvider};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (script, prompt) = text.split_once('\0').unwrap_or((text, "Run: echo hello"));
    let provider = match ScriptProvider::from_str("script/fuzz", Path::new("fuzz.script.yaml"), script) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let req = ChatRequest {
        messages: vec![Message::system("fuzz"), Message::user(prompt)],
        ..ChatRequest::default()
    };
    let _ = provider.respond(&req);
});
