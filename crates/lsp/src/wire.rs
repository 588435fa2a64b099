//! LSP's base protocol: each message is a `Content-Length` header block then that many bytes
//! of JSON.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The largest message a server may send; past it the connection is dropped, so memory stays
/// bounded whatever the server writes.
pub(crate) const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// The longest header line read (a real one is about 30 bytes).
const MAX_HEADER_LINE: u64 = 1024;

/// `body` framed for the wire.
pub(crate) fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads one message body; `Ok(None)` at a clean end of stream between messages.
pub(crate) async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Vec<u8>>, String> {
    let mut length: Option<usize> = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = (&mut *reader)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .await
            .map_err(|e| format!("cannot read from the server: {e}"))?;
        if n == 0 {
            return if first {
                Ok(None)
            } else {
                Err("the server closed its output in the middle of a message".to_owned())
            };
        }
        first = false;
        if line.last() != Some(&b'\n') {
            return Err("the server sent a header line that is too long".to_owned());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            let n: usize = value.trim().parse().map_err(|_| {
                format!("the server sent a bad `Content-Length`: `{}`", value.trim())
            })?;
            length = Some(n);
        }
    }
    let Some(length) = length else {
        return Err("the server sent a message without `Content-Length`".to_owned());
    };
    if length > MAX_MESSAGE {
        return Err(format!(
            "the server sent a message of {length} bytes, more than the {} MiB allowed",
            MAX_MESSAGE / (1024 * 1024)
        ));
    }
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .await
        .map_err(|e| format!("cannot read a message body from the server: {e}"))?;
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(bytes: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
        let mut reader = tokio::io::BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            let r = read_message(&mut reader).await;
            let stop = !matches!(r, Ok(Some(_)));
            out.push(r);
            if stop {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn framed_messages_read_back_one_by_one() {
        let mut bytes = frame(b"{\"a\":1}");
        bytes.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}");
        let got = read_all(&bytes).await;
        assert_eq!(
            got,
            vec![
                Ok(Some(b"{\"a\":1}".to_vec())),
                Ok(Some(b"{}".to_vec())),
                Ok(None)
            ]
        );
    }

    #[tokio::test]
    async fn broken_headers_are_errors_not_panics() {
        for (bytes, want) in [
            (&b"Content-Length: x\r\n\r\n"[..], "bad `Content-Length`"),
            (b"X: 1\r\n\r\n{}", "without `Content-Length`"),
            (b"Content-Length: 99999999999\r\n\r\n", "more than"),
            (b"Content-Length: 10\r\n\r\n{}", "message body"),
            (b"Content-Length: 10\r\n", "middle of a message"),
        ] {
            let got = read_all(bytes).await;
            let err = got.last().unwrap().clone().unwrap_err();
            assert!(err.contains(want), "{err}");
        }
        let long = vec![b'a'; 5000];
        let err = read_all(&long).await.pop().unwrap().unwrap_err();
        assert!(err.contains("too long"), "{err}");
    }
}
