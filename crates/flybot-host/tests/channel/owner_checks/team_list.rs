//! A Bot's system prompt names only the Bots its owner may see (issue 29,
//! #49): a second member's Bot, in no shared room and not granted, is not
//! in the owner's Bot's team list, and the owner's Bots are not in hers.

use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{Reply, ScriptedProvider};
use serde_json::{Value, json};

/// The system prompt of a request the scripted provider saw.
fn system_prompt(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
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
    let ada_prompt = system_prompt(&requests[0]);
    assert_eq!(requests[0]["messages"][0]["role"], "system");
    assert!(ada_prompt.contains("## Your team\nBo"), "{ada_prompt}");
    assert!(!ada_prompt.contains("Rex"), "{ada_prompt}");
    let rex_prompt = system_prompt(&requests[1]);
    assert!(!rex_prompt.contains("## Your team"), "{rex_prompt}");
}
