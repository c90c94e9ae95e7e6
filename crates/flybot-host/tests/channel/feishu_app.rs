//! Feishu as a channel connector in app mode (#1266), against a loopback
//! server speaking Feishu's open API (tenant_access_token, message send,
//! their error bodies): the pair proven once, the subscription's challenge,
//! the allow-list (a stranger starts no turn and is counted once), an
//! allowed sender's message reaching the Bot and its answer going back
//! into the chat, a redelivered event landing once, a wrong token refused.

use axum::body::{Body, to_bytes};
use axum::http::Request;
use flybot_testkit::Kit;
use flybot_testkit::api_fake::{Answer, ApiFake};
use serde_json::{Value, json};
use tower::ServiceExt;

pub const TOKEN_PATH: &str = "/open-apis/auth/v3/tenant_access_token/internal";
pub const SEND_PATH: &str = "/open-apis/im/v1/messages";
const TOKEN: &str = "t-g1044ghJRUIJJ5ELLGXCJCQFPNLVGIDVFRJHFDQ";
const APP_SECRET: &str = "dskLLdkasdjlasdKK-app-secret";
const VERIFY: &str = "rvaYgkND1GOiu5MM0E1rncYC6PLtF7JV";
const ADA: &str = "ou_84aad35d084aa403a838cf73ee18467";
const STRANGER: &str = "ou_7d8a6e6df7621556ce0d21922b676706";
const CHAT: &str = "oc_5ce6d572455d361153b7cb51da133945";

pub fn token_ok() -> Answer {
    Answer::json(
        200,
        json!({"code": 0, "msg": "ok", "tenant_access_token": TOKEN, "expire": 7200}),
    )
}

fn sent_ok() -> Answer {
    Answer::json(
        200,
        json!({"code": 0, "msg": "success", "data": {
            "message_id": "om_dc13264520392913993dd051dba21dcf", "chat_id": CHAT,
            "msg_type": "text", "body": {"content": "{\"text\":\"ok\"}"}}}),
    )
}

/// A host whose Feishu is `fake`, on the mock model following `script`.
pub async fn kit_on(fake: &ApiFake, script: Value) -> Kit {
    let api = fake.base_url.clone();
    Kit::with_config(move |config| {
        config.models = flybot_testkit::scripted_models(&script.to_string());
        config.feishu_api = api;
    })
    .await
}

fn app_body(bot_id: &str) -> Value {
    json!({"id": "feishu", "kind": "channel", "mode": "app", "botId": bot_id,
           "appId": "cli_9f5343c580712544", "appSecret": APP_SECRET, "verificationToken": VERIFY})
}

/// Posts a callback body the way Feishu's server does: no session.
pub async fn event(kit: &Kit, body: Value) -> (u16, Value) {
    let request = Request::post("/connectors/feishu/events")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let answer = kit.router().oneshot(request).await.unwrap();
    let status = answer.status().as_u16();
    let bytes = to_bytes(answer.into_body(), usize::MAX).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn message(event_id: &str, sender: &str, text: &str, token: &str) -> Value {
    json!({
        "schema": "2.0",
        "header": {"event_id": event_id, "event_type": "im.message.receive_v1",
                   "create_time": "1608725989000", "token": token,
                   "app_id": "cli_9f5343c580712544", "tenant_key": "2ca1d211f64f6438"},
        "event": {
            "sender": {"sender_id": {"union_id": "on_8ed6aa67826108097d9ee143816345",
                                     "user_id": "e33ggbyz", "open_id": sender},
                       "sender_type": "user", "tenant_key": "736588c9260f175e"},
            "message": {"message_id": format!("om_{event_id}"), "root_id": "", "parent_id": "",
                        "create_time": "1609073151345", "chat_id": CHAT, "chat_type": "group",
                        "message_type": "text",
                        "content": json!({"text": format!("@_user_1 {text}")}).to_string(),
                        "mentions": []}
        }
    })
}

async fn row(kit: &Kit) -> Value {
    let rows = kit.ok("connectors", json!({})).await["connectors"].clone();
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "feishu")
        .cloned()
        .unwrap()
}

const SCRIPT: &str = r#"[{"when": {"userContains": "what is on today"}, "reply": {"text": "Standup at 10."}},
                          {"reply": {"text": "fine"}}]"#;

#[tokio::test]
/// Rule #1266.
async fn feishu_an_allowed_senders_message_reaches_the_bot_and_its_answer_goes_back() {
    let fake = ApiFake::routed(vec![
        (TOKEN_PATH, vec![token_ok()]),
        (SEND_PATH, vec![sent_ok()]),
    ]);
    let kit = kit_on(&fake, serde_json::from_str(SCRIPT).unwrap()).await;
    let ada = kit.bot("Ada").await;
    let connected = kit.ok("connector-connect", app_body(&ada.id)).await;
    let row0 = &connected["connector"];
    assert_eq!(
        (row0["kind"].as_str(), row0["status"].as_str()),
        (Some("channel"), Some("ready"))
    );
    assert_eq!(row0["channel"]["appPair"], "set");
    assert_eq!(row0["channel"]["allowed"], json!([]));
    assert_eq!(row0["channel"]["eventsPath"], "/connectors/feishu/events");
    // The pair was proven once; nothing else was called.
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, TOKEN_PATH);
    assert_eq!(
        seen[0].body,
        json!({"app_id": "cli_9f5343c580712544", "app_secret": APP_SECRET})
    );
    // The subscription's check: the bare challenge, only with the token.
    let check =
        json!({"challenge": "ajls384kdjx98XX", "token": VERIFY, "type": "url_verification"});
    assert_eq!(
        event(&kit, check).await,
        (200, json!({"challenge": "ajls384kdjx98XX"}))
    );
    let wrong = json!({"challenge": "x", "token": "not-it", "type": "url_verification"});
    let (status, refused) = event(&kit, wrong).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (401, Some("bot/unauthorized"))
    );
    // Nobody by default: a stranger's message starts no turn, counted once.
    for id in ["ev-1", "ev-2"] {
        let (status, answer) = event(&kit, message(id, STRANGER, "hello?", VERIFY)).await;
        assert_eq!((status, &answer["delivered"]), (200, &json!(false)));
    }
    assert_eq!(row(&kit).await["channel"]["refusedSenders"], 1);
    kit.settled().await;
    assert!(
        kit.user_texts(&ada.session).is_empty(),
        "a stranger starts no turn"
    );
    // The owner lets Ada in; her message is a message to the Bot.
    let allowed = kit
        .ok(
            "connector-allow",
            json!({"id": "feishu", "openId": ADA, "name": "Ada Lovelace"}),
        )
        .await;
    assert_eq!(
        allowed["connector"]["channel"]["allowed"],
        json!([{"openId": ADA, "name": "Ada Lovelace"}])
    );
    let (_, answer) = event(&kit, message("ev-3", ADA, "what is on today?", VERIFY)).await;
    assert_eq!(answer["delivered"], true);
    kit.turns_ended(&ada.session, 1).await;
    let texts = kit.user_texts(&ada.session);
    assert_eq!(texts.len(), 1);
    assert!(
        texts[0].contains("from=\"Feishu: Ada Lovelace\""),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("\nwhat is on today?\n"), "{}", texts[0]);
    // The answer goes back into the chat, as the app, with a fresh token.
    kit.until("the answer reaches Feishu", || {
        fake.seen().iter().any(|s| s.path == SEND_PATH)
    })
    .await;
    let seen = fake.seen();
    let send = seen.iter().find(|s| s.path == SEND_PATH).unwrap();
    assert_eq!(send.query.as_deref(), Some("receive_id_type=chat_id"));
    assert_eq!(
        send.authorization.as_deref(),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(
        send.body,
        json!({"receive_id": CHAT, "msg_type": "text", "content": "{\"text\":\"Standup at 10.\"}"})
    );
    assert_eq!(seen.iter().filter(|s| s.path == TOKEN_PATH).count(), 2);
    // A redelivered event lands once; a wrong token starts nothing.
    let (_, again) = event(&kit, message("ev-3", ADA, "what is on today?", VERIFY)).await;
    assert_eq!(again["duplicate"], true);
    let (status, _) = event(&kit, message("ev-4", ADA, "what is on today?", "forged")).await;
    assert_eq!(status, 401);
    kit.settled().await;
    assert_eq!(kit.user_texts(&ada.session).len(), 1);
    // Blocked again: her next message is a refused sender's.
    let blocked = kit
        .ok("connector-block", json!({"id": "feishu", "openId": ADA}))
        .await;
    assert_eq!(blocked["connector"]["channel"]["allowed"], json!([]));
    let (_, answer) = event(&kit, message("ev-5", ADA, "hi", VERIFY)).await;
    assert_eq!(answer["delivered"], false);
    let last = row(&kit).await;
    assert_eq!(last["channel"]["refusedSenders"], 2);
    assert!(last["channel"]["lastOkAt"].is_u64());
    // No credential is in the row, the view or channels.json.
    let (_, view) = kit.state().await;
    let channels_json = std::fs::read_to_string(kit.home().join("channels.json")).unwrap();
    for text in [last.to_string(), view.to_string(), channels_json] {
        assert!(!text.contains(APP_SECRET) && !text.contains(VERIFY) && !text.contains(TOKEN));
    }
}

#[tokio::test]
/// Rule #1266.
async fn feishu_feishus_refusals_stay_on_the_row_in_its_own_words() {
    let refused_pair = Answer::json(400, json!({"code": 10014, "msg": "app secret invalid"}));
    let fake = ApiFake::routed(vec![
        (TOKEN_PATH, vec![refused_pair, token_ok()]),
        (
            SEND_PATH,
            vec![Answer::json(
                400,
                json!({"code": 230002, "msg": "Bot/User can NOT be out of the chat.", "data": {}}),
            )],
        ),
    ]);
    let kit = kit_on(&fake, serde_json::from_str(SCRIPT).unwrap()).await;
    let ada = kit.bot("Ada").await;
    let first = kit.ok("connector-connect", app_body(&ada.id)).await;
    assert_eq!(first["connector"]["status"], "error");
    assert_eq!(
        first["connector"]["error"],
        "Feishu refused it (Feishu code 10014: app secret invalid)."
    );
    // Connected again with a good pair: ready, and a send Feishu refuses
    // is the row's last error, said plainly.
    let again = kit.ok("connector-connect", app_body(&ada.id)).await;
    assert_eq!(again["connector"]["status"], "ready");
    kit.ok("connector-allow", json!({"id": "feishu", "openId": ADA}))
        .await;
    event(&kit, message("ev-9", ADA, "what is on today?", VERIFY)).await;
    kit.turns_ended(&ada.session, 1).await;
    let why = kit
        .until_some("the refused send is on the row", async || {
            row(&kit).await["channel"]["lastError"]
                .as_str()
                .map(str::to_owned)
        })
        .await;
    assert_eq!(
        why,
        "Feishu did not take the message (Feishu code 230002: Bot/User can NOT be out of the chat.)."
    );
    // A structural refusal is not retried: one send.
    assert_eq!(
        fake.seen().iter().filter(|s| s.path == SEND_PATH).count(),
        1
    );
}
