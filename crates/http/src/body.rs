//! Response bodies read up to a limit, so a server cannot make us hold more than we asked for.
//! Whether a longer body is cut (tools: the model sees the start) or refused (hooks, downloads)
//! is the caller's choice; both read the same way.

/// A body read up to a limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capped {
    /// The whole body, or its first `limit` bytes when it was longer.
    pub bytes: Vec<u8>,
    /// Whether the body was longer than `limit`; the rest was not read.
    pub cut: bool,
}

/// Reads `response`'s body, stopping at the first chunk that goes past `limit` bytes.
pub async fn read_capped(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Capped, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Capped { bytes, cut: true });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Capped { bytes, cut: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server on 127.0.0.1 that answers every connection with `body`, sent in chunks of
    /// `chunk` bytes (HTTP/1.1 chunked encoding, so the client reads it piece by piece).
    async fn server(body: &'static [u8], chunk: usize) -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                let mut head = [0; 4096];
                let _ = conn.read(&mut head).await;
                let mut reply =
                    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
                        .to_vec();
                for piece in body.chunks(chunk) {
                    reply.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                    reply.extend_from_slice(piece);
                    reply.extend_from_slice(b"\r\n");
                }
                reply.extend_from_slice(b"0\r\n\r\n");
                let _ = conn.write_all(&reply).await;
            }
        });
        addr
    }

    async fn read(addr: std::net::SocketAddr, limit: usize) -> Capped {
        let client = crate::client_builder().build().unwrap();
        let resp = client.get(format!("http://{addr}/")).send().await.unwrap();
        read_capped(resp, limit).await.unwrap()
    }

    #[tokio::test]
    async fn a_body_up_to_the_limit_is_whole_and_a_longer_one_is_cut_at_it() {
        let addr = server(b"0123456789", 3).await;
        let got = [
            read(addr, 10).await,
            read(addr, 64).await,
            read(addr, 9).await,
            read(addr, 4).await,
            read(addr, 0).await,
        ];
        let want = [
            ("0123456789", false),
            ("0123456789", false),
            ("012345678", true),
            ("0123", true),
            ("", true),
        ]
        .map(|(bytes, cut)| Capped {
            bytes: bytes.as_bytes().to_vec(),
            cut,
        });
        assert_eq!(got, want);
    }
}
