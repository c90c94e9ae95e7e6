//! Tool approvals through the channel (#540, #754): a turn's `run_command`
//! waits for the owner's answer; allowed-once, rejected, a standing
//! always-bot covering the next ask, always-room refused for an own-chat
//! ask, a request nobody can answer rejected at once, another member's
//! approval forbidden, a decided one stale.

use flybot_protocol::state::Bot;
use flybot_testkit::{Caller, Kit, Room};
use serde::Serialize;
use serde_json::{Value, json};

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
pub async fn scripted_kit() -> Kit {
    Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await
}

/// Waits until the caller's `approvals` lists `n`.
pub(crate) async fn waiting(caller: Caller<'_>, n: usize) -> Vec<Value> {
    let kit = caller.kit();
    let list = kit
        .until_some(&format!("approvals lists {n}"), async || {
            let answer = caller.ok("approvals", json!({})).await;
            let list = answer["approvals"].as_array().unwrap().clone();
            (list.len() == n).then_some(list)
        })
        .await;
    // The record is seen in memory before the store's revision moves: let
    // it settle so a refusal's fingerprint is stable.
    kit.settled().await;
    list
}

/// Waits until the caller's `approvals` lists exactly one; answers its id.
pub(crate) async fn the_one_waiting(caller: Caller<'_>) -> String {
    waiting(caller, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Answers approval `id` with `decision` as the caller; answers the body.
pub(crate) async fn answer(caller: Caller<'_>, id: impl Serialize, decision: &str) -> Value {
    caller
        .ok("approval-answer", json!({"id": id, "answer": decision}))
        .await
}

/// Answering approval `id` with `decision` as the caller is refused with
/// `code`.
async fn answer_refused(caller: Caller<'_>, id: impl Serialize, decision: &str, code: &str) {
    let body = json!({"id": id, "answer": decision});
    caller.refused("approval-answer", body, code).await;
}

/// Changes the Bot's record in the store directly.
pub(crate) async fn edit_bot(kit: &Kit, bot_id: &str, edit: impl FnOnce(&mut Bot)) {
    kit.host
        .team()
        .mutate("test", |change| {
            let mut bot = change.state().bots[bot_id].clone();
            edit(&mut bot);
            change.put_bot(&bot);
            Ok(())
        })
        .await
        .unwrap();
}

/// The last tool result of the Bot's chat.
pub(crate) async fn last_result(kit: &Kit, bot_id: &str) -> Value {
    let answer = kit.ok("messages", json!({"botId": bot_id})).await;
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
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    kit.say(&bot.session, "run it");
    let list = waiting(kit.anyone(), 1).await;
    let approval = &list[0];
    assert_eq!(approval["botId"], bot.id);
    assert_eq!(approval["sessionId"], bot.session);
    assert_eq!(approval["tool"], "run_command");
    assert_eq!(approval["status"], "waiting");
    assert!(approval["label"].as_str().unwrap().contains("echo hi"));
    assert!(approval["requestId"].is_string() && approval["ownerId"].is_string());
    // list_bots' tag counts it (#587).
    let pending = kit
        .host
        .store()
        .read(|s| flybot_agent::tools::team::pending_approvals(s, &bot.id));
    assert_eq!(pending, 1);
    let id = approval["id"].as_str().unwrap().to_owned();
    let answered = answer(kit.anyone(), &id, "allowed-once").await;
    assert_eq!(answered["approval"]["status"], "allowed-once");
    kit.idle(&bot.session).await;
    let result = last_result(&kit, &bot.id).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(result["text"].as_str().unwrap().contains("hi"), "{result}");
    answer_refused(kit.anyone(), &id, "rejected", "bot/stale").await;
}

#[tokio::test]
async fn rejected_refuses_the_call_and_the_turn_goes_on() {
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    kit.say(&bot.session, "run it");
    let id = the_one_waiting(kit.anyone()).await;
    answer(kit.anyone(), &id, "rejected").await;
    kit.idle(&bot.session).await;
    let result = last_result(&kit, &bot.id).await;
    assert_eq!(result["isError"], true);
    assert!(
        result["text"].as_str().unwrap().contains("did not approve"),
        "{result}"
    );
    assert!(waiting(kit.anyone(), 0).await.is_empty());
}

#[tokio::test]
/// Rule #540.
async fn always_bot_is_kept_on_the_bot_and_covers_the_next_ask() {
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    kit.say(&bot.session, "run it");
    let id = the_one_waiting(kit.anyone()).await;
    // always-room is refused for an own-chat ask; nothing changes.
    answer_refused(kit.anyone(), &id, "always-room", "bot/invalid").await;
    answer(kit.anyone(), &id, "always-bot").await;
    kit.idle(&bot.session).await;
    let grants = kit
        .host
        .store()
        .read(|s| s.bots[&bot.id].extra["standingApprovals"].clone());
    assert_eq!(grants[0]["kind"], "run_command");
    assert!(grants[0]["at"].is_u64() && grants[0]["ownerId"].is_string());
    // The second ask runs at once: no approval waits.
    kit.say(&bot.session, "run it again");
    kit.idle(&bot.session).await;
    let result = last_result(&kit, &bot.id).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(waiting(kit.anyone(), 0).await.is_empty());
    let all = kit.host.store().read(|s| s.flybot.approvals.len());
    assert_eq!(all, 1, "the covered ask made no record");
}

#[tokio::test]
async fn a_request_nobody_can_answer_is_rejected_at_once() {
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    // The Bot's owner is not a member any more: nobody can answer.
    edit_bot(&kit, &bot.id, |ghost| ghost.owner_id = "member-gone".into()).await;
    kit.say(&bot.session, "run it");
    kit.idle(&bot.session).await;
    let result = kit.tool_results(&bot.session).into_iter().next().unwrap();
    assert!(
        result.1 && result.0.contains("did not approve"),
        "{result:?}"
    );
    assert!(kit.host.store().read(|s| s.flybot.approvals.is_empty()));
    // A run Bot whose node names no shell may not run commands (#1445).
    edit_bot(&kit, &bot.id, |run| run.run = true).await;
    kit.say(&bot.session, "run it");
    kit.idle(&bot.session).await;
    let (last, _) = kit.tool_results(&bot.session).pop().unwrap();
    assert!(
        last.contains("run_command is not granted to this run"),
        "{last}"
    );
    assert!(kit.host.store().read(|s| s.flybot.approvals.is_empty()));
}

#[tokio::test]
async fn only_the_bots_owner_answers_another_member_is_forbidden() {
    let kit = scripted_kit().await;
    let owner = kit.owner("Owner").await;
    let other = kit.as_member(&owner).invite("Other").await;
    let (owner, other) = (kit.as_member(&owner), kit.as_member(&other));
    let bot = owner.bot("Ada").await;
    kit.say(&bot.session, "run it");
    let id = the_one_waiting(owner).await;
    assert!(waiting(other, 0).await.is_empty());
    answer_refused(other, &id, "allowed-once", "bot/forbidden").await;
    answer(owner, &id, "allowed-once").await;
    kit.idle(&bot.session).await;
}

/// A Bot in a room with one waiting ask from its own chat and one from its
/// seat in the room.
struct TwoAsks {
    kit: Kit,
    room: Room,
    seat: String,
    own: String,
    from_room: Value,
    from_chat: Value,
}

async fn two_asks() -> TwoAsks {
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    let room = kit
        .room_from(json!({"name": "Crew", "members": [bot.id]}))
        .await;
    let seat = kit.seat(&room, &bot);
    kit.say(&bot.session, "run it");
    kit.say(&seat, "run it");
    let list = waiting(kit.anyone(), 2).await;
    let from_room = list
        .iter()
        .find(|a| a["roomId"] == room.id.as_str())
        .unwrap();
    let from_chat = list
        .iter()
        .find(|a| a["sessionId"] == bot.session.as_str())
        .unwrap();
    let (from_room, from_chat) = (from_room.clone(), from_chat.clone());
    TwoAsks {
        kit,
        room,
        seat,
        own: bot.session,
        from_room,
        from_chat,
    }
}

#[tokio::test]
async fn a_standing_grant_releases_the_other_waiting_asks_it_covers() {
    // One ask from the Bot's own chat, one from its seat in the room.
    let TwoAsks {
        kit,
        room,
        seat,
        own,
        from_room,
        from_chat,
    } = two_asks().await;
    // always-room on the room's ask keeps the grant on the room; it does
    // not cover the Bot's own chat.
    let answered = answer(kit.anyone(), &from_room["id"], "always-room").await;
    assert_eq!(answered["released"], json!([]));
    let grants = kit
        .host
        .store()
        .read(|s| s.rooms[&room.id].extra["standingApprovals"].clone());
    assert_eq!(grants[0]["kind"], "run_command");
    assert_eq!(waiting(kit.anyone(), 1).await[0]["id"], from_chat["id"]);
    kit.idle(&seat).await;
    // A second ask in the room and always-bot on the own-chat ask: the
    // Bot's grant releases the room's waiting ask too.
    kit.say(&seat, "run it");
    kit.idle(&seat).await;
    assert_eq!(
        waiting(kit.anyone(), 1).await.len(),
        1,
        "the room's grant covered it"
    );
    let answered = answer(kit.anyone(), &from_chat["id"], "always-bot").await;
    assert_eq!(answered["approval"]["status"], "allowed-once");
    kit.idle(&own).await;
    assert!(waiting(kit.anyone(), 0).await.is_empty());
}

#[tokio::test]
async fn always_bot_answers_this_ask_and_releases_the_bots_other_waiting_ask() {
    let TwoAsks {
        kit,
        seat,
        own,
        from_room,
        from_chat,
        ..
    } = two_asks().await;
    let answered = answer(kit.anyone(), &from_chat["id"], "always-bot").await;
    assert_eq!(answered["released"], json!([from_room["id"]]));
    kit.idle(&own).await;
    kit.idle(&seat).await;
    assert!(waiting(kit.anyone(), 0).await.is_empty());
    let statuses: Vec<String> = kit.host.store().read(|s| {
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

/// A tool approval record of `bot`, waiting or decided at `n`.
pub fn approval_record(
    bot: &flybot_testkit::Bot,
    n: u64,
    waiting: bool,
) -> flybot_protocol::approval::ApprovalRecord {
    use flybot_protocol::approval::{ApprovalRecord, ApprovalStatus};
    ApprovalRecord {
        id: format!("approval-old-{n:04}"),
        bot_id: bot.id.clone(),
        session_id: bot.session.clone(),
        tool: "run_command".into(),
        label: format!("old {n}"),
        status: if waiting {
            ApprovalStatus::Waiting
        } else {
            ApprovalStatus::Rejected
        },
        request_id: format!("request-old-{n}"),
        owner_id: "member-x".into(),
        created_at: n,
        tool_call_id: format!("call-{n}"),
        room_id: None,
        decided_at: (!waiting).then_some(n),
        answer: None,
        extra: Default::default(),
    }
}

pub async fn put_records(kit: &Kit, records: Vec<flybot_protocol::approval::ApprovalRecord>) {
    kit.host
        .team()
        .mutate("test", |change| {
            for r in &records {
                change.put_approval(&r.id, r);
            }
            Ok(())
        })
        .await
        .unwrap();
}

#[tokio::test]
/// Rule #754.
async fn approvals_past_pending_max_an_ask_is_rejected_at_once_and_nothing_is_written() {
    use flybot_core::approvals::bounds::PENDING_MAX;
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    let waiting_before: Vec<_> = (0..PENDING_MAX as u64)
        .map(|n| approval_record(&bot, n, true))
        .collect();
    put_records(&kit, waiting_before).await;
    let before = kit.host.store().read(|s| s.flybot.approvals.clone());
    kit.say(&bot.session, "run it");
    kit.idle(&bot.session).await;
    let (result, is_error) = kit.tool_results(&bot.session).into_iter().next().unwrap();
    assert!(is_error && result.contains("did not approve"), "{result}");
    assert_eq!(
        kit.host.store().read(|s| s.flybot.approvals.clone()),
        before
    );
}

#[tokio::test]
/// Rule #754.
async fn approvals_a_new_record_keeps_only_the_newest_approvals_kept_decided_ones() {
    use flybot_core::approvals::bounds::APPROVALS_KEPT;
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    let decided: Vec<_> = (1..=APPROVALS_KEPT as u64 + 5)
        .map(|n| approval_record(&bot, n, false))
        .collect();
    put_records(&kit, decided).await;
    kit.say(&bot.session, "run it");
    let asked = waiting(kit.anyone(), 1).await;
    let ids: Vec<String> = kit
        .host
        .store()
        .read(|s| s.flybot.approvals.keys().cloned().collect());
    // The new ask waits; of the decided, the newest APPROVALS_KEPT stay.
    assert_eq!(ids.len(), APPROVALS_KEPT + 1);
    assert!(ids.contains(&asked[0]["id"].as_str().unwrap().to_owned()));
    for gone in 1..=5 {
        assert!(!ids.contains(&format!("approval-old-{gone:04}")), "{gone}");
    }
    assert!(ids.contains(&"approval-old-0006".to_owned()));
}

#[tokio::test]
/// Rule #540.
async fn a_standing_grant_answers_the_owners_turn_but_a_bots_request_still_asks() {
    use flybot_agent::session::{ItemKind, Source};
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    let other = kit.bot("Bo").await;
    edit_bot(&kit, &bot.id, |ada| {
        ada.extra.insert(
            "standingApprovals".into(),
            json!([{"kind": "run_command", "label": "run", "at": 1}]),
        );
    })
    .await;
    // Another Bot's message: the grant is not used, the owner is asked.
    kit.host
        .sessions()
        .deliver(
            &bot.session,
            "run it",
            Source::Bot {
                bot_id: other.id.clone(),
                hops: 1,
                room_id: None,
                origin: None,
            },
            ItemKind::NextTurn,
        )
        .unwrap();
    let id = the_one_waiting(kit.anyone()).await;
    answer(kit.anyone(), &id, "rejected").await;
    kit.idle(&bot.session).await;
    // The owner's own line: the grant answers at once, nothing waits.
    kit.say(&bot.session, "run it again");
    kit.idle(&bot.session).await;
    let result = last_result(&kit, &bot.id).await;
    assert_eq!(result["isError"], false, "{result}");
    let all = kit.host.store().read(|s| s.flybot.approvals.len());
    assert_eq!(all, 1, "only the Bot's request made a record");
}

#[tokio::test]
/// Rule #540.
async fn waiting_asks_a_crash_left_are_cleared_on_start() {
    use flybot_protocol::approval::{Approval, ApprovalStatus};
    use flybot_store::{Store, StoreOptions};
    let home = tempfile::tempdir().unwrap();
    let bot = flybot_testkit::Bot {
        id: "bot-a".into(),
        name: "Ada".into(),
        session: "session-a".into(),
    };
    {
        let store = Store::open(home.path(), StoreOptions::default()).unwrap();
        store
            .mutate("test", |change| {
                for r in [
                    approval_record(&bot, 1, true),
                    approval_record(&bot, 2, false),
                ] {
                    change.put_approval(&r.id, &r);
                }
                Ok(())
            })
            .await
            .unwrap();
    }
    let store = Store::open(home.path(), StoreOptions::default()).unwrap();
    let config = flybot_host::HostConfig::new(home.path().to_owned());
    let host = flybot_host::Host::open(store, config).await;
    let status = |id: &str| {
        host.store().read(|s| match &s.flybot.approvals[id] {
            Approval::Tool(r) => (r.status, r.decided_at.is_some()),
            other => panic!("{other:?}"),
        })
    };
    assert_eq!(
        status("approval-old-0001"),
        (ApprovalStatus::Cancelled, true)
    );
    assert_eq!(
        status("approval-old-0002"),
        (ApprovalStatus::Rejected, true)
    );
}

#[tokio::test]
/// Rule #540.
async fn standing_approval_remove_revokes_and_the_next_ask_waits_again() {
    let kit = scripted_kit().await;
    let bot = kit.bot("Ada").await;
    kit.say(&bot.session, "run it");
    let id = the_one_waiting(kit.anyone()).await;
    answer(kit.anyone(), &id, "always-bot").await;
    kit.idle(&bot.session).await;
    // A kind the Bot holds no grant for: refused, nothing changes.
    let revision = kit.host.store().revision();
    kit.refused(
        "standing-approval-remove",
        json!({"scope": "bot", "id": bot.id, "kind": "write_file"}),
        "bot/not-found",
    )
    .await;
    assert_eq!(kit.host.store().revision(), revision);
    let removed = kit
        .ok(
            "standing-approval-remove",
            json!({"scope": "bot", "id": bot.id, "kind": "run_command"}),
        )
        .await;
    assert_eq!(removed["removed"], true);
    let grants = kit
        .host
        .store()
        .read(|s| s.bots[&bot.id].extra["standingApprovals"].clone());
    assert_eq!(grants, json!([]));
    // The next ask waits for the owner again.
    kit.say(&bot.session, "run it again");
    waiting(kit.anyone(), 1).await;
}
