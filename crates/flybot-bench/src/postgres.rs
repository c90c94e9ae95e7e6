//! `flybot-bench postgres` (issue 35): the store on PostgreSQL. One change
//! against the database's own commit floor (a bare one-row insert and
//! commit, measured the same way, in turn with it), 32 at once against one,
//! `GET /api/bot/state` at 10,000 tasks, and the failover time: a leader
//! process killed with SIGKILL to the standby's first acknowledged write.
//! Needs `FLYBOT_TEST_PG` (scripts/test-postgres.sh starts a private
//! cluster); each figure runs on a fresh database that is dropped after.

use crate::figures::percentile;
use crate::store::durable::{bench_team, touch_task};
use crate::store::state_read::state_read_latency_on;
use anyhow::Context;
use flybot_store::engine::test_database::{TestDatabase, test_database};
use flybot_store::{Engine, PostgresOptions, Store, StoreOptions};
use sqlx::{Connection, PgConnection};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLES: usize = 300;
const ROUNDS: usize = 50;
const TASKS: usize = 10_000;

fn database() -> anyhow::Result<TestDatabase> {
    test_database().context(
        "set FLYBOT_TEST_PG to a PostgreSQL URL the bench may create databases on (scripts/test-postgres.sh starts one)",
    )
}

fn options_for(url: &str, standby: bool) -> StoreOptions {
    StoreOptions {
        engine: Engine::Postgres(PostgresOptions {
            standby,
            ..PostgresOptions::new(url)
        }),
        ..StoreOptions::default()
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    let dir = tempfile::tempdir()?;
    runtime.block_on(async {
        println!("postgres bench: times in microseconds unless named");
        let db = database()?;
        let home = dir.path().join("changes");
        let url = db.url.clone();
        let (one, floor, rounds) =
            tokio::spawn(async move { changes(&home, &url).await }).await??;
        println!(
            "one change median {one} | commit floor (one-row insert + commit) median {floor} | 32 at once median {rounds}"
        );
        let r1 = one as f64 / floor.max(1) as f64;
        let r32 = rounds as f64 / one.max(1) as f64;
        println!(
            "one change / commit floor = {r1:.2}x (goal <= 2x: {}); 32 at once / one change = {r32:.2}x (goal <= 2x: {})",
            verdict(r1 <= 2.0),
            verdict(r32 <= 2.0)
        );
        drop(db);

        let db = database()?;
        let home = dir.path().join("state");
        let (median, p99, bytes) =
            state_read_latency_on(&home, TASKS, options_for(&db.url, false)).await?;
        println!(
            "{TASKS} tasks: GET /api/bot/state median {:.2} ms p99 {:.2} ms ({} KiB answer)",
            median.as_secs_f64() * 1000.0,
            p99.as_secs_f64() * 1000.0,
            bytes / 1024
        );
        drop(db);

        let db = database()?;
        let took = failover(&dir.path().join("failover"), &db.url).await?;
        println!(
            "failover (leader killed with SIGKILL to the standby's first acknowledged write, 5 s lease): {:.2} s (goal < 10 s: {})",
            took.as_secs_f64(),
            verdict(took < Duration::from_secs(10))
        );
        Ok(())
    })
}

/// One change and the commit floor in turn, then rounds of 32 at once.
async fn changes(home: &std::path::Path, url: &str) -> anyhow::Result<(u64, u64, u64)> {
    let store = Store::open(home, options_for(url, false))?;
    let team = bench_team(100);
    store
        .mutate("bench", |change| {
            for member in team.members.values() {
                change.put_member(member);
            }
            for bot in team.bots.values() {
                change.put_bot(bot);
            }
            for task in team.tasks.values() {
                change.put_task(task);
            }
            Ok(())
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut conn = PgConnection::connect(url).await?;
    sqlx::query("CREATE TABLE bench_floor (id BIGSERIAL PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&mut conn)
        .await?;
    let mut one = Vec::with_capacity(SAMPLES);
    let mut floor = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let started = Instant::now();
        touch_task(&store, i % 100).await?;
        one.push(started.elapsed());
        let started = Instant::now();
        sqlx::query("INSERT INTO bench_floor (v) VALUES ($1)")
            .bind(format!("row {i}"))
            .execute(&mut conn)
            .await?;
        floor.push(started.elapsed());
    }
    let mut rounds = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        let started = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for j in 0..32 {
            let store = store.clone();
            set.spawn(async move { touch_task(&store, (round * 32 + j) % 100).await });
        }
        while let Some(done) = set.join_next().await {
            done??;
        }
        rounds.push(started.elapsed());
    }
    store.close().await?;
    let us = |samples: &mut Vec<Duration>| percentile(samples, 50).as_micros() as u64;
    Ok((us(&mut one), us(&mut floor), us(&mut rounds)))
}

/// A leader in a child process (this binary's hidden `postgres-leader`),
/// killed with SIGKILL; the time until a standby here acknowledges a write.
async fn failover(home: &std::path::Path, url: &str) -> anyhow::Result<Duration> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(["postgres-leader", url])
        .arg(home.join("leader"))
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().context("the leader's stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    anyhow::ensure!(line.trim() == "leading", "the leader did not start: {line}");
    let standby = Store::open(&home.join("standby"), options_for(url, true))?;
    child.kill()?;
    let killed = Instant::now();
    child.wait()?;
    loop {
        let wrote = standby
            .mutate("bench", |c| {
                c.set_pref("failover", Some(&serde_json::json!(true)));
                Ok(())
            })
            .await;
        if wrote.is_ok() {
            break;
        }
        anyhow::ensure!(killed.elapsed() < Duration::from_secs(60), "no takeover");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let took = killed.elapsed();
    standby.close().await?;
    Ok(took)
}

/// The hidden `postgres-leader URL HOME`: leads, says so, waits to be killed.
pub fn lead(url: &str, home: &std::path::Path) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let store = Store::open(home, options_for(url, false))?;
        store
            .mutate("bench", |c| {
                c.set_pref("leader", Some(&serde_json::json!(std::process::id())));
                Ok(())
            })
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        println!("leading");
        std::future::pending::<()>().await;
        Ok(())
    })
}
