//! `flybot-bench turn`: the host's own time per turn of 3 tool calls against
//! a zero-latency scripted model, minus the model's own time, and turns per
//! second on one core (a current-thread runtime). Goal: under 1 ms of host
//! time per turn. The Session log is fsynced per event batch, so the figure
//! depends on the home's file system; the bench says which it used.

use flybot_agent::model::{ModelProvider, ModelRequest, ModelStream};
use flybot_agent::session::{ItemKind, Sessions, Source};
use flybot_agent::testing::{Answer, Echo, ScriptedModel, TestEnv};
use flybot_agent::tools::{DynTool, ToolSet};
use futures_util::{FutureExt, StreamExt};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const WARMUP: usize = 50;
const TURNS: usize = 1_000;
/// Turns per Session before the bench opens a fresh one, so the
/// conversation stays the size of a real chat.
const TURNS_PER_SESSION: usize = 20;

/// Counts the time spent inside the model: making and polling its stream.
struct Timed {
    inner: Arc<ScriptedModel>,
    nanos: Arc<AtomicU64>,
}

impl ModelProvider for Timed {
    fn name(&self) -> &str {
        "scripted"
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let start = Instant::now();
        // The scripted stream is ready at once: one poll drains it.
        let events: Vec<_> = self
            .inner
            .stream(request)
            .collect::<Vec<_>>()
            .now_or_never()
            .unwrap_or_default();
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Box::pin(futures_util::stream::iter(events))
    }
}

pub fn run() -> anyhow::Result<()> {
    let shm = std::path::Path::new("/dev/shm");
    let home = if shm.is_dir() {
        tempfile::tempdir_in(shm)?
    } else {
        tempfile::tempdir()?
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let model = ScriptedModel::new([]);
    let nanos = Arc::new(AtomicU64::new(0));
    let provider = Arc::new(Timed {
        inner: model.clone(),
        nanos: nanos.clone(),
    });
    let tools = ToolSet::new([Arc::new(Echo) as Arc<dyn DynTool>]);
    let env = TestEnv::new(provider, tools, home.path().to_owned());
    let sessions = Sessions::new(home.path().to_owned(), Arc::new(env));
    let call = |n: usize| ("echo".to_owned(), format!(r#"{{"text":"call {n}"}}"#));
    let one_turn = |i: usize| -> anyhow::Result<Duration> {
        model.push(Answer::Calls(vec![call(1), call(2), call(3)]));
        model.push(Answer::Text("Done with the three calls.".to_owned()));
        let session = format!("bench-{}", i / TURNS_PER_SESSION);
        let start = Instant::now();
        runtime.block_on(async {
            sessions.deliver(
                &session,
                "run the three calls",
                Source::User { member_id: None },
                ItemKind::NextTurn,
            )?;
            sessions.wait_idle(&session).await
        })?;
        Ok(start.elapsed())
    };
    for i in 0..WARMUP {
        one_turn(i)?;
    }
    nanos.store(0, Ordering::Relaxed);
    let mut times = Vec::with_capacity(TURNS);
    let wall = Instant::now();
    for i in WARMUP..WARMUP + TURNS {
        times.push(one_turn(i)?);
    }
    let wall = wall.elapsed();
    let model_time = Duration::from_nanos(nanos.load(Ordering::Relaxed));
    times.sort();
    let per_turn_model = model_time / TURNS as u32;
    let host = |d: Duration| d.saturating_sub(per_turn_model);
    let median = host(times[TURNS / 2]);
    let p99 = host(times[TURNS * 99 / 100]);
    let mean = host(wall / TURNS as u32);
    let turns_per_second = TURNS as f64 / (wall - model_time).as_secs_f64();
    let fs = if home.path().starts_with(shm) {
        "tmpfs (/dev/shm)"
    } else {
        "the temp folder"
    };
    let out = format!(
        "turn (3 tool calls, 2 model calls, Session log fsynced per batch on {fs}, one core):\n  host time per turn: median {:.3} ms, p99 {:.3} ms, mean {:.3} ms (model's own time {:.3} ms per turn subtracted)\n  turns per second on one core: {:.0}\n  goal: under 1 ms host time per turn: {}\n",
        median.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
        per_turn_model.as_secs_f64() * 1e3,
        turns_per_second,
        if median < Duration::from_millis(1) {
            "met"
        } else {
            "NOT met"
        }
    );
    use std::io::Write;
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(())
}
