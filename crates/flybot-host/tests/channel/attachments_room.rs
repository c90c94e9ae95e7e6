//! Attachments on room lines (issue 32): a line and the ids it carries are
//! one record of the turn log, so no crash keeps one without the other; a
//! posting a crash cut off after the line is put back at the next start;
//! and a Bot's `attach_file` in its room seat puts the file on its room
//! line, readable by the members whose window covers it (#50).

use base64::Engine;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::MockModel;
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_store::room_log::NewLine;
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use flybot_testkit::{Kit, within};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The JSON lines of `path` that mention `needle`.
fn lines_with(path: &std::path::Path, needle: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(needle))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn a_room_line_and_its_attachments_are_one_record_of_one_write() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada.bot("Quill").await;
    let room = ada.room("Desk", &[&bot]).await;
    let id = ada
        .ok(
            "attachment-upload",
            json!({"name": "plan.md", "data": b64(b"Ship on Friday.")}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"roomId": room.id, "text": "the PLAN-7 line", "attachments": [id]});
    let sent = ada.ok("send", body).await;
    let seq = sent["seq"].as_u64().unwrap();
    // The turn log's journal holds the line once, with its ids in it.
    let journal = lines_with(&kit.home().join("turns.jsonl"), "PLAN-7");
    assert_eq!(journal.len(), 1, "{journal:?}");
    assert!(journal[0].to_string().contains(&id), "{}", journal[0]);
    kit.settled().await;
    let path = kit.home().join("rooms").join(format!("{}.jsonl", room.id));
    let mut stored = lines_with(&path, "PLAN-7");
    // The Bot's answer may quote the line; the person's line is the one.
    stored.retain(|l| l["seq"] == seq);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["seq"], seq);
    assert_eq!(stored[0]["attachments"], json!([id]));
    let posted = kit
        .host
        .store()
        .read(|s| s.attachments[&id].postings.clone());
    assert_eq!(
        posted,
        vec![flybot_protocol::attachment::Posting::Room {
            room_id: room.id.clone(),
            seq
        }]
    );
}

#[tokio::test]
/// Rule #50.
async fn a_posting_a_crash_cut_off_after_the_line_is_put_back_at_the_next_start() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (a, b) = (kit.as_member(&ada), kit.as_member(&bob));
    let hers = a.bot("Quill").await;
    let his = b.bot("Wren").await;
    let grant = json!({"botId": his.id, "grants": [{"grantee": ada.member_id}]});
    b.ok("set-grants", grant).await;
    let room = a.room("Desk", &[&hers, &his]).await;
    let id = a
        .ok(
            "attachment-upload",
            json!({"name": "plan.md", "data": b64(b"Ship on Friday.")}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The crash: the line and its ids are durable, the posting never was.
    let line = NewLine {
        author_id: ada.member_id.clone(),
        author_kind: AuthorKind::Human,
        kind: LineKind::Chat,
        text: "the plan".into(),
        at: 1,
        hop: 0,
    };
    kit.host
        .rooms()
        .append_carrying(&room.id, line, vec![id.clone()])
        .unwrap();
    let (status, _, _) = b.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 404, "without its posting the file stays closed");
    let kit = kit.restart().await;
    let b = kit.as_member(&bob);
    let (status, _, bytes) = b.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200, "the start put the posting back");
    assert_eq!(bytes, b"Ship on Friday.");
}

/// A reply that calls `attach_file` on `path`.
fn attach_call(path: &str) -> Reply {
    let arguments = json!({ "path": path }).to_string();
    let call = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "attach_file", "arguments": arguments}}]},
        "finish_reason": "tool_calls"}]});
    Reply::stream(&[&call.to_string(), "[DONE]"], End::Close)
}

#[tokio::test]
/// Rule #50.
async fn a_bots_attach_file_in_its_room_seat_puts_the_file_on_its_room_line() {
    let server = ScriptedProvider::start(vec![
        attach_call("notes.txt"),
        Reply::text("Notes attached."),
    ]);
    let config = models_config(&server.base_url, None);
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    let kit = Kit::with_config(move |host| host.models = Arc::new(models)).await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (a, b) = (kit.as_member(&ada), kit.as_member(&bob));
    let hers = a
        .bot_from(json!({"name": "Quill", "model": "remote"}))
        .await;
    let his = b.bot("Wren").await;
    let grant = json!({"botId": his.id, "grants": [{"grantee": ada.member_id}]});
    b.ok("set-grants", grant).await;
    let folder = flybot_store::workspaces::bot_workspace(kit.home(), &hers.id).unwrap();
    std::fs::write(folder.join("notes.txt"), b"Minutes: ship Friday.").unwrap();
    let room = a.room("Desk", &[&hers, &his]).await;
    a.ok(
        "send",
        json!({"roomId": room.id, "text": "@Quill share the notes"}),
    )
    .await;
    let line = within("Quill's line with its file", async {
        loop {
            let shown = b.ok("messages", json!({"roomId": room.id})).await;
            let found = shown["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["authorId"] == hers.id.as_str() && l.get("attachments").is_some())
                .cloned();
            if let Some(line) = found {
                return line;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert_eq!(line["text"], "Notes attached.");
    let id = line["attachments"][0].as_str().unwrap();
    kit.settled().await;
    let (status, headers, bytes) = b.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200, "Bob's window covers the line");
    assert_eq!(bytes, b"Minutes: ship Friday.");
    assert_eq!(headers["x-content-type-options"], "nosniff");
}
