//! `flybot-bench sessions` (issue 13, "Memory stays bounded"): a real host
//! on loopback, on the offline mock, 1,000 Bots and 10,000 own-chat turns
//! of 5 KB lines driven through the channel, 50 Bots at a time. Prints the
//! process's resident memory after the Bots are made, after 1,000 turns and
//! after 10,000 turns (goal: under 100 MB, and flat from 1,000 to 10,000),
//! with the Sessions held in memory. Then the time to first token the host
//! adds over the llama.cpp server (`ttft`).

use crate::channel::{create_bots, post};
use flybot_host::Host;
use flybot_store::{Store, StoreOptions};
use serde_json::json;
use std::collections::BTreeSet;

const BOTS: usize = 1_000;
const TURNS: usize = 10_000;
const AT_ONCE: usize = 50;
const LINE_BYTES: usize = 5_000;

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(resident())?;
    runtime.block_on(crate::ttft::run())
}

/// The time to first token alone.
pub fn run_ttft() -> anyhow::Result<()> {
    tokio::runtime::Runtime::new()?.block_on(crate::ttft::run())
}

/// One figure of `/proc/self/status` in MB: `VmRSS` (the resident set),
/// `RssAnon` (the process's own memory) or `RssFile` (its mapped program).
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

async fn resident() -> anyhow::Result<()> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::open(store, crate::channel::open_config(home.path())).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(flybot_host::serve(host.clone(), listener, async {
        let _ = stopped.await;
    }));
    let bots = create_bots(&address, BOTS).await?;
    let line: String = "All work and no play. ".repeat(LINE_BYTES / 22);
    println!(
        "resident memory, {BOTS} Bots on the mock, own-chat turns of {} byte lines:",
        line.len()
    );
    let print = |turns: usize, host: &Host| {
        println!(
            "  after {turns:>6} turns: {:.1} MB resident ({:.1} MB anonymous, {:.1} MB mapped files), {} Sessions in memory holding {} KB of log",
            status_mb("VmRSS"),
            status_mb("RssAnon"),
            status_mb("RssFile"),
            host.sessions().in_memory(),
            host.sessions().log_bytes_in_memory() / 1024
        );
    };
    print(0, &host);
    let mut done = 0;
    for target in [1_000, 2_500, 5_000, 7_500, TURNS] {
        while done < target {
            let batch: Vec<&String> = (done..done + AT_ONCE).map(|n| &bots[n % BOTS]).collect();
            turns(&host, &address, &batch, &line).await?;
            done += AT_ONCE;
        }
        print(done, &host);
    }
    println!("  (goal: under 100 MB, and flat from 1,000 to 10,000 turns)");
    let _ = stop.send(());
    server.await??;
    Ok(())
}

/// One line to each Bot of `batch`; resolves once every turn has ended
/// and all it wrote is durable.
async fn turns(host: &Host, address: &str, batch: &[&String], line: &str) -> anyhow::Result<()> {
    let mut waiting = BTreeSet::new();
    for bot in batch {
        let sent = post(address, "send", json!({"botId": bot, "text": line})).await?;
        waiting.insert(sent["sessionId"].as_str().unwrap_or_default().to_owned());
    }
    for session in waiting {
        host.sessions().wait_idle(&session).await?;
    }
    Ok(())
}
