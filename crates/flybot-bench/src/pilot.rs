//! `flybot-bench pilot`: the room pilot's wall time with the fake OpenCode,
//! and with the real pinned one when it is installed (README path,
//! `$FLYBOT_OPENCODE`).

use flybot_host::pilot::{PilotRuntime, pilot_on_temporary_home, pinned_runtime};
use std::path::PathBuf;

const RUNS: usize = 3;

/// The real pinned OpenCode, found as `flybot pilot` finds it (the
/// variable, then the README's install folder under the current folder and
/// this source tree) and version-checked; says which it used.
fn pinned_opencode() -> anyhow::Result<PilotRuntime> {
    let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let runtime = pinned_runtime(None, &roots)?;
    eprintln!("pilot: {}", runtime.described());
    Ok(runtime)
}

fn measure(name: &str, runtime: &PilotRuntime) -> anyhow::Result<()> {
    let mut walls = Vec::new();
    for _ in 0..RUNS {
        let command = vec!["flybot-bench".into(), "pilot".into()];
        let report = pilot_on_temporary_home(runtime.clone(), None, command)
            .map_err(|e| anyhow::anyhow!(e))?;
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
    match pinned_opencode() {
        Ok(real) => measure("opencode", &real)?,
        Err(why) => println!("pilot opencode  skipped: {why}"),
    }
    Ok(())
}
