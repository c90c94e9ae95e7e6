//! A long room read from its end (issue 38): `messages {roomId, limit}`
//! answers the newest lines and `before` pages back through the lines the
//! host no longer holds in memory, to the first, with none lost or twice.

use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_store::room_log::{HELD_LINES, NewLine};
use flybot_testkit::Kit;
use serde_json::{Value, json};

fn seqs(answer: &Value) -> Vec<u64> {
    answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_long_room_is_read_from_its_end_and_paged_back_to_its_first_line() {
    let kit = Kit::new().await;
    let [ada] = kit.bots(["Ada"]).await;
    let room = kit
        .room_from(json!({"name": "Long", "members": [ada.id]}))
        .await;
    let logs = kit.host.rooms();
    let total = 2 * HELD_LINES as u64 + 500;
    for n in 1..=total {
        let line = NewLine {
            author_id: "owner".into(),
            author_kind: AuthorKind::Human,
            kind: LineKind::Chat,
            text: format!("line {n}"),
            at: n,
            hop: 0,
        };
        logs.append_soon(&room.id, line).unwrap();
    }
    logs.settled().await.unwrap();

    let newest = kit
        .ok("messages", json!({"roomId": room.id, "limit": 100}))
        .await;
    assert_eq!(seqs(&newest), (total - 99..=total).collect::<Vec<_>>());
    assert_eq!(newest["earlier"], true);
    assert_eq!(newest["messages"][99]["text"], format!("line {total}"));

    let mut read = seqs(&newest);
    let mut before = read[0];
    loop {
        let page = kit
            .ok(
                "messages",
                json!({"roomId": room.id, "before": before, "limit": 700}),
            )
            .await;
        let mut got = seqs(&page);
        assert!(got.iter().all(|s| *s < before));
        if page["earlier"] == false {
            got.append(&mut read);
            read = got;
            break;
        }
        before = got[0];
        got.append(&mut read);
        read = got;
    }
    assert_eq!(read, (1..=total).collect::<Vec<_>>());
    let whole = kit.ok("messages", json!({"roomId": room.id})).await;
    assert_eq!(seqs(&whole).len() as u64, total);
    assert_eq!(whole["earlier"], false);
}
