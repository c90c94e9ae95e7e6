//! Channel connectors' rules (#1263, #1266): the connect request per mode,
//! the allow-list (nobody by default, allow, rename, block) and the gate,
//! and a Feishu callback read into a challenge, a message or another event.

use super::channel::{
    ChannelSecrets, Gate, allow, block, check_connect, check_send_text, gate, on_origin,
};
use super::feishu_event::{FeishuEvent, parse, token_matches};
use flybot_protocol::channel_connectors::{ChannelConnect, ChannelMode};
use serde_json::{Value, json};

const ORIGIN: &str = "https://open.feishu.cn";

fn connect(body: Value) -> ChannelConnect {
    serde_json::from_value(body).unwrap()
}

fn refused_field(body: Value) -> String {
    let err = check_connect(&connect(body), ORIGIN).unwrap_err();
    err.details["field"].as_str().unwrap().to_owned()
}

#[test]
/// Rule #1263.
fn channel_a_webhook_must_be_https_on_the_feishu_origin() {
    let ok = json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": "bot-a",
                    "webhook": "https://open.feishu.cn/open-apis/bot/v2/hook/abc"});
    let saved = check_connect(&connect(ok), ORIGIN).unwrap();
    assert_eq!((saved.mode, saved.allowed.len()), (ChannelMode::Webhook, 0));
    let err = check_connect(
        &connect(
            json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": "b",
                        "webhook": "https://evil.example/open-apis/bot/v2/hook/abc"}),
        ),
        ORIGIN,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "A Feishu webhook must be https on https://open.feishu.cn."
    );
    assert!(on_origin("http://127.0.0.1:9/hook", "http://127.0.0.1:9"));
    assert!(!on_origin(
        "http://open.feishu.cn/hook",
        "http://open.feishu.cn"
    ));
    assert!(!on_origin("https://open.feishu.cn.evil/x", ORIGIN));
    assert_eq!(
        refused_field(json!({"id": "feishu", "kind": "channel", "mode": "webhook", "botId": "b"})),
        "webhook"
    );
}

#[test]
/// Rule #1266.
fn channel_app_mode_needs_the_pair_and_the_verification_token() {
    let app = json!({"id": "feishu", "kind": "channel", "mode": "app", "botId": "bot-a",
                     "appId": "cli_a1b2c3", "appSecret": "s3cret-value", "verificationToken": "vtok-1"});
    let saved = check_connect(&connect(app.clone()), ORIGIN).unwrap();
    assert_eq!(saved.app_id.as_deref(), Some("cli_a1b2c3"));
    for (drop, field) in [
        ("appId", "appId"),
        ("appSecret", "appSecret"),
        ("verificationToken", "verificationToken"),
    ] {
        let mut body = app.clone();
        body.as_object_mut().unwrap().remove(drop);
        assert_eq!(refused_field(body), field);
    }
    let mut bad_id = app.clone();
    bad_id["appId"] = "app-1".into();
    assert_eq!(refused_field(bad_id), "appId");
    let mut both = app.clone();
    both["webhook"] = "https://open.feishu.cn/open-apis/bot/v2/hook/abc".into();
    assert_eq!(refused_field(both), "webhook");
    let mut kind = app;
    kind["kind"] = "mcp".into();
    assert_eq!(refused_field(kind), "kind");
    assert_eq!(ChannelSecrets::of("feishu").app_secret, "FEISHU_APP_SECRET");
    assert_eq!(ChannelSecrets::of("lark-cn").webhook, "LARK_CN_WEBHOOK");
}

#[test]
/// Rule #1266.
fn allow_list_is_nobody_by_default_and_changed_only_by_allow_and_block() {
    let mut saved = check_connect(
        &connect(
            json!({"id": "feishu", "kind": "channel", "mode": "app", "botId": "b",
                        "appId": "cli_x1", "appSecret": "secret", "verificationToken": "token"}),
        ),
        ORIGIN,
    )
    .unwrap();
    assert_eq!(gate(&saved, "ou_ada"), Gate::Stranger);
    assert_eq!(gate(&saved, ""), Gate::Stranger);
    assert!(allow(&mut saved, "ou_ada", Some("Ada")).unwrap());
    assert!(
        !allow(&mut saved, "ou_ada", Some("Ada")).unwrap(),
        "the same entry changes nothing"
    );
    assert_eq!(gate(&saved, "ou_ada"), Gate::Allowed { name: "Ada".into() });
    assert!(allow(&mut saved, "ou_bo", None).unwrap());
    assert_eq!(
        gate(&saved, "ou_bo"),
        Gate::Allowed {
            name: "ou_bo".into()
        }
    );
    let err = allow(&mut saved, "ada", None).unwrap_err();
    assert_eq!(err.details["field"], "openId");
    block(&mut saved, "ou_ada").unwrap();
    assert_eq!(gate(&saved, "ou_ada"), Gate::Stranger);
    let err = block(&mut saved, "ou_ada").unwrap_err();
    assert_eq!(err.code, flybot_protocol::ErrorCode::NotFound);
    assert_eq!(saved.allowed.len(), 1);
    assert!(check_send_text("  ").is_err() && check_send_text("hi").is_ok());
}

fn message_event(sender_type: &str, content: &str) -> Value {
    json!({
        "schema": "2.0",
        "header": {"event_id": "5e3702a84e847582be8db7fb73283c02", "event_type": "im.message.receive_v1",
                   "create_time": "1608725989000", "token": "vtok-1", "app_id": "cli_x1", "tenant_key": "2ca1d211f64f6438"},
        "event": {
            "sender": {"sender_id": {"union_id": "on_8ed6aa67826108097d9ee143816345", "user_id": "e33ggbyz",
                                     "open_id": "ou_84aad35d084aa403a838cf73ee18467"},
                       "sender_type": sender_type, "tenant_key": "736588c9260f175e"},
            "message": {"message_id": "om_5ce6d572455d361153b7cb51da133945", "root_id": "", "parent_id": "",
                        "create_time": "1609073151345", "chat_id": "oc_5ce6d572455d361153b7cb51da133945",
                        "chat_type": "group", "message_type": "text", "content": content, "mentions": []}
        }
    })
}

#[test]
/// Rule #1266.
fn feishu_event_reads_a_challenge_a_message_and_anything_else() {
    let challenge = parse(
        &json!({"challenge": "ajls384kdjx98XX", "token": "vtok-1", "type": "url_verification"}),
    );
    assert_eq!(
        challenge.unwrap(),
        FeishuEvent::Challenge {
            challenge: "ajls384kdjx98XX".into(),
            token: "vtok-1".into()
        }
    );
    let FeishuEvent::Message(message) = parse(&message_event(
        "user",
        r#"{"text":"@_user_1 what is on today?"}"#,
    ))
    .unwrap() else {
        panic!("a message");
    };
    assert_eq!(message.text, "what is on today?");
    assert_eq!(message.sender_open_id, "ou_84aad35d084aa403a838cf73ee18467");
    assert_eq!(message.chat_id, "oc_5ce6d572455d361153b7cb51da133945");
    assert_eq!(
        (message.token.as_str(), message.app_id.as_str()),
        ("vtok-1", "cli_x1")
    );
    // An app's own message is another event: a loop of two Bots never starts.
    let from_app = parse(&message_event("app", r#"{"text":"hi"}"#)).unwrap();
    assert!(matches!(from_app, FeishuEvent::Other { .. }));
    let err = parse(&json!({"encrypt": "FIAfJPGRmFZWkaxPQ1XrJZVbv2JwdjfLk4jx0k/U1deAqYK3AXOZ5zcHt/cC4ZNTqYwWUW/EoL+b7hW/A0="})).unwrap_err();
    assert_eq!(err.details["field"], "encrypt");
    assert_eq!(
        parse(&json!({"hello": 1})).unwrap_err().details["field"],
        "schema"
    );
    assert!(token_matches("vtok-1", "vtok-1"));
    assert!(!token_matches("vtok-1", "vtok-2") && !token_matches("", ""));
}
