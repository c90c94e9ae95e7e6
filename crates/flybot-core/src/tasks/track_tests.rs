//! Tests of `track_tasks`' core rule (`tasks::track`).
#![allow(clippy::unwrap_used)]
use super::super::fixture::{apply, team};
use super::*;

fn ctx(bot: &str) -> TrackContext<'_> {
    TrackContext {
        bot_id: bot,
        room_id: Some("room-1"),
        session_id: Some("session-turn"),
    }
}

fn titled(title: &str) -> TrackItem {
    TrackItem {
        title: Some(title.into()),
        ..TrackItem::default()
    }
}

fn fresh(id: &str) -> Fresh<'_> {
    Fresh {
        task_id: id,
        question_id: "question-1",
    }
}

#[test]
/// Rule #1058.
fn the_same_title_in_the_same_group_updates_the_open_card() {
    let mut state = team();
    let out = track(
        &state,
        ctx("bot-dev1"),
        &titled("Fix login"),
        fresh("t-1"),
        10,
    )
    .unwrap();
    apply(&mut state, &out);
    let card = &state.tasks["t-1"];
    assert_eq!(card.requester_id.as_deref(), Some("member-a"));
    let f = TaskFields::read(card);
    assert_eq!(f.source, Some(TaskSource::Conversation));
    assert_eq!(
        f.origin.unwrap().session_id.as_deref(),
        Some("session-turn")
    );
    let mut again = titled("Fix login");
    again.progress = Some(30);
    again.column = Some(Column::InProgress);
    let out = track(&state, ctx("bot-dev1"), &again, fresh("t-2"), 11).unwrap();
    assert_eq!(out.answer.as_ref().unwrap().id, "t-1");
    apply(&mut state, &out);
    assert_eq!(state.tasks.len(), 1);
    assert_eq!(state.tasks["t-1"].status, TaskStatus::Working);
}

#[test]
/// Rules #1099, #1205.
fn only_the_lead_records_the_overall_card_and_assigning_claims_the_subtask() {
    let mut state = team();
    let mut overall = titled("Plan");
    overall.overall = true;
    let err = track(&state, ctx("bot-dev1"), &overall, fresh("t-x"), 5).unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    let out = track(&state, ctx("bot-lead"), &overall, fresh("t-all"), 5).unwrap();
    apply(&mut state, &out);
    let mut assign = titled("Build it");
    assign.assignee = Some("bot-dev1".into());
    let out = track(&state, ctx("bot-lead"), &assign, fresh("t-sub"), 6).unwrap();
    apply(&mut state, &out);
    let sub = &state.tasks["t-sub"];
    assert_eq!(sub.bot_id, "bot-dev1");
    assert_eq!(sub.status, TaskStatus::Claimed);
    assert_eq!(TaskFields::read(sub).parent_id.as_deref(), Some("t-all"));
    // The assignee finishes its card; the overall card settles.
    let mut done = TrackItem {
        id: Some("t-sub".into()),
        column: Some(Column::Done),
        ..TrackItem::default()
    };
    done.progress = Some(100);
    let out = track(&state, ctx("bot-dev1"), &done, fresh("t-unused"), 7).unwrap();
    apply(&mut state, &out);
    assert_eq!(state.tasks["t-all"].status, TaskStatus::Accepted);
    // Another member's card is not the caller's to update.
    let err = track(
        &state,
        ctx("bot-dev2"),
        &TrackItem {
            id: Some("t-sub".into()),
            ..TrackItem::default()
        },
        fresh("t-y"),
        8,
    )
    .unwrap_err();
    assert!(matches!(err.code, ErrorCode::Forbidden | ErrorCode::Stale));
}

#[test]
/// Rule #207.
fn ask_walks_to_working_then_waits_and_answer_resumes() {
    let mut state = team();
    let mut ask = titled("Pick a DB");
    ask.ask = Some("Postgres or SQLite?".into());
    let out = track(&state, ctx("bot-dev1"), &ask, fresh("t-1"), 5).unwrap();
    apply(&mut state, &out);
    let card = &state.tasks["t-1"];
    let f = TaskFields::read(card);
    assert_eq!(card.status, TaskStatus::Blocked);
    assert_eq!(f.waiting_for, Some(WaitingFor::Input));
    assert!(f.actors.contains_key(&TaskStatus::Working));
    let answer = TrackItem {
        id: Some("t-1".into()),
        answer: Some("SQLite".into()),
        ..TrackItem::default()
    };
    let out = track(&state, ctx("bot-dev1"), &answer, fresh("t-2"), 6).unwrap();
    apply(&mut state, &out);
    assert_eq!(state.tasks["t-1"].status, TaskStatus::Working);
    let again = track(&state, ctx("bot-dev1"), &answer, fresh("t-2"), 7).unwrap_err();
    assert_eq!(again.code, ErrorCode::Stale);
}

#[test]
/// Rule #1720.
fn track_writes_the_typed_contract_and_a_refused_field_writes_nothing() {
    use flybot_protocol::task::TaskClass;
    use flybot_protocol::task_requests::{EvidenceInput, HandoffInput};
    let mut state = team();
    let mut item = titled("Fix login");
    item.contract = ContractInput {
        task_class: Some(TaskClass::Work),
        evidence: Some(vec![EvidenceInput {
            sha: Some("abc1234".into()),
            pr: Some(12),
            check: None,
            at: None,
        }]),
        ..ContractInput::default()
    };
    let out = track(&state, ctx("bot-dev1"), &item, fresh("t-1"), 10).unwrap();
    apply(&mut state, &out);
    let f = TaskFields::read(&state.tasks["t-1"]);
    assert_eq!(f.task_class, Some(TaskClass::Work));
    assert_eq!(f.evidence[0].pr, Some(12));
    // A handoff to a role nobody carries is refused: the card is unchanged.
    let mut bad = titled("Fix login");
    bad.progress = Some(40);
    bad.contract.handoff = Some(HandoffInput {
        from: "requester".into(),
        to: "Astronaut".into(),
        reason: "x".into(),
        at: None,
    });
    let before = state.tasks["t-1"].clone();
    let err = track(&state, ctx("bot-dev1"), &bad, fresh("t-2"), 11).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownRole);
    assert_eq!(state.tasks["t-1"], before);
}
