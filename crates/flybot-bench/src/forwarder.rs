//! A loopback forwarder between the host and a model server that times the
//! server alone: for each request it notes when the request was handed to
//! the server and when the server's first non-empty `content` came back,
//! and passes every byte through unchanged. The host's time to first token
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
                    if let Ok(Some(ttft)) = relay(client, &upstream).await {
                        let _ = times.send(ttft);
                    }
                });
            }
        });
        Ok(Forwarder {
            base_url,
            server_ttft,
        })
    }
}

/// One request, relayed with `Connection: close`; answers the server's time
/// to its first content.
async fn relay(mut client: TcpStream, upstream: &str) -> anyhow::Result<Option<Duration>> {
    // Each chunk goes on at once: without it, Nagle held the first content
    // chunk behind the unacknowledged one before it, and the wait was
    // counted as the host's (11-24 ms on one machine, 2.3 on another).
    client.set_nodelay(true)?;
    let (head, body) = read_request(&mut client).await?;
    let request_line = head.lines().next().unwrap_or_default().to_owned();
    let mut server = TcpStream::connect(upstream).await?;
    server.set_nodelay(true)?;
    let request = format!(
        "{request_line}\r\nHost: {upstream}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    server.write_all(request.as_bytes()).await?;
    server.write_all(&body).await?;
    let sent = Instant::now();
    let mut seen = Vec::new();
    let mut first = None;
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let read = server.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        if first.is_none() {
            seen.extend_from_slice(&buffer[..read]);
            if has_content(&seen) {
                first = Some(sent.elapsed());
            }
        }
        client.write_all(&buffer[..read]).await?;
    }
    client.shutdown().await?;
    Ok(first)
}

/// The request's head (as text) and its body, by `Content-Length`.
async fn read_request(client: &mut TcpStream) -> anyhow::Result<(String, Vec<u8>)> {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    let head_end = loop {
        let read = client.read(&mut buffer).await?;
        anyhow::ensure!(read > 0, "the client hung up mid-request");
        raw.extend_from_slice(&buffer[..read]);
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while raw.len() < head_end + length {
        let read = client.read(&mut buffer).await?;
        anyhow::ensure!(read > 0, "the client hung up mid-body");
        raw.extend_from_slice(&buffer[..read]);
    }
    Ok((head, raw[head_end..head_end + length].to_vec()))
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
    use super::has_content;

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
