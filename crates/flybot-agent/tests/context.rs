//! The context steward end to end on the mock model (#796, #917, #1233,
//! #1245, #1285, #1447) and the pinned snapshot per part: a small declared
//! window, the mock's deterministic steward and summary, paused time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_agent::context::prompts::{PINNED_HEADING, STEWARD_HEADING, SUMMARY_HEADING};
use flybot_agent::context::{PartRecord, Parts};
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_agent::model::{ModelProvider, ModelRequest, ModelStream};
use flybot_agent::session::{EndReason, ItemKind, SessionEvent, Sessions, Source};
use flybot_agent::testing::TestEnv;
use flybot_agent::tools::ToolSet;
use flybot_core::sync::lock;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The mock, recording every request; optionally the first steward request
/// never answers (a provider stuck in its retries).
struct Recording {
    mock: MockModel,
    requests: Mutex<Vec<ModelRequest>>,
    hang_first_steward: Mutex<bool>,
}

impl Recording {
    fn new(scenario: &str) -> Arc<Recording> {
        Arc::new(Recording {
            mock: MockModel::with_scenario(Scenario::from_json(scenario).unwrap()),
            requests: Mutex::new(Vec::new()),
            hang_first_steward: Mutex::new(false),
        })
    }
    fn opening(&self, heading: &str) -> Vec<ModelRequest> {
        lock(&self.requests)
            .iter()
            .filter(|r| r.messages[0].content.starts_with(heading))
            .cloned()
            .collect()
    }
    fn turns(&self) -> Vec<ModelRequest> {
        lock(&self.requests)
            .iter()
            .filter(|r| {
                let first = &r.messages[0].content;
                !first.starts_with(STEWARD_HEADING) && !first.starts_with(SUMMARY_HEADING)
            })
            .cloned()
            .collect()
    }
}

impl ModelProvider for Recording {
    fn name(&self) -> &str {
        "mock"
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        lock(&self.requests).push(request.clone());
        let steward = request.messages[0].content.starts_with(STEWARD_HEADING);
        if steward && std::mem::take(&mut *lock(&self.hang_first_steward)) {
            return Box::pin(futures_util::stream::pending());
        }
        self.mock.stream(request)
    }
}

struct Fixture {
    _home: tempfile::TempDir,
    home: std::path::PathBuf,
    model: Arc<Recording>,
    env: Arc<TestEnv>,
    sessions: Sessions,
}

/// A Session on a 4,000-token window keeping 500 for the reply: the check
/// line is 1,575 tokens, the hard line 3,325.
fn fixture(scenario: &str) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().to_owned();
    let model = Recording::new(scenario);
    let mut env = TestEnv::new(model.clone(), ToolSet::default(), path.clone());
    env.window.context_tokens = 4_000;
    env.window.reply_tokens = 500;
    let env = Arc::new(env);
    let sessions = Sessions::new(path.clone(), env.clone());
    Fixture {
        _home: home,
        home: path,
        model,
        env,
        sessions,
    }
}

/// Says `text` and waits for the turn's end to be durable and announced
/// (the Session lets go of what it no longer holds before announcing it).
async fn say(f: &Fixture, text: &str) {
    let mut ended = f.env.ended.subscribe();
    let before = *ended.borrow_and_update();
    f.sessions
        .deliver(
            "s1",
            text,
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    f.sessions.wait_idle("s1").await.unwrap();
    ended.wait_for(|n| *n > before).await.unwrap();
}

/// A line of about 400 tokens.
fn long_line(n: usize) -> String {
    format!("line {n}: {}", "words and more words ".repeat(57))
}

fn records(f: &Fixture) -> Vec<PartRecord> {
    Parts::open(&f.home, "s1").unwrap().records().to_vec()
}

fn size_of(request: &ModelRequest) -> usize {
    let chars: usize = request.messages.iter().map(|m| m.content.len() + 12).sum();
    chars / 3
}

#[tokio::test]
/// Rule #796.
async fn steward_condenses_in_place_past_the_check_line_and_the_part_stays() {
    let f = fixture("[]");
    for n in 0..3 {
        say(&f, &long_line(n)).await;
    }
    assert!(
        f.model.opening(STEWARD_HEADING).is_empty(),
        "under the check line"
    );
    say(&f, &long_line(3)).await;
    let asked = f.model.opening(STEWARD_HEADING);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].thinking, None, "reasoning off");
    assert!(
        asked[0].messages[1]
            .content
            .contains("Checkpoints already made in this part: 0")
    );
    let records = records(&f);
    assert!(
        matches!(records.last(), Some(PartRecord::Checkpoint { part: 1, .. })),
        "{records:?}"
    );
    // The checkpoint rides in the one system message, after the prompt.
    let last = f.model.turns().pop().unwrap();
    assert!(
        last.messages[0]
            .content
            .contains("\n\nCheckpoint: a summary")
    );
    assert!(last.messages.last().unwrap().content.starts_with("line 3"));
    assert!(
        !last
            .messages
            .iter()
            .any(|m| m.content.starts_with("line 0"))
    );
    assert_eq!(f.sessions.current_part("s1").unwrap(), 1);
    // Issue 13: the idle Session holds only what the part carries live,
    // the entries after the checkpoint, as written.
    let Some(PartRecord::Checkpoint { upto_seq, .. }) = records.last().cloned() else {
        panic!("{records:?}")
    };
    assert_eq!(f.sessions.log_bytes_in_memory(), bytes_after(&f, upto_seq));
    assert!(bytes_after(&f, upto_seq) < bytes_after(&f, 0));
}

/// The bytes of the Session's log lines after `seq`, as the file holds them.
fn bytes_after(f: &Fixture, seq: u64) -> u64 {
    let log = std::fs::read_to_string(f.home.join("sessions/s1.jsonl")).unwrap();
    log.lines()
        .filter(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["seq"].as_u64() > Some(seq)
        })
        .map(|line| line.len() as u64 + 1)
        .sum()
}

#[tokio::test]
/// Rule #1245.
async fn a_part_moves_after_two_checkpoints_and_the_session_id_stays() {
    let f = fixture("[]");
    let mut n = 0;
    while f.sessions.current_part("s1").unwrap() == 1 {
        say(&f, &long_line(n)).await;
        n += 1;
        assert!(n < 40, "the part never moved");
    }
    let records = records(&f);
    let checkpoints = records
        .iter()
        .filter(|r| matches!(r, PartRecord::Checkpoint { part: 1, .. }))
        .count();
    assert_eq!(checkpoints, 2, "{records:?}");
    let PartRecord::Start {
        part: 2, from_seq, ..
    } = records[records.len() - 2].clone()
    else {
        panic!("{records:?}")
    };
    assert!(matches!(
        records.last(),
        Some(PartRecord::Handoff { part: 2, .. })
    ));
    // The part opens with its handoff note and carries on the moving turn.
    let last = f.model.turns().pop().unwrap();
    assert!(
        last.messages[0]
            .content
            .contains("\n\nHandoff note: this conversation continues in part 2")
    );
    assert!(
        last.messages
            .last()
            .unwrap()
            .content
            .starts_with(&format!("line {}", n - 1))
    );
    // Every request stayed under the hard line; the earlier part stays in
    // the same Session's log, readable.
    for request in f.model.turns() {
        assert!(size_of(&request) < 3_325, "{}", size_of(&request));
    }
    let log = f.sessions.transcript("s1", 0).unwrap();
    assert!(log.iter().any(
        |e| matches!(&e.event, SessionEvent::UserMessage { text, .. } if text.starts_with("line 0"))
    ));
    assert_eq!(f.sessions.part_of("s1", 1).unwrap(), 1);
    assert_eq!(f.sessions.part_of("s1", from_seq).unwrap(), 2);
}

#[tokio::test]
/// Rule #1245.
async fn a_failed_handoff_rolls_the_part_back_and_the_turn_goes_on() {
    let f = fixture(
        r###"[{"when": {"systemContains": "## Context steward"}, "reply": {"text": "move"}},
            {"when": {"systemContains": "## Conversation summary"}, "fail": {"status": 400}}]"###,
    );
    for n in 0..4 {
        say(&f, &long_line(n)).await;
    }
    let records = records(&f);
    assert!(
        matches!(
            records[..],
            [
                PartRecord::Pinned { .. },
                PartRecord::Start { part: 2, .. },
                PartRecord::Rollback { part: 2 }
            ] | [
                PartRecord::Start { part: 2, .. },
                PartRecord::Rollback { part: 2 }
            ]
        ),
        "{records:?}"
    );
    assert_eq!(f.sessions.current_part("s1").unwrap(), 1);
    let log = f.sessions.transcript("s1", 0).unwrap();
    let SessionEvent::TurnEnd { reason, .. } = &log.last().unwrap().event else {
        panic!()
    };
    assert_eq!(reason, &EndReason::Completed);
}

#[tokio::test(start_paused = true)]
/// Rule #1447.
async fn steward_retry_asks_three_times_on_a_rate_limit_then_condenses() {
    let f = fixture(
        r###"[{"when": {"systemContains": "## Context steward"}, "times": 2, "fail": {"status": 429, "code": "rate_limit_exceeded"}}]"###,
    );
    for n in 0..4 {
        say(&f, &long_line(n)).await;
    }
    assert_eq!(f.model.opening(STEWARD_HEADING).len(), 3);
    assert!(matches!(
        records(&f).last(),
        Some(PartRecord::Checkpoint { .. })
    ));
}

#[tokio::test(start_paused = true)]
/// Rule #1447.
async fn steward_cooldown_below_the_hard_line_keeps_the_part_and_waits_60_s() {
    let f = fixture(
        r###"[{"when": {"systemContains": "## Context steward"}, "fail": {"status": 429, "code": "rate_limit_exceeded"}}]"###,
    );
    for n in 0..4 {
        say(&f, &long_line(n)).await;
    }
    assert_eq!(
        f.model.opening(STEWARD_HEADING).len(),
        3,
        "one round of three attempts"
    );
    say(&f, "short").await;
    assert_eq!(
        f.model.opening(STEWARD_HEADING).len(),
        3,
        "cooling down: not asked"
    );
    assert!(
        records(&f)
            .iter()
            .all(|r| !matches!(r, PartRecord::Start { .. }))
    );
    tokio::time::advance(Duration::from_secs(61)).await;
    say(&f, "short again").await;
    assert_eq!(
        f.model.opening(STEWARD_HEADING).len(),
        6,
        "asked again after 60 s"
    );
    assert_eq!(f.sessions.current_part("s1").unwrap(), 1);
}

#[tokio::test(start_paused = true)]
/// Rule #1285.
async fn making_room_runs_out_of_its_deadline_and_the_input_is_queued_again() {
    let f = fixture("[]");
    for n in 0..3 {
        say(&f, &long_line(n)).await;
    }
    *lock(&f.model.hang_first_steward) = true;
    say(&f, &long_line(3)).await;
    let log = f.sessions.transcript("s1", 0).unwrap();
    let ends: Vec<&EndReason> = log
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::TurnEnd { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    let EndReason::Error { code, message } = ends[3] else {
        panic!("{ends:?}")
    };
    assert_eq!(code.as_str(), "TIMEOUT");
    assert!(message.contains("ran out of 300 s"), "{message}");
    // The next turn took the same line up again and finished.
    assert_eq!(ends.len(), 5);
    assert_eq!(ends[4], &EndReason::Completed);
    let lines: Vec<&str> = log
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage { text, .. } if text.starts_with("line 3") => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(lines.len(), 2);
}

#[tokio::test]
async fn the_pinned_block_is_one_snapshot_per_part_so_the_prompt_prefix_stays_identical() {
    let f = fixture(
        r###"[{"when": {"systemContains": "## Context steward"}, "reply": {"text": "move"}}]"###,
    );
    lock(&f.env.context).pinned = Some("The user is Ada.".to_owned());
    lock(&f.env.context).check_ratio = Some(0.95);
    say(&f, "hello").await;
    lock(&f.env.context).pinned = Some("The user is Ada Lovelace.".to_owned());
    say(&f, "again").await;
    let turns = f.model.turns();
    assert_eq!(turns[0].messages[0].content, turns[1].messages[0].content);
    assert!(
        turns[1].messages[0]
            .content
            .ends_with(&format!("{PINNED_HEADING}\nThe user is Ada."))
    );
    // The next part carries the edit.
    lock(&f.env.context).check_ratio = Some(0.001);
    say(&f, "third").await;
    assert_eq!(f.sessions.current_part("s1").unwrap(), 2);
    let last = f.model.turns().pop().unwrap();
    assert!(
        last.messages[0]
            .content
            .contains(&format!("{PINNED_HEADING}\nThe user is Ada Lovelace."))
    );
}

#[tokio::test]
async fn a_part_with_nothing_older_than_the_running_turn_does_not_ask_the_steward() {
    let f = fixture("[]");
    say(&f, &"one long opening line ".repeat(300)).await;
    assert!(f.model.opening(STEWARD_HEADING).is_empty());
    assert!(
        records(&f)
            .iter()
            .all(|r| !matches!(r, PartRecord::Start { .. } | PartRecord::Checkpoint { .. }))
    );
    assert_eq!(f.model.turns().len(), 1);
}
