//! Issue 30's figure: what the sandbox adds to one shell call, spawn to
//! exit of `true`, started plain (its own process group, as before) and
//! through `flybot-sandbox` (Landlock, seccomp, cgroups, rlimits), median
//! and p99 of each. Goal: under 5 ms added.

use crate::figures::{ms, percentile};
use std::process::Stdio;
use std::time::{Duration, Instant};

const CALLS: usize = 300;

fn command() -> tokio::process::Command {
    let mut command = tokio::process::Command::new("true");
    command
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

async fn plain() -> anyhow::Result<Duration> {
    let started = Instant::now();
    let mut command = command();
    command.process_group(0).kill_on_drop(true);
    command.spawn()?.wait().await?;
    Ok(started.elapsed())
}

async fn sandboxed(policy: &flybot_sandbox::Policy) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let (mut child, _sandbox) = flybot_sandbox::spawn(command(), policy)?;
    child.wait().await?;
    Ok(started.elapsed())
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    let folder = tempfile::tempdir()?;
    let policy = flybot_sandbox::Policy::writing(&[folder.path()]);
    let support = flybot_sandbox::support();
    runtime.block_on(async {
        let (mut bare, mut held) = (Vec::new(), Vec::new());
        // Interleaved, so both see the same machine load.
        for _ in 0..CALLS {
            bare.push(plain().await?);
            held.push(sandboxed(&policy).await?);
        }
        let (bare_median, bare_p99) = (percentile(&mut bare, 50), percentile(&mut bare, 99));
        let (held_median, held_p99) = (percentile(&mut held, 50), percentile(&mut held, 99));
        println!(
            "sandbox per shell call (spawn to exit of `true`, {CALLS} calls each; Landlock ABI {}, seccomp {}, pids cgroup {}, memory cgroup {}):",
            support.landlock_abi, support.seccomp, support.cgroup_pids, support.cgroup_memory
        );
        println!(
            "  plain      median {:.2} ms, p99 {:.2} ms",
            ms(bare_median),
            ms(bare_p99)
        );
        println!(
            "  sandboxed  median {:.2} ms, p99 {:.2} ms",
            ms(held_median),
            ms(held_p99)
        );
        println!(
            "  added      median {:.2} ms, p99 {:.2} ms (goal: under 5 ms)",
            ms(held_median.saturating_sub(bare_median)),
            ms(held_p99.saturating_sub(bare_p99))
        );
        Ok(())
    })
}
