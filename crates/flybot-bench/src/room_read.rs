//! The page's read of a long room (issue 38, goal under 2 ms): a real host
//! on loopback, a room of 10,000 lines, and `messages {roomId, limit}` as
//! the page asks it when it opens the room (the newest page, read from the
//! log's end), timed over one keep-alive connection; beside it, the whole
//! room read the way every read was before.

use crate::channel::{create_bots, open_config, post};
use crate::figures::{ms, percentile};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_host::Host;
use flybot_store::room_log::NewLine;
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub const ROOM_LINES: u64 = 10_000;
/// The page the room screen asks for first (`ROOM_PAGE` in room.js).
pub const PAGE: usize = 100;
const READS: usize = 200;

/// The median and p99 of the page read, and the median of the whole read.
pub struct RoomRead {
    pub page_median: Duration,
    pub page_p99: Duration,
    pub whole_median: Duration,
}

pub fn run() -> anyhow::Result<()> {
    let read = tokio::runtime::Runtime::new()?.block_on(measure())?;
    print(&read);
    Ok(())
}

pub fn print(read: &RoomRead) {
    let met = if ms(read.page_median) < 2.0 {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "room of {ROOM_LINES} lines, messages {{limit: {PAGE}}} from the end: median {:.3} ms, p99 {:.3} ms over {READS} reads (goal < 2 ms: {met}); the whole room in one read: median {:.1} ms",
        ms(read.page_median),
        ms(read.page_p99),
        ms(read.whole_median),
    );
}

pub async fn measure() -> anyhow::Result<RoomRead> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::open(store, open_config(home.path())).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(flybot_host::serve(host.clone(), listener, async {
        let _ = stopped.await;
    }));
    let bots = create_bots(&address, 1).await?;
    let room = post(
        &address,
        "create-room",
        json!({"name": "Long", "members": bots}),
    )
    .await?;
    let room_id = room["room"]["id"].as_str().unwrap_or_default().to_owned();
    anyhow::ensure!(!room_id.is_empty(), "create-room refused: {room}");
    fill(&host, &room_id).await?;
    let page = json!({"roomId": room_id, "limit": PAGE}).to_string();
    let whole = json!({"roomId": room_id}).to_string();
    let (mut pages, mut wholes) = tokio::task::spawn_blocking(move || {
        let pages = time_reads(&address, &page, READS)?;
        let wholes = time_reads(&address, &whole, 20)?;
        anyhow::Ok((pages, wholes))
    })
    .await??;
    let _ = stop.send(());
    server.await??;
    Ok(RoomRead {
        page_median: percentile(&mut pages, 50),
        page_p99: percentile(&mut pages, 99),
        whole_median: percentile(&mut wholes, 50),
    })
}

/// Writes the room's lines straight through its log, as rounds would.
async fn fill(host: &Host, room_id: &str) -> anyhow::Result<()> {
    let logs = host.rooms();
    for n in 1..=ROOM_LINES {
        let line = NewLine {
            author_id: "member-owner".into(),
            author_kind: AuthorKind::Human,
            kind: LineKind::Chat,
            text: format!("line {n}: the build on staging passed; next, the release notes"),
            at: n,
            hop: 0,
        };
        logs.append_soon(room_id, line)?;
    }
    logs.settled().await?;
    Ok(())
}

/// Times `reads` POSTs of `body` to `messages` over one keep-alive
/// connection, after five unmeasured ones.
fn time_reads(address: &str, body: &str, reads: usize) -> anyhow::Result<Vec<Duration>> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut times = Vec::with_capacity(reads);
    for n in 0..reads + 5 {
        let started = Instant::now();
        write!(
            writer,
            "POST /api/bot/messages HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )?;
        let answer = read_answer(&mut reader)?;
        if n >= 5 {
            times.push(started.elapsed());
        }
        anyhow::ensure!(
            answer.get("messages").is_some(),
            "messages refused: {answer}"
        );
    }
    Ok(times)
}

fn read_answer(reader: &mut BufReader<TcpStream>) -> anyhow::Result<Value> {
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse()?;
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(serde_json::from_slice(&body)?)
}
