//! A round's steering and retries (issue 5): a line steered into a turn
//! that had no step left is still answered in the room (#1267), the 60 s
//! steering interrupt (#1650), a rate-limited member turn asked again only by the provider's
//! own backoff, never stacked with a room retry (#1679), and
//! the closing report for `report_back` (#913), on the in-process mock on a
//! paused clock.

use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::MockModel;
use flybot_agent::session::{AbortedBy, EndReason};
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{Reply, ScriptedProvider};
use flybot_testkit::{Bot, Kit, Room, hold_clock};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A person's line in `room`; answers the channel's body.
async fn send(kit: &Kit, room: &Room, text: &str) -> Value {
    kit.ok("send", json!({"roomId": room.id, "text": text}))
        .await
}

/// A host on `scenario` whose room "Build" has the one Bot `name`; answers
/// (host, room, the Bot, its seat).
async fn lone_member(scenario: Value, name: &str) -> (Kit, Room, Bot, String) {
    let kit = Kit::scripted(scenario).await;
    let bot = kit.bot(name).await;
    let room = kit.room("Build", &[&bot]).await;
    let seat = kit.seat(&room, &bot);
    (kit, room, bot, seat)
}

/// Bo alone in a room, whose mock fails "@Bo look" rate-limited `times`
/// times before it answers "looked"; "@Bo look" is sent and Bo's first turn
/// has ended. Answers (host, room, Bo, Bo's seat).
async fn bo_rate_limited(times: u32) -> (Kit, Room, Bot, String) {
    let (kit, room, bo, seat) = lone_member(
        json!([
            {"when": {"userContains": "@Bo look"}, "times": times,
             "fail": {"status": 429, "code": "rate_limit_exceeded"}},
            {"reply": {"text": "looked"}}
        ]),
        "Bo",
    )
    .await;
    send(&kit, &room, "@Bo look").await;
    kit.turns_ended(&seat, 1).await;
    (kit, room, bo, seat)
}

#[tokio::test(start_paused = true)]
/// Rule #1650.
async fn a_line_while_the_member_waits_over_60s_lets_it_go_as_a_stop_and_is_answered_next() {
    let (kit, room, ada, s) = lone_member(
        json!([
            {"when": {"userContains": "run it", "step": 0},
             "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
            {"when": {"afterTool": "*"}, "reply": {"text": "finished"}},
            {"reply": {"text": "answered"}}
        ]),
        "Ada",
    )
    .await;
    // The clock stands still until the test moves it, so the wait is
    // exactly 30 s old when the first line lands, however slow the disk.
    let held = hold_clock();
    send(&kit, &room, "run it").await;
    kit.until("the member's tool waits", || {
        kit.host.sessions().oldest_open_wait(&s).is_some()
    })
    .await;
    // A wait of 60 s or less is left alone: the line steers the turn.
    tokio::time::advance(Duration::from_secs(30)).await;
    let early = send(&kit, &room, "any news?").await;
    assert_eq!(early["queued"], "steer");
    assert!(kit.host.sessions().is_running(&s));
    drop(held);
    tokio::time::sleep(Duration::from_secs(31)).await;
    let late = send(&kit, &room, "what now?").await;
    assert_eq!(late["queued"], "interrupt");
    kit.round_ended(&room).await;
    let interrupted: Vec<EndReason> = kit
        .end_reasons(&s)
        .into_iter()
        .filter(|r| matches!(r, EndReason::Aborted { .. }))
        .collect();
    assert_eq!(
        interrupted,
        [EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: Some("ds-bot/stopped".into())
        }],
        "let go once, as a Stop lets a member go; never the own-chat reason"
    );
    // The interrupted turn posted nothing; the line was answered next.
    let lines = kit.said(&room, &ada);
    assert!(!lines.contains(&"finished".to_owned()), "{lines:?}");
    assert!(lines.contains(&"answered".to_owned()), "{lines:?}");
    assert!(
        kit.user_texts(&s).iter().any(|u| u.contains("what now?")),
        "the next turn read the line"
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1679.
async fn a_rate_limited_member_turn_makes_at_most_the_providers_attempts() {
    // The mock refuses four calls: the first and the provider's own three
    // retries (#1308). The fifth call would answer "looked": a room retry
    // stacked on top would reach it.
    let (kit, room, bo, s) = bo_rate_limited(4).await;
    kit.round_ended(&room).await;
    let reasons = kit.end_reasons(&s);
    assert!(
        matches!(reasons.as_slice(), [EndReason::Error { code, .. }] if code == "RATE_LIMITED"),
        "one member turn, ended rate-limited: {reasons:?}"
    );
    assert!(
        !kit.said(&room, &bo).contains(&"looked".to_owned()),
        "no fifth model call"
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1679.
async fn a_rate_limit_the_providers_backoff_outlasts_is_answered_in_the_same_turn() {
    let (kit, room, bo, s) = bo_rate_limited(2).await;
    kit.round_ended(&room).await;
    assert_eq!(kit.end_reasons(&s), [EndReason::Completed]);
    assert_eq!(kit.said(&room, &bo), ["looked"]);
}

#[tokio::test(start_paused = true)]
/// Rule #1679.
async fn a_stop_during_the_providers_backoff_makes_no_further_call() {
    let (kit, room, bo, s) = lone_member(
        json!([
            {"when": {"userContains": "@Bo look"}, "times": 1,
             "fail": {"status": 429, "code": "rate_limit_exceeded"}},
            {"when": {"userContains": "Owner: stop"}, "reply": {"text": "ok"}},
            {"reply": {"text": "looked"}}
        ]),
        "Bo",
    )
    .await;
    // The clock stands still until the Stop is in: a paused clock jumps to
    // the backoff's end whenever the host waits on its disk, and the turn
    // would answer before the Stop lands (it did, under a loaded disk).
    let held = hold_clock();
    send(&kit, &room, "@Bo look").await;
    kit.until("Bo's turn waits out the provider's backoff", || {
        kit.host.sessions().is_running(&s)
    })
    .await;
    let stop = send(&kit, &room, "stop").await;
    assert_eq!(stop["queued"], "stop");
    drop(held);
    kit.round_ended(&room).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(
        kit.end_reasons(&s)[0],
        EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: Some("ds-bot/stopped".into())
        },
        "the Stop let the turn go inside its backoff"
    );
    // The provider's second attempt would have answered "looked": the
    // Session shows no such answer, so no call went out behind the Stop.
    // The stop line opens a fresh round of its own (#1267).
    let answers: Vec<String> = kit
        .transcript(&s)
        .into_iter()
        .filter_map(|event| match event {
            flybot_agent::session::SessionEvent::AssistantMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(answers, ["ok"], "no call behind the Stop");
    assert_eq!(kit.said(&room, &bo), ["ok"]);
}

#[tokio::test(start_paused = true)]
/// Rule #913.
async fn report_back_sends_the_rounds_closing_report_to_the_posters_own_chat() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "post it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments":
             {"group": "Build", "text": "@Bo please look", "report_back": true}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
        {"when": {"systemContains": "## You are Bo\n"}, "reply": {"text": "looked"}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [ada, bo, cy] = kit.bots(["Ada", "Bo", "Cy"]).await;
    let room = kit.room("Build", &[&ada, &bo, &cy]).await;
    kit.say(&ada.session, "post it");
    kit.until("the report reaches Ada's own chat", || {
        kit.user_texts(&ada.session)
            .iter()
            .any(|u| u.starts_with("[Round report]"))
    })
    .await;
    let report = kit
        .user_texts(&ada.session)
        .into_iter()
        .find(|u| u.starts_with("[Round report]"))
        .unwrap();
    assert!(report.contains("Answered: Bo."), "{report}");
    assert!(!report.contains("Ada"), "{report}");
    assert_eq!(kit.said(&room, &bo), ["looked"]);
    assert_eq!(kit.said(&room, &ada), ["@Bo please look"]);
}

#[tokio::test]
/// Rule #1267.
async fn a_line_steered_into_a_one_step_member_turn_is_answered_in_the_room() {
    let server = ScriptedProvider::start(vec![
        Reply::text("Looked: all green."),
        Reply::text("The tests pass too."),
    ]);
    // The steered line's busy-send acknowledgment (#1646) is written on the
    // offline mock, so the scripted server sees only Bo's turns.
    let models =
        ProviderRegistry::from_config(&models_config(&server.base_url, None), MockModel::offline())
            .unwrap();
    let kit = Kit::with_config(|host| {
        host.models = Arc::new(models);
        host.ack_model = Some("mock".into());
    })
    .await;
    let bo = kit
        .anyone()
        .bot_from(json!({"name": "Bo", "model": "remote"}))
        .await;
    let room = kit.room("Build", &[&bo]).await;
    server.hold();
    send(&kit, &room, "@Bo look").await;
    kit.until("Bo's one model call is in flight", || {
        server.requests().len() == 1
    })
    .await;
    let steered = send(&kit, &room, "and the tests?").await;
    assert_eq!(steered["queued"], "steer");
    server.release();
    kit.round_ended(&room).await;
    // The line came after the turn's only step: it opened one more turn
    // in Bo's seat, and that answer reaches the room with Bo's reply.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let last_user = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap();
    assert!(
        last_user["content"]
            .as_str()
            .unwrap()
            .contains("and the tests?")
    );
    assert_eq!(
        kit.said(&room, &bo),
        ["Looked: all green.\n\nThe tests pass too."]
    );
}
