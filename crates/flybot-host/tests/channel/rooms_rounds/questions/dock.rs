//! A question on work handed out from a group waits in that group's dock
//! (#550): answered there (the answer goes back to the asking Bot as a
//! hidden request keeping the asking turn's origin from its owner, and the
//! Bot's reply goes back to the group), or dismissed there; others are
//! refused and nothing changes.

use flybot_agent::session::{SessionEvent, Source};
use flybot_testkit::{Caller, Kit, Room};
use serde_json::{Value, json};

fn script() -> Value {
    json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "Using SQLite", "step": 0},
         "reply": {"text": "Good."}},
        {"when": {"systemContains": "## You are Lead\n", "userContains": "hand it over", "step": 0},
         "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Dev", "text": "build the parser"}}]}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "[Answer from the group Ship]", "step": 0},
         "reply": {"text": "Using SQLite."}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "build the parser", "step": 0},
         "reply": {"toolCalls": [{"name": "ask_user", "arguments": {"question": "Postgres or SQLite?"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "[PASS]"}},
        {"reply": {"text": "[PASS]"}}
    ])
}

/// Ada's room with Lead; Lead hands Dev the work and Dev's question waits.
async fn asked<'k>(kit: &'k Kit, as_ada: &Caller<'k>) -> (Room, Value) {
    let room = kit_room(as_ada).await;
    as_ada
        .ok(
            "send",
            json!({"roomId": room.id, "text": "@Lead hand it over"}),
        )
        .await;
    let card = kit
        .until_some("the question waits in the dock", async || {
            let (_, state) = as_ada.state().await;
            let card = state["questions"][&room.id].clone();
            (!card.is_null()).then_some(card)
        })
        .await;
    (room, card)
}

async fn kit_room(as_ada: &Caller<'_>) -> Room {
    let [lead, _dev] = as_ada.bots(["Lead", "Dev"]).await;
    as_ada.room("Ship", &[&lead]).await
}

fn notices(kit: &Kit, room: &Room, start: &str) -> Vec<String> {
    kit.room_lines(room)
        .into_iter()
        .map(|l| l.text)
        .filter(|t| t.starts_with(start))
        .collect()
}

/// #550, #553: Dev's `ask_user` in handed-out work waits in the group's
/// dock (`state.questions[roomId]`) with the asking turn's origin;
/// `answer-question` routes the answer to Dev as a hidden request from
/// Lead naming the group and keeping that origin (Ada owns Dev), the room
/// shows one quiet notice, and Dev's reply goes back to the group.
#[tokio::test(start_paused = true)]
/// Rules #550, #553.
async fn a_question_on_work_handed_out_from_a_group_waits_in_its_dock_and_the_answer_goes_back() {
    let kit = Kit::scripted(script()).await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let as_ada = kit.as_member(&ada);
    let (room, card) = asked(&kit, &as_ada).await;
    let (lead, dev) = (kit.bot_named("Lead"), kit.bot_named("Dev"));
    assert_eq!(
        card,
        json!({"header": "Dev", "botId": dev, "question": "Postgres or SQLite?",
               "replyTo": {"botId": lead, "hop": 1}, "allowCustom": true,
               "askedAt": card["askedAt"], "origin": ada.member_id})
    );
    let dev_session = kit.host.store().read(|s| s.bots[&dev].session_id.clone());
    kit.idle(&dev_session).await;
    // Attack: Bob sees no card and cannot answer it; a blank answer is
    // refused; nothing changes.
    let (_, bobs) = kit.as_member(&bob).state().await;
    assert_eq!(bobs["questions"], json!({}));
    let body = json!({"roomId": room.id, "answer": "Postgres"});
    kit.as_member(&bob)
        .refused("answer-question", body, "bot/not-found")
        .await;
    as_ada
        .refused(
            "answer-question",
            json!({"roomId": room.id, "answer": "  "}),
            "bot/invalid",
        )
        .await;
    let (_, state) = as_ada.state().await;
    assert_eq!(state["questions"][&room.id], card);
    let answered = as_ada
        .ok(
            "answer-question",
            json!({"roomId": room.id, "answer": "SQLite"}),
        )
        .await;
    assert_eq!(answered["delivered"], true);
    let (_, state) = as_ada.state().await;
    assert_eq!(state["questions"], json!({}));
    // Dev's reply to the answer goes back to the group, calling Lead.
    kit.until("Dev's reply is in the group", || {
        kit.room_lines(&room)
            .iter()
            .any(|l| l.author_id == dev && l.text == "@Lead Using SQLite.")
    })
    .await;
    kit.idle(&dev_session).await;
    let answer = kit
        .transcript(&dev_session)
        .into_iter()
        .find_map(|e| match e {
            SessionEvent::UserMessage { text, source, .. }
                if text.contains("[Answer from the group Ship]") =>
            {
                Some((text, source))
            }
            _ => None,
        })
        .unwrap();
    assert!(
        answer.0.contains("Postgres or SQLite?") && answer.0.contains("SQLite"),
        "{}",
        answer.0
    );
    assert_eq!(
        answer.1,
        Source::Bot {
            bot_id: lead.clone(),
            hops: 2,
            room_id: Some(room.id.clone()),
            origin: Some(ada.member_id.clone()),
        }
    );
    assert_eq!(
        notices(&kit, &room, "Ada answered Dev"),
        ["Ada answered Dev: Postgres or SQLite? → SQLite"]
    );
    // Dev's own chat draws none of it: no card, no request, no turn.
    let chat = as_ada.ok("messages", json!({"botId": dev})).await;
    assert_eq!(chat["messages"], json!([]), "{chat}");
    // Answered once: the card is gone.
    as_ada
        .refused(
            "answer-question",
            json!({"roomId": room.id, "answer": "again"}),
            "bot/not-found",
        )
        .await;
}

/// #550: whoever may answer the card may dismiss it; another member is
/// refused and the card stays; a dismissed card is gone with one quiet
/// notice, and the asking Bot is told nothing.
#[tokio::test(start_paused = true)]
/// Rule #550.
async fn a_waiting_question_is_dismissed_by_whoever_may_answer_it_and_no_one_else() {
    let kit = Kit::scripted(script()).await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let as_ada = kit.as_member(&ada);
    let (room, card) = asked(&kit, &as_ada).await;
    let dev = kit.bot_named("Dev");
    let dev_session = kit.host.store().read(|s| s.bots[&dev].session_id.clone());
    kit.idle(&dev_session).await;
    let heard = kit.user_texts(&dev_session).len();
    let body = json!({"roomId": room.id});
    kit.as_member(&bob)
        .refused("dismiss-question", body.clone(), "bot/not-found")
        .await;
    as_ada
        .refused(
            "dismiss-question",
            json!({"roomId": "room-none"}),
            "bot/not-found",
        )
        .await;
    as_ada
        .refused(
            "dismiss-question",
            json!({"roomId": room.id, "answer": "x"}),
            "bot/invalid",
        )
        .await;
    let (_, state) = as_ada.state().await;
    assert_eq!(state["questions"][&room.id], card, "the card stays");
    let dismissed = as_ada.ok("dismiss-question", body.clone()).await;
    assert_eq!(
        dismissed,
        json!({"ok": true, "roomId": room.id, "dismissed": true})
    );
    let (_, state) = as_ada.state().await;
    assert_eq!(state["questions"], json!({}));
    assert_eq!(
        notices(&kit, &room, "Ada dismissed"),
        ["Ada dismissed Dev's question: Postgres or SQLite?"]
    );
    kit.idle(&dev_session).await;
    assert_eq!(
        kit.user_texts(&dev_session).len(),
        heard,
        "Dev is told nothing"
    );
    as_ada
        .refused("dismiss-question", body, "bot/not-found")
        .await;
}
