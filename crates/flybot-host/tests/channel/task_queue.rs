//! Pull queues, claims, releases and leases through the channel (#1247,
//! #1729, #1730). Time rules (30-minute leases, retryAt, expiry) are tested
//! with explicit times in flybot-core; here the clock is the host's.

use flybot_testkit::Kit;
use serde_json::{Value, json};

struct Crew {
    room: String,
    lead: String,
    dev1: String,
    dev2: String,
    rev: String,
}

async fn crew(kit: &Kit) -> Crew {
    let lead = kit.bot("Lead").await.id;
    let dev1 = kit.bot("Dev One").await.id;
    let dev2 = kit.bot("Dev Two").await.id;
    let rev = kit.bot("Rev").await.id;
    kit.set_role(&dev1, "Dev").await;
    kit.set_role(&dev2, "Dev").await;
    kit.set_role(&rev, "Reviewer").await;
    let room = kit
        .ok(
            "create-room",
            json!({"name": "Crew", "members": [lead, dev1, dev2, rev], "admin": lead}),
        )
        .await["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    Crew {
        room,
        lead,
        dev1,
        dev2,
        rev,
    }
}

async fn enqueue(kit: &Kit, c: &Crew, role: &str, title: &str, priority: &str) -> String {
    kit.ok(
        "task-enqueue",
        json!({"botId": c.lead, "roomId": c.room, "role": role, "title": title, "priority": priority}),
    )
    .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
/// Rules #1247, #1729.
async fn only_the_lead_enqueues_for_a_role_a_live_member_carries_up_to_the_cap() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    kit.refused(
        "task-enqueue",
        json!({"botId": c.dev1, "roomId": c.room, "role": "Dev", "title": "x"}),
        "bot/forbidden",
    )
    .await;
    kit.refused(
        "task-enqueue",
        json!({"botId": c.lead, "roomId": c.room, "role": "Designer", "title": "x"}),
        "bot/no-member-with-role",
    )
    .await;
    let first = kit
        .ok(
            "task-enqueue",
            json!({"botId": c.lead, "roomId": c.room, "role": "Dev", "title": "item 0"}),
        )
        .await;
    // An unclaimed item stays the enqueuer's and wakes nobody.
    assert_eq!(first["task"]["botId"], c.lead.as_str());
    assert_eq!(first["task"]["queueRole"], "Dev");
    assert_eq!(first["task"]["queueBy"], c.lead.as_str());
    for i in 1..8 {
        enqueue(&kit, &c, "Dev", &format!("item {i}"), "normal").await;
    }
    let full = kit
        .refused(
            "task-enqueue",
            json!({"botId": c.lead, "roomId": c.room, "role": "Dev", "title": "item 8"}),
            "bot/queue-full",
        )
        .await;
    assert_eq!(
        full["error"]["message"],
        "The Dev queue already holds 8 items, its cap is 8."
    );
    assert_eq!(full["error"]["details"], json!({"role": "Dev", "cap": 8}));
    // A re-offer keeps its id and does not count against itself.
    let id = first["task"]["id"].as_str().unwrap();
    let again = kit
        .ok(
            "task-enqueue",
            json!({"botId": c.lead, "roomId": c.room, "role": "Dev", "title": "item 0 again", "id": id}),
        )
        .await;
    assert_eq!(again["task"]["id"], id);
    // The Reviewer queue is its own.
    enqueue(&kit, &c, "Reviewer", "review", "normal").await;
}

#[tokio::test]
/// Rule #1247.
async fn a_claim_takes_the_highest_priority_oldest_item_and_one_card_per_member() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let old_normal = enqueue(&kit, &c, "Dev", "old normal", "normal").await;
    let old_high = enqueue(&kit, &c, "Dev", "old high", "high").await;
    let _new_high = enqueue(&kit, &c, "Dev", "new high", "high").await;
    let review = enqueue(&kit, &c, "Reviewer", "review", "urgent").await;
    let claimed = kit.ok("task-claim", json!({"botId": c.dev1})).await;
    let card = &claimed["task"];
    assert_eq!(card["id"], old_high.as_str());
    assert_eq!(card["status"], "claimed");
    assert_eq!(card["botId"], c.dev1.as_str());
    assert_eq!(card["claimedBy"], c.dev1.as_str());
    assert_eq!(card["queueRole"], "Dev");
    let lease = &card["lease"];
    assert_eq!(
        lease["expiresAt"].as_u64().unwrap() - lease["takenAt"].as_u64().unwrap(),
        30 * 60 * 1000
    );
    let worker = card["worker"].as_str().unwrap();
    assert!(worker.starts_with("worker-"));
    assert!(kit.host.board().worker(worker).is_some());
    // Already holding one: nothing more, and nothing written.
    let nothing = kit.ok("task-claim", json!({"botId": c.dev1})).await;
    assert_eq!(nothing["task"], Value::Null);
    // Another role is refused by name; a live lease names its holder.
    let other = kit
        .refused(
            "task-claim",
            json!({"botId": c.dev2, "id": review}),
            "bot/not-in-role",
        )
        .await;
    assert_eq!(other["error"]["details"]["role"], "Reviewer");
    let held = kit
        .refused(
            "task-claim",
            json!({"botId": c.dev2, "id": old_high}),
            "bot/lease-held",
        )
        .await;
    assert_eq!(held["error"]["details"]["holder"], c.dev1.as_str());
    assert!(
        held["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Dev One")
    );
    let lease = kit.ok("task-lease", json!({"id": old_high})).await;
    assert_eq!(lease["lease"]["live"], true);
    assert_eq!(lease["lease"]["heldBy"], "Dev One");
    // A live lease is untouched by the recovery read.
    let expired = kit.ok("task-expire-leases", json!({})).await;
    assert_eq!(expired["expired"], 0);
    // Release: back to the queue, the worker dropped, not offered before retryAt.
    let released = kit
        .ok(
            "task-release",
            json!({"botId": c.dev1, "id": old_high, "reason": "CI is down", "retryInSec": 600}),
        )
        .await;
    assert_eq!(released["task"]["status"], "open");
    assert_eq!(released["task"]["botId"], c.lead.as_str());
    assert!(released["task"]["retryAt"].as_u64().is_some());
    assert!(kit.host.board().worker(worker).is_none());
    let next = kit.ok("task-claim", json!({"botId": c.dev2})).await;
    assert_ne!(next["task"]["id"], old_high.as_str());
    assert_ne!(next["task"]["id"], old_normal.as_str());
    kit.refused(
        "task-release",
        json!({"botId": c.dev1, "id": next["task"]["id"]}),
        "bot/forbidden",
    )
    .await;
    let _ = c.rev;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Rule #1247.
async fn two_concurrent_claims_leave_exactly_one_owner() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "only one", "normal").await;
    let (a, b) = tokio::join!(
        kit.post("task-claim", json!({"botId": c.dev1})),
        kit.post("task-claim", json!({"botId": c.dev2})),
    );
    assert_eq!((a.0, b.0), (200, 200));
    let winners: Vec<&Value> = [&a.1, &b.1]
        .into_iter()
        .filter(|answer| !answer["task"].is_null())
        .collect();
    assert_eq!(winners.len(), 1, "{a:?} {b:?}");
    let owner = winners[0]["task"]["claimedBy"].as_str().unwrap();
    assert_eq!(kit.record(&item)["claimedBy"], owner);

    // Named claims race too: one owner, the other refused naming the holder.
    let item = enqueue(&kit, &c, "Reviewer", "named", "normal").await;
    let rev2 = kit.bot("Rev Two").await.id;
    kit.set_role(&rev2, "Reviewer").await;
    kit.ok(
        "update-room",
        json!({"id": c.room, "members": [c.lead, c.dev1, c.dev2, c.rev, rev2]}),
    )
    .await;
    let (a, b) = tokio::join!(
        kit.post("task-claim", json!({"botId": c.rev, "id": item})),
        kit.post("task-claim", json!({"botId": rev2, "id": item})),
    );
    let mut codes = vec![a.0, b.0];
    codes.sort_unstable();
    assert_eq!(codes, [200, 409], "{a:?} {b:?}");
    let loser = if a.0 == 409 { &a.1 } else { &b.1 };
    assert_eq!(loser["error"]["code"], "bot/lease-held");
    // Two claims share no worker state.
    let winner = if a.0 == 200 { &a.1 } else { &b.1 };
    let w1 = winners[0]["task"]["worker"].as_str().unwrap();
    let w2 = winner["task"]["worker"].as_str().unwrap();
    assert_ne!(w1, w2);
    assert!(kit.host.board().set_worker_var(w1, "scratch", "first"));
    assert!(kit.host.board().worker(w2).unwrap().vars.is_empty());
}

#[tokio::test]
/// Rules #1729, #1730.
async fn counters_read_the_rows_and_fold_a_rework_chain_into_one_delivery() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "deliver", "normal").await;
    kit.ok("task-claim", json!({"botId": c.dev1})).await;
    kit.ok("task-start", json!({"id": item})).await;
    kit.ok("task-return", json!({"id": item, "summary": "v1"}))
        .await;
    let sent = kit
        .ok("task-send-back", json!({"id": item, "note": "again"}))
        .await;
    let child = sent["rework"]["id"].as_str().unwrap().to_owned();
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": child})).await;
    }
    kit.ok("task-return", json!({"id": child, "summary": "v2"}))
        .await;
    kit.ok("task-accept-result", json!({"id": child})).await;
    kit.ok("task-accept-result", json!({"id": item})).await;
    let counters = kit.ok("task-counters", json!({"role": "Dev"})).await;
    let dev = &counters["counters"]["byRole"]["Dev"];
    assert_eq!(dev["accepted"], 2);
    assert_eq!(dev["deliveries"], 1);
    let audit = kit.ok("task-audit", json!({"id": item})).await;
    let text = audit["audit"].as_str().unwrap();
    assert!(
        text.contains(&format!("rework: {item} → {child}")),
        "{text}"
    );
    assert!(text.contains("lease: Dev One"), "{text}");
}

#[tokio::test]
/// Rule #1729.
async fn a_restart_with_a_live_lease_changes_nothing() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "survives", "normal").await;
    kit.ok("task-claim", json!({"botId": c.dev1})).await;
    let before = kit.record(&item);
    let again = kit.restart().await;
    let expired = again.ok("task-expire-leases", json!({})).await;
    assert_eq!(expired["expired"], 0);
    assert_eq!(again.record(&item), before);
    let lease = again.ok("task-lease", json!({"id": item})).await;
    assert_eq!(lease["lease"]["live"], true);
}

/// #1253, issue 11: a person's `task-claim` goes through the board's one
/// write path, so it posts the same claim line in the member's voice as a
/// Bot's own claim through `track_tasks`.
#[tokio::test]
/// Rule #1253.
async fn a_persons_claim_posts_the_members_claim_line() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "claim me", "normal").await;
    let claimed = kit
        .ok("task-claim", json!({"botId": c.dev1, "id": item}))
        .await;
    assert_eq!(claimed["task"]["id"], item);
    let room = kit.ok("messages", json!({"roomId": c.room})).await;
    let claims: Vec<&Value> = room["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "claim")
        .collect();
    assert_eq!(claims.len(), 1, "{room:#}");
    assert_eq!(claims[0]["authorId"], c.dev1);
    assert_eq!(claims[0]["text"], "接了 claim me");
}

#[tokio::test(start_paused = true)]
/// Rule #1729.
async fn a_dead_claimers_lease_expires_by_itself_and_the_card_returns_to_its_queue() {
    let kit = Kit::on_tokio_clock().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "item", "normal").await;
    let claimed = kit.ok("task-claim", json!({"botId": c.dev1})).await;
    assert_eq!(claimed["task"]["id"], item.as_str());
    let worker = claimed["task"]["worker"].as_str().unwrap().to_owned();
    // Nobody calls task-expire-leases: the host's timer recovers the card
    // once the 30-minute lease has ended.
    let mut events = kit.events();
    tokio::time::advance(std::time::Duration::from_secs(31 * 60)).await;
    events
        .until("the lease clock recovers the card", |e| {
            matches!(e, flybot_host::HostEvent::TasksWritten { task_ids } if task_ids.contains(&item))
        })
        .await;
    let card = kit.record(&item);
    assert_eq!(card["status"], "open");
    assert_eq!(card["botId"], c.lead.as_str());
    assert!(card.get("lease").is_none());
    assert!(kit.host.board().worker(&worker).is_none());
    // The Dev queue offers it again: another Dev claims it.
    let again = kit.ok("task-claim", json!({"botId": c.dev2})).await;
    assert_eq!(again["task"]["id"], item.as_str());
}

/// #1253: the last claim line is kept on the card (`claimCue`) so a
/// re-claim stays quiet, and no reader is shown it: not the state view,
/// not the board's rows, not a `{task}` answer.
#[tokio::test]
/// Rule #1253.
async fn the_claim_cue_stays_out_of_the_state_view_and_every_task_row() {
    let kit = Kit::new().await;
    let c = crew(&kit).await;
    let item = enqueue(&kit, &c, "Dev", "claim me", "normal").await;
    let claimed = kit
        .ok("task-claim", json!({"botId": c.dev1, "id": item}))
        .await;
    let cue = kit
        .until_some("the cue is kept", async || {
            kit.record(&item).get("claimCue").cloned()
        })
        .await;
    assert_eq!(cue["text"], "接了 claim me");
    let (_, state) = kit.anyone().state().await;
    let in_view: Vec<&Value> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["id"] == item)
        .collect();
    assert_eq!(in_view.len(), 1, "{state:#}");
    let rows = kit.ok("tasks", json!({"roomId": c.room})).await;
    let row = rows["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == item)
        .cloned()
        .unwrap();
    let updated = kit
        .ok("task-update", json!({"id": item, "note": "first step"}))
        .await;
    for shown in [in_view[0], &row, &updated["task"], &claimed["task"]] {
        assert_eq!(shown["id"], item.as_str(), "{shown}");
        assert!(shown.get("claimCue").is_none(), "{shown}");
    }
    assert!(kit.record(&item).get("claimCue").is_some());
}
