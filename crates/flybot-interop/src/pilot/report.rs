//! The pilot's evidence report (the contract's "for every implementation
//! result record ..."): versions, schema digest, exact command, input
//! fixture, raw status, outcome, skipped boundaries and the evidence level.

use serde::Serialize;
use serde_json::Value;

/// The contract's four evidence levels, kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceLevel {
    /// Scripted peers, the fake OpenCode.
    OfflineMock,
    /// A real `opencode serve` driven by the mock model.
    RealProcessInterface,
}

impl EvidenceLevel {
    pub fn number(self) -> u8 {
        match self {
            EvidenceLevel::OfflineMock => 1,
            EvidenceLevel::RealProcessInterface => 2,
        }
    }
}

/// The report, as written to `--report FILE`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PilotReport {
    pub evidence_level: EvidenceLevel,
    pub evidence_level_number: u8,
    pub versions: Value,
    /// SHA-256 of the runtime's API document and whether it is the pinned one.
    pub schema_digest: Value,
    /// The exact command line the pilot ran with.
    pub command: Vec<String>,
    pub input_fixture: Value,
    /// Raw statuses as observed: the task's, the runtime's, each turn's end.
    pub raw_status: Value,
    /// `result-ready` when the task got there; else what stopped it.
    pub outcome: String,
    pub evidence: Value,
    pub verification: Value,
    pub room: Vec<Value>,
    pub skipped_boundaries: Vec<String>,
    pub wall_ms: u64,
}

/// The boundaries a pilot run never crosses, named in every report.
pub fn skipped_boundaries(level: EvidenceLevel) -> Vec<String> {
    let mut skipped = vec![
        "real-model collaboration (level 3): no model key; Bot A and Bot B run on the deterministic mock".to_owned(),
        "human acceptance (level 4): the task stops at result-ready; only a person's task-accept-result or a rejection ends it".to_owned(),
        "cross-owner DM transport and Bot Social: the phase-1 room pilot enrolls no relationship".to_owned(),
        "outbound network, credentials and budget top-ups: denied by policy, never exercised".to_owned(),
    ];
    if level == EvidenceLevel::OfflineMock {
        skipped.insert(
            0,
            "real-process interface (level 2): Bot B is the scripted fake OpenCode, not opencode serve".to_owned(),
        );
    }
    skipped
}
