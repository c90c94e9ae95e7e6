//! `test-model {botId}` (#409) through the channel: one real request on the
//! Bot's route over HTTP, a fixed code on failure, `NO_MODEL` without a
//! request, owner-only, one test at a time per Bot.

use flybot_testkit::mock_server::{MockServer, kit_on, models_config};
use flybot_testkit::{Caller, Kit, within};
use serde_json::json;

/// A Bot on `model`, made by `caller`; answers its id.
async fn bot_on(caller: Caller<'_>, model: &str) -> String {
    let name = format!("On {model}");
    let body = json!({"name": name, "model": model});
    caller.bot_from(body).await.id
}

#[tokio::test]
async fn a_working_route_passes() {
    let server = MockServer::start("");
    let kit = kit_on(&models_config(&server.base_url, None)).await;
    let bot = bot_on(kit.anyone(), "remote").await;
    let answer = kit.ok("test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], true, "{answer}");
    assert_eq!(answer["test"]["ref"], "remote");
    assert!(answer["test"]["ms"].is_u64());
}

#[tokio::test]
async fn the_mock_passes_offline() {
    let kit = Kit::new().await;
    let bot = kit.bot("Helper").await.id;
    let answer = kit.ok("test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], true, "{answer}");
    assert_eq!(answer["test"]["ref"], "mock");
}

#[tokio::test]
async fn a_failure_is_a_fixed_code_without_the_provider_s_message() {
    let server = MockServer::start(r#"[{"fail": {"status": 401, "code": "invalid_api_key"}}]"#);
    let kit = kit_on(&models_config(&server.base_url, None)).await;
    let bot = bot_on(kit.anyone(), "remote").await;
    let answer = kit.ok("test-model", json!({"botId": bot})).await;
    assert_eq!(
        answer["test"],
        json!({"ok": false, "ref": "remote", "code": "AUTH", "ms": answer["test"]["ms"],
               "sentence": "The provider refused the API key. Check the key saved for this provider."})
    );
    assert!(
        !answer.to_string().contains("invalid_api_key"),
        "no provider text: {answer}"
    );
}

#[tokio::test]
async fn a_missing_key_and_an_unknown_model_need_no_request() {
    // Nothing listens here: a request would fail as TRANSPORT.
    let kit = kit_on(&models_config(
        "http://127.0.0.1:9/v1",
        Some("FLYBOT_TEST_KEY_NEVER_SET"),
    ))
    .await;
    let keyless = bot_on(kit.anyone(), "remote").await;
    let answer = kit.ok("test-model", json!({"botId": keyless})).await;
    assert_eq!(answer["test"]["code"], "NO_KEY", "{answer}");
    // create-bot refuses a model nobody configured (issue 29), so this Bot's
    // model is one config.toml stopped declaring after it was made.
    let unknown = bot_on(kit.anyone(), "mock").await;
    kit.host
        .team()
        .mutate("test", |change| {
            let mut bot = change.state().bots[&unknown].clone();
            bot.model = "nothing-declared".to_owned();
            change.put_bot(&bot);
            Ok(())
        })
        .await
        .unwrap();
    let answer = kit.ok("test-model", json!({"botId": unknown})).await;
    assert_eq!(
        answer["test"],
        json!({"ok": false, "ref": "nothing-declared", "code": "NO_MODEL", "ms": 0,
               "sentence": "No model of that name is set up on this host."})
    );
}

#[tokio::test]
async fn a_friend_s_bot_and_an_unknown_bot_are_refused() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let friend = kit.as_member(&owner).invite("Bo").await;
    let bot = kit.as_member(&owner).bot("Helper").await.id;
    kit.as_member(&friend)
        .refused("test-model", json!({"botId": bot}), "bot/forbidden")
        .await;
    kit.as_member(&owner)
        .refused("test-model", json!({"botId": "bot-nope"}), "bot/not-found")
        .await;
    kit.as_member(&owner)
        .refused("test-model", json!({"bot": bot}), "bot/invalid")
        .await;
}

/// A provider that accepts connections and never answers.
fn silent_provider() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    (listener, url)
}

#[tokio::test]
async fn a_second_test_of_the_same_bot_is_refused_while_one_runs() {
    let (listener, url) = silent_provider();
    let kit = std::sync::Arc::new(kit_on(&models_config(&url, None)).await);
    let bot = bot_on(kit.anyone(), "remote").await;
    let first = {
        let (kit, bot) = (kit.clone(), bot.clone());
        tokio::spawn(async move { kit.post("test-model", json!({"botId": bot})).await })
    };
    // Once the provider sees a connection, the first test holds its slot.
    listener.set_nonblocking(true).unwrap();
    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
    let held = within("the first test reaches the provider", listener.accept()).await;
    assert!(held.is_ok(), "the first test never reached the provider");
    let answer = kit
        .refused("test-model", json!({"botId": bot}), "bot/busy")
        .await;
    assert_eq!(answer["error"]["details"]["botId"], bot.as_str());
    // Another Bot is not held up by it.
    let other = bot_on(kit.anyone(), "mock").await;
    assert_eq!(
        kit.ok("test-model", json!({"botId": other})).await["test"]["ok"],
        true
    );
    // Stopping the first test gives its slot back.
    first.abort();
    let _ = first.await;
    assert!(kit.host.config().models.begin_test(&bot).is_some());
}

#[tokio::test(start_paused = true)]
async fn a_silent_provider_times_out_at_30_s() {
    let (_listener, url) = silent_provider();
    let kit = kit_on(&models_config(&url, None)).await;
    let bot = bot_on(kit.anyone(), "remote").await;
    let answer = kit.ok("test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], false);
    assert_eq!(answer["test"]["code"], "TIMEOUT");
}
