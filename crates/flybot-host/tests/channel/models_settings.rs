//! Models from Settings (issue 31) through the channel: the host's owner
//! adds an OpenAI-compatible provider with its key saved as a secret; the
//! next turn runs on it with no restart; config.toml is written back with
//! the key's secret name and never the key; a member is refused and changes
//! nothing; a down endpoint's test answers the #409 sentence for its class.

use flybot_agent::session::settle::SETTLE;
use flybot_testkit::Kit;
use flybot_testkit::hold_clock;
use flybot_testkit::sse_server::{Reply, ScriptedProvider};
use serde_json::{Value, json};
use std::time::Duration;

fn provider(base_url: &str, key: Option<&str>) -> Value {
    let mut body = json!({
        "name": "local",
        "baseUrl": base_url,
        "models": [{"name": "local-chat", "model": "qwen3", "contextWindow": 32000, "imageInput": true}],
    });
    if let Some(key) = key {
        body["apiKey"] = key.into();
    }
    body
}

fn config_toml(kit: &Kit) -> String {
    std::fs::read_to_string(kit.home().join("config.toml")).unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn a_provider_added_from_settings_serves_the_next_turn_with_no_restart_and_is_written_back_issue_31()
 {
    let server = ScriptedProvider::start(vec![Reply::text("Hello from the local model.")]);
    let kit = Kit::new().await;
    std::fs::write(kit.home().join("config.toml"), "# mine\ncheckRatio = 0.5\n").unwrap();
    let answer = kit
        .ok(
            "model-provider-set",
            provider(&server.base_url, Some("sk-local-secret-1")),
        )
        .await;
    let row = &answer["providers"][0];
    assert_eq!(row["name"], "local");
    assert_eq!(
        (row["key"].as_str(), row["keySaved"].as_bool()),
        (Some("saved"), Some(true))
    );
    assert_eq!(row["models"][0]["imageInput"], true);
    assert!(
        !answer.to_string().contains("sk-local-secret-1"),
        "{answer}"
    );

    // Written back: the rest of the file kept, the key's name and never the key.
    let file = config_toml(&kit);
    assert!(file.starts_with("# mine\ncheckRatio = 0.5\n"), "{file}");
    assert!(
        file.contains("[providers.local]") && file.contains("apiKeySecret = \"MODEL_LOCAL_KEY\""),
        "{file}"
    );
    assert!(
        file.contains("[models.local-chat]") && file.contains("imageInput = true"),
        "{file}"
    );
    assert!(!file.contains("sk-local-secret-1"));
    let (_, state) = kit.state().await;
    assert!(
        state["model"]["names"]
            .as_array()
            .unwrap()
            .contains(&json!("local-chat"))
    );

    // The next turn runs on it, with the saved key, and no restart.
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Local", "model": "local-chat"}))
        .await;
    // The model server answers in real time: the paused clock is held, so
    // it cannot jump to the request's deadline while a loaded machine has
    // the server answer late; only the settle window is moved by hand.
    let held = hold_clock();
    kit.ok("send", json!({"botId": bot.id, "text": "hi"})).await;
    tokio::time::advance(SETTLE + Duration::from_millis(10)).await;
    kit.idle(&bot.session).await;
    // The answer is shown once its line is durable, which may come just
    // after the Session goes idle.
    let said = kit
        .until_some("the local model's answer is shown", async || {
            let lines = kit.ok("messages", json!({"botId": bot.id})).await;
            let said: Vec<String> = lines["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l["kind"] == "assistant")
                .filter_map(|l| l["text"].as_str().map(str::to_owned))
                .collect();
            (!said.is_empty()).then_some(said)
        })
        .await;
    assert_eq!(said, ["Hello from the local model."]);
    drop(held);
    assert_eq!(server.requests()[0]["model"], "qwen3");

    // A provider a Bot runs on is not removed from under it.
    kit.refused(
        "model-provider-remove",
        json!({"name": "local"}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
async fn a_member_is_refused_every_models_endpoint_and_nothing_changes_issue_31() {
    let kit = Kit::new().await;
    let [_ada, bob] = kit.members(["Ada", "Bob"]).await;
    let bob = kit.as_member(&bob);
    bob.refused("models-config", json!({}), "bot/forbidden")
        .await;
    bob.refused(
        "model-provider-set",
        provider("http://127.0.0.1:9/v1", None),
        "bot/forbidden",
    )
    .await;
    bob.refused(
        "model-provider-remove",
        json!({"name": "local"}),
        "bot/forbidden",
    )
    .await;
    bob.refused("test-model", json!({"model": "mock"}), "bot/forbidden")
        .await;
    assert_eq!(config_toml(&kit), "");
    let (_, state) = kit.state().await;
    assert_eq!(state["model"]["names"], json!(["mock"]));
}

#[tokio::test]
async fn bad_edits_are_refused_with_the_field_and_the_running_set_stays_issue_31() {
    let kit = Kit::new().await;
    let cases = [
        json!({"name": "mock", "baseUrl": "http://h/v1", "models": [{"name": "m", "model": "m", "contextWindow": 10}]}),
        json!({"name": "x", "baseUrl": "ftp://h/v1", "models": [{"name": "m", "model": "m", "contextWindow": 10}]}),
        json!({"name": "x", "baseUrl": "http://h/v1", "models": []}),
        json!({"name": "x", "baseUrl": "http://h/v1", "models": [{"name": "m", "model": "m", "contextWindow": 0}]}),
        json!({"name": "x", "baseUrl": "http://h/v1", "models": [{"name": "mock", "model": "m", "contextWindow": 10}]}),
        json!({"name": "x", "baseUrl": "http://h/v1", "models": [{"name": "m", "model": "", "contextWindow": 10}]}),
    ];
    for body in cases {
        kit.refused("model-provider-set", body, "bot/invalid").await;
    }
    assert_eq!(config_toml(&kit), "");
}

#[tokio::test]
/// Rule #409.
async fn test_connection_shows_the_reply_the_mock_says_it_is_the_mock_and_a_down_endpoint_gives_its_sentence()
 {
    let server = ScriptedProvider::start(vec![Reply::text("OK, I am here.")]);
    let kit = Kit::new().await;
    kit.ok("model-provider-set", provider(&server.base_url, None))
        .await;
    let up = kit.ok("test-model", json!({"model": "local-chat"})).await;
    assert_eq!(up["test"]["ok"], true, "{up}");
    assert_eq!(up["test"]["reply"], "OK, I am here.");
    assert!(up["test"].get("mock").is_none());

    let mock = kit.ok("test-model", json!({"model": "mock"})).await;
    assert_eq!(
        (mock["test"]["ok"].as_bool(), mock["test"]["mock"].as_bool()),
        (Some(true), Some(true)),
        "{mock}"
    );

    // Nothing listens on port 9: the endpoint is down.
    let mut down = provider("http://127.0.0.1:9/v1", None);
    down["name"] = "down".into();
    down["models"][0]["name"] = "down-chat".into();
    kit.ok("model-provider-set", down).await;
    let failed = kit.ok("test-model", json!({"model": "down-chat"})).await;
    assert_eq!(failed["test"]["ok"], false);
    assert_eq!(failed["test"]["code"], "TRANSPORT");
    assert_eq!(
        failed["test"]["sentence"],
        "The provider could not be reached at its base URL. Check the address and that the server is running."
    );
    // Removed: gone from the file and from the running set at once.
    kit.ok("model-provider-remove", json!({"name": "down"}))
        .await;
    assert!(!config_toml(&kit).contains("down"));
    let (_, state) = kit.state().await;
    assert!(
        !state["model"]["names"]
            .as_array()
            .unwrap()
            .contains(&json!("down-chat"))
    );
}

#[tokio::test]
async fn an_edit_keeps_the_saved_key_changes_the_models_and_never_drops_one_a_bot_runs_on_issue_31()
{
    let kit = Kit::new().await;
    kit.ok(
        "model-provider-set",
        provider("http://127.0.0.1:9/v1", Some("sk-first-key")),
    )
    .await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Local", "model": "local-chat"}))
        .await;
    // Dropping the model the Bot runs on is refused, and nothing changes.
    let before = config_toml(&kit);
    let mut drop_it = provider("http://127.0.0.1:9/v1", None);
    drop_it["models"][0]["name"] = "other-chat".into();
    let refused = kit
        .refused("model-provider-set", drop_it, "bot/invalid")
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Local (local-chat)")
    );
    assert_eq!(config_toml(&kit), before);
    // A new base URL and a second model, with no key given: the key stays.
    let mut edit = provider("http://127.0.0.1:8/v1", None);
    edit["models"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "local-big", "model": "qwen3:32b", "contextWindow": 128000}));
    let answer = kit.ok("model-provider-set", edit).await;
    let row = &answer["providers"][0];
    assert_eq!(row["baseUrl"], "http://127.0.0.1:8/v1");
    assert_eq!(row["keySaved"], true);
    assert_eq!(row["models"].as_array().unwrap().len(), 2);
    let file = config_toml(&kit);
    assert!(
        file.contains("http://127.0.0.1:8/v1") && file.contains("[models.local-big]"),
        "{file}"
    );
    let (_, state) = kit.state().await;
    assert!(
        state["model"]["names"]
            .as_array()
            .unwrap()
            .contains(&json!("local-big"))
    );
    let model = kit.host.store().read(|s| s.bots[&bot.id].model.clone());
    assert_eq!(model, "local-chat");
}

/// Issue 31: the default model chosen in Settings. The owner's choice is
/// applied at once (the state view names it, a new Bot with no model gets
/// it) and written to config.toml's `defaultModel`, the rest of the file
/// kept; a model no route has is refused with the default and the file as
/// they were; a member is refused and changes nothing.
#[tokio::test]
async fn the_default_model_is_chosen_in_settings_applied_at_once_and_written_back_issue_31() {
    let kit = Kit::new().await;
    let [_ada, bob] = kit.members(["Ada", "Bob"]).await;
    std::fs::write(kit.home().join("config.toml"), "# mine\ncheckRatio = 0.5\n").unwrap();
    kit.ok(
        "model-provider-set",
        provider("http://127.0.0.1:9/v1", None),
    )
    .await;
    let before = config_toml(&kit);

    // Refused: a model no route has, and a member; nothing changes.
    let refused = kit
        .refused(
            "model-default-set",
            json!({"model": "gpt-nowhere"}),
            "bot/invalid",
        )
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("There is no model named \"gpt-nowhere\""),
        "{refused}"
    );
    kit.as_member(&bob)
        .refused(
            "model-default-set",
            json!({"model": "local-chat"}),
            "bot/forbidden",
        )
        .await;
    assert_eq!(config_toml(&kit), before);
    let (_, state) = kit.state().await;
    assert_eq!(state["model"]["default"], "mock");
    assert_eq!(
        kit.ok("models-config", json!({})).await["defaultModel"],
        "mock"
    );

    // Chosen: applied with no restart and written back.
    let answer = kit
        .ok("model-default-set", json!({"model": "local-chat"}))
        .await;
    assert_eq!(answer["defaultModel"], "local-chat");
    let (_, state) = kit.state().await;
    assert_eq!(state["model"]["default"], "local-chat");
    let file = config_toml(&kit);
    assert!(
        file.starts_with("# mine\ncheckRatio = 0.5\ndefaultModel = \"local-chat\"\n"),
        "{file}"
    );
    assert!(file.contains("[models.local-chat]"), "{file}");
    let bot = kit.anyone().bot_from(json!({"name": "Fresh"})).await;
    let (_, state) = kit.state().await;
    let row = state["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == bot.id.as_str())
        .cloned()
        .unwrap();
    assert_eq!(row["model"], "local-chat");
    // The default's provider is not removed from under it.
    kit.refused(
        "model-provider-remove",
        json!({"name": "local"}),
        "bot/invalid",
    )
    .await;
}
