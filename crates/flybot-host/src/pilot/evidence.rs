//! The pilot's evidence and Bot A's check (#198): Bot B's workspace against
//! the fixture (diff, file digests, its test run, the RFC 8785 digest), the
//! same changes applied to a fresh copy and tested again, the network
//! guard's record, and, only when everything holds, the card returned
//! result-ready through the seam.

use super::cast::Cast;
use super::member::OpenCodeMember;
use super::run::{PilotConfig, Runtime, latest_observation};
use super::walk::{Walk, says_done};
use crate::rooms::opencode::execution::report;
use crate::rooms::opencode::observation_moves::move_for;
use flybot_core::tasks::execution_seam::ExecutionObservation;
use flybot_interop::pilot::fixture;
use flybot_interop::project::Changes;
use flybot_interop::projection::Observation;
use flybot_protocol::state::TaskStatus;
use serde_json::{Value, json};
use std::path::Path;

/// What the check found.
pub struct Checked {
    pub evidence: Value,
    pub verification: Value,
    pub outcome: String,
}

fn io(what: &'static str) -> impl Fn(std::io::Error) -> String {
    move |e| format!("{what}: {e}")
}

/// Bot B's evidence from its workspace: diff, digests and its test run,
/// with the contract's one digest rule (RFC 8785 canonical JSON, SHA-256)
/// over the evidence as returned.
async fn evidence_of(workspace: &Path) -> Result<(Value, Changes, fixture::TestRun), String> {
    let changes = fixture::changes(workspace).map_err(io("Bot B's workspace"))?;
    let diff = fixture::diff_text(&changes);
    let b_tests = fixture::run_tests(workspace)
        .await
        .map_err(io("Bot B's tests"))?;
    let mut evidence = json!({
        "diff": diff,
        "diffSha256": flybot_interop::sha256_hex(diff.as_bytes()),
        "files": fixture::digests_of(workspace).map_err(io("Bot B's workspace"))?,
        "tests": b_tests,
    });
    let canonical = flybot_interop::digest_of(&evidence).map_err(|e| e.to_string())?;
    evidence["canonicalSha256"] = Value::String(canonical);
    Ok((evidence, changes, b_tests))
}

/// Checks Bot B's work in a fresh copy and returns the card when it holds.
pub async fn check(
    config: &PilotConfig,
    runtime: &Runtime,
    cast: &Cast,
    member: &OpenCodeMember,
    walk: &mut Walk,
    workspace: &Path,
) -> Result<Checked, String> {
    let done = walk.lines.iter().any(|l| says_done(l, &cast.coder));
    let (evidence, changes, b_tests) = evidence_of(workspace).await?;
    // Bot A's own check: a fresh copy of the fixture with Bot B's changes.
    let fresh = config.home.join("verify-fresh-copy");
    fixture::apply(&fresh, &changes).map_err(io("the fresh copy"))?;
    let a_tests = fixture::run_tests(&fresh)
        .await
        .map_err(io("the fresh copy's tests"))?;
    let same_files = fixture::digests_of(&fresh).map_err(io("the fresh copy"))?
        == fixture::digests_of(workspace).map_err(io("Bot B's workspace"))?;
    // The last observation must be a valid result the table projects.
    let returned = latest_observation(member)
        .filter(|o| matches!(o, Observation::ValidResult { .. }))
        .map(|o| move_for(TaskStatus::Working, &o).map(|m| m.endpoint()))
        .transpose()?;
    // The network guard: an outbound call from the real child fails the run.
    let egress = runtime
        .started
        .trap
        .as_ref()
        .map(flybot_interop::egress::EgressTrap::attempts)
        .unwrap_or_default();
    let verified = egress.is_empty()
        && done
        && walk.answered
        && returned.is_some()
        && a_tests.passed
        && b_tests.passed
        && same_files
        && !changes.is_empty();
    let verification =
        json!({"tests": a_tests, "sameFilesAsBotB": same_files, "verified": verified});
    let outcome = if verified {
        let summary = format!(
            "Verified in a fresh copy: {} ({}); diff sha256 {}.",
            a_tests.command.join(" "),
            a_tests.summary.join(", "),
            evidence["diffSha256"].as_str().unwrap_or_default()
        );
        // The execution service returns the card (#198), never the owner.
        let result = ExecutionObservation::Result {
            summary: &summary,
            evidence_level: runtime.level,
        };
        let ready = report(cast.host.board(), &cast.binding, &cast.credential, result)
            .await?
            .ok_or("the card is gone")?;
        let status = ready.status.as_str().to_owned();
        walk.statuses
            .push(json!({returned.unwrap_or("task-return"): status}));
        status
    } else {
        format!(
            "not verified (done: {done}, answered: {}, tests in a fresh copy passed: {}, outbound calls: {egress:?})",
            walk.answered, a_tests.passed
        )
    };
    Ok(Checked {
        evidence,
        verification,
        outcome,
    })
}
