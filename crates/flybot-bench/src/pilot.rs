//! `flybot-bench pilot`: the room pilot's wall time with the fake OpenCode,
//! and with the real pinned one when it is installed (README path,
//! `$FLYBOT_OPENCODE`).

use flybot_host::pilot::{PilotConfig, PilotRuntime, run_pilot_blocking};
use flybot_interop::opencode::locate::locate_pinned;
use flybot_interop::pilot::report::PilotReport;
use std::path::PathBuf;

const RUNS: usize = 3;

/// The real pinned OpenCode, found as `flybot pilot` finds it (the
/// variable, then the README's install folder under the current folder and
/// this source tree) and version-checked; says which it used.
fn pinned_opencode() -> anyhow::Result<PilotRuntime> {
    let env = std::env::var_os("FLYBOT_OPENCODE").map(PathBuf::from);
    let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let scratch = tempfile::tempdir()?;
    let runtime = tokio::runtime::Runtime::new()?;
    let found = runtime.block_on(locate_pinned(None, env.as_deref(), &roots, scratch.path()))?;
    eprintln!(
        "pilot: OpenCode from {}: {}",
        found.found_by,
        found.binary.display()
    );
    Ok(PilotRuntime::OpenCode {
        binary: found.binary,
        found_by: found.found_by.to_owned(),
    })
}

/// One pilot on a fresh temporary home; its child processes and servers end
/// with its runtime, before the home goes.
fn pilot_once(runtime: PilotRuntime) -> anyhow::Result<PilotReport> {
    let home = tempfile::tempdir()?;
    let config = PilotConfig {
        runtime,
        home: home.path().to_owned(),
        command: vec!["flybot-bench".into(), "pilot".into()],
    };
    run_pilot_blocking(config).map_err(|e| anyhow::anyhow!(e))
}

fn measure(name: &str, runtime: &PilotRuntime) -> anyhow::Result<()> {
    let mut walls = Vec::new();
    for _ in 0..RUNS {
        let report = pilot_once(runtime.clone())?;
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
