//! `flybot-bench schedules`: 10,000 scheduled tasks across 1,000 Sessions
//! (every, daily and cron timings): the time to find the next due task (the
//! scheduler's scan of the team), one tick's host time when 100 fall due at
//! once (delivery into 100 chats and one recorded change), and the resident
//! memory the tasks add. Prints median and p99; nothing asserts a duration.

use crate::figures::{ms, percentile};
use flybot_host::schedules::ScheduleClock;
use flybot_host::schedules::scheduler::due_now;
use flybot_host::{Host, HostConfig};
use flybot_protocol::schedule::{ScheduleStatus, ScheduleTask, Timing};
use flybot_protocol::state::Bot;
use flybot_store::{Store, StoreOptions};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

const TASKS: usize = 10_000;
const SESSIONS: usize = 1_000;
const DUE_AT_ONCE: usize = 100;
const REPEATS: usize = 200;
/// 2026-12-03T10:00:00Z.
const BASE: u64 = 1_796_292_000_000;

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(measure())
}

/// The resident set of this process, in KiB (Linux `/proc/self/statm`).
fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn task(i: usize) -> ScheduleTask {
    let when = match i % 3 {
        0 => Timing::Every {
            seconds: Some(60 + (i as u64 % 3_600)),
            minutes: None,
        },
        1 => Timing::Daily {
            time: format!("{:02}:{:02}", i % 24, i % 60),
            zone: Some("Europe/Berlin".into()),
        },
        _ => Timing::Cron {
            rule: format!("{} */2 * * *", i % 60),
            zone: Some("Asia/Shanghai".into()),
        },
    };
    // The first DUE_AT_ONCE tasks are due one second after the base; the
    // rest later, spread over a day.
    let next = if i < DUE_AT_ONCE {
        BASE + 1_000
    } else {
        BASE + 60_000 + (i as u64 * 8_640) % 86_400_000
    };
    ScheduleTask {
        id: format!("schedule-{i:05}"),
        session_id: format!("session-{:04}", i % SESSIONS),
        title: format!("Task {i}"),
        prompt: "Post the standup.".into(),
        when,
        status: ScheduleStatus::Active,
        next_run_at: Some(next),
        held_until: None,
        suppressed: Vec::new(),
        created_by: "member-owner".into(),
        created_at: BASE,
        updated_at: BASE,
        paused_at: None,
    }
}

async fn measure() -> anyhow::Result<()> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let now = Arc::new(AtomicU64::new(BASE));
    let clock = now.clone();
    let mut config = HostConfig::new(home.path().to_owned());
    config.schedule_clock = ScheduleClock(Arc::new(move || clock.load(Ordering::SeqCst)));
    config.host_zone = "UTC".into();
    // The bench drives the scheduler's tick itself.
    config.automation_tasks = false;
    let host = Host::new(store, config);
    host.start();
    host.team()
        .mutate("bench", |change| {
            for i in 0..SESSIONS {
                let id = format!("bot-{i:04}");
                let session = format!("session-{i:04}");
                change.put_bot(&Bot::new(
                    id,
                    format!("Bot {i}"),
                    "member-owner",
                    "mock",
                    session,
                    BASE,
                ));
            }
            Ok(())
        })
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let before = rss_kib();
    host.team()
        .mutate("bench", |change| {
            for i in 0..TASKS {
                change.put_schedule(&task(i));
            }
            Ok(())
        })
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let added = rss_kib().saturating_sub(before);
    println!("schedules: {TASKS} tasks across {SESSIONS} Sessions");
    let mut samples = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        let start = Instant::now();
        let (due, soonest) = host.store().read(|s| due_now(s.schedules.values(), BASE));
        samples.push(start.elapsed());
        std::hint::black_box((due, soonest));
    }
    println!(
        "  find the next due task     median {:>7.3} ms  p99 {:>7.3} ms",
        ms(percentile(&mut samples, 50)),
        ms(percentile(&mut samples, 99)),
    );
    now.store(BASE + 1_000, Ordering::SeqCst);
    let start = Instant::now();
    host.scheduler().tick().await;
    let tick = start.elapsed();
    let ran = host.store().read(|s| s.schedule_runs.len());
    println!(
        "  one tick, {DUE_AT_ONCE} due at once   {:>7.3} ms  ({ran} runs recorded, one change)",
        ms(tick)
    );
    println!("  resident memory the {TASKS} tasks add: {added} KiB");
    host.begin_stop();
    host.shut_down().await?;
    Ok(())
}
