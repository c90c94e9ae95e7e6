//! `flybot-bench store`: the store's figures (load, one durable change, 32
//! at once, the disk's fsync floor) at 1,000 and 10,000 tasks, and the
//! median latency of `GET /api/bot/state` for the same team on loopback,
//! and what a room's member turn pays to read that team.
//! Prints figures and ratios; nothing asserts a duration.

mod burst_steps;
pub(crate) mod durable;
mod round_read;
pub(crate) mod state_read;

use anyhow::Context;
use durable::store_bench;
use state_read::{BOTS, STATE_READS, state_read_latency};

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    println!("store bench: a team of {BOTS} Bots; times in microseconds unless named");
    for tasks in [1_000, 10_000] {
        runtime.block_on(one_size(tasks))?;
    }
    Ok(())
}

/// The store's figures at `tasks` tasks, printed.
pub async fn one_size(tasks: usize) -> anyhow::Result<()> {
    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    // The changes are made on the runtime's worker threads, as the host's
    // request handlers make them, not from the thread that only waits on
    // the runtime.
    let home = dir.path().to_owned();
    let r = tokio::spawn(async move { store_bench(&home, tasks).await }).await??;
    println!(
        "{tasks:>6} tasks: load {:.1} ms | one change median {} p99 {} | 32 at once median {} p99 {} | fsync floor median {} p99 {}",
        r.load_ms,
        r.change_median_us,
        r.change_p99_us,
        r.concurrent32_median_us,
        r.concurrent32_p99_us,
        r.fsync_floor_median_us,
        r.fsync_floor_p99_us,
    );
    let at_once = ratio(r.concurrent32_median_us, r.change_median_us);
    println!(
        "{tasks:>6} tasks: one change / fsync floor = {:.2}x median, {:.2}x p99 (goal <= 2x); 32 at once / one change = {at_once:.2}x (goal <= 2x: {})",
        ratio(r.change_median_us, r.fsync_floor_median_us),
        ratio(r.change_p99_us, r.fsync_floor_p99_us),
        met(at_once <= 2.0),
    );
    println!(
        "{tasks:>6} tasks: the disk alone, one {} byte append and fsync (the write 32 at once share): median {}",
        durable::BURST_BYTES,
        r.burst_floor_median_us,
    );
    println!(
        "{tasks:>6} tasks: 32 at once, median microseconds from the start to each step: {}",
        r.burst_steps.line()
    );
    let (median, p99, bytes) =
        state_read_latency(&dir.path().join(format!("state-{tasks}")), tasks).await?;
    let median_ms = median.as_secs_f64() * 1000.0;
    println!(
        "{tasks:>6} tasks: GET /api/bot/state median {median_ms:.2} ms p99 {:.2} ms ({} KiB answer, {STATE_READS} reads){}",
        p99.as_secs_f64() * 1000.0,
        bytes / 1024,
        if tasks >= 10_000 {
            format!(" (goal < 2 ms: {})", met(median_ms < 2.0))
        } else {
            String::new()
        }
    );
    let read = round_read::round_read(dir.path(), tasks).await?;
    println!(
        "{tasks:>6} tasks: a room's member turn reads the team: a whole copy median {}, the room's view (20 cards) by a scan median {}, by the room index median {}",
        read.whole_copy, read.scanned_view, read.indexed_view,
    );
    Ok(())
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
}

fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / b.max(1) as f64
}
