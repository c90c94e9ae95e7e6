//! `flybot pilot --runtime a2a [--a2a-venv DIR] [--no-matrix] [--report
//! FILE] [--ask-acceptance]` (issue 37): the fixture task through A2A
//! against the real agent and the contract's 10-row matrix, in the pilot's
//! report, with what A2A lacks against the contract. The pinned `a2a-sdk`
//! is found and version-checked before anything starts.

use crate::pilot_cmd::{PilotArgs, ask_person, opencode_roots};
use anyhow::{Context, bail};
use flybot_host::pilot::a2a::a2a_pilot_on_temporary_home;
use flybot_interop::a2a::process::locate;

pub fn run(args: &PilotArgs) -> anyhow::Result<()> {
    let env = args
        .a2a_venv
        .clone()
        .or_else(|| std::env::var_os("FLYBOT_A2A_VENV").map(Into::into));
    let venv = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(locate(env.as_deref(), &opencode_roots()))
        .map_err(|e| anyhow::anyhow!("{e}; nothing was started"))?;
    eprintln!(
        "pilot: a2a-sdk {} from {}: {}",
        venv.sdk_version,
        venv.found_by,
        venv.folder.display()
    );
    let command: Vec<String> = std::env::args().collect();
    let ask = args
        .ask_acceptance
        .then_some(ask_person as flybot_host::pilot::AcceptanceAsk);
    let report = a2a_pilot_on_temporary_home(venv, command, !args.no_matrix, ask)
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
    print_matrix(&report.matrix);
    println!("what A2A lacks against the contract:");
    for gap in report
        .gaps
        .iter()
        .flat_map(|g| g.as_array().cloned().unwrap_or_default())
    {
        println!(
            "  {}: {} FlyBot: {}",
            gap["facet"].as_str().unwrap_or_default(),
            gap["a2a"].as_str().unwrap_or_default(),
            gap["flybot"].as_str().unwrap_or_default()
        );
    }
    println!(
        "outcome: {} (evidence level {}: {:?}); a2a-sdk {}, protocol {}, agent card sha256 {}; wall time {} ms{}",
        report.outcome,
        report.evidence_level_number,
        report.evidence_level,
        report.versions["a2aSdk"].as_str().unwrap_or_default(),
        report.versions["a2aProtocol"].as_str().unwrap_or_default(),
        report.schema_digest["sha256"].as_str().unwrap_or_default(),
        report.wall_ms,
        args.report
            .as_ref()
            .map(|p| format!("; report: {}", p.display()))
            .unwrap_or_default()
    );
    let failed = report
        .matrix
        .as_ref()
        .and_then(|m| m.as_array())
        .map_or(0, |rows| {
            rows.iter().filter(|r| r["passed"] != true).count()
        });
    match report.outcome.as_str() {
        "accepted" => println!("A person accepted the verified result: evidence level 4."),
        "result-ready" => {
            println!("The result is verified and waits for a person (--ask-acceptance).")
        }
        _ => bail!("the task did not reach result-ready"),
    }
    if failed > 0 {
        bail!("{failed} matrix row(s) failed");
    }
    Ok(())
}

/// One line per matrix row: passed or failed, the case and its outcome.
fn print_matrix(matrix: &Option<serde_json::Value>) {
    let Some(rows) = matrix.as_ref().and_then(|m| m.as_array()) else {
        return;
    };
    println!("the contract's matrix through A2A:");
    for row in rows {
        println!(
            "  {} {}: {}",
            if row["passed"] == true {
                "PASS"
            } else {
                "FAIL"
            },
            row["case"].as_str().unwrap_or_default(),
            row["outcome"].as_str().unwrap_or_default()
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::pilot_cmd::RuntimeArg;

    #[test]
    fn capability_failure_a_named_a2a_venv_that_is_not_there_is_refused_before_anything_starts() {
        let args = PilotArgs {
            runtime: RuntimeArg::A2a,
            report: None,
            opencode: None,
            model_endpoint: None,
            model_file: None,
            ask_acceptance: false,
            a2a_venv: Some("/nonexistent/a2a".into()),
            no_matrix: true,
        };
        let refused = run(&args).unwrap_err().to_string();
        assert!(
            refused.contains("/nonexistent/a2a holds no Python venv"),
            "{refused}"
        );
        assert!(refused.contains("nothing was started"), "{refused}");
    }
}
