//! The state read figure: a team served by a real host on loopback, read
//! over one keep-alive connection.

use flybot_host::Host;
use flybot_protocol::state::{Bot, Member, Task, TaskStatus};
use flybot_store::{Store, StoreOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub const BOTS: usize = 100;
pub const STATE_READS: usize = 100;

/// Serves a team of 100 Bots and `tasks` tasks on loopback and times state reads.
pub async fn state_read_latency(
    home: &std::path::Path,
    tasks: usize,
) -> anyhow::Result<(Duration, Duration, usize)> {
    state_read_latency_on(home, tasks, StoreOptions::default()).await
}

/// `state_read_latency` on a store opened with `options` (PostgreSQL's too).
pub async fn state_read_latency_on(
    home: &std::path::Path,
    tasks: usize,
    options: StoreOptions,
) -> anyhow::Result<(Duration, Duration, usize)> {
    let store = Store::open(home, options)?;
    fill_team(&store, tasks).await?;
    // As `flybot serve --no-sign-in` serves it: the loopback caller is the
    // owner with no token, so the read times the owner's whole view.
    let host = Host::new(store, crate::channel::open_config(home));
    host.start();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(flybot_host::serve(host, listener, async {
        let _ = stopped.await;
    }));
    let (times, bytes) = tokio::task::spawn_blocking(move || time_state_reads(&address)).await??;
    let _ = stop.send(());
    server.await??;
    let mut sorted = times;
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    let p99 = sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)];
    Ok((median, p99, bytes))
}

async fn fill_team(store: &Store, tasks: usize) -> anyhow::Result<()> {
    store
        .mutate("bench", |change| {
            let now = change.now_ms();
            change.put_member(&Member {
                id: "member-owner".into(),
                name: "Owner".into(),
                created_at: now,
                extra: Default::default(),
            });
            for i in 0..BOTS {
                let mut bot = Bot::new(
                    format!("bot-{i:04}"),
                    format!("Bot {i}"),
                    "member-owner",
                    "mock",
                    format!("session-{i:04}"),
                    now,
                );
                bot.instructions = "Answer briefly and cite sources.".into();
                change.put_bot(&bot);
            }
            Ok(())
        })
        .await?;
    for chunk in (0..tasks).collect::<Vec<_>>().chunks(1_000) {
        store
            .mutate("bench", |change| {
                let now = change.now_ms();
                for &i in chunk {
                    change.put_task(&Task {
                        id: format!("task-{i:08x}"),
                        bot_id: format!("bot-{:04}", i % BOTS),
                        title: format!("Task {i}: look into the report"),
                        status: if i % 10 == 0 {
                            TaskStatus::Working
                        } else {
                            TaskStatus::Accepted
                        },
                        requester_id: Some("member-owner".into()),
                        room_id: None,
                        created_at: now,
                        updated_at: now,
                        extra: Default::default(),
                    });
                }
                Ok(())
            })
            .await?;
    }
    Ok(())
}

/// Times `STATE_READS` reads over one keep-alive connection.
fn time_state_reads(address: &str) -> anyhow::Result<(Vec<Duration>, usize)> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut times = Vec::with_capacity(STATE_READS);
    let mut size = 0;
    for _ in 0..STATE_READS + 5 {
        let started = Instant::now();
        write!(
            writer,
            "GET /api/bot/state HTTP/1.1\r\nHost: {address}\r\n\r\n"
        )?;
        let mut length = 0usize;
        let mut status = String::new();
        reader.read_line(&mut status)?;
        anyhow::ensure!(
            status.starts_with("HTTP/1.1 200"),
            "the state read was refused: {}",
            status.trim()
        );
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
        times.push(started.elapsed());
        size = length;
    }
    // The first reads warm the connection and caches.
    Ok((times.split_off(5), size))
}
