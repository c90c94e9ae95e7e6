//! Held sends (#52, #754, #587): a `message_bot` to another owner's Bot
//! that reach allows through grants is held for the sender's owner with a
//! requestId, a sha256 version and the server-derived owner and origin;
//! only that owner's session decides it; an allow revalidates before it
//! delivers and a hold that no longer holds is stale; deleting a Bot makes
//! its holds stale at once.

use crate::approvals::{approval_record, put_records, scripted_kit};
use flybot_agent::session::{SessionEvent, Source};
use flybot_agent::tools::team::pending_approvals;
use flybot_testkit::{Bot, Kit, Member};
use serde_json::{Value, json};

struct Pair {
    ada: Member,
    bob: Member,
    ada_bot: Bot,
    bob_bot: Bot,
}

async fn pair(kit: &Kit) -> Pair {
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bobby").await;
    let ada_bot = kit.as_member(&ada).bot("Ada helper").await;
    let bob_bot = kit.as_member(&bob).bot("Bob").await;
    let grant =
        |bot: &Bot, grantee: &str| json!({"botId": bot.id, "grants": [{"grantee": grantee}]});
    kit.as_member(&bob)
        .ok("set-grants", grant(&bob_bot, &ada.member_id))
        .await;
    kit.as_member(&ada)
        .ok("set-grants", grant(&ada_bot, &bob.member_id))
        .await;
    Pair {
        ada,
        bob,
        ada_bot,
        bob_bot,
    }
}

/// Ada's Bot messages Bob's Bot; answers the hold `approvals` lists.
async fn held(kit: &Kit, p: &Pair) -> Value {
    kit.say(&p.ada_bot.session, "tell bob");
    kit.idle(&p.ada_bot.session).await;
    let ada = kit.as_member(&p.ada);
    let hold = kit
        .until_some("the send is held", async || {
            let list = ada.ok("approvals", json!({})).await;
            let approvals = list["approvals"].as_array().unwrap();
            approvals.iter().find(|a| a["kind"] == "held-send").cloned()
        })
        .await;
    kit.host.store().saves_settled().await;
    hold
}

fn from_ada(kit: &Kit, p: &Pair) -> Vec<String> {
    kit.host
        .sessions()
        .transcript(&p.bob_bot.session, 0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::UserMessage {
                text,
                source: Source::Bot { bot_id, .. },
                ..
            } if bot_id == p.ada_bot.id => Some(text),
            _ => None,
        })
        .collect()
}

fn record(kit: &Kit, id: &str) -> Value {
    kit.host
        .store()
        .read(|s| serde_json::to_value(&s.flybot.approvals[id]).unwrap())
}

#[tokio::test]
/// Rules #52, #754.
async fn a_send_to_another_owners_bot_is_held_and_only_its_owner_releases_it() {
    let kit = scripted_kit().await;
    let p = pair(&kit).await;
    let hold = held(&kit, &p).await;
    let id = hold["id"].as_str().unwrap().to_owned();
    assert_eq!(hold["requestId"], json!(id));
    assert_eq!(hold["version"].as_str().unwrap().len(), 64);
    assert_eq!(hold["ownerId"], json!(p.ada.member_id));
    assert_eq!(hold["fromBot"], json!(p.ada_bot.id));
    assert_eq!(
        hold["origin"],
        json!({"via": "message_bot", "hop": 1, "audience": format!("bot:{}", p.bob_bot.id)})
    );
    assert_eq!(hold["status"], "pending");
    assert!(
        from_ada(&kit, &p).is_empty(),
        "delivered before the decision"
    );
    // list_bots' "N to approve" counts it (#587); Bob lists none of it.
    assert_eq!(
        kit.host
            .store()
            .read(|s| pending_approvals(s, &p.ada_bot.id)),
        1
    );
    let bobs = kit.as_member(&p.bob).ok("approvals", json!({})).await;
    assert_eq!(bobs["approvals"], json!([]));
    kit.as_member(&p.bob)
        .refused(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
            "bot/forbidden",
        )
        .await;
    kit.anonymous()
        .refused(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
            "bot/unauthorized",
        )
        .await;
    let answer = kit
        .as_member(&p.ada)
        .ok(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["status"], "approved");
    assert_eq!(answer["delivered"], true);
    kit.idle(&p.bob_bot.session).await;
    assert_eq!(from_ada(&kit, &p), ["please review"]);
    kit.as_member(&p.ada)
        .refused(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
            "bot/stale",
        )
        .await;
    assert_eq!(
        kit.host
            .store()
            .read(|s| pending_approvals(s, &p.ada_bot.id)),
        0
    );
}

#[tokio::test]
/// Rule #52.
async fn a_release_revalidates_and_a_revoked_grant_makes_the_hold_stale() {
    let kit = scripted_kit().await;
    let p = pair(&kit).await;
    let id = held(&kit, &p).await["id"].as_str().unwrap().to_owned();
    kit.as_member(&p.bob)
        .ok("set-grants", json!({"botId": p.bob_bot.id, "grants": []}))
        .await;
    let answer = kit
        .as_member(&p.ada)
        .ok(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["status"], "stale");
    assert_eq!(answer["approval"]["staleReason"], "unreachable");
    assert_eq!(answer["delivered"], false);
    assert!(from_ada(&kit, &p).is_empty());
}

#[tokio::test]
/// Rule #52.
async fn a_changed_hold_is_stale_and_deleting_a_bot_invalidates_its_holds() {
    let kit = scripted_kit().await;
    let p = pair(&kit).await;
    // The content no longer matches its version: stale, never sent.
    let id = held(&kit, &p).await["id"].as_str().unwrap().to_owned();
    let mut changed = record(&kit, &id);
    changed["text"] = json!("wire the money");
    kit.host
        .store()
        .mutate("test", |c| {
            c.put_approval(&id, &changed);
            Ok(())
        })
        .await
        .unwrap();
    let answer = kit
        .as_member(&p.ada)
        .ok(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    assert_eq!(answer["approval"]["staleReason"], "changed");
    assert!(from_ada(&kit, &p).is_empty());
    // Deleting the target Bot makes the waiting hold stale at once.
    let id = held(&kit, &p).await["id"].as_str().unwrap().to_owned();
    kit.as_member(&p.bob)
        .ok("delete-bot", json!({"id": p.bob_bot.id}))
        .await;
    let gone = record(&kit, &id);
    assert_eq!(gone["status"], "stale");
    assert_eq!(gone["staleReason"], "target-gone");
    let list = kit.as_member(&p.ada).ok("approvals", json!({})).await;
    assert_eq!(list["approvals"], json!([]));
}

#[tokio::test]
/// Rule #52.
async fn demoting_a_chief_in_set_main_makes_its_waiting_sends_stale_at_once() {
    let kit = scripted_kit().await;
    let p = pair(&kit).await;
    let ada = kit.as_member(&p.ada);
    ada.ok("set-main", json!({"id": p.ada_bot.id})).await;
    let id = held(&kit, &p).await["id"].as_str().unwrap().to_owned();
    assert_eq!(record(&kit, &id)["status"], "pending");
    // Another Bot of Ada's takes its place: the demoted Bot's hold goes stale.
    let next = ada.bot("Next chief").await;
    ada.ok("set-main", json!({"id": next.id, "replace": p.ada_bot.id}))
        .await;
    let demoted = record(&kit, &id);
    assert_eq!(demoted["status"], "stale");
    assert_eq!(demoted["staleReason"], "demoted");
    ada.refused(
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
        "bot/stale",
    )
    .await;
    assert!(from_ada(&kit, &p).is_empty());
}

/// Sends that name a card (`meta.taskId`, #54): "tell bob for <id>" makes
/// Ada's Bot message Bob's Bot for that card; the rest is `SCRIPT`.
fn targeted_kit() -> impl std::future::Future<Output = Kit> {
    let mut script: Vec<Value> = ["task-named", "task-bobs"]
        .iter()
        .map(|id| {
            json!({"when": {"userContains": format!("tell bob for {id}"), "step": 0},
                "reply": {"toolCalls": [{"name": "message_bot", "arguments":
                    {"to": "Bob", "text": "please review", "taskId": id}}]}})
        })
        .collect();
    let rest: Vec<Value> = serde_json::from_str(crate::approvals::SCRIPT).unwrap();
    script.extend(rest);
    Kit::scripted(Value::Array(script))
}

/// A working card of `bot`'s made through the channel by `who`, copied to
/// the fixed id `id` with an older `updatedAt` (so the newest working card
/// is another one): answers the channel-made card's id.
async fn working_card_as(kit: &Kit, who: &Member, bot: &Bot, id: &str) -> String {
    let (card, _) = kit.as_member(who).card_in(&bot.id, "working").await;
    let id = id.to_owned();
    let source = card.clone();
    kit.host
        .store()
        .mutate("test", move |c| {
            let mut task = c.state().tasks[&source].clone();
            task.id = id;
            task.created_at = 1;
            task.updated_at = 1;
            c.put_task(&task);
            Ok(())
        })
        .await
        .unwrap();
    kit.idle(&bot.session).await;
    card
}

/// Ada's Bot works two cards, then its send to Bob's Bot naming
/// `task-named` is held: answers that card and the hold.
async fn working_card_held(kit: &Kit, p: &Pair) -> (String, String) {
    let other = working_card_as(kit, &p.ada, &p.ada_bot, "task-named").await;
    kit.say(&p.ada_bot.session, "tell bob for task-named");
    kit.idle(&p.ada_bot.session).await;
    let hold = crate::approvals::the_one_waiting(kit.as_member(&p.ada)).await;
    let blocked = kit.card_when("task-named", "blocked").await;
    assert_eq!(blocked["waitingFor"], "approval");
    assert_eq!(blocked["approvalId"], hold.as_str());
    assert_eq!(record(kit, &hold)["taskId"], "task-named");
    assert_eq!(kit.record(&other)["status"], "working", "not the newest");
    ("task-named".to_owned(), hold)
}

#[tokio::test]
/// Rules #54, #207.
async fn an_untargeted_held_send_blocks_no_card_and_a_named_foreign_card_is_refused() {
    let kit = targeted_kit().await;
    let p = pair(&kit).await;
    let newest = working_card_as(&kit, &p.ada, &p.ada_bot, "task-named").await;
    // No taskId: the send is held, and neither of the Bot's working cards
    // waits on it (today's guess blocked the newest).
    let hold = held(&kit, &p).await;
    assert!(hold.get("taskId").is_none(), "{hold}");
    for card in [newest.as_str(), "task-named"] {
        let record = kit.record(card);
        assert_eq!(record["status"], "working", "{record}");
        assert!(record.get("approvalId").is_none(), "{record}");
    }
    // Attack: naming Bob's Bot's card does not block it; nothing is held.
    working_card_as(&kit, &p.bob, &p.bob_bot, "task-bobs").await;
    let before = kit.host.store().read(|s| s.flybot.approvals.len());
    kit.say(&p.ada_bot.session, "tell bob for task-bobs");
    kit.idle(&p.ada_bot.session).await;
    let (result, is_error) = kit.tool_results(&p.ada_bot.session).pop().unwrap();
    assert!(
        is_error && result.contains("not a card of yours"),
        "{result}"
    );
    assert_eq!(kit.host.store().read(|s| s.flybot.approvals.len()), before);
    assert_eq!(kit.record("task-bobs")["status"], "working");
    assert!(from_ada(&kit, &p).is_empty());
}

#[tokio::test]
/// Rules #54, #207.
async fn a_held_send_blocks_its_working_card_and_approving_resumes_it() {
    let kit = targeted_kit().await;
    let p = pair(&kit).await;
    let (card, hold) = working_card_held(&kit, &p).await;
    kit.as_member(&p.ada)
        .ok(
            "approval-answer",
            json!({"id": hold, "answer": "allowed-once"}),
        )
        .await;
    let resumed = kit.record(&card);
    assert_eq!(resumed["status"], "working");
    assert!(resumed.get("approvalId").is_none());
    assert!(resumed.get("waitingFor").is_none());
}

#[tokio::test]
/// Rule #54.
async fn rejecting_a_held_send_cancels_its_card() {
    let kit = targeted_kit().await;
    let p = pair(&kit).await;
    let (card, hold) = working_card_held(&kit, &p).await;
    kit.as_member(&p.ada)
        .ok("approval-answer", json!({"id": hold, "answer": "rejected"}))
        .await;
    assert_eq!(kit.record(&card)["status"], "cancelled");
    assert!(from_ada(&kit, &p).is_empty());
}

#[tokio::test]
/// Rule #754.
async fn a_send_past_pending_max_waiting_asks_is_refused_and_nothing_is_held() {
    use flybot_core::approvals::bounds::PENDING_MAX;
    let kit = scripted_kit().await;
    let p = pair(&kit).await;
    let waiting: Vec<_> = (0..PENDING_MAX as u64)
        .map(|n| approval_record(&p.ada_bot, n, true))
        .collect();
    put_records(&kit, waiting).await;
    let before = kit.host.store().read(|s| s.flybot.approvals.len());
    kit.say(&p.ada_bot.session, "tell bob");
    kit.idle(&p.ada_bot.session).await;
    let (result, is_error) = kit.tool_results(&p.ada_bot.session).pop().unwrap();
    assert!(
        is_error && result.contains("already wait for your owner"),
        "{result}"
    );
    assert_eq!(kit.host.store().read(|s| s.flybot.approvals.len()), before);
    assert!(from_ada(&kit, &p).is_empty());
}
