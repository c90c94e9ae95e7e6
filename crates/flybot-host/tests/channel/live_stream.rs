//! The live stream a page redraws from (issue 12): numbered events, the
//! running answer's text as it streams, room lines, approvals asked and
//! answered, presence, a reconnect that resumes from its last id or is told
//! to resync, and each event only where the member may see it (#49).

use crate::approvals::scripted_kit;
use flybot_testkit::{Kit, LiveEvent};
use serde_json::json;

fn epoch_of(event: &LiveEvent) -> String {
    event.data["epoch"].as_str().unwrap().to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_page_opens_on_hello_then_the_revision_with_numbered_ids() {
    let kit = Kit::new().await;
    kit.bot("Ada").await;
    let mut live = kit.anyone().live(None).await;
    let hello = live.next().await;
    assert_eq!(hello.name, "hello");
    assert_eq!(hello.data["resumed"], false);
    let epoch = epoch_of(&hello);
    assert!(
        hello
            .id
            .as_deref()
            .unwrap()
            .starts_with(&format!("{epoch}."))
    );
    let revision = live.next().await;
    assert_eq!(revision.name, "revision");
    assert_eq!(revision.data["revision"], hello.data["revision"]);
}

#[tokio::test(start_paused = true)]
async fn the_running_answer_streams_as_text_deltas_that_make_the_logged_answer() {
    let kit = Kit::new().await;
    let ada = kit.bot("Ada").await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"botId": ada.id, "text": "hello"}))
        .await;
    let mut streamed = String::new();
    loop {
        let event = live.next().await;
        match event.name.as_str() {
            "text.delta" => {
                assert_eq!(event.data["sessionId"], ada.session.as_str());
                streamed.push_str(event.data["text"].as_str().unwrap());
            }
            "turn.ended" => break,
            _ => {}
        }
    }
    let messages = kit.ok("messages", json!({"botId": ada.id})).await;
    let answer = messages["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "assistant")
        .unwrap();
    assert!(!streamed.is_empty());
    assert_eq!(answer["text"], streamed.as_str());
}

#[tokio::test(start_paused = true)]
async fn a_person_line_in_a_room_is_announced_as_room_line() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"roomId": room.id, "text": "hello room"}))
        .await;
    let line = live
        .until("room.line", |data| data["roomId"] == room.id.as_str())
        .await;
    assert_eq!(line.data["seq"], 1);
}

#[tokio::test(start_paused = true)]
/// Rule #540.
async fn an_approval_is_announced_when_asked_and_when_answered() {
    let kit = scripted_kit().await;
    let ada = kit.bot("Ada").await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"botId": ada.id, "text": "run it"}))
        .await;
    let asked = live.until("approval.asked", |_| true).await;
    assert_eq!(asked.data["botId"], ada.id.as_str());
    assert_eq!(asked.data["sessionId"], ada.session.as_str());
    let id = asked.data["approvalId"].as_str().unwrap().to_owned();
    kit.ok(
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
    )
    .await;
    let answered = live.until("approval.answered", |_| true).await;
    assert_eq!(answered.data["approvalId"], id.as_str());
}

#[tokio::test(start_paused = true)]
async fn presence_lists_the_members_with_a_page_open() {
    let kit = Kit::new().await;
    let owner = kit.owner("Olga").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let mut olga_page = kit.as_member(&owner).live(None).await;
    let bob_page = kit.as_member(&bob).live(None).await;
    let both = olga_page
        .until("presence", |data| {
            data["memberIds"].as_array().unwrap().len() == 2
        })
        .await;
    let ids = both.data["memberIds"].as_array().unwrap();
    assert!(ids.contains(&json!(owner.member_id)) && ids.contains(&json!(bob.member_id)));
    drop(bob_page);
    let after = olga_page
        .until("presence", |data| {
            data["memberIds"].as_array().unwrap().len() == 1
        })
        .await;
    assert_eq!(after.data["memberIds"], json!([owner.member_id]));
}

#[tokio::test(start_paused = true)]
async fn a_page_that_reconnects_is_handed_what_it_missed_and_nothing_twice() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    let mut first = kit.anyone().live(None).await;
    kit.ok("send", json!({"roomId": room.id, "text": "one"}))
        .await;
    first.until("room.line", |data| data["seq"] == 1).await;
    let last = first.last_id.clone().unwrap();
    drop(first);
    kit.ok("send", json!({"roomId": room.id, "text": "two"}))
        .await;
    kit.round_ended(&room).await;
    let mut again = kit.anyone().live(Some(&last)).await;
    let hello = again.next().await;
    assert_eq!(hello.data["resumed"], true);
    assert_eq!(hello.id, None, "a resumed page keeps its own last id");
    // The missed lines come in order, the one already seen never again.
    let mut seqs = Vec::new();
    while seqs.last() != Some(&kit.host.rooms().last_seq(&room.id)) {
        let event = again.until("room.line", |_| true).await;
        seqs.push(event.data["seq"].as_u64().unwrap());
    }
    assert_eq!(seqs[0], 2);
    assert!(seqs.windows(2).all(|pair| pair[0] < pair[1]), "{seqs:?}");
}

#[tokio::test(start_paused = true)]
async fn a_last_id_of_another_start_of_the_host_gets_resync() {
    let kit = Kit::new().await;
    let mut live = kit.anyone().live(Some("live-0000000000000000.7")).await;
    let hello = live.next().await;
    assert_eq!(hello.data["resumed"], false);
    assert!(hello.id.is_some());
    assert_eq!(live.next().await.name, "resync");
    assert_eq!(live.next().await.name, "revision");
}

#[tokio::test(start_paused = true)]
/// Rule #49.
async fn a_member_never_sees_the_text_of_another_members_bot() {
    let kit = Kit::new().await;
    let owner = kit.owner("Olga").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let olga_bot = kit.as_member(&owner).bot("Ada").await;
    let bob_bot = kit.as_member(&bob).bot("Bea").await;
    let mut bob_page = kit.as_member(&bob).live(None).await;
    kit.as_member(&owner)
        .ok("send", json!({"botId": olga_bot.id, "text": "secret"}))
        .await;
    kit.idle(&olga_bot.session).await;
    kit.as_member(&bob)
        .ok("send", json!({"botId": bob_bot.id, "text": "mine"}))
        .await;
    // Bob's page shows his own Bot's answer; Olga's never reached it first.
    loop {
        let event = bob_page.next().await;
        if let Some(session) = event.data.get("sessionId") {
            assert_eq!(session, bob_bot.session.as_str(), "{event:?}");
            if event.name == "turn.ended" {
                break;
            }
        }
    }
}

#[tokio::test(start_paused = true)]
/// Rule #471.
async fn who_speaks_in_a_room_is_announced_and_in_the_state_view_with_its_call_count() {
    let kit = scripted_kit().await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada run it"}))
        .await;
    let speaking = live
        .until("room.speaking", |data| !data["botId"].is_null())
        .await;
    assert_eq!(speaking.data["roomId"], room.id.as_str());
    assert_eq!(speaking.data["botId"], ada.id.as_str());
    // Ada's turn waits on the owner's approval: she is the one speaking.
    let asked = live.until("approval.asked", |_| true).await;
    let (_, view) = kit.state().await;
    assert_eq!(view["work"]["rooms"][&room.id]["botId"], ada.id.as_str());
    // #471: the room's entry counts the speaking turn's tool calls; Ada's
    // own chat runs no turn, so nothing is counted there.
    assert_eq!(view["work"]["rooms"][&room.id]["calls"], 1);
    assert!(view["work"]["bots"].get(&ada.id).is_none(), "{view}");
    let id = asked.data["approvalId"].as_str().unwrap();
    kit.ok("approval-answer", json!({"id": id, "answer": "rejected"}))
        .await;
    live.until("room.speaking", |data| data["botId"].is_null())
        .await;
}

#[tokio::test(start_paused = true)]
/// Rule #396.
async fn a_recorded_decision_is_announced_as_decision_on_the_live_stream() {
    let kit = flybot_testkit::Kit::scripted(json!([
        {"when": {"userContains": "choose", "step": 0},
         "reply": {"toolCalls": [{"name": "record_decision", "arguments":
             {"option": "Postgres", "choice": "rejected", "why": "one file is enough"}}]}},
        {"reply": {"text": "done"}}
    ]))
    .await;
    let [ada] = kit.bots(["Ada"]).await;
    kit.host
        .team()
        .mutate("test", |change| {
            let mut bot = change.state().bots[&ada.id].clone();
            bot.record_decisions = Some(true);
            change.put_bot(&bot);
            Ok(())
        })
        .await
        .unwrap();
    let mut live = kit.anyone().live(None).await;
    kit.ok(
        "send",
        json!({"botId": ada.id, "text": "choose a database"}),
    )
    .await;
    let decided = live.until("decision", |_| true).await;
    assert_eq!(decided.data["botId"], ada.id.as_str());
    assert_eq!(decided.data["entry"]["option"], "Postgres");
    assert_eq!(decided.data["entry"]["choice"], "rejected");
    // The line the event carries is the one the file holds.
    let written =
        flybot_store::decisions::read_decisions(kit.host.config().home.as_path()).unwrap();
    assert_eq!(written, [decided.data["entry"].clone()]);
}
