#![no_main]
//! Model-hook prompt templates: the load-time validator (what Go's parser rejects), `gotmpl`'s
//! parser, then a render over a realistic `pre_tool_use` Input.

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use tether_protocol::{HookInput, Message};

static INPUT: LazyLock<HookInput> = LazyLock::new(|| HookInput {
    session_id: "s-1".to_owned(),
    cwd: "/work".to_owned(),
    hook_event_name: "pre_tool_use".to_owned(),
    tool_name: "shell".to_owned(),
    tool_use_id: "call_1".to_owned(),
    tool_input: serde_json::json!({
        "cmd": "rm -rf /tmp/x",
        "n": 3,
        "nested": {"list": [1, "two", null, 1.5e300]},
    })
    .as_object()
    .cloned(),
    tool_response: Some("h\u{e9}llo <world> & \u{2028}".to_owned()),
    messages: vec![Message::user("hi"), Message::assistant("hello")],
    ..HookInput::default()
});

fuzz_target!(|data: &[u8]| {
    let Ok(template) = std::str::from_utf8(data) else {
        return;
    };
    let _ = tether_hooks::render_prompt(template, &INPUT);
});
