//! What a durable change costs next to the disk's own floor (one 4 KiB
//! write and fsync), on a team of 100 Bots and N tasks, through the store's
//! public API: the figures `flybot-bench store` prints first.

use super::burst_steps::BurstSteps;
use crate::figures::percentile;
use anyhow::Context;
use flybot_protocol::state::{Bot, Member, STATE_VERSION, Task, TaskStatus, TeamState};
use flybot_store::burst_marks::{self, Burst};
use flybot_store::{Store, StoreOptions, atomic_write};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

const BOTS: usize = 100;
/// Samples of one change (and of the floor beside each), and rounds of 32
/// at once among them: enough that a slow spell of the disk moves the
/// medians little (with 50 rounds, the ratio moved by 0.3 between runs).
const SAMPLES: usize = 800;
const ROUNDS: usize = 200;
const CONCURRENT: usize = 32;

/// The figures of one run, in the units their names say.
#[derive(Debug, Clone, Serialize)]
pub struct StoreBenchReport {
    pub tasks: usize,
    /// Opening the home: reading the snapshot and the journal.
    pub load_ms: f64,
    /// One durable change (one task updated), on disk when answered.
    pub change_median_us: u64,
    pub change_p99_us: u64,
    /// 32 changes made at once, until the last is answered.
    pub concurrent32_median_us: u64,
    pub concurrent32_p99_us: u64,
    /// One 4 KiB append and fsync to a file beside the journal, sampled in
    /// turn with the single changes.
    pub fsync_floor_median_us: u64,
    pub fsync_floor_p99_us: u64,
    /// The same floor for one append as long as 32 journal lines (the
    /// write 32 changes at once share), sampled in turn with the rest.
    pub burst_floor_median_us: u64,
    /// Where the rounds of 32 at once spent their time.
    pub burst_steps: BurstSteps,
}

/// About the bytes of 32 journal lines of this bench (each about 340).
pub const BURST_BYTES: usize = 32 * 340;

/// Runs the bench in a new folder under `dir` (removed afterwards).
pub async fn store_bench(dir: &Path, tasks: usize) -> anyhow::Result<StoreBenchReport> {
    let home = dir.join(format!("store-bench-{tasks}-tasks"));
    if home.exists() {
        std::fs::remove_dir_all(&home)?;
    }
    std::fs::create_dir_all(&home)?;
    // The team starts as a snapshot, as a long-lived home's does.
    let snapshot = serde_json::to_vec_pretty(&bench_team(tasks))?;
    atomic_write(&home.join("state.json"), &snapshot)?;
    // The first open anchors the journal; the measured one is a plain start.
    Store::open(&home, StoreOptions::default())?.close().await?;

    let started = Instant::now();
    let store = Store::open(&home, StoreOptions::default())?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;

    // One change, the disk's floor and 32 at once are sampled in turn, so
    // a slow spell of the disk lands on all three alike.
    let floor_path = home.join("fsync-floor.bin");
    let mut floor_file = FloorFile::open(&floor_path, 4096)
        .with_context(|| format!("the fsync floor in {}", home.display()))?;
    let mut burst_file = FloorFile::open(&home.join("burst-floor.bin"), BURST_BYTES)
        .with_context(|| format!("the burst's fsync floor in {}", home.display()))?;
    let mut burst_floor = Vec::with_capacity(ROUNDS);
    let mut one = Vec::with_capacity(SAMPLES);
    let mut floor = Vec::with_capacity(SAMPLES);
    let mut rounds = Vec::with_capacity(ROUNDS);
    let mut bursts = Vec::with_capacity(ROUNDS);
    for i in 0..SAMPLES {
        let started = Instant::now();
        touch_task(&store, i % tasks.max(1)).await?;
        one.push(started.elapsed());
        floor.push(floor_file.sample()?);
        if i % (SAMPLES / ROUNDS) == 0 {
            let (took, burst) = concurrent_round(&store, tasks, rounds.len()).await?;
            rounds.push(took);
            bursts.push(burst);
            burst_floor.push(burst_file.sample()?);
        }
    }
    store.close().await?;
    let _ = std::fs::remove_dir_all(&home);
    Ok(StoreBenchReport {
        tasks,
        load_ms,
        change_median_us: micros(&mut one, 50),
        change_p99_us: micros(&mut one, 99),
        concurrent32_median_us: micros(&mut rounds, 50),
        concurrent32_p99_us: micros(&mut rounds, 99),
        fsync_floor_median_us: micros(&mut floor, 50),
        fsync_floor_p99_us: micros(&mut floor, 99),
        burst_floor_median_us: micros(&mut burst_floor, 50),
        burst_steps: BurstSteps::of(&bursts),
    })
}

/// 32 changes made at once, until the last is answered, and where that
/// time went.
async fn concurrent_round(
    store: &Store,
    tasks: usize,
    round: usize,
) -> anyhow::Result<(Duration, Burst)> {
    let start = burst_marks::begin();
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for j in 0..CONCURRENT {
        let store = store.clone();
        let index = (round * CONCURRENT + j) % tasks.max(1);
        set.spawn(async move { touch_task(&store, index).await });
    }
    while let Some(done) = set.join_next().await {
        done??;
    }
    Ok((started.elapsed(), burst_marks::end(start)))
}

pub(crate) async fn touch_task(store: &Store, index: usize) -> anyhow::Result<()> {
    let id = task_id(index);
    store
        .mutate("host", |change| {
            let task = change.state().tasks.get(&id).cloned();
            if let Some(mut task) = task {
                task.title = format!("task {index}, touched at {}", change.now_ms());
                task.updated_at = change.now_ms();
                change.put_task(&task);
            }
            Ok(())
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// A file beside the journal: one append of `bytes` and fsync is the disk's
/// own floor for a write that size.
struct FloorFile {
    file: std::fs::File,
    block: Vec<u8>,
}

impl FloorFile {
    fn open(path: &Path, bytes: usize) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(FloorFile {
            file,
            block: vec![b'x'; bytes],
        })
    }

    fn sample(&mut self) -> std::io::Result<Duration> {
        let started = Instant::now();
        self.file.write_all(&self.block)?;
        self.file.sync_data()?;
        Ok(started.elapsed())
    }
}

pub(crate) fn micros(samples: &mut [Duration], percent: usize) -> u64 {
    percentile(samples, percent).as_micros() as u64
}

fn task_id(index: usize) -> String {
    format!("task-{index:012x}")
}

/// A team of 100 Bots owned by one member and `tasks` open tasks.
pub(crate) fn bench_team(tasks: usize) -> TeamState {
    let owner = "member-0000000000000001".to_owned();
    let mut team = TeamState {
        version: STATE_VERSION,
        ..TeamState::default()
    };
    team.members.insert(
        owner.clone(),
        Member {
            id: owner.clone(),
            name: "Owner".to_owned(),
            created_at: 1,
            extra: Default::default(),
        },
    );
    for b in 0..BOTS {
        let id = format!("bot-{b:012x}");
        let session_id = format!("session-{b:012x}");
        let mut bot = Bot::new(
            id.clone(),
            format!("Bot {b}"),
            &owner,
            "mock",
            session_id,
            1,
        );
        bot.instructions = "Answer briefly.".to_owned();
        bot.created_by = Some(owner.clone());
        team.bots.insert(id, bot);
    }
    for t in 0..tasks {
        let id = task_id(t);
        team.tasks.insert(
            id.clone(),
            Task {
                id,
                bot_id: format!("bot-{:012x}", t % BOTS),
                title: format!("task {t}"),
                status: TaskStatus::Open,
                requester_id: Some(owner.clone()),
                room_id: None,
                created_at: 1,
                updated_at: 1,
                extra: Default::default(),
            },
        );
    }
    team
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_store_bench_reports_every_figure() {
        let dir = tempfile::tempdir().unwrap();
        let report = store_bench(dir.path(), 20).await.unwrap();
        assert_eq!(report.tasks, 20);
        assert!(report.change_median_us > 0 && report.change_p99_us >= report.change_median_us);
        assert!(report.concurrent32_p99_us >= report.concurrent32_median_us);
        assert!(report.fsync_floor_median_us > 0);
        assert!(report.fsync_floor_p99_us >= report.fsync_floor_median_us);
        assert!(!dir.path().join("store-bench-20-tasks").exists());
        // Every round of 32 passed each step, in order, in at least one batch.
        let steps = &report.burst_steps;
        let at: Vec<u64> = steps.median_us.iter().map(|(_, at)| at.unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
        assert_eq!(steps.rounds, ROUNDS);
        assert!(steps.one_batch <= steps.rounds, "{steps:?}");
    }

    /// `cargo test -p flybot-bench --release -- --ignored --nocapture`
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "measures the disk; run by hand"]
    async fn store_bench_figures() {
        for tasks in [1_000, 10_000] {
            let dir = tempfile::tempdir().unwrap();
            let report = store_bench(dir.path(), tasks).await.unwrap();
            eprintln!("{}", serde_json::to_string(&report).unwrap());
        }
    }
}
