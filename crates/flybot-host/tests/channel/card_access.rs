//! One card predicate on every surface (#1723) and no change to a card a
//! member does not manage: a member whose Bot sits in another owner's room
//! sees none of that owner's cards (state view, live stream, `tasks`,
//! `project-board`) and neither expires their leases nor binds their room.

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};

/// Ada's room holds Ada's Worker and Bob's Helper (granted to Ada), bound
/// to Ada's Project, with Ada's card on the Worker.
struct Shared {
    kit: Kit,
    ada: Member,
    bob: Member,
    room: String,
    project: String,
    worker: String,
    helper: String,
}

async fn shared() -> Shared {
    let kit = Kit::new().await;
    let [ada, bob] = kit.members(["Ada", "Bob"]).await;
    let worker = kit.as_member(&ada).bot("Worker").await.id;
    let helper = kit.as_member(&bob).bot("Helper").await.id;
    kit.as_member(&bob)
        .ok(
            "set-grants",
            json!({"botId": helper, "grants": [{"grantee": ada.member_id}]}),
        )
        .await;
    let room = kit
        .as_member(&ada)
        .room_from(json!({"name": "Shared", "members": [worker, helper], "admin": worker}))
        .await
        .id;
    let project = kit
        .as_member(&ada)
        .ok("project-create", json!({"name": "Site"}))
        .await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.as_member(&ada)
        .ok("project-bind", json!({"roomId": room, "project": project}))
        .await;
    Shared {
        kit,
        ada,
        bob,
        room,
        project,
        worker,
        helper,
    }
}

fn ids(rows: &Value) -> Vec<&str> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
/// Rule #1723.
async fn a_member_sees_none_of_another_owners_cards_on_any_surface() {
    let s = shared().await;
    let (kit, ada, bob) = (&s.kit, &s.ada, &s.bob);
    // Bob sees Ada's Worker (it sits in a room with his Helper) ...
    let (_, view) = kit.as_member(bob).state().await;
    assert!(view["bots"].to_string().contains(&s.worker));
    let mut bobs_live = kit.as_member(bob).live(None).await;
    let secret = kit
        .as_member(ada)
        .card_from(json!({"botId": s.worker, "title": "Ada's secret",
               "note": "private note", "roomId": s.room}))
        .await;
    let bobs = kit
        .as_member(bob)
        .card_from(json!({"botId": s.helper, "title": "Bob's own", "roomId": s.room}))
        .await;
    // ... but none of Ada's cards: the live stream names only his own card.
    let written = bobs_live.until("tasks.written", |_| true).await;
    assert_eq!(written.data["taskIds"], json!([bobs]));
    let (_, view) = kit.as_member(bob).state().await;
    assert_eq!(ids(&view["tasks"]), vec![bobs.as_str()]);
    assert!(!view.to_string().contains("private note"));
    let read = kit
        .as_member(bob)
        .ok("tasks", json!({"archive": true}))
        .await;
    assert_eq!(ids(&read["tasks"]), vec![bobs.as_str()]);
    let board = kit
        .as_member(bob)
        .ok("project-board", json!({"project": s.project}))
        .await;
    assert!(!board.to_string().contains(&secret));
    // Ada, the room's owner, sees both everywhere.
    let (_, view) = kit.as_member(ada).state().await;
    assert_eq!(view["tasks"].as_array().unwrap().len(), 2);
    let board = kit
        .as_member(ada)
        .ok("project-board", json!({"project": s.project}))
        .await;
    assert!(board.to_string().contains(&secret));
}

#[tokio::test]
/// Rules #1710, #1729.
async fn a_member_binds_no_room_it_does_not_own_and_expires_no_lease_it_does_not_manage() {
    let s = shared().await;
    let (kit, bob) = (&s.kit, &s.bob);
    let bobs_project = kit
        .as_member(bob)
        .ok("project-create", json!({"name": "Mine"}))
        .await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = kit.host.store().read(|s| serde_json::to_value(s).unwrap());
    // Bob manages his Project but neither owns nor administers Ada's room.
    kit.as_member(bob)
        .refused(
            "project-bind",
            json!({"roomId": s.room, "project": bobs_project}),
            "bot/forbidden",
        )
        .await;
    kit.as_member(bob)
        .refused(
            "project-bind",
            json!({"roomId": s.room, "project": null}),
            "bot/forbidden",
        )
        .await;
    // Expiring leases as Bob touches none of Ada's cards.
    let expired = kit.as_member(bob).ok("task-expire-leases", json!({})).await;
    assert_eq!(expired["expired"], 0);
    let after = kit.host.store().read(|s| serde_json::to_value(s).unwrap());
    assert_eq!(after, before);
    let of = kit
        .as_member(&s.ada)
        .ok("project-of", json!({"roomId": s.room}))
        .await;
    assert_eq!(of["project"]["id"], s.project.as_str());
}
