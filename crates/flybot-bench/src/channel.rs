//! The benchmarks' client of the channel: `POST /api/bot/<endpoint>` on a
//! real loopback connection, and Bots made through it.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;

/// `POST /api/bot/<endpoint>` on its own connection; answers the body.
/// The host a channel bench drives: as `flybot serve --no-sign-in` makes
/// it, the loopback caller acting as the owner with no token (the home
/// has no other member), so the bench's plain HTTP client is let in.
pub fn open_config(home: &std::path::Path) -> flybot_host::HostConfig {
    let mut config = flybot_host::HostConfig::new(home.to_owned());
    config.edge.open_mode = true;
    config
}

pub async fn post(address: &str, endpoint: &str, body: Value) -> anyhow::Result<Value> {
    let (address, endpoint) = (address.to_owned(), endpoint.to_owned());
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(&address)?;
        stream.set_nodelay(true)?;
        let body = body.to_string();
        write!(
            stream,
            "POST /api/bot/{endpoint} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )?;
        let mut raw = String::new();
        stream.read_to_string(&mut raw)?;
        let answer = raw.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        anyhow::Ok(serde_json::from_str(answer)?)
    })
    .await?
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
