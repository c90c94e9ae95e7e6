//! Work handed out from a group (#550, #553): a room card's question shows
//! in the room in the asking Bot's voice, once, and the handed-out cards
//! show per Bot in the state view's `work`.

use flybot_protocol::state::TaskStatus;
use flybot_testkit::Kit;
use serde_json::json;
use std::time::Duration;

const QUESTION: &str = "Question on \"Ask first\": Postgres or SQLite?";

#[tokio::test(start_paused = true)]
async fn a_room_cards_question_shows_in_the_room_once_and_the_work_view_lists_handed_out_cards_550_553()
 {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "split", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Idle work", "assignee": "Dev1"},
             {"title": "Ask first", "assignee": "Dev2"}]}}]}},
        {"when": {"systemContains": "## You are Dev2\n", "userContains": "[Continue task]", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ask first", "ask": "Postgres or SQLite?"}]}}]}},
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "Noted."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [lead, dev1, dev2] = kit.bots(["Lead", "Dev1", "Dev2"]).await;
    let room = kit.room("Ship", &[&lead, &dev1, &dev2]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "split"}))
        .await;
    let asked = |kit: &Kit| {
        kit.room_lines(&room)
            .into_iter()
            .filter(|l| l.text == QUESTION)
            .collect::<Vec<_>>()
    };
    kit.until("the question shows in the room", || !asked(&kit).is_empty())
        .await;
    let line = &asked(&kit)[0];
    assert_eq!(line.author_id, dev2.id, "in the asking Bot's voice");
    // More writes and wakes later: still one line for the one question.
    tokio::time::sleep(Duration::from_secs(5 * 60)).await;
    kit.round_ended(&room).await;
    assert_eq!(asked(&kit).len(), 1);

    let (status, state) = kit.state().await;
    assert_eq!(status, 200);
    let handed = &state["work"]["handed"];
    let ask = &handed[&dev2.id][0];
    assert_eq!(ask["title"], "Ask first");
    assert_eq!(ask["roomId"], json!(room.id));
    assert_eq!(ask["status"], json!(TaskStatus::Blocked));
    assert_eq!(ask["waitingFor"], "input");
    assert_eq!(handed[&dev1.id][0]["title"], "Idle work");
    assert!(handed.get(&lead.id).is_none(), "{handed}");
}

/// #550, #553: Lead hands Dev work with `message_bot` from its group
/// Session; Dev's `ask_user` in that turn waits in the group's dock
/// (`state.questions[roomId]`), and `answer-question` routes the answer to
/// Dev as a request from Lead naming the group, with one quiet notice.
#[tokio::test(start_paused = true)]
async fn a_question_on_work_handed_out_from_a_group_waits_in_its_dock_and_the_answer_goes_back_550_553()
 {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "hand it over", "step": 0},
         "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Dev", "text": "build the parser"}}]}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "[Answer from the group Ship]", "step": 0},
         "reply": {"text": "Using SQLite."}},
        {"when": {"systemContains": "## You are Dev\n", "userContains": "build the parser", "step": 0},
         "reply": {"toolCalls": [{"name": "ask_user", "arguments": {"question": "Postgres or SQLite?"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "Done for now."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let as_ada = kit.as_member(&ada);
    let [lead, dev] = as_ada.bots(["Lead", "Dev"]).await;
    let room = as_ada.room("Ship", &[&lead]).await;
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
    assert_eq!(
        card,
        json!({"header": "Dev", "botId": dev.id, "question": "Postgres or SQLite?",
               "replyTo": {"botId": lead.id, "hop": 1}, "allowCustom": true,
               "askedAt": card["askedAt"]})
    );
    kit.idle(&dev.session).await;
    // Dev's own chat draws no question card for it: it waits in the group.
    let chat = as_ada.ok("messages", json!({"botId": dev.id})).await;
    let kinds: Vec<&str> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert!(!kinds.contains(&"question"), "{kinds:?}");
    assert!(kinds.contains(&"tool-call"), "{kinds:?}");
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
    let answered = as_ada
        .ok(
            "answer-question",
            json!({"roomId": room.id, "answer": "SQLite"}),
        )
        .await;
    assert_eq!(answered["delivered"], true);
    let (_, state) = as_ada.state().await;
    assert_eq!(state["questions"], json!({}));
    kit.idle(&dev.session).await;
    let answer = kit
        .user_texts(&dev.session)
        .into_iter()
        .find(|t| t.contains("[Answer from the group Ship]"))
        .unwrap();
    assert!(
        answer.contains("Postgres or SQLite?") && answer.contains("SQLite"),
        "{answer}"
    );
    let notices: Vec<String> = kit
        .room_lines(&room)
        .into_iter()
        .map(|l| l.text)
        .filter(|t| t.starts_with("Ada answered Dev"))
        .collect();
    assert_eq!(notices, ["Ada answered Dev: Postgres or SQLite? → SQLite"]);
    // Answered once: the card is gone.
    as_ada
        .refused(
            "answer-question",
            json!({"roomId": room.id, "answer": "again"}),
            "bot/not-found",
        )
        .await;
}
