//! The host owner's connectors are for her own Bots only (#49, #601): a
//! second member's Bot is offered none of their tools, and a call it forces
//! is refused with why, while the owner's own Bot keeps them.

use crate::connectors::{everything, everything_body};
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use serde_json::{Value, json};

/// The model forces the connector's echo, then says it is done.
pub fn forced_echo() -> [Reply; 2] {
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

pub fn offered_mcp(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|name| name.starts_with("mcp__"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
/// Rule #49.
async fn owners_own_bots_a_second_members_bot_is_refused_the_owners_connector_tools() {
    let Some(path) = everything() else { return };
    let [a, b] = forced_echo();
    let [c, d] = forced_echo();
    let server = ScriptedProvider::start(vec![a, b, c, d]);
    let kit = kit_on(&models_config(&server.base_url, None)).await;
    let ann = kit.owner("Ann").await;
    let owner = kit.as_member(&ann);
    let mounted = owner
        .ok("connector-connect", everything_body(&path, json!({})))
        .await;
    assert_eq!(mounted["connector"]["status"], "ready");
    let bob = owner.invite("Bob").await;
    let second = kit.as_member(&bob);
    let rex = second
        .bot_from(json!({"name": "Rex", "model": "remote"}))
        .await;
    second
        .ok("send", json!({"botId": rex.id, "text": "echo it"}))
        .await;
    kit.idle(&rex.session).await;
    assert_eq!(offered_mcp(&server.requests()[0]), Vec::<String>::new());
    let (text, is_error) = kit.tool_results(&rex.session).pop().unwrap();
    assert!(is_error);
    assert_eq!(
        text,
        "The everything connector is the host owner's; it is not available to another member's Bot."
    );
    // The control: the owner's own Bot is offered the tool and calls it.
    let ada = owner
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    owner
        .ok("send", json!({"botId": ada.id, "text": "echo it"}))
        .await;
    kit.idle(&ada.session).await;
    let offered = offered_mcp(&server.requests()[2]);
    assert!(
        offered.contains(&"mcp__everything__echo".to_owned()),
        "{offered:?}"
    );
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert_eq!((text.as_str(), is_error), ("Echo: hi", false));
}
