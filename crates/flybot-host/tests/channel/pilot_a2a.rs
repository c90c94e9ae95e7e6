//! `flybot pilot --runtime a2a` (issue 37, the contract's slice 5) through
//! the host's library: the fixture task through A2A against the real agent
//! (the pinned `a2a-sdk` serving the fixture agent in the sandbox), its
//! report of the OpenCode pilot's kind, with what A2A lacks against the
//! contract; level 2, and level 4 only when a person accepts. Without the
//! venv a test says why and returns, unless `FLYBOT_REQUIRE_A2A=1`.

use flybot_host::pilot::a2a::{A2aPilotConfig, run_a2a_pilot};
use flybot_interop::a2a::process::{Venv, locate};
use flybot_interop::pilot::report::PilotReport;
use std::path::PathBuf;

/// The printed reason is the skip's record (the brief: skip only with a
/// printed reason).
#[allow(clippy::print_stderr)]
async fn venv() -> Option<Venv> {
    let roots = [PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    let env = std::env::var_os("FLYBOT_A2A_VENV").map(PathBuf::from);
    match locate(env.as_deref(), &roots).await {
        Ok(venv) => Some(venv),
        Err(why) => {
            assert!(
                std::env::var_os("FLYBOT_REQUIRE_A2A").is_none(),
                "FLYBOT_REQUIRE_A2A is set but {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn yes(_: &PilotReport) -> bool {
    true
}

fn no(_: &PilotReport) -> bool {
    false
}

async fn pilot(venv: Venv, ask: Option<fn(&PilotReport) -> bool>) -> PilotReport {
    let home = tempfile::tempdir().unwrap();
    let config = A2aPilotConfig {
        venv,
        home: home.path().to_owned(),
        command: vec![
            "flybot".into(),
            "pilot".into(),
            "--runtime".into(),
            "a2a".into(),
        ],
        matrix: false,
    };
    run_a2a_pilot(config, ask).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_pilot_the_fixture_task_ends_result_ready_at_level_2_with_its_gaps_listed() {
    let Some(venv) = venv().await else { return };
    let report = pilot(venv, None).await;
    assert_eq!(report.outcome, "result-ready", "{}", report.raw_status);
    assert_eq!(report.evidence_level_number, 2);
    assert_eq!(report.versions["a2aSdk"], "1.3.0");
    assert_eq!(report.versions["a2aProtocol"], "1.0");
    assert!(flybot_interop::is_digest(
        report.schema_digest["sha256"].as_str().unwrap()
    ));
    assert_eq!(report.verification["verified"], true);
    let states = report.raw_status["a2aStates"].as_array().unwrap();
    for state in ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"] {
        assert!(states.iter().any(|s| s == state), "{states:?}");
    }
    // One A2A task carried the question and the answer.
    assert!(report.raw_status["a2aTask"].is_string());
    // Usage is unknown, never zero.
    assert!(report.raw_status["journal"]["usage"]["requests"].is_null());
    // The room-like record: delegation, question, answer, result.
    assert_eq!(report.room.len(), 4);
    assert!(
        report.room[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("QUESTION @Ada")
    );
    let facets: Vec<&str> = report
        .gaps
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["facet"].as_str().unwrap())
        .collect();
    assert_eq!(
        facets,
        [
            "identity",
            "session",
            "events",
            "cancel",
            "permissions",
            "usage"
        ]
    );
    assert!(
        report
            .skipped_boundaries
            .iter()
            .any(|s| s.starts_with("human acceptance (level 4)"))
    );
    assert!(
        report.isolation["child"]
            .as_str()
            .unwrap()
            .contains("one ephemeral listening port")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_pilot_only_a_persons_acceptance_makes_the_report_level_4() {
    let Some(venv) = venv().await else { return };
    let declined = pilot(venv.clone(), Some(no)).await;
    assert_eq!(declined.outcome, "result-ready");
    assert_eq!(declined.evidence_level_number, 2);
    let accepted = pilot(venv, Some(yes)).await;
    assert_eq!(accepted.outcome, "accepted");
    assert_eq!(accepted.evidence_level_number, 4);
    assert_eq!(accepted.runtime_evidence_level.map(|l| l.number()), Some(2));
    assert!(
        !accepted
            .skipped_boundaries
            .iter()
            .any(|s| s.starts_with("human acceptance (level 4)"))
    );
}
