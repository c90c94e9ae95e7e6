//! The benchmarks' client of the channel: `POST /api/bot/<endpoint>` on a
//! real loopback connection, and Bots made through it.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;

/// The host a channel bench drives: as `flybot serve --no-sign-in` makes
/// it, the loopback caller acting as the owner with no token (the home
/// has no other member), so the bench's plain HTTP client is let in.
pub fn open_config(home: &std::path::Path) -> flybot_host::HostConfig {
    let mut config = flybot_host::HostConfig::new(home.to_owned());
    config.edge.open_mode = true;
    config
}

/// `POST /api/bot/<endpoint>` on its own connection; answers the body.
pub async fn post(address: &str, endpoint: &str, body: Value) -> anyhow::Result<Value> {
    let request = post_request(address, endpoint, &body);
    let address = address.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(&address)?;
        stream.set_nodelay(true)?;
        stream.write_all(request.as_bytes())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        answer_of(&raw)
    })
    .await?
}

/// A connection to the host opened before a timed call: a page sends on
/// the connection it holds open, so its connect is no part of the host's
/// time.
pub async fn page_connection(address: &str) -> anyhow::Result<tokio::net::TcpStream> {
    let stream = tokio::net::TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// `post`, on a connection `page_connection` opened (it is closed after).
pub async fn post_on(
    stream: &mut tokio::net::TcpStream,
    address: &str,
    endpoint: &str,
    body: Value,
) -> anyhow::Result<Value> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream
        .write_all(post_request(address, endpoint, &body).as_bytes())
        .await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    answer_of(&raw)
}

/// A channel call's request, answered with the connection's close.
fn post_request(address: &str, endpoint: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "POST /api/bot/{endpoint} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The JSON body of a whole answer as read.
fn answer_of(raw: &[u8]) -> anyhow::Result<Value> {
    let raw = String::from_utf8_lossy(raw);
    let answer = raw.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok(serde_json::from_str(answer)?)
}

/// Makes `count` Bots on `model` (the default when `None`); answers their ids.
pub async fn create_bots_on(
    address: &str,
    count: usize,
    model: Option<&str>,
) -> anyhow::Result<Vec<String>> {
    let mut ids = Vec::new();
    for _ in 0..count {
        let mut body = json!({"name": format!("Bot{}", next_number())});
        if let Some(model) = model {
            body["model"] = json!(model);
        }
        let bot = post(address, "create-bot", body).await?;
        let id = bot["bot"]["id"].as_str().unwrap_or_default().to_owned();
        anyhow::ensure!(!id.is_empty(), "create-bot refused: {bot}");
        ids.push(id);
    }
    Ok(ids)
}

/// Makes `count` Bots on the default model; answers their ids.
pub async fn create_bots(address: &str, count: usize) -> anyhow::Result<Vec<String>> {
    create_bots_on(address, count, None).await
}

/// A number no earlier Bot name of this run used.
fn next_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
