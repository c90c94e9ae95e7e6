//! Run Bots through the channel (#1373, #1445, #1544, #1582): a node that
//! names tools opens with a hidden run Bot that is on no team, is never
//! announced or listed, and records its caps and the node's tools even
//! while no connector exists.

use crate::workflows::desk;
use flybot_testkit::Kit;
use serde_json::{Value, json};

#[tokio::test]
/// Rules #1373, #1445, #1544, #1582.
async fn a_node_naming_tools_opens_with_a_hidden_run_bot_and_its_caps() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let copy = kit
        .ok(
            "workflow-customize",
            json!({"from": "blank", "id": "tooled", "name": "Tooled"}),
        )
        .await;
    let mut def = copy["definition"].clone();
    def["nodes"][0]["tools"] = json!(["github"]);
    kit.ok("workflow-save", json!({"definition": def})).await;
    let mut events = kit.host.team().bus().subscribe();
    let before = kit.host.store().read(|s| s.bots.len());
    let started = kit
        .ok(
            "workflow-run",
            json!({"workflow": "tooled", "roomId": room, "botId": lead,
                   "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
        )
        .await;
    let job = started["jobId"].as_str().unwrap().to_owned();
    let (card, run_bot) = kit.host.store().read(|s| {
        let card = s
            .tasks
            .values()
            .find(|c| c.extra.get("parentId").and_then(Value::as_str) == Some(job.as_str()))
            .cloned()
            .unwrap();
        let id = card.extra["runBot"].as_str().unwrap().to_owned();
        (card, s.bots[&id].clone())
    });
    assert_eq!(kit.host.store().read(|s| s.bots.len()), before + 1);
    assert!(run_bot.run && run_bot.hidden);
    assert_eq!(
        run_bot.created_by, None,
        "the caller is a cap, not a parent"
    );
    // The owner's own save and start: no Bot caps the run, recorded as such.
    assert_eq!(run_bot.extra["cappedBy"], json!([]));
    assert_eq!(run_bot.extra["stepTools"], json!(["github"]));
    assert_eq!(run_bot.extra["cardId"], card.id.as_str());
    // Not a team member: in no room, never listed, never announced.
    let in_room = kit
        .host
        .store()
        .read(|s| s.rooms[&room].members.contains(&run_bot.id));
    assert!(!in_room);
    let (_, state) = kit.state().await;
    let listed = state["bots"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["id"] == run_bot.id.as_str());
    assert!(!listed, "the state view leaves a run Bot out");
    while let Ok(event) = events.try_recv() {
        assert!(
            !matches!(event, flybot_host::HostEvent::BotCreated { .. }),
            "bot.created is not announced for a run Bot"
        );
    }
    // Its caps are the job's, for every node it opens later.
    let job_caps = kit
        .host
        .store()
        .read(|s| s.tasks[&job].extra["cappedBy"].clone());
    assert_eq!(job_caps, json!([]));
    // A node naming no tools opens with no run Bot.
    kit.ok(
        "workflow-fact",
        json!({"jobId": job, "spec": "text:draft", "revision": "d1"}),
    )
    .await;
    let review_bot = kit.host.store().read(|s| {
        s.tasks
            .values()
            .find(|c| c.extra.get("node").and_then(Value::as_str) == Some("review"))
            .map(|c| c.extra.contains_key("runBot"))
    });
    assert_eq!(review_bot, Some(false));
}

/// The mock's script for a run Bot: its wake runs `echo hi`, a denied call
/// is tried next, then it reports.
const RUN_SCRIPT: &str = r#"[
  {"when": {"userContains": "Shelled: draft", "step": 0},
   "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
  {"when": {"userContains": "Shelled: draft", "step": 1},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Lead", "text": "hi"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "finished"}}
]"#;

#[tokio::test]
/// Rules #1373, #1445.
async fn a_run_bot_works_its_node_card_with_exactly_the_nodes_tools() {
    let kit = Kit::scripted(serde_json::from_str(RUN_SCRIPT).unwrap()).await;
    let (room, lead) = desk(&kit).await;
    let copy = kit
        .ok(
            "workflow-customize",
            json!({"from": "blank", "id": "shelled", "name": "Shelled"}),
        )
        .await;
    let mut def = copy["definition"].clone();
    def["nodes"][0]["tools"] = json!(["shell"]);
    kit.ok("workflow-save", json!({"definition": def})).await;
    let started = kit
        .ok(
            "workflow-run",
            json!({"workflow": "shelled", "roomId": room, "botId": lead,
                   "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
        )
        .await;
    let job = started["jobId"].as_str().unwrap().to_owned();
    let (card, run_bot) = kit.host.store().read(|s| {
        let card = s
            .tasks
            .values()
            .find(|c| c.extra.get("parentId").and_then(Value::as_str) == Some(job.as_str()))
            .cloned()
            .unwrap();
        let id = card.extra["runBot"].as_str().unwrap().to_owned();
        (card, s.bots[&id].clone())
    });
    // The run Bot holds its node card, so the drive wakes it and nobody else.
    assert_eq!(card.bot_id, run_bot.id);
    assert_eq!(card.extra["claimedBy"], run_bot.id.as_str());
    kit.turns_ended(&run_bot.session_id, 1).await;
    let woken = kit.user_texts(&run_bot.session_id);
    assert!(woken[0].contains(&card.id), "{woken:?}");
    // The shell its node names runs without an approval nobody could give;
    // a tool reaching past its Session is refused with #1445's sentence.
    let results = kit.tool_results(&run_bot.session_id);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(!results[0].1 && results[0].0.contains("hi"), "{results:?}");
    assert!(results[1].1, "{results:?}");
    assert!(results[1].0.contains("not a team member"), "{results:?}");
}
