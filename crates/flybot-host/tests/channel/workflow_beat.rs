//! The planning beat through the channel (#1316): a node card moved to
//! accepted through the ordinary task endpoints is its node's outputs, and
//! the next node's card opens with no workflow call; a replayed write opens
//! nothing twice.

use crate::support::TestHost;
use crate::workflows::{cards_under, desk, fact, run_job};
use serde_json::{Value, json};
use std::time::Duration;

fn bot_named(t: &TestHost, name: &str) -> String {
    t.host.store().read(|s| {
        s.bots
            .values()
            .find(|b| b.name == name)
            .map(|b| b.id.clone())
            .unwrap()
    })
}

/// The cards under `job`, as (node, record).
fn under(t: &TestHost, job: &str) -> Vec<(String, Value)> {
    cards_under(t, job)
        .into_iter()
        .map(|card| (card["node"].as_str().unwrap().to_owned(), card))
        .collect()
}

/// Waits (short steps) until `job` has a card for `node`.
async fn opened(t: &TestHost, job: &str, node: &str) -> Value {
    for _ in 0..200 {
        if let Some((_, card)) = under(t, job).into_iter().find(|(n, _)| n == node) {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{node} never opened under {job}");
}

/// Waits until `job` has a card for `node`; answers the card's id.
async fn opened_id(t: &TestHost, job: &str, node: &str) -> String {
    opened(t, job, node).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The facts recorded on `job` so far.
fn workflow_facts(t: &TestHost, job: &str) -> Value {
    t.host
        .store()
        .read(|s| s.tasks[job].extra["workflowFacts"].clone())
}

/// Claims, starts, returns and accepts the queue item `id` as `bot`.
async fn finish(t: &TestHost, bot: &str, id: &str) {
    let claimed = t
        .ok(None, "task-claim", json!({"botId": bot, "id": id}))
        .await;
    assert_eq!(claimed["task"]["id"], id);
    t.ok(None, "task-start", json!({"id": id})).await;
    t.ok(None, "task-return", json!({"id": id, "summary": "done"}))
        .await;
    let accepted = t.ok(None, "task-accept-result", json!({"id": id})).await;
    assert_eq!(accepted["task"]["status"], "accepted");
}

#[tokio::test]
async fn an_accepted_node_card_opens_the_next_node_without_a_workflow_call_1316() {
    let t = TestHost::new();
    let (room, lead) = desk(&t).await;
    let (_, job) = run_job(
        &t,
        json!({"workflow": "blank", "roomId": room, "botId": lead,
               "title": "Launch post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    let draft_id = opened_id(&t, &job, "draft").await;

    finish(&t, &bot_named(&t, "Wren"), &draft_id).await;
    let review = opened(&t, &job, "review").await;
    assert_eq!(review["queueRole"], "Editor");
    assert_eq!(review["status"], "open");
    assert_eq!(review["workflow"], "blank");
    assert!(
        review.get("claimedBy").is_none(),
        "the hand-off is the claim"
    );
    // The accepted card is the node's output, at the card's own revision.
    let facts = workflow_facts(&t, &job);
    assert_eq!(facts["text:draft"]["revision"], draft_id.as_str());

    let review_id = review["id"].as_str().unwrap().to_owned();
    finish(&t, &bot_named(&t, "Eddie"), &review_id).await;
    let publish = opened(&t, &job, "publish").await;
    assert_eq!(publish["queueRole"], "Publisher");

    // Replays (a fact read again, more writes) open nothing twice.
    let replay = fact(&t, &job, "text:topic", "t1", None).await;
    assert!(replay["open"].as_array().unwrap().is_empty());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let nodes: Vec<String> = under(&t, &job).into_iter().map(|(n, _)| n).collect();
    assert_eq!(nodes.len(), 3, "one card per node: {nodes:?}");
}

#[tokio::test]
async fn a_fact_a_reader_recorded_wins_over_the_accepted_card_1316() {
    let t = TestHost::new();
    let (room, lead) = desk(&t).await;
    let (_, job) = run_job(
        &t,
        json!({"workflow": "blank", "roomId": room, "botId": lead,
               "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    let draft_id = opened_id(&t, &job, "draft").await;
    fact(&t, &job, "text: draft", "d7", None).await;
    opened(&t, &job, "review").await;
    finish(&t, &bot_named(&t, "Wren"), &draft_id).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let facts = workflow_facts(&t, &job);
    assert_eq!(facts["text:draft"]["revision"], "d7");
    assert_eq!(under(&t, &job).len(), 2);
}
