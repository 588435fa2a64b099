//! A small server-sent-events decoder: bytes in, `(event, data)` records out.
//!
//! Our own rather than a crate because the input is a response that must never be
//! reconnected (a model's POST stream, a legacy MCP server's event stream), and the few rules
//! we need (LF or CRLF lines, multi-line `data`, comments) fit in a page. It is push-based so
//! the caller owns the read loop, its idle timeout and its size limit.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; empty when the server sent none (OpenAI Chat, Gemini).
    pub event: String,
    pub data: String,
}

/// Incremental decoder. Feed it chunks as they arrive; bytes of a partial line are kept.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Consumes `chunk` and returns the events it completed. Invalid UTF-8 in a line is an
    /// error (the stream is corrupt).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, std::str::Utf8Error> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(pos) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + pos;
            let line_end = if end > start && self.buf[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            let line = std::str::from_utf8(&self.buf[start..line_end])?.to_owned();
            start = end + 1;
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
        }
        self.buf.drain(..start);
        Ok(out)
    }

    /// Ends the input: an event whose blank line never came is still dispatched.
    pub fn finish(&mut self) -> Result<Option<SseEvent>, std::str::Utf8Error> {
        let rest = std::mem::take(&mut self.buf);
        let line = std::str::from_utf8(&rest)?
            .trim_end_matches('\r')
            .to_owned();
        if !line.is_empty()
            && let Some(ev) = self.line(&line)
        {
            return Ok(Some(ev));
        }
        Ok(self.dispatch())
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if !self.has_data {
            self.event.clear();
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event: std::mem::take(&mut self.event),
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_across_chunks_and_crlf_lines_decode() {
        let input = b"event: a\ndata: {\"x\":1}\n\n: comment\ndata: one\r\ndata: two\r\n\r\ndata: [DONE]\n\n";
        let mut d = SseDecoder::new();
        let mut got = Vec::new();
        for chunk in input.chunks(3) {
            got.extend(d.push(chunk).unwrap());
        }
        got.extend(d.finish().unwrap());
        assert_eq!(
            got,
            vec![ev("a", "{\"x\":1}"), ev("", "one\ntwo"), ev("", "[DONE]")]
        );
    }

    #[test]
    fn an_unterminated_last_event_is_dispatched_at_the_end() {
        let mut d = SseDecoder::new();
        let mut got = d.push(b"data: {}\n").unwrap();
        got.extend(d.finish().unwrap());
        assert_eq!(got, vec![ev("", "{}")]);
    }

    #[test]
    fn a_multibyte_character_split_between_chunks_survives() {
        let input = "data: caf\u{e9} \u{2192}\n\n".as_bytes();
        let mut d = SseDecoder::new();
        let mut got = Vec::new();
        for chunk in input.chunks(1) {
            got.extend(d.push(chunk).unwrap());
        }
        assert_eq!(got, vec![ev("", "caf\u{e9} \u{2192}")]);
    }
}
