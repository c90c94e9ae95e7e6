//! A run Bot started by a friend's Bot reaches no connector (#1555), end to
//! end: the host owner adds server-everything while alone, then invites a
//! second member; that member's Bot, seated in its own room, calls
//! `run_workflow` on a workflow whose first node names the connector. The
//! run Bot it opens is offered no `mcp__` tool, and a call it forces is
//! refused with the spec's sentence. The same workflow started by the
//! owner's own Bot gives its run Bot the connector (the control).

use super::connectors::{everything, everything_body};
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use flybot_testkit::{Caller, Kit};
use serde_json::{Value, json};
use std::sync::Arc;

/// The room Bots (on the scripted mock) start the workflow when asked.
const ROOM_SCRIPT: &str = r#"[
  {"when": {"userContains": "start tooled", "step": 0},
   "reply": {"toolCalls": [{"name": "run_workflow", "arguments":
     {"workflow": "tooled", "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}}]}},
  {"reply": {"text": "started"}}
]"#;

/// A run Bot's model (the scripted provider): it forces the connector's
/// echo, then reports.
fn forced_echo() -> [Reply; 2] {
    [
        Reply::stream(
            &[
                r#"{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_e","type":"function","function":{"name":"mcp__everything__echo","arguments":"{\"message\":\"hi\"}"}}]}}]}"#,
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
                "[DONE]",
            ],
            End::Close,
        ),
        Reply::text("finished"),
    ]
}

fn offered_mcp(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|name| name.starts_with("mcp__"))
        .map(str::to_owned)
        .collect()
}

/// A workflow whose first node names the `everything` connector.
async fn save_tooled(member: &Caller<'_>) {
    let copy = member
        .ok(
            "workflow-customize",
            json!({"from": "blank", "id": "tooled", "name": "Tooled"}),
        )
        .await;
    let mut def = copy["definition"].clone();
    def["nodes"][0]["tools"] = json!(["everything"]);
    member.ok("workflow-save", json!({"definition": def})).await;
}

/// Asks `member`'s Bot in its own room to start the workflow; answers the
/// run Bot its first node opened.
async fn start_from_room(
    kit: &Kit,
    member: &Caller<'_>,
    name: &str,
) -> flybot_protocol::state::Bot {
    let bot = member
        .bot_from(json!({"name": name, "model": "mock"}))
        .await;
    // The blank workflow's first node is a Writer's.
    kit.set_role(&bot.id, "Writer").await;
    let room = member.room(&format!("{name}'s room"), &[&bot]).await;
    let before: Vec<String> = kit.host.store().read(|s| s.bots.keys().cloned().collect());
    member
        .ok(
            "send",
            json!({"roomId": room.id, "text": format!("@{name} start tooled")}),
        )
        .await;
    kit.round_ended(&room).await;
    let run_bot = kit.host.store().read(|s| {
        s.bots
            .values()
            .find(|b| b.run && !before.contains(&b.id))
            .cloned()
    });
    let seat = kit.seat(&room, &bot);
    let run_bot = run_bot.unwrap_or_else(|| {
        panic!(
            "{name}'s run_workflow opened no run Bot: {:?}",
            kit.transcript(&seat)
        )
    });
    assert_eq!(run_bot.extra["cappedBy"], json!([bot.id]));
    run_bot
}

#[tokio::test]
/// Rule #1555.
async fn friends_run_a_run_started_by_a_friends_bot_reaches_no_connector() {
    let Some(path) = everything() else { return };
    let [a, b] = forced_echo();
    let [c, d] = forced_echo();
    let server = ScriptedProvider::start(vec![a, b, c, d]);
    let scenario = Scenario::from_json(ROOM_SCRIPT).unwrap();
    let models = ProviderRegistry::from_config(
        &models_config(&server.base_url, None),
        MockModel::with_scenario(scenario),
    )
    .unwrap();
    let kit = Kit::with_config(|config| {
        config.models = Arc::new(models);
        // A run Bot runs on the default model: the scripted provider.
        config.default_model = "remote".to_owned();
    })
    .await;
    let ada = kit.owner("Ada").await;
    let owner = kit.as_member(&ada);
    let mounted = owner
        .ok("connector-connect", everything_body(&path, json!({})))
        .await;
    assert_eq!(mounted["connector"]["status"], "ready");
    let bo = owner.invite("Bo").await;
    let friend = kit.as_member(&bo);
    // The library is the host owner's (issue 29); any member's Bot runs from it.
    save_tooled(&owner).await;
    // The friend's Bot starts the run: its run Bot sees no connector.
    let run_bot = start_from_room(&kit, &friend, "Scout").await;
    kit.turns_ended(&run_bot.session_id, 1).await;
    let requests = server.requests();
    assert_eq!(offered_mcp(&requests[0]), Vec::<String>::new());
    let (text, is_error) = kit.tool_results(&run_bot.session_id).pop().unwrap();
    assert!(is_error);
    assert_eq!(
        text,
        "The everything connector is not available to a run started by a friend's Bot."
    );
    // The control: the owner's own Bot starts it, and its run Bot has it.
    let own_run = start_from_room(&kit, &owner, "Lead").await;
    kit.turns_ended(&own_run.session_id, 1).await;
    let requests = server.requests();
    assert!(
        offered_mcp(&requests[2]).contains(&"mcp__everything__echo".to_owned()),
        "{:?}",
        offered_mcp(&requests[2])
    );
    let (text, is_error) = kit.tool_results(&own_run.session_id).pop().unwrap();
    assert_eq!((text.as_str(), is_error), ("Echo: hi", false));
}
