//! `flybot-bench social` (issue 33): a line from one home's person to
//! another home's Bot and its answer back, on the mock model, through a
//! private Synapse on loopback (median, p99), beside the same turn in one
//! home; the difference is what the trip between homes adds per line.

use crate::figures::{ms, percentile};
use flybot_agent::session::{ItemKind, SessionEvent, Source};
use flybot_testkit::Kit;
use flybot_testkit::synapse::{Synapse, start_private_synapse};
use serde_json::json;
use std::time::{Duration, Instant};

const WARMUP: usize = 3;
const LINES: usize = 40;
const TICK: Duration = Duration::from_millis(1);

async fn home(synapse: &Synapse, name: &str) -> anyhow::Result<Kit> {
    let password = format!("pw-{name}-bench");
    synapse.register(name, &password).await;
    let kit = Kit::new().await;
    let body = json!({"homeserver": synapse.base_url, "user": name, "password": password});
    kit.ok("social-connect", body).await;
    Ok(kit)
}

fn answers(kit: &Kit, session: &str) -> usize {
    kit.transcript(session)
        .iter()
        .filter(|e| matches!(e, SessionEvent::AssistantMessage { .. }))
        .count()
}

fn remote_lines(kit: &Kit, room: &str) -> usize {
    kit.host
        .team()
        .read(|s| s.social.rooms.get(room).map(|r| r.lines.len()).unwrap_or(0))
}

async fn wait(mut done: impl FnMut() -> bool) {
    while !done() {
        tokio::time::sleep(TICK).await;
    }
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let Some(synapse) = start_private_synapse().await else {
            anyhow::bail!("Synapse is not installed: run ./scripts/test first");
        };
        let alice = home(&synapse, "alice").await?;
        let bob = home(&synapse, "bob").await?;
        alice.ok("social-friend-add", json!({"userId": "@bob:localhost"})).await;
        bob.ok("social-friend-add", json!({"userId": "@alice:localhost"})).await;
        let helper = alice.bot("Helper").await;
        let body = json!({"botId": helper.id, "userId": "@bob:localhost"});
        alice.ok("social-publish", body).await;
        let room = loop {
            let rooms = bob.host.team().read(|s| s.social.rooms.keys().cloned().collect::<Vec<_>>());
            if let Some(room) = rooms.into_iter().next() {
                break room;
            }
            tokio::time::sleep(TICK).await;
        };
        let mut remote = Vec::new();
        for n in 0..WARMUP + LINES {
            let before = remote_lines(&bob, &room);
            let start = Instant::now();
            bob.ok("social-send", json!({"roomId": room, "text": format!("line {n}")})).await;
            wait(|| remote_lines(&bob, &room) >= before + 2).await;
            if n >= WARMUP {
                remote.push(start.elapsed());
            }
        }
        let local_bot = alice.bot("Local").await;
        let sessions = alice.host.sessions();
        let mut local = Vec::new();
        for n in 0..WARMUP + LINES {
            let before = answers(&alice, &local_bot.session);
            let start = Instant::now();
            let source = Source::User { member_id: None };
            sessions.deliver(&local_bot.session, &format!("line {n}"), source, ItemKind::NextTurn)?;
            wait(|| answers(&alice, &local_bot.session) > before).await;
            if n >= WARMUP {
                local.push(start.elapsed());
            }
        }
        let (rm, r99) = (percentile(&mut remote, 50), percentile(&mut remote, 99));
        let (lm, l99) = (percentile(&mut local, 50), percentile(&mut local, 99));
        println!("Remote line round trip (person at home B → Bot at home A → answer at B), mock model, Synapse on loopback, {LINES} lines:");
        println!("  median {:.1} ms, p99 {:.1} ms", ms(rm), ms(r99));
        println!("The same turn in one home (line delivered → answer written), {LINES} lines:");
        println!("  median {:.1} ms, p99 {:.1} ms", ms(lm), ms(l99));
        println!(
            "Added per remote line (median): {:.1} ms (two homes' journaled writes, the outbox, Synapse, the /sync long poll on both sides)",
            ms(rm.saturating_sub(lm))
        );
        Ok(())
    })
}
