//! Tool approvals through the channel (#540, #754): a turn's `run_command`
//! waits for the owner's answer; allowed-once, rejected, a standing
//! always-bot covering the next ask, always-room refused for an own-chat
//! ask, a request nobody can answer rejected at once, another member's
//! approval forbidden, a decided one stale.

use crate::support::TestHost;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_agent::session::{ItemKind, SessionEvent, Source};
use flybot_host::{Host, HostConfig};
use flybot_protocol::state::Bot;
use flybot_store::{Store, StoreOptions};
use serde::Serialize;
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
    say_in(t, &session, text);
    session
}

/// Hands `text` to `session` (a chat or a room seat) as a person's line.
fn say_in(t: &TestHost, session: &str, text: &str) {
    t.host
        .sessions()
        .deliver(
            session,
            text,
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
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

/// Waits until `token`'s `approvals` lists exactly one; answers its id.
async fn the_one_waiting(t: &TestHost, token: Option<&str>) -> String {
    waiting(t, token, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Answers approval `id` with `decision` as `token`; answers the body.
async fn answer(t: &TestHost, token: Option<&str>, id: impl Serialize, decision: &str) -> Value {
    t.ok(
        token,
        "approval-answer",
        json!({"id": id, "answer": decision}),
    )
    .await
}

/// Answering approval `id` with `decision` as `token` is refused with `code`.
async fn answer_refused(
    t: &TestHost,
    token: Option<&str>,
    id: impl Serialize,
    decision: &str,
    code: &str,
) {
    t.refused(
        token,
        "approval-answer",
        json!({"id": id, "answer": decision}),
        code,
    )
    .await;
}

/// Changes the Bot's record in the store directly.
async fn edit_bot(t: &TestHost, bot_id: &str, edit: impl FnOnce(&mut Bot)) {
    t.host
        .mutate("test", |change| {
            let mut bot = change.state().bots[bot_id].clone();
            edit(&mut bot);
            change.put_bot(&bot);
            Ok(())
        })
        .await
        .unwrap();
}

/// The tool results of `session`'s transcript, oldest first: (text, is_error).
fn tool_results(t: &TestHost, session: &str) -> Vec<(String, bool)> {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::ToolResult { text, is_error, .. } => Some((text, is_error)),
            _ => None,
        })
        .collect()
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
    let answered = answer(&t, None, &id, "allowed-once").await;
    assert_eq!(answered["approval"]["status"], "allowed-once");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = last_result(&t, None, &bot).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(result["text"].as_str().unwrap().contains("hi"), "{result}");
    answer_refused(&t, None, &id, "rejected", "bot/stale").await;
}

#[tokio::test]
async fn rejected_refuses_the_call_and_the_turn_goes_on() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let session = say(&t, &bot, "run it");
    let id = the_one_waiting(&t, None).await;
    answer(&t, None, &id, "rejected").await;
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
    let id = the_one_waiting(&t, None).await;
    // always-room is refused for an own-chat ask; nothing changes.
    answer_refused(&t, None, &id, "always-room", "bot/invalid").await;
    answer(&t, None, &id, "always-bot").await;
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
    edit_bot(&t, &bot, |ghost| ghost.owner_id = "member-gone".into()).await;
    let session = say(&t, &bot, "run it");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let result = tool_results(&t, &session).into_iter().next().unwrap();
    assert!(
        result.1 && result.0.contains("did not approve"),
        "{result:?}"
    );
    assert!(t.host.store().read(|s| s.flybot.approvals.is_empty()));
    // A run Bot may not run commands at all.
    edit_bot(&t, &bot, |run| run.run = true).await;
    say(&t, &bot, "run it");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let (last, _) = tool_results(&t, &session).pop().unwrap();
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
    let id = the_one_waiting(&t, Some(&owner.token)).await;
    assert!(waiting(&t, Some(&other.token), 0).await.is_empty());
    answer_refused(&t, Some(&other.token), &id, "allowed-once", "bot/forbidden").await;
    answer(&t, Some(&owner.token), &id, "allowed-once").await;
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
    say_in(&t, &seat, "run it");
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
    let answered = answer(&t, None, &from_room["id"], "always-room").await;
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
    say_in(&t, &seat, "run it");
    t.host.sessions().wait_idle(&seat).await.unwrap();
    assert_eq!(
        waiting(&t, None, 1).await.len(),
        1,
        "the room's grant covered it"
    );
    let answered = answer(&t, None, &from_chat["id"], "always-bot").await;
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
    let answered = answer(&t, None, &from_chat["id"], "always-bot").await;
    assert_eq!(answered["released"], json!([from_room["id"]]));
    t.host.sessions().wait_idle(&own).await.unwrap();
    t.host.sessions().wait_idle(&seat).await.unwrap();
    assert!(waiting(&t, None, 0).await.is_empty());
    let statuses: Vec<String> = t.host.store().read(|s| {
        s.flybot
            .approvals
            .values()
            .map(|a| {
                serde_json::to_value(a).unwrap()["status"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    });
    assert_eq!(statuses, ["allowed-once", "allowed-once"]);
}
