//! The OpenCode driver against the scripted fake OpenCode (evidence level 1,
//! offline): matrix rows complete collaboration, parallel work, approval,
//! stop and late result, completion evidence and capability failure. The
//! fake binds loopback only and the client refuses any other address.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::opencode::fake::{FakeGaps, FakeOpenCode, FakeStep, fake_doc_digest};
use flybot_interop::opencode::{
    Capability, DriverSession, OpenCodeClient, Reported, TurnEnd, check_doc_against,
};
use std::time::Duration;
use tokio::sync::watch;

const LIMIT: Duration = Duration::from_secs(20);

async fn start(script: Vec<FakeStep>, gaps: FakeGaps) -> (FakeOpenCode, OpenCodeClient, String) {
    let dir = std::env::temp_dir();
    let fake = FakeOpenCode::new(script, gaps.clone(), dir);
    let base = fake.clone().serve().await.unwrap();
    assert!(
        base.starts_with("http://127.0.0.1:"),
        "loopback only: {base}"
    );
    let client = OpenCodeClient::new(&base).unwrap();
    (fake, client, fake_doc_digest(&gaps))
}

async fn session(client: &OpenCodeClient, pin: &str, title: &str) -> DriverSession {
    let check = check_doc_against(&client.doc().await.unwrap(), pin);
    match DriverSession::open(client.clone(), check, title).await {
        Ok(session) => session,
        Err(end) => panic!("{end:?}"),
    }
}

fn no_stop() -> watch::Receiver<bool> {
    watch::channel(false).1
}

fn reply(text: &str) -> FakeStep {
    FakeStep::Reply {
        text: text.to_owned(),
    }
}

#[tokio::test]
async fn complete_collaboration_question_then_answer_use_one_session_and_end_with_text() {
    let (fake, client, pin) = start(
        vec![
            FakeStep::AskQuestion {
                question: "QUESTION: collapse repeated dashes?".to_owned(),
            },
            reply("Done: tests pass."),
        ],
        FakeGaps::default(),
    )
    .await;
    let task = session(&client, &pin, "task-1").await;
    let first = task.turn("Fix slugify", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&first, TurnEnd::Text { text, .. } if text.starts_with("QUESTION")),
        "{first:?}"
    );
    let second = task.turn("Yes, collapse them", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&second, TurnEnd::Text { text, .. } if text == "Done: tests pass."),
        "{second:?}"
    );
    assert_eq!(fake.sessions().len(), 1, "one task, one session");
    assert_eq!(fake.prompts().len(), 2);
    assert!(fake.prompts().iter().all(|(s, _)| *s == task.session_id));
}

#[tokio::test]
async fn parallel_work_two_tasks_get_two_sessions_and_answers_never_cross() {
    let (fake, client, pin) =
        start(vec![FakeStep::Echo, FakeStep::Echo], FakeGaps::default()).await;
    let one = session(&client, &pin, "task-1").await;
    let two = session(&client, &pin, "task-2").await;
    assert_ne!(one.session_id, two.session_id);
    let (mut s1, mut s2) = (no_stop(), no_stop());
    let (a, b) = tokio::join!(
        one.turn("task one input", &mut s1, LIMIT),
        two.turn("task two input", &mut s2, LIMIT)
    );
    assert!(
        matches!(&a, TurnEnd::Text { text, .. } if text == "echo: task one input"),
        "{a:?}"
    );
    assert!(
        matches!(&b, TurnEnd::Text { text, .. } if text == "echo: task two input"),
        "{b:?}"
    );
    assert_eq!(fake.sessions().len(), 2);
}

#[tokio::test]
async fn approval_an_unexpected_permission_is_denied_and_a_question_suspends_the_turn() {
    let (_fake, client, pin) = start(
        vec![
            FakeStep::AskPermission {
                permission: "webfetch".to_owned(),
                text: "fetched the web".to_owned(),
            },
            FakeStep::AskQuestion {
                question: "Which one?".to_owned(),
            },
        ],
        FakeGaps::default(),
    )
    .await;
    let task = session(&client, &pin, "task-1").await;
    let end = task.turn("go", &mut no_stop(), LIMIT).await;
    assert_eq!(
        end,
        TurnEnd::Refused {
            permission: "webfetch".to_owned()
        }
    );
    let history = client.messages(&task.session_id).await.unwrap();
    assert!(
        history
            .iter()
            .all(|m| m["parts"][0]["text"] != "fetched the web"),
        "never auto-approved"
    );
    let end = task.turn("go on", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&end, TurnEnd::Text { text, reported: Reported::Question, .. } if text == "Which one?"),
        "{end:?}"
    );
}

/// What the runtime says of the Session after a stopped turn.
#[derive(Debug)]
enum After {
    Idle,
    NoStatus,
    Unchecked,
}

/// Stop and late result: a stopped turn counts its abort as observed only
/// when the runtime itself then reports the Session idle; HTTP success
/// alone is not proof, and neither is a Session the runtime forgot nor a
/// status of a shape it does not know. One row per runtime gap.
#[tokio::test]
async fn stop_and_late_result_an_abort_is_observed_only_from_the_runtimes_own_idle_status() {
    let rows = [
        ("a confirmed abort", FakeGaps::default(), true, After::Idle),
        (
            "an abort the runtime does not confirm",
            FakeGaps {
                abort_not_observed: true,
                ..FakeGaps::default()
            },
            false,
            After::Unchecked,
        ),
        (
            "a Session the runtime forgot",
            FakeGaps {
                forget_session_on_abort: true,
                ..FakeGaps::default()
            },
            false,
            After::NoStatus,
        ),
        (
            "a status of unknown shape",
            FakeGaps {
                status_of_unknown_shape: true,
                ..FakeGaps::default()
            },
            false,
            After::NoStatus,
        ),
    ];
    for (row, gaps, observed, after) in rows {
        let (_fake, client, pin) = start(vec![FakeStep::Hang], gaps).await;
        let task = session(&client, &pin, "task-1").await;
        let (stop, mut stopped) = watch::channel(false);
        stop.send_replace(true);
        let end = task.turn("go", &mut stopped, LIMIT).await;
        assert_eq!(end, TurnEnd::Stopped { observed }, "{row}");
        let status = client.status(&task.session_id).await;
        match after {
            After::Idle => assert!(status.unwrap().is_idle(), "{row}"),
            After::NoStatus => assert!(status.is_err(), "{row}: {status:?}"),
            After::Unchecked => {}
        }
    }
}

#[tokio::test]
async fn completion_evidence_idle_without_an_answer_or_an_errored_answer_is_not_a_result() {
    let (_fake, client, pin) = start(
        vec![FakeStep::IdleWithoutAnswer, FakeStep::Fail],
        FakeGaps::default(),
    )
    .await;
    let task = session(&client, &pin, "task-1").await;
    let idle = task.turn("go", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&idle, TurnEnd::Failed { detail } if detail.contains("idle")),
        "{idle:?}"
    );
    let failed = task.turn("again", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&failed, TurnEnd::Failed { detail } if detail.contains("UnknownError")),
        "{failed:?}"
    );
}

#[tokio::test]
async fn capability_failure_a_document_that_is_not_the_pinned_one_blocks_visibly() {
    let (fake, client, _pin) = start(vec![reply("x")], FakeGaps::default()).await;
    let check = check_doc_against(&client.doc().await.unwrap(), &"0".repeat(64));
    assert!(!check.expected && !check.pinned);
    let blocked = DriverSession::open(client.clone(), check, "task-1").await;
    assert!(
        matches!(&blocked, Err(TurnEnd::Blocked { reason }) if reason.contains("not the pinned"))
    );
    assert!(fake.sessions().is_empty(), "no silent fallback");
}

#[tokio::test]
async fn capability_failure_the_fakes_own_document_runs_but_is_never_the_pinned_one() {
    let (_fake, client, pin) = start(vec![reply("x")], FakeGaps::default()).await;
    let check = check_doc_against(&client.doc().await.unwrap(), &pin);
    assert!(
        check.expected,
        "the fake serves the document it was started with"
    );
    assert!(!check.pinned, "a fake never passes for the pinned OpenCode");
    assert_ne!(
        check.digest,
        flybot_interop::opencode::pin::PINNED_DOC_SHA256.trim()
    );
}

#[tokio::test]
async fn capability_failure_a_missing_history_or_abort_blocks_that_operation() {
    let gaps = FakeGaps {
        without: vec![Capability::History],
        ..FakeGaps::default()
    };
    let (fake, client, pin) = start(vec![reply("x")], gaps).await;
    let task = session(&client, &pin, "task-1").await;
    assert_eq!(task.check.missing, vec![Capability::History]);
    let end = task.turn("go", &mut no_stop(), LIMIT).await;
    assert!(
        matches!(&end, TurnEnd::Blocked { reason } if reason.contains("history")),
        "{end:?}"
    );
    assert!(fake.prompts().is_empty(), "nothing was submitted");

    let gaps = FakeGaps {
        without: vec![Capability::Abort],
        ..FakeGaps::default()
    };
    let (_fake, client, pin) = start(vec![FakeStep::Hang], gaps).await;
    let task = session(&client, &pin, "task-2").await;
    let (stop, mut stopped) = watch::channel(false);
    stop.send_replace(true);
    let end = task.turn("go", &mut stopped, LIMIT).await;
    assert_eq!(end, TurnEnd::Stopped { observed: false });
}
