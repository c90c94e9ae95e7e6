//! A Bot's system prompt names only the Bots its owner may see (issue 29,
//! #49): a second member's Bot, in no shared room and not granted, is not
//! in the owner's Bot's team list, and the owner's Bots are not in hers.

use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{Reply, ScriptedProvider};
use serde_json::{Value, json};

/// The system prompt of a request the scripted provider saw.
fn system_prompt(request: &Value) -> String {
    assert_eq!(request["messages"][0]["role"], "system");
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The names the prompt's "## Your team" section lists, sorted.
fn team_of(prompt: &str) -> Vec<String> {
    let mut lines = prompt.lines().skip_while(|line| *line != "## Your team");
    let names = lines.nth(1).unwrap_or_default();
    let mut team: Vec<String> = names
        .split(", ")
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    team.sort();
    team
}

#[tokio::test]
async fn team_list_29_a_bots_prompt_names_no_bot_of_another_owner() {
    let server = ScriptedProvider::start(vec![Reply::text("ok"), Reply::text("ok")]);
    let kit = kit_on(&models_config(&server.base_url, None)).await;
    let [ann, bob] = kit.members(["Ann", "Bob"]).await;
    let (owner, second) = (kit.as_member(&ann), kit.as_member(&bob));
    let ada = owner
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    owner.bot("Bo").await;
    let rex = second
        .bot_from(json!({"name": "Rex", "model": "remote"}))
        .await;
    owner
        .ok("send", json!({"botId": ada.id, "text": "hello"}))
        .await;
    kit.idle(&ada.session).await;
    second
        .ok("send", json!({"botId": rex.id, "text": "hello"}))
        .await;
    kit.idle(&rex.session).await;
    let requests = server.requests();
    // Ann's Bots (the host's first Main Bot, Chief, is hers too); none of
    // Bob's, and none of hers in Bob's Bot's list.
    assert_eq!(team_of(&system_prompt(&requests[0])), ["Bo", "Chief"]);
    assert_eq!(team_of(&system_prompt(&requests[1])), Vec::<String>::new());
}
