//! The matrix's reads once Bob's Bot sits in Ada's room (issue 29, #53,
//! #1723): Bob may see the room and the Bots he meets there, but every
//! read still shows none of Ada's other records, her Bot's instructions
//! among them.

use super::Row;
use super::setup::{self, Ada};
use flybot_testkit::{Kit, Member};
use serde_json::json;

/// Bob sees the room, the Bots in it by their public face (#53) and the
/// Project the room is bound to; nothing else of Ada's.
#[tokio::test]
async fn a_member_whose_bot_sits_in_the_owners_room_reads_nothing_else_of_hers_29() {
    let (kit, ada, bob, bobs) = setup::ada_and_bob().await;
    seat_bobs_bot(&kit, &ada, &bob, &bobs).await;
    let private = ada.private_beyond_the_room();
    let mut failures = Vec::new();
    for (name, row) in super::table(&ada, &bobs) {
        let Row::Answers(body) = row else { continue };
        let (status, answer) = kit.as_member(&bob).post(name, body.clone()).await;
        let (sent, answer) = (body.to_string(), answer.to_string());
        let shown: Vec<&String> = private
            .iter()
            .filter(|id| !sent.contains(id.as_str()) && answer.contains(id.as_str()))
            .collect();
        if status >= 500 || !shown.is_empty() {
            failures.push(format!("{name}: answered {status}, shows Ada's {shown:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Bob grants his Bot to Ada, who seats it in her room.
async fn seat_bobs_bot(kit: &Kit, ada: &Ada, bob: &Member, bobs: &str) {
    let grant = json!({"botId": bobs, "grants": [{"grantee": ada.me.member_id}]});
    kit.as_member(bob).ok("set-grants", grant).await;
    let mut members = kit
        .host
        .store()
        .read(|s| s.rooms[&ada.room].members.clone());
    members.push(bobs.to_owned());
    let body = json!({"id": ada.room, "members": members});
    kit.as_member(&ada.me).ok("update-room", body).await;
    kit.settled().await;
}
