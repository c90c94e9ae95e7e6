//! `flybot-bench store`: the store's figures (load, one durable change, 32
//! at once, the disk's fsync floor) at 1,000 and 10,000 tasks, and the
//! median latency of `GET /api/bot/state` for the same team on loopback.
//! Prints figures and ratios; nothing asserts a duration.

pub(crate) mod durable;
pub(crate) mod state_read;

use anyhow::Context;
use durable::store_bench;
use state_read::{BOTS, STATE_READS, state_read_latency};

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    runtime.block_on(async {
        println!("store bench: a team of {BOTS} Bots; times in microseconds unless named");
        for tasks in [1_000, 10_000] {
            // The changes are made on the runtime's worker threads, as the
            // host's request handlers make them, not from the thread that
            // only waits on the runtime.
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
            println!(
                "{tasks:>6} tasks: one change / fsync floor = {:.2}x median, {:.2}x p99 (goal <= 2x); 32 at once / one change = {:.2}x (goal <= 2x)",
                ratio(r.change_median_us, r.fsync_floor_median_us),
                ratio(r.change_p99_us, r.fsync_floor_p99_us),
                ratio(r.concurrent32_median_us, r.change_median_us),
            );
            println!(
                "{tasks:>6} tasks: the disk alone, one {} byte append and fsync (the write 32 at once share): median {}",
                durable::BURST_BYTES,
                r.burst_floor_median_us,
            );
            let (median, p99, bytes) = state_read_latency(&dir.path().join(format!("state-{tasks}")), tasks).await?;
            println!(
                "{tasks:>6} tasks: GET /api/bot/state median {:.2} ms p99 {:.2} ms ({} KiB answer, {STATE_READS} reads)",
                median.as_secs_f64() * 1000.0,
                p99.as_secs_f64() * 1000.0,
                bytes / 1024
            );
        }
        Ok(())
    })
}

fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / b.max(1) as f64
}
