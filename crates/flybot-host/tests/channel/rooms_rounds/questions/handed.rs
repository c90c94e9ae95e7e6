//! Work handed out with `message_bot` from a group Session (#553): it runs
//! in a hidden turn of the Bot's own chat, the reply goes back to the
//! member's Session in the group, and the request carries the sending
//! turn's origin (#540).

use flybot_agent::session::{SessionEvent, Source};
use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test(start_paused = true)]
/// Rule #553.
async fn handed_out_work_runs_hidden_in_the_bots_own_chat_and_its_reply_goes_back_to_the_group() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "Parser built", "step": 0},
         "reply": {"text": "Thanks, Dev."}},
        {"when": {"systemContains": "## You are Lead\n", "userContains": "hand it over", "step": 0},
         "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Dev", "text": "build the parser"}}]}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "build the parser", "step": 0},
         "reply": {"text": "Parser built."}},
        {"when": {"afterTool": "*"}, "reply": {"text": "Handed over."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let ada = kit.owner("Ada").await;
    let as_ada = kit.as_member(&ada);
    let [lead, dev] = as_ada.bots(["Lead", "Dev"]).await;
    let room = as_ada.room("Ship", &[&lead]).await;
    as_ada
        .ok(
            "send",
            json!({"roomId": room.id, "text": "@Lead hand it over"}),
        )
        .await;
    kit.until("Lead thanks Dev in the group", || {
        kit.said(&room, &lead).iter().any(|t| t == "Thanks, Dev.")
    })
    .await;
    // The reply is in the group, in Dev's voice, calling Lead.
    let replies: Vec<_> = kit
        .room_lines(&room)
        .into_iter()
        .filter(|l| l.author_id == dev.id)
        .map(|l| l.text)
        .collect();
    assert_eq!(replies, ["@Lead Parser built."]);
    // Lead's Session in the group took it.
    let seat = kit.seat(&room, &lead);
    assert!(
        kit.user_texts(&seat)
            .iter()
            .any(|t| t.contains("Parser built.")),
        "{:?}",
        kit.user_texts(&seat)
    );
    // The request carried senderRoomId and the sending turn's origin: Ada
    // typed in a room of only her own Bots.
    kit.idle(&dev.session).await;
    let request = kit
        .transcript(&dev.session)
        .into_iter()
        .find_map(|e| match e {
            SessionEvent::UserMessage { source, .. } => Some(source),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        request,
        Source::Bot {
            bot_id: lead.id.clone(),
            hops: 1,
            room_id: Some(room.id.clone()),
            origin: Some(ada.member_id.clone()),
        }
    );
    // Dev's own chat shows none of it: no request, no reply.
    let chat = as_ada.ok("messages", json!({"botId": dev.id})).await;
    assert_eq!(chat["messages"], json!([]), "{chat}");
    let after = as_ada
        .ok("messages", json!({"botId": dev.id, "after": 1}))
        .await;
    assert_eq!(after["messages"], json!([]), "{after}");
}

#[tokio::test(start_paused = true)]
/// Rule #553.
async fn a_bots_message_from_its_own_chat_is_no_handed_out_work_and_stays_shown() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "ask Dev", "step": 0},
         "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Dev", "text": "status?"}}]}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "status?", "step": 0},
         "reply": {"text": "All green."}},
        {"when": {"afterTool": "*"}, "reply": {"text": "Asked."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [lead, dev] = kit.bots(["Lead", "Dev"]).await;
    let room = kit.room("Ship", &[&lead]).await;
    kit.ok("send", json!({"botId": lead.id, "text": "ask Dev"}))
        .await;
    kit.until("Dev answered", || {
        kit.transcript(&dev.session)
            .iter()
            .any(|e| matches!(e, SessionEvent::TurnEnd { .. }))
    })
    .await;
    kit.idle(&dev.session).await;
    let chat = kit.ok("messages", json!({"botId": dev.id})).await;
    let texts: Vec<&str> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert!(
        texts.contains(&"status?") && texts.contains(&"All green."),
        "{texts:?}"
    );
    // Nothing went to a group.
    assert!(
        kit.room_lines(&room).iter().all(|l| l.author_id != dev.id),
        "{:?}",
        kit.room_lines(&room)
    );
}
