#![no_main]
//! Permission patterns (`tool:arg=glob`): parse any text, then match it against a tool name
//! and arguments. Input lines: the pattern, the tool name, the `cmd` argument.

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use tether_config::PermissionPattern;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.splitn(3, '\n');
    let pattern = lines.next().unwrap_or_default();
    let tool = lines.next().unwrap_or("shell");
    let cmd = lines.next().unwrap_or("ls -la");
    let Ok(pattern) = PermissionPattern::parse(pattern) else {
        return;
    };
    let mut args = Map::new();
    args.insert("cmd".to_owned(), Value::String(cmd.to_owned()));
    args.insert("n".to_owned(), Value::from(cmd.len()));
    args.insert("list".to_owned(), Value::from(vec![cmd, tool]));
    let _ = pattern.matches(tool, &args);
});
