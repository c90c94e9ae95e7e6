//! `flybot-bench turn-sync` (issue 19): the turn path at the disk's floor.
//! A real host on loopback, on the offline mock, driven through the
//! channel: ten own-chat turns (one line each to ten Bots) and fifty
//! `@all` rounds in a six-Bot room, each after a warm-up. Prints the turn log's
//! syncs per turn (its own counters), the file opens per turn as strace
//! counts them from outside the process (issue 38: every open of the whole
//! process, the team store's and the ledger's too, in a second pass of the
//! same turns, since a traced pass is slow), and the host time per member
//! turn (a round from the HTTP `send`, on a connection the page holds open,
//! to `round.ended`, over six), on this
//! disk and on a disk whose every sync takes 5 ms more (the turn log's
//! test-only delay). Beside it, AutoGen's six-agent round robin, run in the
//! same run (`autogen_peer`), and the ratio.

use crate::autogen_peer::{self, AutoGen};
use crate::channel::{create_bots, open_config, page_connection, post, post_on};
use crate::figures::{ms, percentile};
use crate::tracer;
use flybot_host::Host;
use flybot_host::events::HostEvent;
use flybot_store::turn_log::{CountersRead, TurnLog, set_sync_delay};
use flybot_store::{Store, StoreOptions};
use serde_json::json;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

const CHAT_BOTS: usize = 10;
const ROOM_BOTS: usize = 6;
/// Fifty rounds, 300 member turns: AutoGen's longest run, and a median
/// that moved by a tenth from one run to the next with ten.
const ROUNDS: usize = 50;
/// The slow disk: what a network-attached volume adds to a sync.
const SLOW_SYNC: Duration = Duration::from_millis(5);

/// The syscalls counted as file opens.
const OPENS: [&str; 2] = ["open", "openat"];

pub fn run() -> anyhow::Result<()> {
    // The homes outlive the runtime: the hosts' followers hold the turn
    // log until the runtime drops them, and its writer's last checkpoint
    // writes into the home.
    let mut homes = Vec::new();
    let runtime = tokio::runtime::Runtime::new()?;
    let autogen = autogen_peer::measure();
    for (disk, delay) in [
        ("this disk", Duration::ZERO),
        ("slow disk, +5 ms per sync", SLOW_SYNC),
    ] {
        set_sync_delay(delay);
        let (figures, home) = runtime.block_on(measure())?;
        homes.push(home);
        println!("turn path on {disk}:");
        figures.print(&autogen);
    }
    set_sync_delay(Duration::ZERO);
    drop(runtime);
    drop(homes);
    Ok(())
}

struct Figures {
    chat: CountersRead,
    room: CountersRead,
    /// strace's opens in the traced pass, or why there is no count.
    chat_opens: Result<u64, String>,
    room_opens: Result<u64, String>,
    round_times: Vec<Duration>,
}

impl Figures {
    fn print(mut self, autogen: &Result<AutoGen, String>) {
        let per = |n: u64, turns: usize| n as f64 / turns as f64;
        let opens = |counted: &Result<u64, String>, turns: usize| match counted {
            Ok(n) => format!(
                "{:.2} opens per turn by strace (goal 0; the team's snapshot written before)",
                per(*n, turns)
            ),
            Err(why) => format!("opens not counted: {why}"),
        };
        println!(
            "  own chat, {CHAT_BOTS} turns: {:.2} syncs per turn (goal <= 2), {}, {} batches",
            per(self.chat.syncs, CHAT_BOTS),
            opens(&self.chat_opens, CHAT_BOTS),
            self.chat.batches
        );
        let turns = ROUNDS * ROOM_BOTS;
        println!(
            "  @all in a {ROOM_BOTS}-Bot room, {turns} member turns: {:.2} syncs per member turn (goal < 1), {}",
            per(self.room.syncs, turns),
            opens(&self.room_opens, turns).replace("per turn", "per member turn"),
        );
        let median = percentile(&mut self.round_times, 50);
        let worst = percentile(&mut self.round_times, 100);
        let member_turn = ms(median) / ROOM_BOTS as f64;
        println!(
            "  host time per member turn through the channel, durable: {member_turn:.2} ms median ({:.1} ms per round, slowest round {:.1} ms)",
            ms(median),
            ms(worst)
        );
        print_peer(autogen, member_turn, turns);
    }
}

/// AutoGen's figures from this run, and FlyBot's ratio at the same count.
fn print_peer(autogen: &Result<AutoGen, String>, member_turn: f64, turns: usize) {
    let autogen = match autogen {
        Ok(autogen) => autogen,
        Err(why) => return println!("  AutoGen not measured: {why}"),
    };
    let each: Vec<String> = autogen
        .per_turn_ms
        .iter()
        .map(|(n, ms)| format!("{ms:.2} ms at {n} turns"))
        .collect();
    println!(
        "  AutoGen {} in memory, same run (6-agent round robin, replay model, median of {}): {}",
        autogen.version,
        autogen_peer::RUNS,
        each.join(", ")
    );
    if let Some((_, peer)) = autogen.per_turn_ms.iter().find(|(n, _)| *n == turns) {
        let met = if member_turn < *peer {
            "met"
        } else {
            "NOT met"
        };
        println!(
            "  FlyBot / AutoGen per member turn at {turns} turns: {:.2}x (goal < 1x: {met})",
            member_turn / peer
        );
    }
}

/// `part` run again under strace: its opens, or why they were not counted.
async fn traced_opens<F: std::future::Future<Output = anyhow::Result<()>>>(
    part: impl FnOnce() -> F,
) -> anyhow::Result<Result<u64, String>> {
    let tracer = match tracer::attach(&OPENS) {
        Ok(tracer) => tracer,
        Err(why) => return Ok(Err(why)),
    };
    part().await?;
    Ok(tracer.finish().map(|counted| tracer::sum(&counted, &OPENS)))
}

fn delta(after: CountersRead, before: CountersRead) -> CountersRead {
    CountersRead {
        syncs: after.syncs - before.syncs,
        opens: after.opens - before.opens,
        batches: after.batches - before.batches,
        lines: after.lines - before.lines,
    }
}

async fn measure() -> anyhow::Result<(Figures, tempfile::TempDir)> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::new(store, open_config(home.path()));
    host.start();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(flybot_host::serve(host.clone(), listener, async {
        let _ = stopped.await;
    }));
    let log = TurnLog::for_home(home.path());
    let mut work = host.team().bus().subscribe_work();

    let bots = create_bots(&address, CHAT_BOTS).await?;
    own_chat(&address, &bots, &mut work).await?;
    let before = log.counters();
    own_chat(&address, &bots, &mut work).await?;
    let chat = delta(log.counters(), before);
    // The team's snapshot is written 3 s after a change to the team (the
    // Bots made above), whatever the turns: its 6 opens (the files it
    // renames into place, the folder it syncs, the journal read back and
    // reopened) landed in the traced turns when they ran late. It is
    // written first, so the trace counts what the turns open.
    host.store().snapshot_now().await?;
    let chat_opens = traced_opens(|| own_chat(&address, &bots, &mut work)).await?;

    let members = create_bots(&address, ROOM_BOTS).await?;
    let room = post(
        &address,
        "create-room",
        json!({"name": "Six", "members": members}),
    )
    .await?;
    let room_id = room["room"]["id"].as_str().unwrap_or_default().to_owned();
    round(&address, &room_id, &mut work).await?;
    let before = log.counters();
    let mut round_times = Vec::new();
    for _ in 0..ROUNDS {
        round_times.push(round(&address, &room_id, &mut work).await?);
    }
    let room = delta(log.counters(), before);
    let room_opens = traced_opens(|| async {
        for _ in 0..ROUNDS {
            round(&address, &room_id, &mut work).await?;
        }
        Ok(())
    })
    .await?;
    let _ = stop.send(());
    server.await??;
    host.begin_stop();
    host.shut_down().await?;
    let figures = Figures {
        chat,
        room,
        chat_opens,
        room_opens,
        round_times,
    };
    Ok((figures, home))
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
    let mut page = page_connection(address).await?;
    let started = Instant::now();
    let line = json!({"roomId": room, "text": "@all one line each, please."});
    post_on(&mut page, address, "send", line).await?;
    loop {
        if let HostEvent::RoundEnded { room_id } = work.recv().await?
            && room_id == room
        {
            return Ok(started.elapsed());
        }
    }
}
