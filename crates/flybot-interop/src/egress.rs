//! The offline runs' network guard ("the runner fails on any unexpected
//! network call"): a loopback listener that every proxy variable of the
//! supervised OpenCode child points at. It records each connection it
//! accepts (its first request line) and refuses it; a run that expected no
//! outbound network asserts the record is empty. Loopback traffic (the
//! mock model, the driver) bypasses it through `NO_PROXY`.

use flybot_core::sync::lock;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The proxy variables the child reads, upper and lower case.
pub const PROXY_VARS: [&str; 6] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// What stays direct: loopback only.
pub const NO_PROXY: &str = "127.0.0.1,localhost,::1";

/// A listening trap; dropping it stops nothing (its task ends with the
/// runtime), the record stays readable.
#[derive(Clone)]
pub struct EgressTrap {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl EgressTrap {
    /// Binds 127.0.0.1:0 and starts refusing.
    pub async fn start() -> std::io::Result<EgressTrap> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let record = record.clone();
                tokio::spawn(async move {
                    let mut head = [0u8; 512];
                    let read = stream.read(&mut head).await.unwrap_or(0);
                    let first = String::from_utf8_lossy(&head[..read])
                        .lines()
                        .next()
                        .unwrap_or("(no request line)")
                        .to_owned();
                    lock(&record).push(first);
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                });
            }
        });
        Ok(EgressTrap { url, seen })
    }

    /// The proxy URL to hand the child.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every connection attempted through the trap, by its request line.
    pub fn attempts(&self) -> Vec<String> {
        lock(&self.seen).clone()
    }
}
