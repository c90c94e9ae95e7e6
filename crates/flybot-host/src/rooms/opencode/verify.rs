//! Completion evidence for an OpenCode Bot's result (#198): the changes in
//! its workspace against the seed, the diff, the file digests and a test
//! run there; then the card's own Bot's independent check, the same test
//! command in a fresh copy of the seed with those changes applied. The
//! record is written to `evidence.json` beside the card's journal; only a
//! check that passes lets the seam return the card.

use flybot_interop::project::{self, Files, TestRun};
use serde_json::{Value, json};
use std::path::Path;

/// What the check found.
#[derive(Debug, Clone)]
pub struct Verification {
    pub verified: bool,
    /// The card's summary when verified, else why not; one sentence each.
    pub sentence: String,
    /// The RFC 8785 / SHA-256 digest of the evidence as returned.
    pub evidence_sha256: String,
}

fn run_summary(run: &TestRun) -> String {
    let summary = if run.summary.is_empty() {
        format!("exit {:?}", run.exit_code)
    } else {
        run.summary.join(", ")
    };
    format!("{} ({summary})", run.command.join(" "))
}

/// Gathers the evidence in `workspace` and checks it in `root/verify`;
/// `None` when the workspace holds no change (a reply, not a result to
/// check: nothing runs and nothing is said).
pub async fn verify(
    root: &Path,
    workspace: &Path,
    baseline: &Files,
    test_command: &[String],
    verifier: &str,
) -> Result<Option<Verification>, String> {
    let io = |what: &'static str| move |e: std::io::Error| format!("{what}: {e}");
    let now = project::files_of(workspace).map_err(io("the workspace"))?;
    let changes = project::changes_against(baseline, &now);
    if changes.is_empty() {
        return Ok(None);
    }
    let diff = project::diff_against(baseline, &changes);
    let own_run = project::run_tests_with(workspace, test_command)
        .await
        .map_err(io("the tests in the workspace"))?;
    let mut evidence = json!({
        "diff": diff,
        "diffSha256": flybot_interop::sha256_hex(diff.as_bytes()),
        "files": project::digests(&now),
        "tests": own_run,
    });
    let evidence_sha256 = flybot_interop::digest_of(&evidence).map_err(|e| e.to_string())?;
    evidence["canonicalSha256"] = Value::String(evidence_sha256.clone());

    let fresh = root.join("verify");
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).map_err(io("the old fresh copy"))?;
    }
    project::apply_onto(&fresh, baseline, &changes).map_err(io("the fresh copy"))?;
    let check = project::run_tests_with(&fresh, test_command)
        .await
        .map_err(io("the tests in the fresh copy"))?;
    let same_files = project::files_of(&fresh).map_err(io("the fresh copy"))? == now;
    let verified = own_run.passed && check.passed && same_files;
    let record = json!({
        "evidence": evidence,
        "verification": {"by": verifier, "tests": check, "sameFiles": same_files, "verified": verified},
    });
    let bytes = serde_json::to_vec_pretty(&record).map_err(|e| e.to_string())?;
    flybot_store::atomic_write(&root.join("evidence.json"), &bytes)
        .map_err(io("the evidence record"))?;
    let sentence = if verified {
        format!(
            "Verified for {verifier} in a fresh copy: {}; diff sha256 {}; evidence sha256 {evidence_sha256}.",
            run_summary(&check),
            flybot_interop::sha256_hex(diff.as_bytes())
        )
    } else {
        format!(
            "The result did not verify for {verifier}: in the workspace {}, in a fresh copy {}; the card stays working.",
            run_summary(&own_run),
            run_summary(&check)
        )
    };
    Ok(Some(Verification {
        verified,
        sentence,
        evidence_sha256,
    }))
}
