//! Feishu as a channel connector in webhook mode (#1263) against a loopback
//! server speaking a custom bot's webhook: the connect step's one test
//! POST, `connector-send` (two sends of one text are two messages), a
//! refusal in Feishu's words on the row, a restart that posts nothing, a
//! disconnect that clears the credential; and the edge's refusals, which
//! change nothing (no secret saved, no channels.json written).

use super::feishu_app::{event, kit_on};
use flybot_testkit::Kit;
use flybot_testkit::api_fake::{Answer, ApiFake};
use serde_json::{Value, json};

const HOOK_PATH: &str = "/open-apis/bot/v2/hook/2f1e0c9a-54b8-4d1c-a5e0-0a1b2c3d4e5f";

fn hook_ok() -> Answer {
    Answer::json(200, json!({"code": 0, "msg": "success", "data": {}}))
}

fn webhook_body(fake: &ApiFake, bot_id: &str) -> Value {
    json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": bot_id,
           "webhook": format!("{}{HOOK_PATH}", fake.base_url)})
}

fn posted_texts(fake: &ApiFake) -> Vec<Value> {
    fake.seen()
        .into_iter()
        .map(|s| {
            assert_eq!(s.path, HOOK_PATH);
            s.body
        })
        .collect()
}

#[tokio::test]
/// Rule #1263.
async fn feishu_a_webhook_is_proven_once_and_connector_send_posts_through_it() {
    let fake = ApiFake::start(vec![hook_ok()]);
    let kit = kit_on(&fake, json!([{"reply": {"text": "fine"}}])).await;
    let ada = kit.bot("Ada").await;
    let row = kit
        .ok("connector-connect", webhook_body(&fake, &ada.id))
        .await;
    assert_eq!(row["connector"]["status"], "ready", "{row}");
    assert_eq!(row["connector"]["channel"]["mode"], "webhook");
    assert!(
        !row.to_string().contains(HOOK_PATH),
        "the URL is a credential"
    );
    let probe =
        json!({"msg_type": "text", "content": {"text": "FlyBot is connected to this group."}});
    assert_eq!(posted_texts(&fake), std::slice::from_ref(&probe));
    for _ in 0..2 {
        let sent = kit
            .ok(
                "connector-send",
                json!({"id": "feishu", "text": "Standup at 10"}),
            )
            .await;
        assert_eq!(sent["sent"], true);
    }
    let standup = json!({"msg_type": "text", "content": {"text": "Standup at 10"}});
    assert_eq!(
        posted_texts(&fake),
        [probe.clone(), standup.clone(), standup]
    );
    // The webhook is a secret for no Bot's shell; only its name is shown.
    let secrets = kit.ok("secrets", json!({})).await["secrets"].clone();
    assert_eq!(secrets[0]["name"], "FEISHU_WEBHOOK");
    assert_eq!(secrets[0]["scope"], json!([]));
    // A webhook takes no messages in.
    let (status, refused) = event(
        &kit,
        json!({"challenge": "c", "token": "t", "type": "url_verification"}),
    )
    .await;
    assert_eq!(
        (status, refused["error"]["details"]["field"].as_str()),
        (400, Some("id"))
    );
    // A restart reads it ready without posting to the group.
    let api = fake.base_url.clone();
    let kit = kit.restart_with(|c| c.feishu_api = api).await;
    let rows = kit.ok("connectors", json!({})).await["connectors"].clone();
    assert_eq!(
        (rows[0]["id"].as_str(), rows[0]["status"].as_str()),
        (Some("feishu"), Some("ready"))
    );
    assert_eq!(fake.seen().len(), 3);
    let off = kit
        .ok("connector-disconnect", json!({"id": "feishu"}))
        .await;
    assert_eq!(off["connector"]["status"], "off");
    assert_eq!(kit.ok("secrets", json!({})).await["secrets"], json!([]));
    assert_eq!(
        kit.ok("connectors", json!({})).await["connectors"],
        json!([])
    );
}

#[tokio::test]
/// Rule #1263.
async fn feishu_a_refused_webhook_reads_error_with_feishus_reason() {
    let fake = ApiFake::start(vec![Answer::json(
        200,
        json!({"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}),
    )]);
    let kit = kit_on(&fake, json!([{"reply": {"text": "fine"}}])).await;
    let ada = kit.bot("Ada").await;
    let row = kit
        .ok("connector-connect", webhook_body(&fake, &ada.id))
        .await;
    assert_eq!(row["connector"]["status"], "error");
    assert_eq!(
        row["connector"]["error"],
        "Feishu refused it (Feishu code 19021: sign match fail or timestamp is not within one hour from current time)."
    );
    let sent = kit
        .ok("connector-send", json!({"id": "feishu", "text": "hello"}))
        .await;
    assert_eq!(sent["sent"], false);
    assert_eq!(fake.seen().len(), 2, "a refused signature is not retried");
}

#[tokio::test]
/// Rule #1263.
async fn feishu_refusals_name_the_field_and_change_nothing() {
    let fake = ApiFake::start(vec![hook_ok()]);
    let kit = kit_on(&fake, json!([{"reply": {"text": "fine"}}])).await;
    let ada = kit.bot("Ada").await;
    let elsewhere = json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": ada.id,
                           "webhook": "https://evil.example/open-apis/bot/v2/hook/x"});
    let app_half = json!({"id": "feishu", "kind": "channel", "mode": "app", "botId": ada.id,
                          "appId": "cli_x1", "verificationToken": "token-1"});
    for (body, code, field) in [
        (elsewhere, "bot/invalid", Some("webhook")),
        (app_half, "bot/invalid", Some("appSecret")),
        (
            json!({"id": "feishu", "kind": "channel", "mode": "fax", "botId": ada.id}),
            "bot/invalid",
            Some("mode"),
        ),
        (webhook_body(&fake, "bot-none"), "bot/not-found", None),
    ] {
        let refused = kit.anyone().refused("connector-connect", body, code).await;
        assert_eq!(
            refused["error"]["details"]["field"].as_str(),
            field,
            "{refused}"
        );
    }
    let elsewhere = kit
        .anyone()
        .refused(
            "connector-connect",
            json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": ada.id,
                   "webhook": "https://evil.example/hook"}),
            "bot/invalid",
        )
        .await;
    assert_eq!(
        elsewhere["error"]["message"],
        format!("A Feishu webhook must be https on {}.", fake.base_url)
    );
    for (endpoint, body) in [
        (
            "connector-allow",
            json!({"id": "feishu", "openId": "ou_a1"}),
        ),
        (
            "connector-block",
            json!({"id": "feishu", "openId": "ou_a1"}),
        ),
        ("connector-send", json!({"id": "feishu", "text": "hi"})),
    ] {
        kit.anyone().refused(endpoint, body, "bot/not-found").await;
    }
    assert!(fake.seen().is_empty());
    assert!(!kit.home().join("channels.json").exists());
    assert_eq!(kit.ok("secrets", json!({})).await["secrets"], json!([]));
    // Connected: a bad open_id and an unknown sender are refused, the list
    // stays as it was.
    kit.ok("connector-connect", webhook_body(&fake, &ada.id))
        .await;
    let bad = kit
        .anyone()
        .refused(
            "connector-allow",
            json!({"id": "feishu", "openId": "ada"}),
            "bot/invalid",
        )
        .await;
    assert_eq!(bad["error"]["details"]["field"], "openId");
    kit.anyone()
        .refused(
            "connector-block",
            json!({"id": "feishu", "openId": "ou_a1"}),
            "bot/not-found",
        )
        .await;
    kit.anyone()
        .refused(
            "connector-send",
            json!({"id": "feishu", "text": " "}),
            "bot/invalid",
        )
        .await;
    let saved = std::fs::read_to_string(kit.home().join("channels.json")).unwrap();
    assert!(saved.contains("\"allowed\": []"), "{saved}");
}

#[tokio::test]
/// Rule #49.
async fn feishu_shared_channel_writes_are_blocked_with_more_than_one_member() {
    let kit = Kit::new().await;
    let [ada, _bo] = kit.members(["Ada", "Bo"]).await;
    let bot = kit.as_member(&ada).bot("Scout").await;
    let ada = kit.as_member(&ada);
    for (endpoint, body) in [
        (
            "connector-connect",
            json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": bot.id,
                   "webhook": "https://open.feishu.cn/open-apis/bot/v2/hook/x"}),
        ),
        (
            "connector-allow",
            json!({"id": "feishu", "openId": "ou_a1"}),
        ),
        (
            "connector-block",
            json!({"id": "feishu", "openId": "ou_a1"}),
        ),
        ("connector-send", json!({"id": "feishu", "text": "hi"})),
    ] {
        ada.refused(endpoint, body, "bot/blocked-shared").await;
    }
    assert!(kit.host.channels().rows().is_empty());
}
