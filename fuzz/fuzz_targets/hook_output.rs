#![no_main]
//! A command or http hook's stdout: any bytes must become an Output or plain text.

use libfuzzer_sys::fuzz_target;
use tether_hooks::output_parser;

fuzz_target!(|data: &[u8]| {
    // The runners read stdout lossily, as here.
    let stdout = String::from_utf8_lossy(data);
    let _ = output_parser::parse(&stdout);
    let _ = output_parser::parse_object(&stdout);
});
