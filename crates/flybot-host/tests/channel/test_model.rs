//! `test-model {botId}` (#409) through the channel: one real request on the
//! Bot's route over HTTP, a fixed code on failure, `NO_MODEL` without a
//! request, owner-only, one test at a time per Bot.

use crate::model_support::{MockServer, host_with_models, models_config};
use crate::support::TestHost;
use serde_json::json;

async fn bot_on(t: &TestHost, token: Option<&str>, model: &str) -> String {
    let name = format!("On {model}");
    let answer = t
        .ok(token, "create-bot", json!({"name": name, "model": model}))
        .await;
    answer["bot"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_working_route_passes() {
    let server = MockServer::start("");
    let t = host_with_models(&models_config(&server.base_url, None));
    let bot = bot_on(&t, None, "remote").await;
    let answer = t.ok(None, "test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], true, "{answer}");
    assert_eq!(answer["test"]["ref"], "remote");
    assert!(answer["test"]["ms"].is_u64());
}

#[tokio::test]
async fn the_mock_passes_offline() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Helper").await;
    let answer = t.ok(None, "test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], true, "{answer}");
    assert_eq!(answer["test"]["ref"], "mock");
}

#[tokio::test]
async fn a_failure_is_a_fixed_code_without_the_provider_s_message() {
    let server = MockServer::start(r#"[{"fail": {"status": 401, "code": "invalid_api_key"}}]"#);
    let t = host_with_models(&models_config(&server.base_url, None));
    let bot = bot_on(&t, None, "remote").await;
    let answer = t.ok(None, "test-model", json!({"botId": bot})).await;
    assert_eq!(
        answer["test"],
        json!({"ok": false, "ref": "remote", "code": "AUTH", "ms": answer["test"]["ms"]})
    );
    assert!(
        !answer.to_string().contains("refuse"),
        "no provider text: {answer}"
    );
}

#[tokio::test]
async fn a_missing_key_and_an_unknown_model_need_no_request() {
    // Nothing listens here: a request would fail as TRANSPORT.
    let t = host_with_models(&models_config(
        "http://127.0.0.1:9/v1",
        Some("FLYBOT_TEST_KEY_NEVER_SET"),
    ));
    let keyless = bot_on(&t, None, "remote").await;
    let answer = t.ok(None, "test-model", json!({"botId": keyless})).await;
    assert_eq!(answer["test"]["code"], "NO_KEY", "{answer}");
    let unknown = bot_on(&t, None, "nothing-declared").await;
    let answer = t.ok(None, "test-model", json!({"botId": unknown})).await;
    assert_eq!(
        answer["test"],
        json!({"ok": false, "ref": "nothing-declared", "code": "NO_MODEL", "ms": 0})
    );
}

#[tokio::test]
async fn a_friend_s_bot_and_an_unknown_bot_are_refused() {
    let t = TestHost::new();
    let owner = t.sign_in_owner("Ada").await;
    let friend = t.invite_member(&owner.token, "Bo").await;
    let bot = t.create_bot(Some(&owner.token), "Helper").await;
    t.refused(
        Some(&friend.token),
        "test-model",
        json!({"botId": bot}),
        "bot/forbidden",
    )
    .await;
    t.refused(
        Some(&owner.token),
        "test-model",
        json!({"botId": "bot-nope"}),
        "bot/not-found",
    )
    .await;
    t.refused(
        Some(&owner.token),
        "test-model",
        json!({"bot": bot}),
        "bot/invalid",
    )
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
    let t = std::sync::Arc::new(host_with_models(&models_config(&url, None)));
    let bot = bot_on(&t, None, "remote").await;
    let first = {
        let (t, bot) = (t.clone(), bot.clone());
        tokio::spawn(async move { t.call(None, "test-model", json!({"botId": bot})).await })
    };
    // Once the provider sees a connection, the first test holds its slot.
    listener.set_nonblocking(true).unwrap();
    let mut held = None;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        if let Ok((connection, _)) = listener.accept() {
            held = Some(connection);
            break;
        }
    }
    assert!(held.is_some(), "the first test never reached the provider");
    let answer = t
        .refused(None, "test-model", json!({"botId": bot}), "bot/busy")
        .await;
    assert_eq!(answer["error"]["details"]["botId"], bot.as_str());
    // Another Bot is not held up by it.
    let other = bot_on(&t, None, "mock").await;
    assert_eq!(
        t.ok(None, "test-model", json!({"botId": other})).await["test"]["ok"],
        true
    );
    // Stopping the first test gives its slot back.
    first.abort();
    let _ = first.await;
    assert!(t.host.config().models.begin_test(&bot).is_some());
}

#[tokio::test(start_paused = true)]
async fn a_silent_provider_times_out_at_30_s() {
    let (_listener, url) = silent_provider();
    let t = host_with_models(&models_config(&url, None));
    let bot = bot_on(&t, None, "remote").await;
    let answer = t.ok(None, "test-model", json!({"botId": bot})).await;
    assert_eq!(answer["test"]["ok"], false);
    assert_eq!(answer["test"]["code"], "TIMEOUT");
}
