//! Sends held for the owner (#52, #417, #418), against a real Synapse: a
//! Bot whose policy is `ask-first` has its reply to a friend held, listed
//! beside the other holds (`approvals` → `friendHolds`) and on the Bot's
//! `heldReplies` as `pending`; Send lets it go (`approved`), Don't send
//! drops it (`rejected`), and Send after the share ended checks `reach()`
//! again and sends nothing (`failed`, #404's sentence, no Retry, #954).

use super::face_rooms::refusal;
use super::{alice_publishes_to_bob, remote_bot, until, view};
use flybot_core::social::NOT_SHARED;
use flybot_testkit::Kit;
use flybot_testkit::synapse::start_synapse;
use serde_json::{Value, json};

/// The sends held for the kit's owner, oldest first.
pub async fn friend_holds(kit: &Kit) -> Vec<Value> {
    let answer = kit.ok("approvals", json!({})).await;
    answer["friendHolds"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Awaits the first send held for the kit's owner.
pub async fn until_held(kit: &Kit, what: &str) -> Value {
    kit.until_some(what, async || friend_holds(kit).await.into_iter().next())
        .await
}

/// The lines of Alice's Helper on Bob's page that Alice's home wrote.
fn answers_on(view: &Value, alice: &str) -> usize {
    let row = remote_bot(view, "Helper (Owner)").unwrap();
    let lines = row["lines"].as_array().unwrap();
    lines.iter().filter(|l| l["fromHome"] == alice).count()
}

/// Helper's reply record `id` on Alice's view.
fn reply<'v>(view: &'v Value, id: &str) -> &'v Value {
    let replies = view["bots"][0]["heldReplies"].as_array().unwrap();
    replies.iter().find(|r| r["id"] == id).unwrap()
}

#[tokio::test]
/// Rules #52, #417, #418.
async fn a_reply_held_by_its_bots_policy_waits_for_send_and_reach_is_checked_again() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, bob, helper, room) = alice_publishes_to_bob(&synapse).await;
    let body = json!({"botId": helper.id, "policy": "ask-first"});
    let set = alice.kit.ok("social-policy", body).await;
    assert_eq!(set["bot"]["policy"], "ask-first");

    let ask = json!({"roomId": room, "text": "first question"});
    bob.kit.ok("social-send", ask).await;
    let held = until_held(&alice.kit, "Helper's reply held").await;
    assert_eq!(held["kind"], "friend-hold");
    assert_eq!(held["botId"], helper.id);
    assert_eq!(held["friend"], bob.user);
    assert_eq!(held["reply"], true);
    assert!(held["text"].as_str().unwrap().contains("first question"));
    let id = held["id"].as_str().unwrap().to_owned();
    // #418: waiting on its Bot, not in the outbox, not at Bob's.
    let seen = view(&alice.kit).await;
    assert_eq!(seen["bots"][0]["pendingCount"], 1);
    assert_eq!(seen["bots"][0]["policy"], "ask-first");
    assert_eq!(reply(&seen, &id)["status"], "pending");
    assert_eq!(reply(&seen, &id)["policy"], "ask-first");
    assert_eq!(seen["pendingCount"], 0, "a held reply is not in the outbox");
    assert_eq!(answers_on(&view(&bob.kit).await, &alice.user), 0);

    // Send: it goes, and stays `approved` once the homeserver took it.
    let sent = (alice.kit)
        .ok("social-hold-answer", json!({"id": id, "send": true}))
        .await;
    assert_eq!(sent["status"], "approved");
    until(&bob.kit, "the answer let go", |v| {
        answers_on(v, &alice.user) == 1
    })
    .await;
    let seen = until(&alice.kit, "the reply sent", |v| {
        v["bots"][0]["pendingCount"] == 0
    })
    .await;
    assert_eq!(reply(&seen, &id)["status"], "approved");
    assert!(friend_holds(&alice.kit).await.is_empty());
    let again = json!({"id": id, "send": true});
    // Bob's home may still answer the reply it got, over Alice's sync: the
    // refusal checks the holds it protects, not the whole home.
    refusal(
        alice.kit.post("social-hold-answer", again).await,
        "bot/not-found",
    );
    assert!(friend_holds(&alice.kit).await.is_empty());

    // Don't send: dropped, recorded as rejected.
    let ask = json!({"roomId": room, "text": "second question"});
    bob.kit.ok("social-send", ask).await;
    let held = until_held(&alice.kit, "the second reply held").await;
    let second = held["id"].as_str().unwrap().to_owned();
    let kept = (alice.kit)
        .ok("social-hold-answer", json!({"id": second, "send": false}))
        .await;
    assert_eq!(kept["status"], "rejected");
    let seen = view(&alice.kit).await;
    assert_eq!(reply(&seen, &second)["status"], "rejected");
    assert_eq!(seen["pendingCount"], 0, "nothing went to the outbox");

    // #52, #404: a share revoked while the reply was held: Send checks
    // reach() again, sends nothing and counts it failed, with no Retry.
    let ask = json!({"roomId": room, "text": "third question"});
    bob.kit.ok("social-send", ask).await;
    let held = until_held(&alice.kit, "the third reply held").await;
    let third = held["id"].as_str().unwrap().to_owned();
    let unpublish = json!({"botId": helper.id, "userId": bob.user});
    alice.kit.ok("social-unpublish", unpublish).await;
    let failed = (alice.kit)
        .ok("social-hold-answer", json!({"id": third, "send": true}))
        .await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"], NOT_SHARED);
    let seen = view(&alice.kit).await;
    let record = reply(&seen, &third);
    assert_eq!(record["status"], "failed");
    assert_eq!(
        record["retry"], false,
        "#954: no Retry for a share that ended"
    );
    assert_eq!(seen["pendingCount"], 0, "#52: nothing reached the outbox");
    assert_eq!(seen["bots"][0]["pendingCount"], 0);
    // The mark that ended the share follows the decisions in the room:
    // once Bob's row reads it, only the one answer let go reached him.
    let after = until(&bob.kit, "the share ended", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["shared"] == false)
    })
    .await;
    assert_eq!(answers_on(&after, &alice.user), 1);
}
