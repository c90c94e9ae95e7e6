//! Issue 31, "Stop and reload that keep": a Stop while an answer streams
//! keeps what came as the turn's answer (its `turn/end` says it was
//! stopped); a room member cut off by Stop keeps its line, with a room line
//! saying who was cut; and `messages` while an answer streams carries the
//! draft from the turn's start, with the live id it is as of.

use flybot_testkit::Kit;
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use serde_json::{Value, json};

/// A provider that streams `pieces` and then says nothing more: a turn
/// that stays mid-answer until it is stopped.
fn stalled(pieces: &[&str]) -> ScriptedProvider {
    let payloads: Vec<String> = pieces
        .iter()
        .map(|p| json!({"choices": [{"delta": {"content": p}}]}).to_string())
        .collect();
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    ScriptedProvider::start(vec![Reply::stream(&payloads, End::Stall)])
}

async fn kit_with(server: &ScriptedProvider) -> Kit {
    kit_on(&models_config(&server.base_url, None)).await
}

/// The chat's draft once it holds `text`.
async fn draft_holding(kit: &Kit, bot_id: &str, text: &str) -> Value {
    kit.until_some("the draft holds the streamed text", async || {
        let answer = kit.ok("messages", json!({"botId": bot_id})).await;
        (answer["draft"]["text"] == text).then(|| answer["draft"].clone())
    })
    .await
}

#[tokio::test]
async fn a_stopped_turn_keeps_its_streamed_text_marked_stopped() {
    let server = stalled(&["It was a dark ", "and stormy"]);
    let kit = kit_with(&server).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Teller", "model": "remote"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "tell a story"}))
        .await;
    draft_holding(&kit, &bot.id, "It was a dark and stormy").await;

    let stopped = kit.ok("cancel", json!({"botId": bot.id})).await;
    assert_eq!(stopped["wasRunning"], true);
    kit.turns_ended(&bot.session, 1).await;

    let answer = kit.ok("messages", json!({"botId": bot.id})).await;
    let lines = answer["messages"].as_array().unwrap();
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "assistant", "turn-end"]);
    assert_eq!(lines[1]["text"], "It was a dark and stormy");
    assert_eq!(lines[2]["reason"], json!({"kind": "aborted", "by": "user"}));
    assert!(
        answer.get("draft").is_none(),
        "no draft once the turn ended"
    );
}

#[tokio::test]
async fn a_page_that_opens_mid_answer_gets_the_text_from_the_turns_start() {
    let server = stalled(&["Once upon ", "a time, ", "a small Bot"]);
    let kit = kit_with(&server).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Teller", "model": "remote"}))
        .await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"botId": bot.id, "text": "tell a story"}))
        .await;
    let draft = draft_holding(&kit, &bot.id, "Once upon a time, a small Bot").await;
    // `at` names the live entry the draft holds up to: the last delta.
    let last_delta = live
        .collect_until("text.delta", |event| event["text"] == "a small Bot")
        .await;
    let delta_id = last_delta.last().unwrap().id.clone().unwrap();
    let (draft_epoch, draft_n) = draft["at"].as_str().unwrap().rsplit_once('.').unwrap();
    let (delta_epoch, delta_n) = delta_id.rsplit_once('.').unwrap();
    assert_eq!(draft_epoch, delta_epoch);
    assert!(draft_n.parse::<u64>().unwrap() >= delta_n.parse::<u64>().unwrap());
    assert!(draft["turnId"].as_str().unwrap().starts_with("turn"));
    kit.ok("cancel", json!({"botId": bot.id})).await;
    kit.turns_ended(&bot.session, 1).await;
}

#[tokio::test]
async fn a_room_member_cut_off_by_stop_keeps_its_line_and_the_room_says_who_was_cut() {
    let server = stalled(&["I think we ", "should ship"]);
    let kit = kit_with(&server).await;
    let ada = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    let room = kit.room("Build", &[&ada]).await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada what now?"}))
        .await;
    live.until("text.delta", |event| event["text"] == "should ship")
        .await;
    let stopped = kit.ok("room-stop", json!({"roomId": room.id})).await;
    assert_eq!(stopped["wasRunning"], true);
    kit.round_ended(&room).await;
    kit.until_some("the cut line is stored", async || {
        (kit.room_lines(&room).len() == 3).then_some(())
    })
    .await;

    let lines: Vec<(String, String, String)> = kit
        .room_lines(&room)
        .into_iter()
        .map(|l| {
            let kind = serde_json::to_value(l.kind).unwrap();
            (l.author_id, kind.as_str().unwrap().to_owned(), l.text)
        })
        .collect();
    assert_eq!(lines[0].2, "@Ada what now?");
    assert_eq!(
        lines[1..],
        [
            (
                ada.id.clone(),
                "chat".into(),
                "I think we should ship".into()
            ),
            (
                String::new(),
                "event".into(),
                "Ada was cut off by Stop; the line above is as far as it got.".into()
            ),
        ]
    );
}
