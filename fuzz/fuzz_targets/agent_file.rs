#![no_main]
//! Agent-file loading: parse and validate any text, then render the diagnostics (which quote
//! the source at line:col).

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A directory that does not exist: `instruction_file` reads fail instead of touching files.
    let dir = Path::new("/nonexistent/tether-fuzz");
    if let Err(e) = tether_config::load_str(text, "agent.yaml", dir) {
        let _ = e.to_string();
    }
});
