//! `flybot pilot [--runtime fake|opencode|a2a] [--report FILE] [--opencode PATH]
//! [--model-endpoint URL [--model-file GGUF]] [--ask-acceptance]` (#198): runs the phase-1 room
//! pilot on a temporary home and writes its evidence report. With
//! `--model-endpoint` (level 3) Bot A and OpenCode both run on the local
//! model there; any endpoint not on loopback is refused before anything
//! starts. The real OpenCode is found through `--opencode`, then
//! `$FLYBOT_OPENCODE`, then the README's install folder; a version other
//! than the pinned one is refused before anything starts. The scripted fake
//! is in a build with the `fake-runtime` feature only.

use anyhow::{Context, bail};
use flybot_host::pilot::real_model::{RealModel, refuse_remote, resolve};
use flybot_host::pilot::{PilotRuntime, pilot_on_temporary_home_asking, pinned_runtime};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RuntimeArg {
    /// The scripted fake OpenCode (offline mock, evidence level 1); only in
    /// a build with the `fake-runtime` feature.
    Fake,
    /// The real pinned `opencode serve` on the mock model (level 2).
    Opencode,
    /// A real A2A agent: the pinned `a2a-sdk` serving FlyBot's fixture
    /// agent (level 2), then the contract's 10-row matrix through A2A.
    A2a,
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
    /// Evidence level 3: an OpenAI-compatible endpoint on this machine
    /// (`http://127.0.0.1:PORT/v1`) that Bot A and OpenCode both run on.
    #[arg(long, value_name = "URL")]
    pub model_endpoint: Option<String>,
    /// The model file the endpoint serves, digested (SHA-256) into the
    /// level-3 report; the server itself does not say which file it serves.
    #[arg(long, value_name = "FILE", requires = "model_endpoint")]
    pub model_file: Option<PathBuf>,
    /// When the task is result-ready, show the host's independent
    /// verification and ask you (on standard input) to accept it; your
    /// acceptance makes the report evidence level 4.
    #[arg(long)]
    pub ask_acceptance: bool,
    /// With `--runtime a2a`: the venv holding the pinned a2a-sdk (else
    /// $FLYBOT_A2A_VENV, else .tools/a2a, which scripts/test installs).
    #[arg(long, value_name = "DIR")]
    pub a2a_venv: Option<PathBuf>,
    /// With `--runtime a2a`: run the fixture task only, not the matrix.
    #[arg(long)]
    pub no_matrix: bool,
}

/// Shows the verification and reads the person's answer: `yes` accepts.
pub(crate) fn ask_person(report: &flybot_interop::pilot::report::PilotReport) -> bool {
    use std::io::BufRead;
    eprintln!(
        "pilot: the result is verified independently: {}",
        report.verification
    );
    eprintln!(
        "pilot: accept the result? Type yes to accept, anything else leaves it result-ready:"
    );
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).is_ok() && line.trim().eq_ignore_ascii_case("yes")
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

/// Level 3's model, checked before anything starts: a loopback endpoint
/// only, with the real OpenCode only.
fn real_model_checked(args: &PilotArgs) -> anyhow::Result<Option<&str>> {
    let Some(url) = args.model_endpoint.as_deref() else {
        return Ok(None);
    };
    if args.runtime != RuntimeArg::Opencode {
        bail!(
            "--model-endpoint runs the real OpenCode on a real model (level 3): pass --runtime opencode; nothing was started"
        );
    }
    refuse_remote(url).map_err(|e| anyhow::anyhow!(e))?;
    Ok(Some(url))
}

/// Asks the endpoint which model it serves and digests the model file.
fn resolve_model(url: &str, file: Option<&Path>) -> anyhow::Result<RealModel> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let model = runtime
        .block_on(resolve(url, file))
        .map_err(|e| anyhow::anyhow!(e))?;
    eprintln!(
        "pilot: level 3 on {} at {} (model file sha256: {})",
        model.model_id,
        model.base_url,
        model
            .file
            .as_ref()
            .map_or("unknown, no --model-file", |(_, digest)| digest.as_str())
    );
    Ok(model)
}

pub fn run(args: PilotArgs) -> anyhow::Result<()> {
    let endpoint = real_model_checked(&args)?;

    let runtime = match args.runtime {
        RuntimeArg::Fake => fake_runtime()?,
        RuntimeArg::Opencode => pinned_opencode(args.opencode.as_deref())?,
        RuntimeArg::A2a => return crate::pilot_a2a::run(&args),
    };
    let real_model = endpoint
        .map(|url| resolve_model(url, args.model_file.as_deref()))
        .transpose()?;
    let command: Vec<String> = std::env::args().collect();
    let ask = args
        .ask_acceptance
        .then_some(ask_person as flybot_host::pilot::AcceptanceAsk);
    let report = pilot_on_temporary_home_asking(runtime, real_model, command, ask)
        .map_err(|e| anyhow::anyhow!(e))?;
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
    if let Some(model) = &report.model {
        // Level 3 records what a real model did; a small one rarely ends
        // the task, and that is the finding, not a failure of the run.
        println!(
            "level 3 on {}: {} Bot B turn(s); a person's acceptance (level 4) is separate.",
            model["id"].as_str().unwrap_or_default(),
            report.raw_status["botBTurns"]
                .as_array()
                .map_or(0, Vec::len)
        );
        if report.outcome != "result-ready" {
            return Ok(());
        }
    }
    if report.outcome == "accepted" {
        println!("A person accepted the verified result: evidence level 4.");
        return Ok(());
    }
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

    fn args_of(line: &[&str]) -> PilotArgs {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            pilot: PilotArgs,
        }
        <Line as clap::Parser>::try_parse_from(line).unwrap().pilot
    }

    #[test]
    fn level3_a_remote_model_endpoint_is_refused_before_anything_starts() {
        // A binary that would write a file if it were ever run: it is not.
        let dir = tempfile::tempdir().unwrap();
        let ran = dir.path().join("ran");
        let fake = dir.path().join("opencode");
        std::fs::write(&fake, format!("#!/bin/sh\ntouch {}\n", ran.display())).unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let opencode = fake.to_str().unwrap();
        for url in ["https://api.openai.com/v1", "http://192.168.1.5:8080/v1"] {
            let args = args_of(&[
                "pilot",
                "--runtime",
                "opencode",
                "--opencode",
                opencode,
                "--model-endpoint",
                url,
            ]);
            let refused = run(args).unwrap_err().to_string();
            assert!(
                refused.contains("not an http:// address on this machine"),
                "{refused}"
            );
            assert!(refused.contains("nothing was started"), "{refused}");
        }
        assert!(!ran.exists(), "OpenCode was not even asked its version");
    }

    #[test]
    fn level3_a_model_file_needs_an_endpoint() {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            pilot: PilotArgs,
        }
        let parsed = <Line as clap::Parser>::try_parse_from(["pilot", "--model-file", "m.gguf"]);
        assert!(parsed.is_err());
    }
}
