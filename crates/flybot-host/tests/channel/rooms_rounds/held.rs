//! Held sends (#52, #754, #587): a `message_bot` to another owner's Bot
//! that reach allows through grants is held for the sender's owner with a
//! requestId, a sha256 version and the server-derived owner and origin;
//! only that owner's session decides it; an allow revalidates before it
//! delivers and a hold that no longer holds is stale; deleting a Bot makes
//! its holds stale at once.

use crate::approvals::{say, scripted_host, session_of};
use crate::support::{Session, TestHost};
use flybot_agent::session::{SessionEvent, Source};
use flybot_agent::tools::team::pending_approvals;
use serde_json::{Value, json};
use std::time::Duration;

struct Pair {
    ada: Session,
    bob: Session,
    ada_bot: String,
    bob_bot: String,
}

async fn pair(t: &TestHost) -> Pair {
    let ada = t.sign_in_owner("Ada").await;
    let bob = t.invite_member(&ada.token, "Bobby").await;
    let ada_bot = t.create_bot(Some(&ada.token), "Ada helper").await;
    let bob_bot = t.create_bot(Some(&bob.token), "Bob").await;
    let grant = |bot: &str, grantee: &str| json!({"botId": bot, "grants": [{"grantee": grantee}]});
    t.ok(
        Some(&bob.token),
        "set-grants",
        grant(&bob_bot, &ada.member_id),
    )
    .await;
    t.ok(
        Some(&ada.token),
        "set-grants",
        grant(&ada_bot, &bob.member_id),
    )
    .await;
    Pair {
        ada,
        bob,
        ada_bot,
        bob_bot,
    }
}

/// Ada's Bot messages Bob's Bot; answers the hold `approvals` lists.
async fn held(t: &TestHost, p: &Pair) -> Value {
    let session = say(t, &p.ada_bot, "tell bob");
    t.host.sessions().wait_idle(&session).await.unwrap();
    for _ in 0..500 {
        let list = t.ok(Some(&p.ada.token), "approvals", json!({})).await;
        if let Some(hold) = list["approvals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["kind"] == "held-send")
        {
            t.host.store().saves_settled().await;
            return hold.clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the send was never held");
}

fn from_ada(t: &TestHost, p: &Pair) -> Vec<String> {
    t.host
        .sessions()
        .transcript(&session_of(t, &p.bob_bot), 0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::UserMessage {
                text,
                source: Source::Bot { bot_id, .. },
                ..
            } if bot_id == p.ada_bot => Some(text),
            _ => None,
        })
        .collect()
}

fn record(t: &TestHost, id: &str) -> Value {
    t.host
        .store()
        .read(|s| serde_json::to_value(&s.flybot.approvals[id]).unwrap())
}

#[tokio::test]
async fn a_send_to_another_owners_bot_is_held_and_only_its_owner_releases_it_52_754() {
    let t = scripted_host();
    let p = pair(&t).await;
    let hold = held(&t, &p).await;
    let id = hold["id"].as_str().unwrap().to_owned();
    assert_eq!(hold["requestId"], json!(id));
    assert_eq!(hold["version"].as_str().unwrap().len(), 64);
    assert_eq!(hold["ownerId"], json!(p.ada.member_id));
    assert_eq!(hold["fromBot"], json!(p.ada_bot));
    assert_eq!(
        hold["origin"],
        json!({"via": "message_bot", "hop": 1, "audience": format!("bot:{}", p.bob_bot)})
    );
    assert_eq!(hold["status"], "pending");
    assert!(from_ada(&t, &p).is_empty(), "delivered before the decision");
    // list_bots' "N to approve" counts it (#587); Bob lists none of it.
    assert_eq!(t.host.store().read(|s| pending_approvals(s, &p.ada_bot)), 1);
    let bobs = t.ok(Some(&p.bob.token), "approvals", json!({})).await;
    assert_eq!(bobs["approvals"], json!([]));
    t.refused(
        Some(&p.bob.token),
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
        "bot/forbidden",
    )
    .await;
    t.refused(
        None,
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
        "bot/unauthorized",
    )
    .await;
    let answer = t
        .ok(
            Some(&p.ada.token),
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["status"], "approved");
    assert_eq!(answer["delivered"], true);
    t.host
        .sessions()
        .wait_idle(&session_of(&t, &p.bob_bot))
        .await
        .unwrap();
    assert_eq!(from_ada(&t, &p), ["please review"]);
    t.refused(
        Some(&p.ada.token),
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
        "bot/stale",
    )
    .await;
    assert_eq!(t.host.store().read(|s| pending_approvals(s, &p.ada_bot)), 0);
}

#[tokio::test]
async fn a_release_revalidates_and_a_revoked_grant_makes_the_hold_stale_52() {
    let t = scripted_host();
    let p = pair(&t).await;
    let id = held(&t, &p).await["id"].as_str().unwrap().to_owned();
    t.ok(
        Some(&p.bob.token),
        "set-grants",
        json!({"botId": p.bob_bot, "grants": []}),
    )
    .await;
    let answer = t
        .ok(
            Some(&p.ada.token),
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["status"], "stale");
    assert_eq!(answer["approval"]["staleReason"], "unreachable");
    assert_eq!(answer["delivered"], false);
    assert!(from_ada(&t, &p).is_empty());
}

#[tokio::test]
async fn a_changed_hold_is_stale_and_deleting_a_bot_invalidates_its_holds_52() {
    let t = scripted_host();
    let p = pair(&t).await;
    // The content no longer matches its version: stale, never sent.
    let id = held(&t, &p).await["id"].as_str().unwrap().to_owned();
    let mut changed = record(&t, &id);
    changed["text"] = json!("wire the money");
    t.host
        .store()
        .mutate("test", |c| {
            c.put_approval(&id, &changed);
            Ok(())
        })
        .await
        .unwrap();
    let answer = t
        .ok(
            Some(&p.ada.token),
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["staleReason"], "changed");
    assert!(from_ada(&t, &p).is_empty());
    // Deleting the target Bot makes the waiting hold stale at once.
    let id = held(&t, &p).await["id"].as_str().unwrap().to_owned();
    t.ok(Some(&p.bob.token), "delete-bot", json!({"id": p.bob_bot}))
        .await;
    let gone = record(&t, &id);
    assert_eq!(gone["status"], "stale");
    assert_eq!(gone["staleReason"], "target-gone");
    let list = t.ok(Some(&p.ada.token), "approvals", json!({})).await;
    assert_eq!(list["approvals"], json!([]));
}
