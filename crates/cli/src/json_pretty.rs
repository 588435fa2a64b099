//! Pretty JSON for command output whose strings may be megabytes (a tool output a hook
//! rewrote): the bytes serde_json's pretty printer writes, with strings escaped eight bytes at
//! a time. serde_json looks at every byte and writes every escape separately, which made the
//! printing of a rewritten 20 MiB output cost more than finding the secrets in it.

use std::io::{self, Write};

use serde::Serialize;

/// A JSON object written field by field, as `serde_json::to_writer_pretty` would write it.
pub(crate) struct PrettyObject<W: Write> {
    out: W,
    fields: usize,
}

impl<W: Write> PrettyObject<W> {
    pub(crate) fn new(mut out: W) -> io::Result<Self> {
        out.write_all(b"{")?;
        Ok(Self { out, fields: 0 })
    }

    fn key(&mut self, key: &str) -> io::Result<()> {
        let lead: &[u8] = if self.fields == 0 { b"\n  " } else { b",\n  " };
        self.out.write_all(lead)?;
        self.fields += 1;
        write_str(&mut self.out, key)?;
        self.out.write_all(b": ")
    }

    /// A string field (`null` for `None`), escaped by [`write_str`].
    pub(crate) fn text(&mut self, key: &str, value: Option<&str>) -> io::Result<()> {
        self.key(key)?;
        match value {
            Some(text) => write_str(&mut self.out, text),
            None => self.out.write_all(b"null"),
        }
    }

    /// Any other field, through serde_json, indented one level.
    pub(crate) fn value(&mut self, key: &str, value: &impl Serialize) -> io::Result<()> {
        self.key(key)?;
        serde_json::to_writer_pretty(Indented(&mut self.out), value).map_err(io::Error::from)
    }

    pub(crate) fn end(mut self) -> io::Result<W> {
        let close: &[u8] = if self.fields == 0 { b"}" } else { b"\n}" };
        self.out.write_all(close)?;
        Ok(self.out)
    }
}

/// Indents serde_json's pretty output by one level: a newline in it is always a line break
/// (a newline inside a string is written as `\n`).
struct Indented<W>(W);

impl<W: Write> Write for Indented<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let mut lines = buf.split(|b| *b == b'\n');
        if let Some(first) = lines.next() {
            self.0.write_all(first)?;
        }
        for line in lines {
            self.0.write_all(b"\n  ")?;
            self.0.write_all(line)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// How serde_json escapes each byte: 0 for none, `u` for `\u00XX`, else the letter after `\`.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// The high bit of each byte of `word` that may need escaping (a control byte, `"` or `\`);
/// borrows may also mark a byte above a marked one, so each mark is checked against
/// [`ESCAPE`].
fn marks(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    (control | quote | backslash) & HIGH
}

/// Bytes escaped before they are handed to the writer, so that a long string is a few large
/// writes rather than one per escape.
const CHUNK: usize = 64 * 1024;

/// Strings at least this long are escaped in parts on several threads.
const PARALLEL: usize = 1 << 20;
/// At most this many parts.
const MAX_PARTS: usize = 4;

/// Writes `text` as a JSON string, escaped exactly as serde_json escapes it. A long string is
/// cut into parts (anywhere: a byte that needs escaping is never inside a UTF-8 sequence):
/// this thread escapes the first straight to `out` while others escape the rest into
/// buffers, written after it.
pub(crate) fn write_str(out: &mut impl Write, text: &str) -> io::Result<()> {
    let bytes = text.as_bytes();
    out.write_all(b"\"")?;
    // Asked only for a long string: it may read cgroup files.
    let parts = if bytes.len() < PARALLEL {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| usize::from(n).min(MAX_PARTS))
    };
    if parts <= 1 {
        escape_into(out, bytes)?;
        return out.write_all(b"\"");
    }
    let size = bytes.len() / parts;
    std::thread::scope(|scope| {
        let mut later = Vec::with_capacity(parts - 1);
        for part in 1..parts {
            let end = if part + 1 == parts {
                bytes.len()
            } else {
                (part + 1) * size
            };
            let slice = &bytes[part * size..end];
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut escaped = Vec::with_capacity(slice.len() + slice.len() / 8);
                escape_into(&mut escaped, slice).map(|()| escaped)
            });
            later.push((slice, spawned.ok()));
        }
        escape_into(out, &bytes[..size])?;
        for (slice, handle) in later {
            match handle {
                Some(handle) => match handle.join() {
                    Ok(escaped) => out.write_all(&escaped?)?,
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                // No thread to be had: escaped here, in order.
                None => escape_into(out, slice)?,
            }
        }
        Ok::<(), io::Error>(())
    })?;
    out.write_all(b"\"")
}

/// Writes `bytes` escaped, without quotes.
fn escape_into(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK.min(bytes.len()) + 16);
    // `bytes[copied..at]` needs no escape and is not in `buf` yet.
    let mut copied = 0;
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        let mut marked = marks(u64::from_le_bytes(word));
        while marked != 0 {
            let index = at + (marked.trailing_zeros() / 8) as usize;
            marked &= marked - 1;
            if ESCAPE[usize::from(bytes[index])] != 0 {
                buf.extend_from_slice(&bytes[copied..index]);
                escape(&mut buf, bytes[index]);
                copied = index + 1;
            }
        }
        at += 8;
        if at - copied >= CHUNK || buf.len() >= CHUNK {
            buf.extend_from_slice(&bytes[copied..at]);
            copied = at;
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    for (index, &byte) in bytes.iter().enumerate().skip(at) {
        if ESCAPE[usize::from(byte)] != 0 {
            buf.extend_from_slice(&bytes[copied..index]);
            escape(&mut buf, byte);
            copied = index + 1;
        }
    }
    buf.extend_from_slice(&bytes[copied..]);
    out.write_all(&buf)
}

fn escape(buf: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPE[usize::from(byte)] {
        b'u' => buf.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
        letter => buf.extend_from_slice(&[b'\\', letter]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_byte_value_is_escaped_as_serde_json_escapes_it_at_every_offset() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("é€😀\u{7f}\u{2028}");
        for lead in 0..9 {
            let text = format!("{}{all}{all}", "x".repeat(lead));
            assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap());
        }
    }

    #[test]
    fn real_source_code_is_escaped_as_serde_json_escapes_it() {
        // This crate's own sources: quotes, backslashes and newlines at every offset, and
        // long enough to cross the chunk size.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut text = String::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                text.push_str(&std::fs::read_to_string(path).unwrap());
            }
        }
        assert!(text.len() > 2 * CHUNK, "{}", text.len());
        for cut in [0, 1, 7, CHUNK - 1, CHUNK + 3] {
            let part = &text[text.floor_char_boundary(cut)..];
            assert_eq!(escaped(part), serde_json::to_string(part).unwrap());
        }
        // Past the size escaped in parts, with multi-byte characters throughout.
        let long = format!("é{}", text.repeat(PARALLEL / text.len() * 3));
        assert_eq!(escaped(&long), serde_json::to_string(&long).unwrap());
        let clean = "a".repeat(3 * CHUNK + 5);
        assert_eq!(escaped(&clean), serde_json::to_string(&clean).unwrap());
    }

    #[derive(Serialize)]
    struct Sample<'a> {
        name: &'a str,
        none: Option<&'a str>,
        list: Vec<u32>,
        empty: Vec<u32>,
        nested: serde_json::Value,
        empty_map: serde_json::Map<String, serde_json::Value>,
    }

    #[test]
    fn an_object_is_written_as_serde_json_pretty_prints_it() {
        let sample = Sample {
            name: "a \"b\"\n\\c",
            none: None,
            list: vec![1, 2],
            empty: vec![],
            nested: serde_json::json!({"k": ["v", {"deep": "line\nbreak"}], "e": {}}),
            empty_map: serde_json::Map::new(),
        };
        let mut object = PrettyObject::new(Vec::new()).unwrap();
        object.text("name", Some(sample.name)).unwrap();
        object.text("none", sample.none).unwrap();
        object.value("list", &sample.list).unwrap();
        object.value("empty", &sample.empty).unwrap();
        object.value("nested", &sample.nested).unwrap();
        object.value("empty_map", &sample.empty_map).unwrap();
        let written = String::from_utf8(object.end().unwrap()).unwrap();
        assert_eq!(written, serde_json::to_string_pretty(&sample).unwrap());
        let empty = PrettyObject::new(Vec::new()).unwrap().end().unwrap();
        assert_eq!(empty, b"{}");
    }
}
