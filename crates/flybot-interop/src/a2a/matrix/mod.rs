//! The contract's 10-row matrix run through A2A against the real agent
//! (the pinned SDK's server serving `fixtures/a2a/agent.py`), each row on
//! its own agent, workspace and journal. Every row records what the
//! contract asks of an implementation result: versions, the schema digest
//! (the agent card's), the command that reruns it, the input fixture, the
//! raw statuses observed and the outcome. A row that finds the contract
//! broken says so in its outcome; nothing is skipped silently.

mod rows;
mod rows_more;
pub mod seat;

use super::process::Venv;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

pub use seat::Seat;

/// One row's record.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatrixRow {
    pub case: &'static str,
    pub versions: Value,
    /// SHA-256 of the agent card's canonical JSON.
    pub schema_digest: String,
    /// The command that reruns this row alone.
    pub command: String,
    pub fixture: Value,
    /// The A2A states and journal decisions observed, in order.
    pub raw_status: Vec<String>,
    pub passed: bool,
    pub outcome: String,
}

/// What a row found.
#[derive(Debug, Clone, Default)]
pub struct RowRun {
    pub raw_status: Vec<String>,
    pub outcome: String,
    /// The row's own inputs (the texts FlyBot sent).
    pub inputs: Vec<String>,
}

/// A row's finding, or why the contract did not hold.
pub type RowResult = Result<RowRun, RowRun>;

/// The matrix's rows, in the contract's order: (case, test name).
pub const CASES: [(&str, &str); 10] = [
    ("complete-collaboration", "a2a_complete_collaboration"),
    ("parallel-work", "a2a_parallel_work"),
    ("identity-and-scope", "a2a_identity_and_scope"),
    (
        "private-data-and-injection",
        "a2a_private_data_and_injection",
    ),
    ("approval", "a2a_approval"),
    ("delivery-and-crash", "a2a_delivery_and_crash"),
    ("stop-and-late-result", "a2a_stop_and_late_result"),
    ("completion-evidence", "a2a_completion_evidence"),
    ("resource-bounds", "a2a_resource_bounds"),
    ("capability-failure", "a2a_capability_failure"),
];

/// Runs row `case` on a fresh agent under `scratch`.
pub async fn run_row(venv: &Venv, scratch: &Path, case: &'static str) -> MatrixRow {
    let test = CASES
        .iter()
        .find(|(c, _)| *c == case)
        .map_or("", |(_, t)| *t);
    let command = format!("cargo nextest run -p flybot-interop --test a2a_matrix {test}");
    let folder = scratch.join(case);
    let seat = match Seat::start(venv, &folder).await {
        Ok(seat) => seat,
        Err(e) => {
            return MatrixRow {
                case,
                versions: seat::versions(venv, None),
                schema_digest: String::new(),
                command,
                fixture: seat::fixture(&[]),
                raw_status: Vec::new(),
                passed: false,
                outcome: format!("the agent could not start: {e}"),
            };
        }
    };
    let result = match case {
        "complete-collaboration" => rows::complete_collaboration(&seat).await,
        "parallel-work" => rows::parallel_work(&seat).await,
        "identity-and-scope" => rows::identity_and_scope(&seat).await,
        "private-data-and-injection" => rows::private_data_and_injection(&seat).await,
        "approval" => rows::approval(&seat).await,
        "delivery-and-crash" => rows_more::delivery_and_crash(&seat).await,
        "stop-and-late-result" => rows_more::stop_and_late_result(&seat).await,
        "completion-evidence" => rows_more::completion_evidence(&seat).await,
        "resource-bounds" => rows_more::resource_bounds(&seat).await,
        "capability-failure" => rows_more::capability_failure(&seat).await,
        other => Err(RowRun {
            outcome: format!("no such row: {other}"),
            ..RowRun::default()
        }),
    };
    let (passed, run) = match result {
        Ok(run) => (true, run),
        Err(run) => (false, run),
    };
    let row = MatrixRow {
        case,
        versions: seat::versions(venv, Some(&seat.card)),
        schema_digest: seat.card.digest.clone(),
        command,
        fixture: seat::fixture(&run.inputs),
        raw_status: run.raw_status,
        passed,
        outcome: run.outcome,
    };
    drop(seat);
    let _ = std::fs::remove_dir_all(&folder);
    row
}

/// Runs every row, one after another.
pub async fn run_matrix(venv: &Venv, scratch: &Path) -> Vec<MatrixRow> {
    let mut rows = Vec::new();
    for (case, _) in CASES {
        rows.push(run_row(venv, scratch, case).await);
    }
    rows
}
