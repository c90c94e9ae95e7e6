//! The edge: envelopes, limits and refusals for bad input. No input makes a
//! 5xx, and a refusal writes nothing.

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
async fn a_body_over_one_mebibyte_is_too_large() {
    let kit = Kit::new().await;
    kit.state().await;
    let before = kit.fingerprint().await;
    let body = format!("{{\"name\": \"{}\"}}", "x".repeat(1024 * 1024));
    let (status, answer) = kit.post_bytes("create-bot", body.into_bytes()).await;
    assert_eq!(status, 413);
    assert_eq!(answer["error"]["code"], "bot/too-large");
    assert!(before == kit.fingerprint().await);
}

#[tokio::test]
async fn an_unknown_endpoint_is_named() {
    let kit = Kit::new().await;
    let answer = kit
        .refused("create-bots", json!({}), "bot/unknown-endpoint")
        .await;
    assert_eq!(answer["error"]["details"]["endpoint"], "create-bots");
}

#[tokio::test]
async fn bad_json_and_wrong_types_are_invalid_and_name_the_field() {
    let kit = Kit::new().await;
    kit.state().await;
    for (body, field) in [
        (&b"{not json"[..], "body"),
        (b"[1, 2]", "body"),
        (b"\"text\"", "body"),
        (b"{\"name\": 7}", "name"),
        (b"{\"name\": \"A\", \"color\": \"red\"}", "color"),
        (b"{}", "name"),
        (b"{\"name\": \"A\"} trailing", "body"),
    ] {
        let before = kit.fingerprint().await;
        let (status, answer) = kit.post_bytes("create-bot", body.to_vec()).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["error"]["code"], "bot/invalid");
        assert_eq!(answer["error"]["details"]["field"], field, "{answer}");
        assert!(before == kit.fingerprint().await);
    }
}

#[tokio::test]
async fn odd_input_never_makes_a_server_error() {
    let kit = Kit::new().await;
    let bodies: Vec<Vec<u8>> = vec![
        vec![0xff, 0xfe, 0x00],
        b"{\"name\": \"\\ud800\"}".to_vec(),
        b"{\"name\": null}".to_vec(),
        format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        format!("{{\"a\":{}1{}}}", "{\"a\":".repeat(300), "}".repeat(300)).into_bytes(),
        b"{\"name\": \"A\", \"model\": \"\"}".to_vec(),
        b"{\"id\": 1e400}".to_vec(),
    ];
    for endpoint in [
        "create-bot",
        "update-bot",
        "set-grants",
        "create-room",
        "auth-redeem",
        "set-prefs",
        "delete-room",
    ] {
        for body in &bodies {
            let (status, answer) = kit.post_bytes(endpoint, body.clone()).await;
            assert!(
                (400..500).contains(&status),
                "{endpoint}: {status} {answer}"
            );
            assert_eq!(answer["ok"], false);
        }
    }
}

#[tokio::test]
async fn revision_moves_on_every_accepted_change_and_never_otherwise() {
    let kit = Kit::new().await;
    let r0 = kit.state().await.1["revision"].as_u64().unwrap();
    let id = kit.bot("A").await.id;
    let r1 = kit.state().await.1["revision"].as_u64().unwrap();
    assert_eq!(r1, r0 + 1);
    kit.refused("create-bot", json!({"name": "A"}), "bot/invalid")
        .await;
    kit.ok("auth-whoami", json!({})).await;
    kit.ok("update-bot", json!({"id": id, "name": "A"})).await;
    assert_eq!(kit.state().await.1["revision"].as_u64().unwrap(), r1);
}
