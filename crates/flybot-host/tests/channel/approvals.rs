//! Tool approvals through the channel (#540, #754): a turn's `run_command`
//! waits for the owner's answer; allowed-once, rejected, a standing
//! always-bot covering the next ask, always-room refused for an own-chat
//! ask, a request nobody can answer rejected at once, another member's
//! approval forbidden, a decided one stale.

use crate::support::TestHost;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_agent::session::{ItemKind, Source};
use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The mock's script: "run it" runs `echo hi`, "write it" writes a file,
/// "tell bob" messages Bob, "ask me" asks the owner.
pub const SCRIPT: &str = r#"[
  {"when": {"userContains": "run it", "step": 0},
   "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
  {"when": {"userContains": "write it", "step": 0},
   "reply": {"toolCalls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hello"}}]}},
  {"when": {"userContains": "tell bob", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Bob", "text": "please review"}}]}},
  {"when": {"userContains": "ask me", "step": 0},
   "reply": {"toolCalls": [{"name": "ask_user", "arguments": {"question": "Which branch?"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "finished"}}
]"#;

/// A host whose mock follows `SCRIPT`.
pub fn scripted_host() -> TestHost {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut config = HostConfig::new(dir.path().to_owned());
    config.models = Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        Scenario::from_json(SCRIPT).unwrap(),
    )));
    let host = Host::new(store, config);
    TestHost { host, dir }
}

pub fn session_of(t: &TestHost, bot_id: &str) -> String {
    t.host.store().read(|s| s.bots[bot_id].session_id.clone())
}

/// Hands `text` to the Bot's chat as a person's line, past the settle window.
pub fn say(t: &TestHost, bot_id: &str, text: &str) -> String {
    let session = session_of(t, bot_id);
    t.host
        .sessions()
        .deliver(
            &session,
            text,
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    session
}

/// Waits until `token`'s `approvals` lists `n`.
async fn waiting(t: &TestHost, token: Option<&str>, n: usize) -> Vec<Value> {
    for _ in 0..500 {
        let answer = t.ok(token, "approvals", json!({})).await;
        let list = answer["approvals"].as_array().unwrap().clone();
        if list.len() == n {
            // The record is seen in memory before the store's revision
            // moves: let it settle so a refusal's fingerprint is stable.
            tokio::time::sleep(Duration::from_millis(100)).await;
            t.host.store().saves_settled().await;
            return list;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("approvals never reached {n}");
}

/// The last tool result of the Bot's chat.
async fn last_result(t: &TestHost, token: Option<&str>, bot_id: &str) -> Value {
    let answer = t.ok(token, "messages", json!({"botId": bot_id})).await;
    answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["kind"] == "tool-result")
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn allowed_once_runs_the_command_and_a_second_answer_is_stale() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let session = say(&t, &bot, "run it");
    let list = waiting(&t, None, 1).await;
    let approval = &list[0];
    assert_eq!(approval["botId"], bot);
    assert_eq!(approval["sessionId"], session);
    assert_eq!(approval["tool"], "run_command");
    assert_eq!(approval["status"], "waiting");
    assert!(approval["label"].as_str().unwrap().contains("echo hi"));
    assert!(approval["requestId"].is_string() && approval["ownerId"].is_string());
    // list_bots' tag counts it (#587).
    let pending = t
        .host
        .store()
        .read(|s| flybot_agent::tools::team::pending_approvals(s, &bot));
    assert_eq!(pending, 1);
    let id = approval["id"].as_str().unwrap().to_owned();
    let answered = t
        .ok(
            None,
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answered["approval"]["status"], "allowed-once");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = last_result(&t, None, &bot).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(result["text"].as_str().unwrap().contains("hi"), "{result}");
    t.refused(
        None,
        "approval-answer",
        json!({"id": id, "answer": "rejected"}),
        "bot/stale",
    )
    .await;
}

#[tokio::test]
async fn rejected_refuses_the_call_and_the_turn_goes_on() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let session = say(&t, &bot, "run it");
    let id = waiting(&t, None, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    t.ok(
        None,
        "approval-answer",
        json!({"id": id, "answer": "rejected"}),
    )
    .await;
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = last_result(&t, None, &bot).await;
    assert_eq!(result["isError"], true);
    assert!(
        result["text"].as_str().unwrap().contains("did not approve"),
        "{result}"
    );
    assert!(waiting(&t, None, 0).await.is_empty());
}

#[tokio::test]
async fn always_bot_is_kept_on_the_bot_and_covers_the_next_ask_540() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let session = say(&t, &bot, "run it");
    let id = waiting(&t, None, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // always-room is refused for an own-chat ask; nothing changes.
    t.refused(
        None,
        "approval-answer",
        json!({"id": id, "answer": "always-room"}),
        "bot/invalid",
    )
    .await;
    t.ok(
        None,
        "approval-answer",
        json!({"id": id, "answer": "always-bot"}),
    )
    .await;
    t.host.sessions().wait_idle(&session).await.unwrap();
    let grants = t
        .host
        .store()
        .read(|s| s.bots[&bot].extra["standingApprovals"].clone());
    assert_eq!(grants[0]["kind"], "run_command");
    assert!(grants[0]["at"].is_u64() && grants[0]["ownerId"].is_string());
    // The second ask runs at once: no approval waits.
    say(&t, &bot, "run it again");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = last_result(&t, None, &bot).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(waiting(&t, None, 0).await.is_empty());
    let all = t.host.store().read(|s| s.flybot.approvals.len());
    assert_eq!(all, 1, "the covered ask made no record");
}

#[tokio::test]
async fn a_request_nobody_can_answer_is_rejected_at_once() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    // The Bot's owner is not a member any more: nobody can answer.
    t.host
        .mutate("test", |change| {
            let mut ghost = change.state().bots[&bot].clone();
            ghost.owner_id = "member-gone".into();
            change.put_bot(&ghost);
            Ok(())
        })
        .await
        .unwrap();
    let session = say(&t, &bot, "run it");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = t
        .host
        .sessions()
        .transcript(&session, 0)
        .unwrap()
        .into_iter()
        .find_map(|e| match e.event {
            flybot_agent::session::SessionEvent::ToolResult { text, is_error, .. } => {
                Some((text, is_error))
            }
            _ => None,
        })
        .unwrap();
    assert!(
        result.1 && result.0.contains("did not approve"),
        "{result:?}"
    );
    assert!(t.host.store().read(|s| s.flybot.approvals.is_empty()));
    // A run Bot may not run commands at all.
    t.host
        .mutate("test", |change| {
            let mut run = change.state().bots[&bot].clone();
            run.run = true;
            change.put_bot(&run);
            Ok(())
        })
        .await
        .unwrap();
    say(&t, &bot, "run it");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let log = t.host.sessions().transcript(&session, 0).unwrap();
    let last = log
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            flybot_agent::session::SessionEvent::ToolResult { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(last.contains("run Bot cannot run commands"), "{last}");
    assert!(t.host.store().read(|s| s.flybot.approvals.is_empty()));
}

#[tokio::test]
async fn only_the_bots_owner_answers_another_member_is_forbidden() {
    let t = scripted_host();
    let owner = t.sign_in_owner("Owner").await;
    let other = t.invite_member(&owner.token, "Other").await;
    let bot = t.create_bot(Some(&owner.token), "Ada").await;
    let session = say(&t, &bot, "run it");
    let id = waiting(&t, Some(&owner.token), 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(waiting(&t, Some(&other.token), 0).await.is_empty());
    t.refused(
        Some(&other.token),
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
        "bot/forbidden",
    )
    .await;
    t.ok(
        Some(&owner.token),
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
    )
    .await;
    t.host.sessions().wait_idle(&session).await.unwrap();
}

/// A Bot in a room with one waiting ask from its own chat and one from its
/// seat in the room.
struct TwoAsks {
    t: TestHost,
    room_id: String,
    seat: String,
    own: String,
    from_room: Value,
    from_chat: Value,
}

async fn two_asks() -> TwoAsks {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Crew", "members": [bot]}),
        )
        .await;
    let room_id = room["room"]["id"].as_str().unwrap().to_owned();
    let seat = t
        .host
        .store()
        .read(|s| s.rooms[&room_id].sessions[&bot].clone());
    let own = say(&t, &bot, "run it");
    t.host
        .sessions()
        .deliver(
            &seat,
            "run it",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    let list = waiting(&t, None, 2).await;
    let from_room = list
        .iter()
        .find(|a| a["roomId"] == room_id.as_str())
        .unwrap();
    let from_chat = list
        .iter()
        .find(|a| a["sessionId"] == own.as_str())
        .unwrap();
    let (from_room, from_chat) = (from_room.clone(), from_chat.clone());
    TwoAsks {
        t,
        room_id,
        seat,
        own,
        from_room,
        from_chat,
    }
}

#[tokio::test]
async fn a_standing_grant_releases_the_other_waiting_asks_it_covers() {
    // One ask from the Bot's own chat, one from its seat in the room.
    let TwoAsks {
        t,
        room_id,
        seat,
        own,
        from_room,
        from_chat,
    } = two_asks().await;
    // always-room on the room's ask keeps the grant on the room; it does
    // not cover the Bot's own chat.
    let answered = t
        .ok(
            None,
            "approval-answer",
            json!({"id": from_room["id"], "answer": "always-room"}),
        )
        .await;
    assert_eq!(answered["released"], json!([]));
    let grants = t
        .host
        .store()
        .read(|s| s.rooms[&room_id].extra["standingApprovals"].clone());
    assert_eq!(grants[0]["kind"], "run_command");
    assert_eq!(waiting(&t, None, 1).await[0]["id"], from_chat["id"]);
    t.host.sessions().wait_idle(&seat).await.unwrap();
    // A second ask in the room and always-bot on the own-chat ask: the
    // Bot's grant releases the room's waiting ask too.
    t.host
        .sessions()
        .deliver(
            &seat,
            "run it",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    t.host.sessions().wait_idle(&seat).await.unwrap();
    assert_eq!(
        waiting(&t, None, 1).await.len(),
        1,
        "the room's grant covered it"
    );
    let answered = t
        .ok(
            None,
            "approval-answer",
            json!({"id": from_chat["id"], "answer": "always-bot"}),
        )
        .await;
    assert_eq!(answered["approval"]["status"], "allowed-once");
    t.host.sessions().wait_idle(&own).await.unwrap();
    assert!(waiting(&t, None, 0).await.is_empty());
}

#[tokio::test]
async fn always_bot_answers_this_ask_and_releases_the_bots_other_waiting_ask() {
    let TwoAsks {
        t,
        seat,
        own,
        from_room,
        from_chat,
        ..
    } = two_asks().await;
    let answered = t
        .ok(
            None,
            "approval-answer",
            json!({"id": from_chat["id"], "answer": "always-bot"}),
        )
        .await;
    assert_eq!(answered["released"], json!([from_room["id"]]));
    t.host.sessions().wait_idle(&own).await.unwrap();
    t.host.sessions().wait_idle(&seat).await.unwrap();
    assert!(waiting(&t, None, 0).await.is_empty());
    let statuses: Vec<String> = t.host.store().read(|s| {
        s.flybot
            .approvals
            .values()
            .map(|a| a["status"].as_str().unwrap().to_owned())
            .collect()
    });
    assert_eq!(statuses, ["allowed-once", "allowed-once"]);
}
