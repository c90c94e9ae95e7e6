//! A round's steering and retries (issue 5): the 60 s steering interrupt
//! (#1650), the in-round retry of a rate-limited member turn (#1679), and
//! the closing report for `report_back` (#913), on the in-process mock on a
//! paused clock.

use super::kit::{host_with, until};
use crate::support::TestHost;
use flybot_agent::session::{AbortedBy, EndReason, ItemKind, SessionEvent, Source};
use serde_json::{Value, json};
use std::time::Duration;

async fn room_of(t: &TestHost, names: &[&str]) -> (String, Vec<String>) {
    let mut ids = Vec::new();
    for name in names {
        ids.push(t.create_bot(None, name).await);
    }
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Build", "members": ids, "admin": ids[0]}),
        )
        .await;
    (room["room"]["id"].as_str().unwrap().to_owned(), ids)
}

fn seat(t: &TestHost, room: &str, bot: &str) -> String {
    t.host.store().read(|s| s.rooms[room].sessions[bot].clone())
}

fn events(t: &TestHost, session: &str) -> Vec<SessionEvent> {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.event)
        .collect()
}

fn ends(t: &TestHost, session: &str) -> Vec<EndReason> {
    events(t, session)
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::TurnEnd { reason, .. } => Some(reason),
            _ => None,
        })
        .collect()
}

fn user_texts(t: &TestHost, session: &str) -> Vec<String> {
    events(t, session)
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::UserMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

fn said(t: &TestHost, room: &str, bot: &str) -> Vec<String> {
    t.host
        .rooms()
        .lines(room)
        .unwrap()
        .into_iter()
        .filter(|l| l.author_id == bot)
        .map(|l| l.text)
        .collect()
}

fn running(t: &TestHost, room: &str) -> bool {
    t.host.rooms().run(room, |r| r.running)
}

/// A person's line in `room`; answers the channel's body.
async fn send(t: &TestHost, room: &str, text: &str) -> Value {
    t.ok(None, "send", json!({"roomId": room, "text": text}))
        .await
}

/// A host on `scenario` whose room "Build" has the one Bot `name`; answers
/// (host, room, the Bot's id, its seat).
async fn lone_member(scenario: Value, name: &str) -> (TestHost, String, String, String) {
    let t = host_with(scenario);
    let (room, ids) = room_of(&t, &[name]).await;
    let bot = ids[0].clone();
    let s = seat(&t, &room, &bot);
    (t, room, bot, s)
}

/// Bo alone in a room, whose mock fails "@Bo look" rate-limited `times`
/// times before it answers "looked"; "@Bo look" is sent and Bo's first turn
/// has ended. Answers (host, room, Bo's id, Bo's seat).
async fn bo_rate_limited(times: u32) -> (TestHost, String, String, String) {
    let (t, room, bo, s) = lone_member(
        json!([
            {"when": {"userContains": "@Bo look"}, "times": times,
             "fail": {"status": 429, "code": "rate_limit_exceeded"}},
            {"reply": {"text": "looked"}}
        ]),
        "Bo",
    )
    .await;
    send(&t, &room, "@Bo look").await;
    until(&t, "the first turn is rate-limited", || {
        !ends(&t, &s).is_empty()
    })
    .await;
    (t, room, bo, s)
}

#[tokio::test(start_paused = true)]
async fn a_line_while_the_member_waits_over_60s_interrupts_its_turn_once_and_is_answered_next_1650()
{
    let (t, room, ada, s) = lone_member(
        json!([
            {"when": {"userContains": "run it", "step": 0},
             "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
            {"when": {"afterTool": "*"}, "reply": {"text": "finished"}},
            {"reply": {"text": "answered"}}
        ]),
        "Ada",
    )
    .await;
    send(&t, &room, "run it").await;
    until(&t, "the member's tool waits", || {
        t.host.sessions().oldest_open_wait(&s).is_some()
    })
    .await;
    // A wait of 60 s or less is left alone: the line steers the turn.
    tokio::time::sleep(Duration::from_secs(30)).await;
    let early = send(&t, &room, "any news?").await;
    assert_eq!(early["queued"], "steer");
    assert!(t.host.sessions().is_running(&s));
    tokio::time::sleep(Duration::from_secs(31)).await;
    let late = send(&t, &room, "what now?").await;
    assert_eq!(late["queued"], "interrupt");
    until(&t, "the room settles", || !running(&t, &room)).await;
    let interrupted: Vec<EndReason> = ends(&t, &s)
        .into_iter()
        .filter(|r| matches!(r, EndReason::Aborted { .. }))
        .collect();
    assert_eq!(
        interrupted,
        [EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: Some("ds-bot/interrupt-long-wait".into())
        }],
        "cancelled once"
    );
    // The interrupted turn posted nothing; the line was answered next.
    let lines = said(&t, &room, &ada);
    assert!(!lines.contains(&"finished".to_owned()), "{lines:?}");
    assert!(lines.contains(&"answered".to_owned()), "{lines:?}");
    assert!(
        user_texts(&t, &s).iter().any(|u| u.contains("what now?")),
        "the next turn read the line"
    );
}

#[tokio::test(start_paused = true)]
async fn a_rate_limited_member_turn_is_retried_in_the_round_after_2s_then_8s_1679() {
    let (t, room, bo, s) = bo_rate_limited(8).await;
    let first = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(1_900)).await;
    assert_eq!(ends(&t, &s).len(), 1, "asked again before 2 s");
    until(&t, "the room settles", || !running(&t, &room)).await;
    until(&t, "the room settles", || !running(&t, &room)).await;
    // The model's own retries (#1308) ran out twice, so the round asked the
    // turn again after 2 s, then after 8 s more.
    assert!(
        first.elapsed() >= Duration::from_secs(10),
        "{:?}",
        first.elapsed()
    );
    let reasons = ends(&t, &s);
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons[..2]
            .iter()
            .all(|r| matches!(r, EndReason::Error { code, .. } if code == "RATE_LIMITED")),
        "{reasons:?}"
    );
    assert_eq!(reasons[2], EndReason::Completed);
    assert_eq!(said(&t, &room, &bo), ["looked"]);
}

#[tokio::test(start_paused = true)]
async fn a_round_the_person_stopped_is_never_retried_1679() {
    let (t, room, _bo, s) = bo_rate_limited(4).await;
    let stop = send(&t, &room, "stop").await;
    assert_eq!(stop["queued"], "stop");
    until(&t, "the room settles", || !running(&t, &room)).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    // The stopped turn's message was never asked again: every turn Bo got
    // is a different round's.
    let texts = user_texts(&t, &s);
    let mut unique = texts.clone();
    unique.dedup();
    assert_eq!(texts, unique, "a stopped round was retried");
}

#[tokio::test(start_paused = true)]
async fn report_back_sends_the_rounds_closing_report_to_the_posters_own_chat_913() {
    let t = host_with(json!([
        {"when": {"userContains": "post it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments":
             {"group": "Build", "text": "@Bo please look", "report_back": true}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
        {"when": {"systemContains": "## You are Bo\n"}, "reply": {"text": "looked"}},
        {"reply": {"text": "[PASS]"}}
    ]));
    let (room, ids) = room_of(&t, &["Ada", "Bo", "Cy"]).await;
    let (ada, own) = (
        ids[0].clone(),
        t.host.store().read(|s| s.bots[&ids[0]].session_id.clone()),
    );
    t.host
        .sessions()
        .deliver(
            &own,
            "post it",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    until(&t, "the report reaches Ada's own chat", || {
        user_texts(&t, &own)
            .iter()
            .any(|u| u.starts_with("[Round report]"))
    })
    .await;
    let report = user_texts(&t, &own)
        .into_iter()
        .find(|u| u.starts_with("[Round report]"))
        .unwrap();
    assert!(report.contains("Answered: Bo."), "{report}");
    assert!(!report.contains("Ada"), "{report}");
    assert_eq!(said(&t, &room, &ids[1]), ["looked"]);
    assert_eq!(said(&t, &room, &ada), ["@Bo please look"]);
}
