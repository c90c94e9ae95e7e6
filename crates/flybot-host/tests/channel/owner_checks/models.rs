//! `update-bot` refuses a model nobody configured, exactly as `create-bot`
//! does (issue 29, one core rule): the Bot keeps its model and the home
//! does not change; the model it already has stays accepted.

use flybot_testkit::Kit;
use serde_json::json;

const REFUSED: &str = "No model named gpt-9 is configured on this host; choose one of: mock.";

#[tokio::test]
async fn configured_model_29_update_bot_refuses_a_model_nobody_configured_like_create_bot() {
    let kit = Kit::new().await;
    let ada = kit.bot("Ada").await;
    let created = kit
        .refused(
            "create-bot",
            json!({"name": "Bo", "model": "gpt-9"}),
            "bot/invalid",
        )
        .await;
    assert_eq!(created["error"]["message"], REFUSED);
    let updated = kit
        .refused(
            "update-bot",
            json!({"id": ada.id, "model": "gpt-9"}),
            "bot/invalid",
        )
        .await;
    assert_eq!(updated["error"]["message"], REFUSED);
    // A form that sends the Bot's own model back still saves.
    let saved = kit
        .ok(
            "update-bot",
            json!({"id": ada.id, "model": "mock", "instructions": "Be brief."}),
        )
        .await;
    assert_eq!(saved["bot"]["model"], "mock");
}
