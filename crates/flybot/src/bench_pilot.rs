//! `flybot bench pilot`: the room pilot's wall time with the fake OpenCode,
//! and with the real pinned one when it is installed (README path,
//! `$FLYBOT_OPENCODE`).

use crate::pilot_cmd::{pilot_once, pinned_opencode};
use flybot_host::pilot::PilotRuntime;

const RUNS: usize = 3;

fn measure(name: &str, runtime: &PilotRuntime) -> anyhow::Result<()> {
    let mut walls = Vec::new();
    for _ in 0..RUNS {
        let report = pilot_once(
            runtime.clone(),
            vec!["flybot".into(), "bench".into(), "pilot".into()],
        )?;
        if report.outcome != "result-ready" {
            anyhow::bail!("{name}: the pilot ended {}", report.outcome);
        }
        walls.push(report.wall_ms);
    }
    walls.sort_unstable();
    println!(
        "pilot {name:<9} runs {RUNS}  wall min {} ms  median {} ms  max {} ms",
        walls[0],
        walls[RUNS / 2],
        walls[RUNS - 1]
    );
    Ok(())
}

pub fn run() -> anyhow::Result<()> {
    measure("fake", &PilotRuntime::Fake)?;
    match pinned_opencode(None) {
        Ok(real) => measure("opencode", &real)?,
        Err(why) => println!("pilot opencode  skipped: {why}"),
    }
    Ok(())
}
