//! Delivery and crash (#198): the inbox cursor of an OpenCode card is a
//! durable position in the room's log. Each line delivered to Coder is
//! journaled at the sequence number of the room line that called its
//! turn; Coder's own replies and progress never move it. OpenCode is the
//! scripted fake.

use crate::opencode_room::{fake_host, follow_the_pilot, seat_folder, set_up};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_the_inbox_cursor_follows_the_room_log() {
    let kit = fake_host().await;
    let p = set_up(&kit, "mock").await;
    follow_the_pilot(&kit, &p).await;
    kit.card_when(&p.task, "result-ready").await;
    let folder = seat_folder(&kit, &p).join("journal");
    let records: Vec<Value> = std::fs::read_to_string(folder.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r["type"] == "ingress")
        .collect();
    let lines = kit.room_lines(&p.room);
    let author_of = |seq: u64| {
        lines
            .iter()
            .find(|l| l.seq == seq)
            .map(|l| l.author_id.clone())
            .unwrap_or_else(|| panic!("no room line {seq}"))
    };
    // Bot A's request and answer: each at the room line Ada wrote to call
    // Coder, the answer's further on than the request's.
    let delivered: Vec<u64> = records
        .iter()
        .filter(|r| r["context"]["senderBot"] == p.ada.as_str())
        .map(|r| r["cursor"].as_u64().unwrap())
        .collect();
    assert_eq!(delivered.len(), 2, "{records:#?}");
    assert!(delivered[0] < delivered[1], "{delivered:?}");
    for seq in &delivered {
        assert_eq!(author_of(*seq), p.ada, "line {seq}");
    }
    // Coder's replies and progress are journaled where the cursor stood.
    for r in records
        .iter()
        .filter(|r| r["context"]["senderBot"] == p.coder.as_str())
    {
        let at = r["cursor"].as_u64().unwrap();
        assert!(delivered.contains(&at), "{r}");
    }
    let cursor = std::fs::read_to_string(folder.join("inbox.cursor")).unwrap();
    assert_eq!(cursor.trim(), delivered[1].to_string());
}
