//! A loopback forwarder between the host and a model server that times the
//! server alone: for each request it notes when the request was handed to
//! the server and when the server's first non-empty `content` came back,
//! and passes every byte through unchanged, on connections kept alive as
//! the server keeps them. The host's time to first token
//! less this one is what the host adds (`ttft`).

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// A running forwarder: its base URL and the server's time to first token
/// of each request, in order.
pub struct Forwarder {
    pub base_url: String,
    pub server_ttft: mpsc::UnboundedReceiver<Duration>,
}

impl Forwarder {
    /// Forwards `http://127.0.0.1:<port>/v1` to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> anyhow::Result<Forwarder> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        let (times, server_ttft) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (upstream, times) = (upstream.clone(), times.clone());
                tokio::spawn(async move {
                    let _ = relay(client, &upstream, times).await;
                });
            }
        });
        Ok(Forwarder {
            base_url,
            server_ttft,
        })
    }
}

/// One connection of the host's, relayed to one connection of the
/// server's, request after request, as the server itself would keep it:
/// llama.cpp's server (uvicorn) keeps a connection alive and frames each
/// streamed answer in chunks, so the host's client reuses its connection
/// and pays no connect per turn. The server's connection is opened when
/// the host's is accepted, before its first request, so the relay's own
/// connect is on neither side's clock.
async fn relay(
    mut client: TcpStream,
    upstream: &str,
    times: mpsc::UnboundedSender<Duration>,
) -> anyhow::Result<()> {
    // Each chunk goes on at once: without it, Nagle held the first content
    // chunk behind the unacknowledged one before it, and the wait was
    // counted as the host's (11-24 ms on one machine, 2.3 on another).
    client.set_nodelay(true)?;
    let mut server = TcpStream::connect(upstream).await?;
    server.set_nodelay(true)?;
    while let Some(request) = read_request(&mut client).await? {
        server.write_all(&request).await?;
        let sent = Instant::now();
        let first = relay_answer(&mut server, &mut client, sent).await?;
        if let Some(ttft) = first {
            let _ = times.send(ttft);
        }
    }
    Ok(())
}

/// Passes one answer from `server` to `client` unchanged, to its end (the
/// last chunk, its length, or the server's close); answers the server's time
/// to its first content, from `sent`.
async fn relay_answer(
    server: &mut TcpStream,
    client: &mut TcpStream,
    sent: Instant,
) -> anyhow::Result<Option<Duration>> {
    let mut seen = Vec::new();
    let mut first = None;
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let read = server.read(&mut buffer).await?;
        if read == 0 {
            client.shutdown().await?;
            return Ok(first);
        }
        seen.extend_from_slice(&buffer[..read]);
        if first.is_none() && has_content(&seen) {
            first = Some(sent.elapsed());
        }
        client.write_all(&buffer[..read]).await?;
        if answer_ended(&seen) {
            return Ok(first);
        }
    }
}

/// One whole request (head and body, by `Content-Length`), as read; `None`
/// when the host closed its connection between requests.
async fn read_request(client: &mut TcpStream) -> anyhow::Result<Option<Vec<u8>>> {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    let head_end = loop {
        let read = client.read(&mut buffer).await?;
        if read == 0 && raw.is_empty() {
            return Ok(None);
        }
        anyhow::ensure!(read > 0, "the client hung up mid-request");
        raw.extend_from_slice(&buffer[..read]);
        if let Some(at) = find(&raw, b"\r\n\r\n") {
            break at + 4;
        }
    };
    let length = header(&raw[..head_end], "content-length")
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(0);
    while raw.len() < head_end + length {
        let read = client.read(&mut buffer).await?;
        anyhow::ensure!(read > 0, "the client hung up mid-body");
        raw.extend_from_slice(&buffer[..read]);
    }
    Ok(Some(raw))
}

/// Whether `seen` holds a whole answer: its last chunk when chunked, or
/// its `Content-Length` of body. An answer framed by the close never ends
/// here.
fn answer_ended(seen: &[u8]) -> bool {
    let Some(at) = find(seen, b"\r\n\r\n") else {
        return false;
    };
    let (head, body) = (&seen[..at + 4], &seen[at + 4..]);
    if header(head, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        return body.starts_with(b"0\r\n\r\n") || body.ends_with(b"\r\n0\r\n\r\n");
    }
    header(head, "content-length")
        .and_then(|value| value.parse::<usize>().ok())
        .is_some_and(|length| body.len() >= length)
}

/// The value of the header `name` in a message's head.
fn header(head: &[u8], name: &str) -> Option<String> {
    String::from_utf8_lossy(head).lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Whether a streamed answer so far carries a non-empty `"content"`.
fn has_content(seen: &[u8]) -> bool {
    let text = String::from_utf8_lossy(seen);
    text.match_indices("\"content\":").any(|(at, key)| {
        let rest = text[at + key.len()..].trim_start();
        rest.starts_with('"') && !rest[1..].starts_with('"')
    })
}

#[cfg(test)]
mod tests {
    use super::{answer_ended, has_content};

    #[test]
    fn an_answer_ends_at_its_last_chunk_or_its_length() {
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n";
        assert!(!answer_ended(chunked));
        assert!(answer_ended(&[&chunked[..], b"0\r\n\r\n"].concat()));
        let sized = b"HTTP/1.1 400 Bad\r\ncontent-length: 4\r\n\r\nab";
        assert!(!answer_ended(sized));
        assert!(answer_ended(&[&sized[..], b"cd"].concat()));
        assert!(!answer_ended(b"HTTP/1.1 200 OK\r\n\r\nuntil the close"));
    }

    #[test]
    fn only_a_non_empty_content_counts_as_the_first_token() {
        assert!(!has_content(
            br#"data: {"delta":{"role":"assistant","content":""}}"#
        ));
        assert!(!has_content(br#"data: {"delta":{"content": null}}"#));
        assert!(has_content(br#"data: {"delta":{"content": "Hi"}}"#));
        assert!(has_content(br#"data: {"delta":{"content":"Hi"}}"#));
    }
}
