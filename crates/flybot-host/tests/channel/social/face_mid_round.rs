//! Lines from elsewhere while a face-to-face round runs (#455, #595),
//! against a real Synapse: Bob's Bolt answers Alice's line with a command
//! that waits for Bob's approval, so Bob's round is certainly running when
//! Alice's second line comes, and when Bob's own Pia posts a line of her
//! own. Each shows in Bob's room at once, as its author's ordinary line
//! (never a header or a second copy), and Alice's line is routed after
//! the running round: Bolt answers it in a round of its own.

use super::face_rooms::{
    by, face_of, home_on, lines, lines_until, record, room_of, saying, settled,
};
use super::home;
use flybot_testkit::synapse::start_synapse;
use serde_json::{Value, json};

/// Bolt's first turn runs a command (an approval holds the round open);
/// every other answer of Bolt names the list it checked; Pia passes.
fn scenario() -> Value {
    json!([
        {"when": {"systemContains": "## You are Bolt\n", "step": 0}, "times": 1,
         "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "The first list is checked."}},
        {"when": {"systemContains": "## You are Bolt\n"}, "reply": {"text": "The second list is checked."}},
        {"reply": {"text": "[PASS]"}}
    ])
}

#[tokio::test]
/// Rules #455, #595.
async fn lines_that_arrive_mid_round_show_at_once_and_a_friends_line_is_routed_after_the_round() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let bob = home_on(&synapse, "bob", scenario()).await;
    let [bolt, pia] = bob.kit.bots(["Bolt", "Pia"]).await;
    let made = alice.kit.ok("face-room-create", json!({"bots": []})).await;
    let code = face_of(&made, "code");
    let at_alice = room_of(&made);
    let joined = json!({"code": code, "bots": [bolt.id, pia.id]});
    let at_bob = room_of(&bob.kit.ok("face-room-join", joined).await);
    lines_until(&alice.kit, &at_alice, "Bob's part", |_| {
        record(&alice.kit, &at_alice)["face"]["homes"][&bob.user].is_object()
    })
    .await;

    let first = json!({"roomId": at_alice.id, "text": "can someone check the first list?"});
    alice.kit.ok("send", first).await;
    let approval = (bob.kit)
        .until_some("Bolt's command waits for approval", async || {
            let answer = bob.kit.ok("approvals", json!({})).await;
            answer["approvals"][0]["id"].as_str().map(str::to_owned)
        })
        .await;

    // #455: Alice's second line, while Bob's round runs, is in his room at
    // once, shown as her line.
    let second = json!({"roomId": at_alice.id, "text": "and the second list, too"});
    alice.kit.ok("send", second).await;
    let seen = lines_until(&bob.kit, &at_bob, "Alice's second line", |l| {
        saying(l, &alice.user, "the second list") == 1
    })
    .await;
    let running = bob.kit.ok("messages", json!({"roomId": at_bob.id})).await;
    assert_eq!(running["running"], true, "the first round still runs");
    assert_eq!(by(&seen, &bolt.id), 0, "{seen:?}");
    // #595: Bob's own Pia posts into the room mid-round (the path of
    // `post_to_group`): her ordinary line, shown at once, no header.
    let rooms = bob.kit.host.rooms();
    rooms
        .post_bot_line(&at_bob.id, &pia.id, "Status: half done.", 1, false)
        .unwrap();
    let at_bob_lines = lines(&bob.kit, &at_bob);
    let pia_lines: Vec<&String> = (at_bob_lines.iter())
        .filter(|(a, _)| a == &pia.id)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(pia_lines, ["Status: half done."]);

    let allowed = json!({"id": approval, "answer": "allowed-once"});
    bob.kit.ok("approval-answer", allowed).await;
    let bolt_seat = format!("{}/{}", bob.user, bolt.id);
    let pia_seat = format!("{}/{}", bob.user, pia.id);
    // Pia's line and Bolt's answers reach Alice's home on their own sends:
    // the wait is for all of them, the count of each is checked below.
    let at_alice_lines = lines_until(
        &alice.kit,
        &at_alice,
        "Bolt's two answers and Pia's line",
        |l| {
            saying(l, &bolt_seat, "The second list is checked.") == 1
                && saying(l, &pia_seat, "Status: half done.") >= 1
        },
    )
    .await;
    settled(&bob.kit, &at_bob).await;
    let at_bob_lines = lines(&bob.kit, &at_bob);
    // Each line once on each home: nothing drawn or logged a second time.
    assert_eq!(saying(&at_bob_lines, &alice.user, "the second list"), 1);
    assert_eq!(saying(&at_bob_lines, &pia.id, "Status: half done."), 1);
    assert_eq!(by(&at_bob_lines, &bolt.id), 2, "{at_bob_lines:?}");
    assert_eq!(saying(&at_alice_lines, &bolt_seat, "The first list"), 1);
    assert_eq!(saying(&at_alice_lines, &pia_seat, "Status: half done."), 1);
    // Routed after the round: Bolt's answer to it follows both the first
    // answer and the line it answers.
    let at = |author: &str, what: &str| {
        (at_bob_lines.iter())
            .position(|(a, t)| a == author && t.contains(what))
            .unwrap()
    };
    let first_answer = at(&bolt.id, "The first list");
    let second_line = at(&alice.user, "the second list");
    let second_answer = at(&bolt.id, "The second list");
    assert!(
        second_answer > first_answer && second_answer > second_line,
        "{at_bob_lines:?}"
    );
    assert!(
        !(at_bob_lines.iter()).any(|(_, t)| t.starts_with('[')),
        "no raw header in the room: {at_bob_lines:?}"
    );
}
