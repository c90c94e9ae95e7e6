//! Who may use a connector's tools (#601, #1234, #1271): a switch turned
//! off takes the tools out of the list the model is sent and the guard
//! refuses a forced call with the switch's sentence; a group room's member
//! turn keeps only GitHub's read half, and a write (or an unclassified
//! tool) is refused with the #1234 sentence while the own chat keeps it.
//! server-everything stands in for a server; mounted as `github` its tools
//! (`echo`, `get-sum`, ...) are not list_/get_/search_, so all fail closed.

use super::connectors::{everything, everything_body};
use flybot_testkit::Kit;
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use serde_json::{Value, json};

fn says_ok() -> Reply {
    Reply::stream(
        &[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ],
        End::Close,
    )
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .filter(|name| name.starts_with("mcp__"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
/// Rule #601.
async fn bot_switch_off_takes_the_tools_out_of_the_list_the_model_is_sent() {
    let Some(path) = everything() else { return };
    let server = ScriptedProvider::start(vec![says_ok(), says_ok(), says_ok()]);
    let kit = kit_on(&models_config(&server.base_url, None)).await;
    let ada = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    kit.ok("send", json!({"botId": ada.id, "text": "hi"})).await;
    kit.idle(&ada.session).await;
    let on = offered(&server.requests()[0]);
    assert!(on.contains(&"mcp__everything__echo".to_owned()), "{on:?}");
    let switched = kit
        .ok(
            "bot-connectors",
            json!({"botId": ada.id, "connector": "everything", "enabled": false}),
        )
        .await;
    assert_eq!(switched["connectors"], json!({"everything": false}));
    kit.ok("send", json!({"botId": ada.id, "text": "again"}))
        .await;
    kit.idle(&ada.session).await;
    assert_eq!(offered(&server.requests()[1]), Vec::<String>::new());
    // Switched on again: absent means on, and the record keeps nothing.
    kit.ok(
        "bot-connectors",
        json!({"botId": ada.id, "connector": "everything", "enabled": true}),
    )
    .await;
    let extra = kit.host.store().read(|s| s.bots[&ada.id].extra.clone());
    assert!(!extra.contains_key("connectors"), "{extra:?}");
    kit.ok("send", json!({"botId": ada.id, "text": "third"}))
        .await;
    kit.idle(&ada.session).await;
    assert_eq!(offered(&server.requests()[2]), on);
}

const SCRIPT: &str = r#"[
  {"when": {"userContains": "echo it", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__everything__echo", "arguments": {"message": "hi"}}]}},
  {"when": {"userContains": "github echo", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__github__echo", "arguments": {"message": "hi"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
  {"reply": {"text": "fine"}}
]"#;

#[tokio::test]
/// Rule #1271.
async fn guard_a_forced_call_to_a_switched_off_connector_is_refused_with_why() {
    let Some(path) = everything() else { return };
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let ada = kit.bot("Ada").await;
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    kit.ok(
        "bot-connectors",
        json!({"botId": ada.id, "connector": "everything", "enabled": false}),
    )
    .await;
    kit.ok("send", json!({"botId": ada.id, "text": "echo it"}))
        .await;
    kit.idle(&ada.session).await;
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert!(is_error);
    assert_eq!(text, "The everything connector is turned off for Ada.");
    // Another member's switch is refused and changes nothing.
    kit.anyone()
        .refused(
            "bot-connectors",
            json!({"botId": "bot-none", "connector": "everything", "enabled": false}),
            "bot/not-found",
        )
        .await;
}

#[tokio::test]
/// Rule #1234.
async fn room_reads_a_member_turn_is_refused_a_github_write_the_own_chat_is_not() {
    let Some(path) = everything() else { return };
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    // The github connector reads the owner's GITHUB_TOKEN.
    kit.ok(
        "secret-set",
        json!({"name": "GITHUB_TOKEN", "value": "ghp_room_test"}),
    )
    .await;
    let mut body = everything_body(&path, json!({}));
    body["id"] = "github".into();
    kit.ok("connector-connect", body).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Ada github echo"}),
    )
    .await;
    kit.round_ended(&room).await;
    let seat = kit.seat(&room, &ada);
    let (text, is_error) = kit.tool_results(&seat).pop().unwrap();
    assert!(is_error);
    assert_eq!(
        text,
        "The mcp__github__echo tool is not available in a group room (#1234): a room gets GitHub's read tools (list/get/search) only. Change GitHub from your own chat."
    );
    kit.ok("send", json!({"botId": ada.id, "text": "github echo"}))
        .await;
    kit.idle(&ada.session).await;
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert_eq!((text.as_str(), is_error), ("Echo: hi", false));
}
