//! The contract's 10-row matrix through A2A against the real agent: the
//! pinned `a2a-sdk`'s own server serving `fixtures/a2a/agent.py`, started
//! in the sandbox on loopback (issue 37, slice 5). Each test is one row
//! and asserts its record: passed, with the versions, the card's digest,
//! the command, the fixture and the raw statuses filled in. Without the
//! venv (`scripts/test` installs it) a test says why and returns, unless
//! `FLYBOT_REQUIRE_A2A=1`, where the venv must be there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::a2a::matrix::{MatrixRow, run_row};
use flybot_interop::a2a::process::{Venv, locate};
use std::path::PathBuf;

/// The printed reason is the skip's record (the brief: skip only with a
/// printed reason).
#[allow(clippy::print_stderr)]
async fn venv() -> Option<Venv> {
    let env = std::env::var_os("FLYBOT_A2A_VENV").map(PathBuf::from);
    let roots = [PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
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

#[allow(clippy::print_stderr)]
async fn row(case: &'static str) -> Option<MatrixRow> {
    let venv = venv().await?;
    let scratch = tempfile::tempdir().unwrap();
    let row = run_row(&venv, scratch.path(), case).await;
    eprintln!("{}", serde_json::to_string_pretty(&row).unwrap());
    assert!(row.passed, "{case}: {}", row.outcome);
    assert_eq!(row.versions["a2aSdk"], "1.3.0");
    assert_eq!(row.versions["a2aProtocol"], "1.0");
    assert!(flybot_interop::is_digest(&row.schema_digest));
    assert!(row.command.contains("--test a2a_matrix a2a_"));
    assert!(flybot_interop::is_digest(
        row.fixture["fixtureDigest"].as_str().unwrap()
    ));
    assert!(!row.raw_status.is_empty());
    Some(row)
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_complete_collaboration() {
    let Some(row) = row("complete-collaboration").await else {
        return;
    };
    assert!(
        row.raw_status
            .iter()
            .any(|s| s == "TASK_STATE_INPUT_REQUIRED")
    );
    assert!(row.raw_status.iter().any(|s| s == "TASK_STATE_COMPLETED"));
    assert!(row.outcome.contains("node --test` passed"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_parallel_work() {
    row("parallel-work").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_identity_and_scope() {
    let Some(row) = row("identity-and-scope").await else {
        return;
    };
    assert!(
        row.raw_status
            .iter()
            .any(|s| s.contains("after the forgeries: 0 task(s)"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_private_data_and_injection() {
    row("private-data-and-injection").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_approval() {
    let Some(row) = row("approval").await else {
        return;
    };
    assert!(
        row.raw_status
            .iter()
            .any(|s| s == "TASK_STATE_AUTH_REQUIRED")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_delivery_and_crash() {
    row("delivery-and-crash").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_stop_and_late_result() {
    let Some(row) = row("stop-and-late-result").await else {
        return;
    };
    assert!(row.raw_status.iter().any(|s| s == "TASK_STATE_CANCELED"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_completion_evidence() {
    row("completion-evidence").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_resource_bounds() {
    row("resource-bounds").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_capability_failure() {
    row("capability-failure").await;
}

/// The non-streaming path (`SendMessage`, used when a card says the agent
/// does not stream) reaches the same question on the real agent, and the
/// answer the same result.
#[tokio::test(flavor = "multi_thread")]
async fn a2a_send_message_without_streaming_reaches_the_same_question_and_result() {
    use flybot_interop::a2a::A2aSession;
    use flybot_interop::a2a::matrix::Seat;
    use flybot_interop::opencode::{Reported, TurnEnd};
    let Some(venv) = venv().await else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let seat = Seat::start(&venv, scratch.path()).await.unwrap();
    let mut card = seat.card.clone();
    card.streaming = false;
    let mut session = A2aSession::open(seat.client.clone(), card, "flybot-plain".to_owned());
    let (_keep, mut stop) = tokio::sync::watch::channel(false);
    let limit = std::time::Duration::from_secs(30);
    let asked = session
        .turn("Please fix slug.mjs", "m1", &mut stop, limit)
        .await;
    assert!(
        matches!(&asked, TurnEnd::Text { reported: Reported::Question, text, .. } if text.starts_with("QUESTION")),
        "{asked:?}"
    );
    let done = session
        .turn("Transliterate them.", "m2", &mut stop, limit)
        .await;
    assert!(
        matches!(
            done,
            TurnEnd::Text {
                reported: Reported::AnswerWithChanges,
                ..
            }
        ),
        "{done:?}"
    );
    assert!(
        !session
            .take_raw_states()
            .contains(&"TASK_STATE_FAILED".to_owned())
    );
}
