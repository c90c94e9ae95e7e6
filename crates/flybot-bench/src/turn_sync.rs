//! `flybot-bench turn-sync` (issue 19): the turn path at the disk's floor.
//! A real host on loopback, on the offline mock, driven through the
//! channel: ten own-chat turns (one line each to ten Bots) and ten `@all`
//! rounds in a six-Bot room, each after a warm-up. Prints the turn log's
//! syncs and file opens per turn (its own counters) and the host time per
//! member turn (a round from the HTTP `send` to `round.ended`, over six),
//! on this disk and on a disk whose every sync takes 5 ms more (the turn
//! log's test-only delay). The whole process's syscalls, the team store's
//! and the usage ledger's too, are what `scripts/trace-turn-syscalls`
//! counts with strace.

use crate::channel::{create_bots, post};
use crate::figures::{ms, percentile};
use flybot_host::events::HostEvent;
use flybot_host::{Host, HostConfig};
use flybot_store::turn_log::{CountersRead, TurnLog, set_sync_delay};
use flybot_store::{Store, StoreOptions};
use serde_json::json;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

const CHAT_BOTS: usize = 10;
const ROOM_BOTS: usize = 6;
const ROUNDS: usize = 10;
/// The slow disk: what a network-attached volume adds to a sync.
const SLOW_SYNC: Duration = Duration::from_millis(5);

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    for (disk, delay) in [
        ("this disk", Duration::ZERO),
        ("slow disk, +5 ms per sync", SLOW_SYNC),
    ] {
        set_sync_delay(delay);
        let figures = runtime.block_on(measure())?;
        println!("turn path on {disk}:");
        figures.print();
    }
    set_sync_delay(Duration::ZERO);
    Ok(())
}

struct Figures {
    chat: CountersRead,
    room: CountersRead,
    round_times: Vec<Duration>,
}

impl Figures {
    fn print(mut self) {
        let per = |n: u64, turns: usize| n as f64 / turns as f64;
        println!(
            "  own chat, {CHAT_BOTS} turns: {:.2} syncs per turn (goal <= 2), {:.2} opens per turn (goal 0), {} batches",
            per(self.chat.syncs, CHAT_BOTS),
            per(self.chat.opens, CHAT_BOTS),
            self.chat.batches
        );
        let turns = ROUNDS * ROOM_BOTS;
        println!(
            "  @all in a {ROOM_BOTS}-Bot room, {turns} member turns: {:.2} syncs per member turn (goal < 1), {:.2} opens per member turn (goal 0)",
            per(self.room.syncs, turns),
            per(self.room.opens, turns),
        );
        let median = percentile(&mut self.round_times, 50);
        let worst = percentile(&mut self.round_times, 100);
        println!(
            "  host time per member turn through the channel: {:.2} ms median ({:.1} ms per round, slowest round {:.1} ms; AutoGen 0.7.5 in memory: 1.13 ms)",
            ms(median) / ROOM_BOTS as f64,
            ms(median),
            ms(worst)
        );
    }
}

fn delta(after: CountersRead, before: CountersRead) -> CountersRead {
    CountersRead {
        syncs: after.syncs - before.syncs,
        opens: after.opens - before.opens,
        batches: after.batches - before.batches,
        lines: after.lines - before.lines,
    }
}

async fn measure() -> anyhow::Result<Figures> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::new(store, HostConfig::new(home.path().to_owned()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(flybot_host::serve(host.clone(), listener, async {
        let _ = stopped.await;
    }));
    let log = TurnLog::for_home(home.path());
    let mut work = host.subscribe_work();

    let bots = create_bots(&address, CHAT_BOTS).await?;
    own_chat(&address, &bots, &mut work).await?;
    let before = log.counters();
    own_chat(&address, &bots, &mut work).await?;
    let chat = delta(log.counters(), before);

    let members = create_bots(&address, ROOM_BOTS).await?;
    let room = post(
        &address,
        "create-room",
        json!({"name": "Six", "members": members}),
    )
    .await?;
    let room = room["room"]["id"].as_str().unwrap_or_default().to_owned();
    round(&address, &room, &mut work).await?;
    let before = log.counters();
    let mut round_times = Vec::new();
    for _ in 0..ROUNDS {
        round_times.push(round(&address, &room, &mut work).await?);
    }
    let room = delta(log.counters(), before);
    let _ = stop.send(());
    server.await??;
    Ok(Figures {
        chat,
        room,
        round_times,
    })
}

/// One line to each Bot; resolves once every turn has ended (durably).
async fn own_chat(
    address: &str,
    bots: &[String],
    work: &mut broadcast::Receiver<HostEvent>,
) -> anyhow::Result<()> {
    let mut sessions = BTreeSet::new();
    for bot in bots {
        let sent = post(
            address,
            "send",
            json!({"botId": bot, "text": "Hello, one line."}),
        )
        .await?;
        sessions.insert(sent["sessionId"].as_str().unwrap_or_default().to_owned());
    }
    while !sessions.is_empty() {
        if let HostEvent::TurnEnded { session_id, .. } = work.recv().await? {
            sessions.remove(&session_id);
        }
    }
    Ok(())
}

/// One `@all` round: answers the time from the send to `round.ended`.
async fn round(
    address: &str,
    room: &str,
    work: &mut broadcast::Receiver<HostEvent>,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    post(
        address,
        "send",
        json!({"roomId": room, "text": "@all one line each, please."}),
    )
    .await?;
    loop {
        if let HostEvent::RoundEnded { room_id } = work.recv().await?
            && room_id == room
        {
            return Ok(started.elapsed());
        }
    }
}
