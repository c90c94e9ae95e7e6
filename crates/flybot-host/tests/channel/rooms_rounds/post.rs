//! `post_to_group` (#557): a Bot posts its own line into a group it sits
//! in from its own chat, and that line opens a round there; a Bot speaking
//! in a room never posts into that same room (its reply is its line).

use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};

fn tool_texts(kit: &Kit, session: &str) -> Vec<String> {
    kit.tool_results(session)
        .into_iter()
        .map(|(text, _)| text)
        .collect()
}

fn scenario() -> Value {
    json!([
        {"when": {"userContains": "post it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Build", "text": "@Bo please look"}}]}},
        {"when": {"userContains": "loop it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Build", "text": "again"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
        {"reply": {"text": "looked"}}
    ])
}

/// Ada and Bo in "Build", Bo its admin.
async fn room(kit: &Kit) -> (Room, Bot, Bot) {
    let ada = kit.bot("Ada").await;
    let bo = kit.bot("Bo").await;
    let room = kit
        .room_from(json!({"name": "Build", "members": [ada.id, bo.id], "admin": bo.id}))
        .await;
    (room, ada, bo)
}

#[tokio::test(start_paused = true)]
/// Rule #557.
async fn post_to_group_from_an_own_chat_opens_a_round_in_the_group() {
    let kit = Kit::scripted(scenario()).await;
    let (room, ada, bo) = room(&kit).await;
    kit.say(&ada.session, "post it");
    kit.until("Bo answers the post in the group", || {
        kit.said(&room, &bo).contains(&"looked".to_owned())
    })
    .await;
    let lines = kit.room_lines(&room);
    assert_eq!(lines[0].author_id, ada.id);
    assert_eq!(lines[0].text, "@Bo please look");
    assert_eq!(lines[0].hop, 1);
    assert!(tool_texts(&kit, &ada.session).contains(&"Posted to the group.".to_owned()));
}

#[tokio::test(start_paused = true)]
/// Rule #557.
async fn a_bot_never_posts_into_the_room_it_is_speaking_in() {
    let kit = Kit::scripted(scenario()).await;
    let (room, _ada, bo) = room(&kit).await;
    kit.ok("send", json!({"roomId": room.id, "text": "loop it"}))
        .await;
    kit.round_ended(&room).await;
    let results = tool_texts(&kit, &kit.seat(&room, &bo));
    assert!(
        results
            .iter()
            .any(|r| r.contains("do not post_to_group into it")),
        "{results:?}"
    );
    let lines = kit.room_lines(&room);
    assert!(!lines.iter().any(|l| l.text == "again"), "{lines:?}");
}

/// A post that names a member while a round runs calls that member inside
/// the running round (#932), not in a later round opened after the
/// closing report. Bo's turn waits on an approval, so the round is
/// certainly running when Ada posts.
#[tokio::test(start_paused = true)]
/// Rule #932.
async fn a_post_while_the_round_runs_calls_the_named_member_inside_it() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "post it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Build", "text": "@Cy please check"}}]}},
        {"when": {"systemContains": "## You are Cy\n"}, "reply": {"text": "checked"}},
        {"when": {"userContains": "@Bo build", "step": 0},
         "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "done"}}
    ]))
    .await;
    let [ada, bo, cy] = kit.bots(["Ada", "Bo", "Cy"]).await;
    let room = kit.room("Build", &[&ada, &bo, &cy]).await;
    let mut events = kit.events();
    kit.ok("send", json!({"roomId": room.id, "text": "@Bo build it"}))
        .await;
    let approval = kit
        .until_some("Bo's run_command waits for approval", async || {
            let answer = kit.ok("approvals", json!({})).await;
            answer["approvals"][0]["id"].as_str().map(str::to_owned)
        })
        .await;
    kit.say(&ada.session, "post it");
    kit.until("Ada's line is in the room", || {
        kit.said(&room, &ada)
            .contains(&"@Cy please check".to_owned())
    })
    .await;
    kit.ok(
        "approval-answer",
        json!({"id": approval, "answer": "allowed-once"}),
    )
    .await;
    let room_id = room.id.clone();
    events
        .until("the round ends", |event| {
            matches!(event, flybot_host::events::HostEvent::RoundEnded { room_id: r } if *r == room_id)
        })
        .await;
    assert_eq!(kit.said(&room, &cy), ["checked"]);
    assert_eq!(kit.said(&room, &bo), ["done"]);
    // Cy spoke inside the person's round: Ada's post opened no round of its
    // own (a round a Bot's line opens counts as a late one, #557).
    let late = kit.host.rooms().run(&room.id, |r| r.late_rounds);
    assert_eq!(late, 0, "Ada's post opened no round of its own");
}

/// A cross-room ping-pong of `post_to_group` (#557): each relay carries the
/// hop of the line its round answered, so the chain ends at `MAX_HOPS` with
/// the guard's sentence instead of running for ever.
#[tokio::test(start_paused = true)]
/// Rule #557.
async fn a_cross_room_ping_pong_of_posts_stops_at_max_hops() {
    let kit = Kit::scripted(json!([
        {"when": {"afterTool": "*"}, "reply": {"text": "sent"}},
        {"when": {"systemContains": "## You are Ada\n", "userContains": "[Group \"One\""},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Two", "text": "@Bo ping"}}]}},
        {"when": {"systemContains": "## You are Bo\n", "userContains": "[Group \"Two\""},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "One", "text": "@Ada pong"}}]}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let one = kit.room("One", &[&ada, &bo]).await;
    let two = kit.room("Two", &[&ada, &bo]).await;
    kit.ok("send", json!({"roomId": one.id, "text": "@Ada start"}))
        .await;
    let refusal = "This Bot-to-Bot chain is long enough; stop here and report to the person.";
    kit.until("a relay is refused at MAX_HOPS", || {
        [kit.seat(&one, &ada), kit.seat(&two, &bo)]
            .iter()
            .any(|seat| tool_texts(&kit, seat).iter().any(|t| t == refusal))
    })
    .await;
    kit.round_ended(&one).await;
    kit.round_ended(&two).await;
    let posts = |room: &Room| {
        kit.room_lines(room)
            .iter()
            .filter(|l| l.text.ends_with("ping") || l.text.ends_with("pong"))
            .map(|l| l.hop)
            .collect::<Vec<_>>()
    };
    let mut hops: Vec<u32> = posts(&one).into_iter().chain(posts(&two)).collect();
    hops.sort_unstable();
    let max = flybot_core::rooms::MAX_HOPS;
    assert_eq!(
        hops,
        (1..=max).collect::<Vec<_>>(),
        "one post per hop, up to MAX_HOPS"
    );
}
