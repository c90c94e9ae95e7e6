//! The pilot's evidence report (the contract's "for every implementation
//! result record ..."): versions, schema digest, exact command, input
//! fixture, raw status, outcome, skipped boundaries and the evidence level.

use serde::Serialize;
use serde_json::Value;

/// The contract's four evidence levels, kept apart (shared with the card).
pub use flybot_protocol::evidence::EvidenceLevel;

/// The report, as written to `--report FILE`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PilotReport {
    pub evidence_level: EvidenceLevel,
    pub evidence_level_number: u8,
    /// The level the runtime ran at, once a person's acceptance made the
    /// report level 4; absent before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_evidence_level: Option<EvidenceLevel>,
    /// Level 3's model: its id, endpoint, file and the file's SHA-256
    /// (absent on levels 1 and 2, which run on the mock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Value>,
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
    /// The isolation mechanism that held Bot B and the checks that proved it.
    pub isolation: Value,
    pub skipped_boundaries: Vec<String>,
    pub wall_ms: u64,
    /// The A2A pilot only (issue 37): the contract's 10-row matrix run
    /// through A2A against the real agent, one record per row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Value>,
    /// The A2A pilot only: what A2A lacks against the contract, by facet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gaps: Option<Value>,
}

/// `report` once a person accepted its result (level 4): the runtime's
/// level kept beside it, the outcome `accepted`, and the level-4 boundary
/// no longer skipped.
pub fn accepted_report(report: &PilotReport) -> PilotReport {
    let mut accepted = report.clone();
    if report.evidence_level != EvidenceLevel::HumanAcceptance {
        accepted.runtime_evidence_level = Some(report.evidence_level);
    }
    accepted.evidence_level = EvidenceLevel::HumanAcceptance;
    accepted.evidence_level_number = EvidenceLevel::HumanAcceptance.number();
    accepted.outcome = "accepted".to_owned();
    accepted
        .skipped_boundaries
        .retain(|line| !line.starts_with("human acceptance (level 4)"));
    accepted
}

/// The boundaries a pilot run never crosses, named in every report.
pub fn skipped_boundaries(level: EvidenceLevel) -> Vec<String> {
    let mut skipped = Vec::new();
    if level != EvidenceLevel::RealModelCollaboration {
        skipped.push("real-model collaboration (level 3): Bot A and Bot B run on the deterministic mock; `flybot pilot --runtime opencode --model-endpoint URL` runs it on a local model".to_owned());
    }
    skipped.extend([
        "human acceptance (level 4): the task stops at result-ready; only a person's task-accept-result or a rejection ends it".to_owned(),
        "cross-owner DM transport and Bot Social: the phase-1 room pilot enrolls no relationship".to_owned(),
        "outbound network, credentials and budget top-ups: denied by policy, never exercised".to_owned(),
    ]);
    if level == EvidenceLevel::OfflineMock {
        skipped.insert(
            0,
            "real-process interface (level 2): Bot B is the scripted fake OpenCode, not opencode serve".to_owned(),
        );
    }
    skipped
}

/// The tests that prove the isolation a report names.
pub const ISOLATION_CHECKS: [&str; 6] = [
    "flybot-interop::sandbox no_network_a_sandboxed_command_reaches_only_the_allowed_port",
    "flybot-interop::sandbox no_network_the_verifiers_test_run_cannot_connect_anywhere",
    "flybot-host::channel opencode_isolation::no_network_the_real_opencodes_test_command_reaches_only_its_model",
    "flybot-host::channel opencode_isolation::isolation_a_seed_carrying_opencode_config_is_refused_when_the_bot_is_made",
    "flybot-host::channel opencode_isolation::isolation_a_seed_given_opencode_config_later_is_refused_before_the_start",
    "flybot-host::channel opencode_isolation::isolation_opencode_config_written_into_the_workspace_is_refused_before_the_next_turn",
];

/// The report's isolation: the child's sandbox as started (`None` on the
/// fake, which starts no process), the proof made on this machine now,
/// the verifier's sandbox, the project-configuration rule and the checks.
pub fn isolation(child_sandbox: Option<&str>) -> Value {
    let proof = crate::sandbox::prove();
    serde_json::json!({
        "child": child_sandbox.map_or_else(
            || Value::String("none: the scripted fake starts no process".to_owned()),
            |m| Value::String(m.to_owned())),
        "verifier": crate::sandbox::probe(&crate::sandbox::NetworkPolicy::offline())
            .unwrap_or_else(|e| e.to_string()),
        "proofOnThisMachine": match proof {
            Ok(proof) => serde_json::to_value(&proof).unwrap_or(Value::Null),
            Err(e) => Value::String(e.to_string()),
        },
        "projectConfig": "a seed or workspace carrying opencode.json, opencode.jsonc or .opencode/ is refused before every start and every turn; the child also runs with OPENCODE_DISABLE_PROJECT_CONFIG=1",
        "checks": ISOLATION_CHECKS,
    })
}
