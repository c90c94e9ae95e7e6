//! `flybot pilot [--runtime fake|opencode] [--report FILE] [--opencode PATH]`
//! (#198): runs the phase-1 room pilot on a temporary home and writes its
//! evidence report. The real OpenCode is found through `--opencode`, then
//! `$FLYBOT_OPENCODE`, then the README's install folder; a version other
//! than the pinned one is refused before anything starts. The scripted fake
//! is in a build with the `fake-runtime` feature only.

use anyhow::{Context, bail};
use flybot_host::pilot::{PilotRuntime, pilot_on_temporary_home, pinned_runtime};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RuntimeArg {
    /// The scripted fake OpenCode (offline mock, evidence level 1); only in
    /// a build with the `fake-runtime` feature.
    Fake,
    /// The real pinned `opencode serve` on the mock model (level 2).
    Opencode,
}

#[derive(Debug, clap::Args)]
pub struct PilotArgs {
    /// Which OpenCode speaks for Bot B (the fake by default in a build that
    /// has it, else the real pinned one).
    #[cfg_attr(
        feature = "fake-runtime",
        arg(long, value_enum, default_value = "fake")
    )]
    #[cfg_attr(
        not(feature = "fake-runtime"),
        arg(long, value_enum, default_value = "opencode")
    )]
    pub runtime: RuntimeArg,
    /// Write the evidence report (JSON) to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// The `opencode` binary (else $FLYBOT_OPENCODE, else the README's
    /// install folder).
    #[arg(long)]
    pub opencode: Option<PathBuf>,
}

/// Where the README's install folder is looked for: the current folder
/// and the source tree this binary was built from (and their parents).
pub fn opencode_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.push(cwd);
    }
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    roots
}

/// Finds the pinned OpenCode and checks its version; says which it used.
fn pinned_opencode(flag: Option<&Path>) -> anyhow::Result<PilotRuntime> {
    let runtime = pinned_runtime(flag, &opencode_roots())?;
    eprintln!("pilot: {}", runtime.described());
    Ok(runtime)
}

/// The scripted fake OpenCode, which only a build with the `fake-runtime`
/// feature carries: the product binary links no test support.
#[cfg(feature = "fake-runtime")]
fn fake_runtime() -> anyhow::Result<PilotRuntime> {
    Ok(PilotRuntime::Fake)
}

#[cfg(not(feature = "fake-runtime"))]
fn fake_runtime() -> anyhow::Result<PilotRuntime> {
    bail!(
        "this flybot was built without the scripted fake OpenCode: build it with the fake-runtime feature (cargo run -p flybot --features fake-runtime -- pilot --runtime fake), or pass --runtime opencode"
    )
}

pub fn run(args: PilotArgs) -> anyhow::Result<()> {
    let runtime = match args.runtime {
        RuntimeArg::Fake => fake_runtime()?,
        RuntimeArg::Opencode => pinned_opencode(args.opencode.as_deref())?,
    };
    let command: Vec<String> = std::env::args().collect();
    let report = pilot_on_temporary_home(runtime, command).map_err(|e| anyhow::anyhow!(e))?;
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(path) = &args.report {
        std::fs::write(path, &json).with_context(|| format!("writing {}", path.display()))?;
    }
    for line in &report.room {
        println!(
            "[{}] {}: {}",
            line["seq"],
            line["author"].as_str().unwrap_or_default(),
            line["text"].as_str().unwrap_or_default()
        );
    }
    println!(
        "outcome: {} (evidence level {}: {:?}); wall time {} ms{}",
        report.outcome,
        report.evidence_level_number,
        report.evidence_level,
        report.wall_ms,
        args.report
            .as_ref()
            .map(|p| format!("; report: {}", p.display()))
            .unwrap_or_default()
    );
    if report.outcome != "result-ready" {
        bail!("the task did not reach result-ready");
    }
    println!(
        "The task waits for a person: task-accept-result {{\"id\": {}}} or a rejection.",
        report.raw_status["taskId"]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn capability_failure_a_wrong_opencode_version_is_refused_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("opencode");
        std::fs::write(&fake, "#!/bin/sh\necho 1.0.0\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let refused = pinned_opencode(Some(&fake)).unwrap_err().to_string();
        assert!(refused.contains("not the pinned 1.18.33"), "{refused}");
        assert!(refused.contains("nothing was started"), "{refused}");
        let missing = pinned_opencode(Some(Path::new("/nonexistent/opencode")))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("could not be run"), "{missing}");
    }
}
