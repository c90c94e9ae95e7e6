//! The counts and lists a remote chat shows (issue 33): a friend's chat's
//! lines still in the outbox (`pendingCount`, #371), a published Bot's
//! replies to friends (`heldReplies`, #417, #418, never their text), the
//! senders seen per Bot (#420 `firstContact`, and `friendLineAt` in the
//! roster) and a row's preview (#130).

use super::{alice_publishes_to_bob, remote_bot, until, view};
use flybot_agent::session::{SessionEvent, Source};
use flybot_core::fences::preview::visible_text;
use flybot_testkit::synapse::start_private_synapse;
use serde_json::json;

/// The `firstContact` marks of the friend lines a Bot's chat took.
fn first_contacts(kit: &flybot_testkit::Kit, session: &str) -> Vec<bool> {
    kit.transcript(session)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::UserMessage {
                source: Source::Friend { first_contact, .. },
                ..
            } => Some(first_contact),
            _ => None,
        })
        .collect()
}

#[tokio::test]
/// Rules #130, #371, #417, #418, #420.
async fn pending_count_held_replies_first_contact_and_the_preview() {
    let Some(mut synapse) = start_private_synapse().await else {
        return;
    };
    let (alice, bob, helper, room) = alice_publishes_to_bob(&synapse).await;
    // #371: a line the homeserver has not taken counts on its chat's row.
    synapse.stop().await;
    let body = json!({"roomId": room, "text": "first question"});
    bob.kit.ok("social-send", body).await;
    let waiting = view(&bob.kit).await;
    let row = remote_bot(&waiting, "Helper (Owner)").unwrap();
    assert_eq!(row["pendingCount"], 1, "{row}");
    synapse.start().await;
    let seen = until(&bob.kit, "the first answer", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["lines"].as_array().unwrap().len() == 2)
    })
    .await;
    let row = remote_bot(&seen, "Helper (Owner)").unwrap();
    assert_eq!(row["pendingCount"], 0);
    // #130: the row's preview is the last line as a person may see it.
    let last = row["lines"][1]["text"].as_str().unwrap();
    assert_eq!(row["preview"], visible_text(last));
    assert!(!row["preview"].as_str().unwrap().contains("untrusted"));

    let body = json!({"roomId": room, "text": "second question"});
    bob.kit.ok("social-send", body).await;
    until(&bob.kit, "the second answer", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["lines"].as_array().unwrap().len() == 4)
    })
    .await;
    // #420: Bob's first line to Helper says so; the second does not.
    assert_eq!(first_contacts(&alice.kit, &helper.session), [true, false]);
    // #420: Alice's roster stamps Helper with when a friend's line last
    // reached it; a Bot no friend wrote to carries no stamp.
    let quiet = alice.kit.bot("Quiet").await;
    let roster = alice.kit.ok("state", json!({})).await;
    let bot_in = |id: &str| {
        roster["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == id)
            .cloned()
            .unwrap()
    };
    assert!(
        bot_in(&helper.id)["friendLineAt"]
            .as_u64()
            .is_some_and(|at| at > 0),
        "{roster}"
    );
    assert!(bot_in(&quiet.id).get("friendLineAt").is_none());

    // #417, #418: Helper's replies, on Alice's view, with no text.
    let seen = until(&alice.kit, "both replies sent", |v| {
        v["bots"][0]["heldReplies"]
            .as_array()
            .is_some_and(|r| r.len() == 2 && r.iter().all(|r| r["status"] == "auto"))
    })
    .await;
    let mine = &seen["bots"][0];
    assert_eq!(mine["botId"], helper.id);
    assert_eq!(mine["pendingCount"], 0);
    for reply in mine["heldReplies"].as_array().unwrap() {
        assert_eq!(reply["friend"], bob.user);
        assert_eq!(reply["sessionId"], helper.session);
        assert_eq!(reply["toOwner"], true, "Bob typed the lines (#227)");
        assert_eq!(reply["policy"], "auto-send");
        assert!(reply.get("text").is_none() && !reply.to_string().contains("question"));
    }
    // Bob's home publishes nothing: no Bot of its own is listed.
    assert_eq!(view(&bob.kit).await["bots"], json!([]));
}
