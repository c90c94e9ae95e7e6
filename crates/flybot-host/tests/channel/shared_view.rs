//! The keys and connectors in the state view (#49, #545, #1266): listed by
//! name, scope, kind and status, never a value, a webhook or a command
//! line; once a second member joins, only the host's owner still reads
//! them (issue 39), like their endpoints.

use super::connectors::{everything, everything_body};
use super::feishu_app::kit_on;
use flybot_testkit::api_fake::{Answer, ApiFake};
use serde_json::{Value, json};

const VALUE: &str = "view-test-key-value-3c9d";
const HOOK: &str = "/open-apis/bot/v2/hook/5b1c-view-test";

fn ids(rows: &Value, key: &str) -> Vec<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| row[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
/// Rules #545, #1266.
async fn state_view_lists_keys_and_connectors_by_name_until_shared() {
    let fake = ApiFake::start(vec![Answer::json(
        200,
        json!({"code": 0, "msg": "success"}),
    )]);
    let kit = kit_on(&fake, json!([{"reply": {"text": "fine"}}])).await;
    let ada = kit.owner("Ada").await;
    let owner = kit.as_member(&ada);
    let bot = owner.bot("Scout").await;
    owner
        .ok("secret-set", json!({"name": "DEPLOY_KEY", "value": VALUE}))
        .await;
    let webhook = format!("{}{HOOK}", fake.base_url);
    owner
        .ok(
            "connector-connect",
            json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": bot.id,
                   "webhook": webhook}),
        )
        .await;
    let everything = everything();
    if let Some(path) = &everything {
        owner
            .ok("connector-connect", everything_body(path, json!({})))
            .await;
    }
    let (_, view) = owner.state().await;
    assert_eq!(
        ids(&view["secrets"], "name"),
        ["DEPLOY_KEY", "FEISHU_WEBHOOK"]
    );
    assert_eq!(view["secrets"][0]["scope"], "all");
    assert_eq!(view["secrets"][1]["scope"], json!([]));
    let feishu = view["connectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["id"] == "feishu")
        .unwrap();
    assert_eq!(
        feishu,
        &json!({"id": "feishu", "kind": "channel", "status": "ready", "toolCount": 0, "botId": bot.id})
    );
    if everything.is_some() {
        assert_eq!(ids(&view["connectors"], "id"), ["everything", "feishu"]);
        let mcp = &view["connectors"][0];
        assert_eq!(
            (mcp["kind"].as_str(), mcp["status"].as_str()),
            (Some("mcp"), Some("ready"))
        );
        assert!(mcp["toolCount"].as_u64().unwrap() > 5, "{mcp}");
        assert!(mcp.get("command").is_none());
    }
    let text = view.to_string();
    assert!(!text.contains(VALUE) && !text.contains(HOOK), "{text}");
    // A second member: the host-wide surfaces leave his view; the host's
    // owner keeps reading hers (issue 39), and the page is told which.
    let bo = owner.invite("Bo").await;
    let (_, owners) = owner.state().await;
    assert_eq!(owners["secrets"], view["secrets"]);
    assert_eq!(
        ids(&owners["connectors"], "id"),
        ids(&view["connectors"], "id")
    );
    assert_eq!(owners["actor"]["sharedSurfaces"], "watch");
    let (_, his) = kit.as_member(&bo).state().await;
    assert_eq!(
        (his["secrets"].clone(), his["connectors"].clone()),
        (json!([]), json!([]))
    );
    assert_eq!(his["actor"]["sharedSurfaces"], "blocked");
}
