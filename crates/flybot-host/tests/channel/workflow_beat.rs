//! The planning beat through the channel (#1316): a node card moved to
//! accepted through the ordinary task endpoints is its node's outputs, and
//! the next node's card opens with no workflow call; a replayed write opens
//! nothing twice.

use crate::workflows::{cards_under, desk, fact, run_job};
use flybot_testkit::Kit;
use serde_json::{Value, json};

/// The cards under `job`, as (node, record).
fn under(kit: &Kit, job: &str) -> Vec<(String, Value)> {
    cards_under(kit, job)
        .into_iter()
        .map(|card| (card["node"].as_str().unwrap().to_owned(), card))
        .collect()
}

/// Awaits a card for `node` under `job`; answers the card.
async fn opened(kit: &Kit, job: &str, node: &str) -> Value {
    let card = || under(kit, job).into_iter().find(|(n, _)| n == node);
    kit.until(&format!("{node} opens under {job}"), || card().is_some())
        .await;
    card().unwrap().1
}

/// Waits until `job` has a card for `node`; answers the card's id.
async fn opened_id(kit: &Kit, job: &str, node: &str) -> String {
    opened(kit, job, node).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The facts recorded on `job` so far.
fn workflow_facts(kit: &Kit, job: &str) -> Value {
    kit.host
        .store()
        .read(|s| s.tasks[job].extra["workflowFacts"].clone())
}

/// Claims, starts, returns and accepts the queue item `id` as `bot`.
async fn finish(kit: &Kit, bot: &str, id: &str) {
    let claimed = kit.ok("task-claim", json!({"botId": bot, "id": id})).await;
    assert_eq!(claimed["task"]["id"], id);
    kit.ok("task-start", json!({"id": id})).await;
    kit.ok("task-return", json!({"id": id, "summary": "done"}))
        .await;
    let accepted = kit.ok("task-accept-result", json!({"id": id})).await;
    assert_eq!(accepted["task"]["status"], "accepted");
}

#[tokio::test]
/// Rule #1316.
async fn an_accepted_node_card_opens_the_next_node_without_a_workflow_call() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let (_, job) = run_job(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead,
               "title": "Launch post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    let draft_id = opened_id(&kit, &job, "draft").await;

    finish(&kit, &kit.bot_named("Wren"), &draft_id).await;
    let review = opened(&kit, &job, "review").await;
    assert_eq!(review["queueRole"], "Editor");
    assert_eq!(review["status"], "open");
    assert_eq!(review["workflow"], "blank");
    assert!(
        review.get("claimedBy").is_none(),
        "the hand-off is the claim"
    );
    // The accepted card is the node's output, at the card's own revision.
    let facts = workflow_facts(&kit, &job);
    assert_eq!(facts["text:draft"]["revision"], draft_id.as_str());

    let review_id = review["id"].as_str().unwrap().to_owned();
    finish(&kit, &kit.bot_named("Eddie"), &review_id).await;
    let publish = opened(&kit, &job, "publish").await;
    assert_eq!(publish["queueRole"], "Publisher");

    // Replays (a fact read again, more writes) open nothing twice.
    let replay = fact(&kit, &job, "text:topic", "t1", None).await;
    assert!(replay["open"].as_array().unwrap().is_empty());
    // Nothing more opens once the beat has had every write: a quiet home.
    kit.settled().await;
    let nodes: Vec<String> = under(&kit, &job).into_iter().map(|(n, _)| n).collect();
    assert_eq!(nodes.len(), 3, "one card per node: {nodes:?}");
}

#[tokio::test]
/// Rule #1316.
async fn a_fact_a_reader_recorded_wins_over_the_accepted_card() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let (_, job) = run_job(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead,
               "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    let draft_id = opened_id(&kit, &job, "draft").await;
    fact(&kit, &job, "text: draft", "d7", None).await;
    opened(&kit, &job, "review").await;
    finish(&kit, &kit.bot_named("Wren"), &draft_id).await;
    // Nothing more opens once the beat has had every write: a quiet home.
    kit.settled().await;
    let facts = workflow_facts(&kit, &job);
    assert_eq!(facts["text:draft"]["revision"], "d7");
    assert_eq!(under(&kit, &job).len(), 2);
}

#[tokio::test]
async fn a_job_is_done_only_by_its_terminal_nodes_current_outputs_never_a_moved_card_pin_6() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let (_, job) = run_job(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead,
               "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    // The job card is not the lead's own work: the drive never wakes it.
    let lead_session = kit.host.store().read(|s| s.bots[&lead].session_id.clone());
    for (node, bot) in [("draft", "Wren"), ("review", "Eddie"), ("publish", "Pat")] {
        let id = opened_id(&kit, &job, node).await;
        finish(&kit, &kit.bot_named(bot), &id).await;
    }
    kit.settled().await;
    // The terminal card was accepted, yet its output was never read.
    assert!(workflow_facts(&kit, &job).get("link:published").is_none());
    assert_ne!(kit.record(&job)["status"], "accepted");
    assert!(
        !kit.user_texts(&lead_session)
            .iter()
            .any(|t| t.contains("Post")),
        "the lead was woken for its job card"
    );
    // Its reader records the output: the job is done and its card closes.
    let plan = fact(&kit, &job, "link:published", "https://example.org/p", None).await;
    assert_eq!(plan["done"], true);
    assert_eq!(kit.card_when(&job, "accepted").await["status"], "accepted");
}
