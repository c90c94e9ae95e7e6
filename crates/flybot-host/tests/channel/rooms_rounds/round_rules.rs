//! The round rules issue 13 names: the "No one in this room is called @X"
//! notice, the last-speaker rule, the room notice and the task lead set at
//! creation (#894, #1182), through the channel on the mock.

use super::{room_of_three, settled};
use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test(start_paused = true)]
async fn an_at_name_nobody_here_has_adds_one_quiet_notice_line() {
    let kit = Kit::new().await;
    let (room, [_ada, bo, _cy]) = room_of_three(&kit).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Zed can you look?"}),
    )
    .await;
    let lines = settled(&kit, &room).await;
    let notices: Vec<&str> = lines
        .iter()
        .filter(|l| l["kind"] == "event")
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert_eq!(notices, ["No one in this room is called @Zed."]);
    // The line still went to the room: the admin answered it.
    assert!(lines.iter().any(|l| l["authorId"] == bo.id.as_str()));
}

#[tokio::test(start_paused = true)]
async fn the_bot_that_spoke_last_answers_a_follow_up_first_and_is_named_in_the_note() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "spoke last before this line"}, "reply": {"text": "following up"}},
        {"when": {"userContains": "@Cy"}, "reply": {"text": "first answer"}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let (room, [_ada, bo, cy]) = room_of_three(&kit).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Cy what broke?"}),
    )
    .await;
    settled(&kit, &room).await;
    kit.ok("send", json!({"roomId": room.id, "text": "and why?"}))
        .await;
    settled(&kit, &room).await;
    // Cy spoke last, so Cy is asked first (before Bo, the admin) and its
    // answer ends the routed round.
    assert_eq!(kit.said(&room, &cy), ["first answer", "following up"]);
    assert!(kit.said(&room, &bo).is_empty());
}

#[tokio::test(start_paused = true)]
/// Rules #894, #1182.
async fn create_room_sets_the_notice_and_the_task_lead() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "Notice: Ship on Friday."}, "reply": {"text": "noted"}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let answer = kit
        .ok(
            "create-room",
            json!({"name": "Ship", "members": [ada.id, bo.id], "admin": ada.id,
                   "notice": "Ship on Friday.", "taskLead": bo.id}),
        )
        .await;
    assert_eq!(answer["room"]["notice"], "Ship on Friday.");
    assert_eq!(answer["room"]["taskLead"], bo.id.as_str());
    let room = flybot_testkit::Room::from_answer(&answer);
    kit.ok("send", json!({"roomId": room.id, "text": "@all ready?"}))
        .await;
    settled(&kit, &room).await;
    assert_eq!(
        kit.said(&room, &ada),
        ["noted"],
        "the notice is in the standing rules"
    );
}

#[tokio::test(start_paused = true)]
/// Rule #894.
async fn notice_seen_a_members_next_turn_says_only_that_the_notice_changed() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "notice changed"}, "reply": {"text": "saw the change"}},
        {"reply": {"text": "ok"}}
    ]))
    .await;
    let [ada] = kit.bots(["Ada"]).await;
    let answer = kit
        .ok(
            "create-room",
            json!({"name": "Ship", "members": [ada.id], "notice": "Ship on Friday."}),
        )
        .await;
    let room = flybot_testkit::Room::from_answer(&answer);
    let seen = |kit: &Kit| {
        kit.host.team().read(|s| {
            s.rooms[&room.id].extra["noticeSeen"][&ada.id]
                .as_str()
                .map(str::to_owned)
        })
    };
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada one"}))
        .await;
    settled(&kit, &room).await;
    let first = seen(&kit).expect("the mark of the notice Ada saw");
    assert_eq!(first.len(), 16);
    // The same notice again: the turn says nothing of it, nothing is written.
    let revision = kit.host.store().revision();
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada two"}))
        .await;
    settled(&kit, &room).await;
    assert_eq!(kit.host.store().revision(), revision);
    kit.ok(
        "update-room",
        json!({"id": room.id, "notice": "Ship on Monday."}),
    )
    .await;
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada three"}))
        .await;
    settled(&kit, &room).await;
    assert_eq!(kit.said(&room, &ada), ["ok", "ok", "saw the change"]);
    assert_ne!(seen(&kit).unwrap(), first);
    let texts = kit.user_texts(&kit.seat(&room, &ada));
    assert_eq!(
        texts
            .iter()
            .filter(|t| t.contains("notice changed"))
            .count(),
        1,
        "{texts:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_task_lead_that_is_not_a_member_is_refused_and_no_room_is_made() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    kit.refused(
        "create-room",
        json!({"name": "Ship", "members": [ada.id], "taskLead": bo.id}),
        "bot/invalid",
    )
    .await;
    let (_, state) = kit.state().await;
    let rooms = state["rooms"].as_array().unwrap();
    assert!(rooms.iter().all(|r| r["name"] != "Ship"), "{rooms:?}");
}

/// `read_group_chat` (#1203): a member reads an exact earlier line of the
/// group it speaks in; a Bot outside the group reads nothing of it.
#[tokio::test(start_paused = true)]
/// Rule #1203.
async fn read_group_chat_hands_back_an_exact_earlier_line_to_members_only() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "@Ada what did line 1 say", "step": 0},
         "reply": {"toolCalls": [{"name": "read_group_chat", "arguments": {"seq": 1}}]}},
        {"when": {"userContains": "peek", "step": 0},
         "reply": {"toolCalls": [{"name": "read_group_chat", "arguments": {"group": "Build"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "read"}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let (room, [ada, _bo, _cy]) = room_of_three(&kit).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "the key is blue"}),
    )
    .await;
    settled(&kit, &room).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Ada what did line 1 say?"}),
    )
    .await;
    settled(&kit, &room).await;
    let results = kit.tool_results(&kit.seat(&room, &ada));
    assert_eq!(results.len(), 1, "{results:?}");
    let (text, is_error) = &results[0];
    assert!(!is_error);
    assert!(
        text.starts_with("#1 ") && text.ends_with(": the key is blue"),
        "{text}"
    );
    let outsider = kit.bot("Dee").await;
    kit.say(&outsider.session, "peek");
    kit.idle(&outsider.session).await;
    let refused = kit.tool_results(&outsider.session);
    assert_eq!(
        refused,
        [(
            "You are not a member of a group named Build.".to_owned(),
            true
        )]
    );
}

/// Ended turns (#353) list a group turn under its room, and a failed turn
/// reads as the #1347 sentence for its code, never the provider's text.
#[tokio::test(start_paused = true)]
/// Rules #353, #1347.
async fn ended_turns_list_group_turns_by_room_with_the_sentence() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Ada\n"},
         "fail": {"status": 401, "code": "invalid_api_key"}},
        {"reply": {"text": "on it"}}
    ]))
    .await;
    let (room, [ada, bo, _cy]) = room_of_three(&kit).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@all go"}))
        .await;
    settled(&kit, &room).await;
    let (_, state) = kit.state().await;
    let ended = state["work"]["ended"].as_array().unwrap();
    let of = |bot: &str| ended.iter().find(|e| e["botId"] == bot).cloned().unwrap();
    let bo_turn = of(&bo.id);
    assert_eq!(bo_turn["roomId"], room.id.as_str());
    assert!(bo_turn.get("sessionId").is_none(), "{bo_turn}");
    assert_eq!(bo_turn["kind"], "completed");
    let ada_turn = of(&ada.id);
    assert_eq!(
        ada_turn["failed"],
        "The provider refused the API key. Check it in Settings → Models."
    );
    assert_eq!(ada_turn["silent"], true);
    assert_eq!(ada_turn["streak"], 1);
}
