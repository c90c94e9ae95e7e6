//! Busy-send acknowledgments through the channel (#1584, #1665, #1698): a
//! person's line that reaches a running turn is acknowledged at once with
//! an empty text, then with the one sentence a short model call wrote; the
//! line that opened the turn earns none; a failed call leaves the text
//! empty; the turn's end clears the ack.

use flybot_host::events::HostEvent;
use flybot_testkit::{Bot, Kit};
use serde_json::{Value, json};
use tokio::sync::broadcast::Receiver;

const SENTENCE: &str = "Your deploy question came in; I am still on the command you asked for.";

/// "run it" waits on the owner's approval of `run_command`; the
/// acknowledgment call answers `ack` (a reply or a failure).
async fn kit_with_ack(ack: Value) -> Kit {
    let mut rule = json!({"when": {"systemContains": "still busy"}});
    rule.as_object_mut()
        .unwrap()
        .extend(ack.as_object().unwrap().clone());
    Kit::scripted(json!([
        rule,
        {"when": {"userContains": "run it", "step": 0},
         "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "finished"}}
    ]))
    .await
}

/// The Bot's turn is running, waiting on the approval; answers its id.
async fn running_turn(kit: &Kit, bot: &Bot) -> String {
    kit.ok("send", json!({"botId": bot.id, "text": "run it"}))
        .await;
    kit.until_some("the approval waits", async || {
        let answer = kit.ok("approvals", json!({})).await;
        let id = answer["approvals"][0]["id"].as_str()?.to_owned();
        Some(id)
    })
    .await
}

/// The next busy-send event of `session` on the live bus.
async fn next_ack(kit: &Kit, events: &mut Receiver<HostEvent>, session: &str) -> HostEvent {
    kit.within("a busy-send event", async {
        loop {
            match events.recv().await {
                Ok(event @ HostEvent::BusyAck { .. })
                | Ok(event @ HostEvent::BusyAckCleared { .. })
                    if session_of(&event) == session =>
                {
                    return event;
                }
                _ => {}
            }
        }
    })
    .await
}

fn session_of(event: &HostEvent) -> &str {
    match event {
        HostEvent::BusyAck { session_id, .. } | HostEvent::BusyAckCleared { session_id } => {
            session_id
        }
        _ => "",
    }
}

#[tokio::test]
/// Rule #1584.
async fn busy_ack_a_line_reaching_a_running_turn_is_acked_then_its_sentence_then_cleared() {
    let kit = kit_with_ack(json!({"reply": {"text": SENTENCE}})).await;
    let bot = kit.bot("Ada").await;
    let mut events = kit.host.team().bus().subscribe_all();
    let approval = running_turn(&kit, &bot).await;
    let sent = kit
        .ok("send", json!({"botId": bot.id, "text": "And the deploy?"}))
        .await;
    assert_eq!(sent["queued"], "queued");
    // #1698: the line that opened the turn earned none; the first is this one.
    let HostEvent::BusyAck { line_id, text, .. } = next_ack(&kit, &mut events, &bot.session).await
    else {
        panic!("an ack first")
    };
    assert_eq!(text, "", "published at once with an empty text");
    let HostEvent::BusyAck {
        line_id: same,
        text,
        ..
    } = next_ack(&kit, &mut events, &bot.session).await
    else {
        panic!("then its sentence")
    };
    assert_eq!((same.as_str(), text.as_str()), (line_id.as_str(), SENTENCE));
    kit.ok(
        "approval-answer",
        json!({"id": approval, "answer": "rejected"}),
    )
    .await;
    assert!(matches!(
        next_ack(&kit, &mut events, &bot.session).await,
        HostEvent::BusyAckCleared { .. }
    ));
}

#[tokio::test]
/// Rule #1665.
async fn busy_ack_a_failed_call_leaves_the_text_empty_and_the_turn_end_clears_it() {
    let kit = kit_with_ack(json!({"fail": {"status": 500}})).await;
    let bot = kit.bot("Ada").await;
    let mut events = kit.host.team().bus().subscribe_all();
    let approval = running_turn(&kit, &bot).await;
    kit.ok("send", json!({"botId": bot.id, "text": "And the deploy?"}))
        .await;
    let HostEvent::BusyAck { text, .. } = next_ack(&kit, &mut events, &bot.session).await else {
        panic!("an ack first")
    };
    assert_eq!(text, "");
    kit.ok(
        "approval-answer",
        json!({"id": approval, "answer": "rejected"}),
    )
    .await;
    // No sentence came between the empty ack and the clearing.
    assert!(matches!(
        next_ack(&kit, &mut events, &bot.session).await,
        HostEvent::BusyAckCleared { .. }
    ));
}

#[tokio::test]
/// Rule #1646.
async fn busy_ack_a_line_steered_into_a_speaking_member_is_acked_on_the_room_for_that_member() {
    let kit = kit_with_ack(json!({"reply": {"text": SENTENCE}})).await;
    let ada = kit.bot("Ada").await;
    let room = kit.room("Build", &[&ada]).await;
    let seat = kit.seat(&room, &ada);
    let mut events = kit.host.team().bus().subscribe_all();
    kit.ok("send", json!({"roomId": room.id, "text": "run it"}))
        .await;
    kit.until("the member's tool waits", || {
        kit.host.sessions().oldest_open_wait(&seat).is_some()
    })
    .await;
    let sent = kit
        .ok("send", json!({"roomId": room.id, "text": "any news?"}))
        .await;
    assert_eq!(sent["queued"], "steer");
    for expected in ["", SENTENCE] {
        let HostEvent::BusyAck {
            text,
            room_id,
            bot_id,
            ..
        } = next_ack(&kit, &mut events, &seat).await
        else {
            panic!("an ack on the member's seat")
        };
        assert_eq!(text, expected);
        assert_eq!(room_id.as_deref(), Some(room.id.as_str()));
        assert_eq!(bot_id.as_deref(), Some(ada.id.as_str()));
    }
}
