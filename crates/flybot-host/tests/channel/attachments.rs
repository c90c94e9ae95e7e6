//! Attachments (issue 32): stored once, read by the line's rule, never
//! served inline; an image line reaches a model that sees images as an
//! `image_url` part, and one that does not as the placeholder and the
//! reading (#779), against a loopback OpenAI-compatible server.

use base64::Engine;
use flybot_agent::model::config::{ModelConfig, ProviderRegistry};
use flybot_agent::model::mock::MockModel;
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{Reply, ScriptedProvider};
use flybot_testkit::{Kit, within};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A small PNG the host can decode.
fn png() -> Vec<u8> {
    let image = image::RgbImage::from_fn(40, 20, |x, _| image::Rgb([(x * 6) as u8, 10, 200]));
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_file_named_png_that_holds_html_is_text_and_never_served_inline() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let html = b"<html><script>alert(document.cookie)</script></html>";
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "cat.png", "data": b64(html)}),
        )
        .await;
    assert_eq!(sent["kind"], "text");
    assert_eq!(sent["mime"], "text/plain; charset=utf-8");
    let id = sent["id"].as_str().unwrap();
    let (status, headers, bytes) = ada.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, html);
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment;")
    );
    let (status, _, _) = ada
        .get_raw(&format!("/api/bot/attachment/{id}/thumbnail"))
        .await;
    assert_eq!(status, 404, "text has no thumbnail");
}

#[tokio::test]
async fn the_same_bytes_uploaded_twice_are_one_object_under_the_home() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let body = json!({"name": "a.png", "data": b64(&png())});
    let first = ada.ok("attachment-upload", body.clone()).await;
    let second = ada.ok("attachment-upload", body).await;
    assert_ne!(first["id"], second["id"]);
    let objects = kit.home().join("attachments/v1/objects");
    let count = walk(&objects);
    assert_eq!(count, 1);
    let (status, headers, thumb) = ada
        .get_raw(&format!(
            "/api/bot/attachment/{}/thumbnail",
            first["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/png");
    assert!(thumb.starts_with(&[0x89, b'P', b'N', b'G']));
}

fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                walk(&e.path())
            } else {
                1
            }
        })
        .sum()
}

#[tokio::test]
async fn another_member_gets_nothing_of_an_attachment_and_cannot_send_it() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (ada, bob) = (kit.as_member(&ada), kit.as_member(&bob));
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "a.png", "data": b64(&png())}),
        )
        .await;
    let id = sent["id"].as_str().unwrap();
    for path in [
        format!("/api/bot/attachment/{id}"),
        format!("/api/bot/attachment/{id}/thumbnail"),
    ] {
        let (status, _, bytes) = bob.get_raw(&path).await;
        assert_eq!(status, 404);
        assert!(!String::from_utf8_lossy(&bytes).contains("a.png"));
    }
    bob.refused("attachment-info", json!({"ids": [id]}), "bot/not-found")
        .await;
    let his = bob.bot("Bob's").await;
    let body = json!({"botId": his.id, "text": "look", "attachments": [id]});
    bob.refused("send", body, "bot/not-found").await;
    let (status, _, _) = kit
        .anonymous()
        .get_raw(&format!("/api/bot/attachment/{id}"))
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn an_upload_past_the_limit_per_file_is_refused_naming_it_and_nothing_is_stored() {
    let kit = Kit::with_config(|host| host.attachments.limits.per_file = 1024).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let body = json!({"name": "big.txt", "data": b64(&[b'x'; 2048])});
    let refused = ada
        .refused("attachment-upload", body, "bot/too-large")
        .await;
    let sentence = refused["error"]["message"].as_str().unwrap();
    assert!(
        sentence.contains("the limit per file is 1 KiB"),
        "{sentence}"
    );
    assert!(!kit.home().join("attachments").exists());
}

/// A host on `server` whose model `remote` declares image input as given.
async fn kit_with_model(server: &ScriptedProvider, image_input: bool, ocr: Option<&str>) -> Kit {
    let mut config = models_config(&server.base_url, None);
    if let Some(model) = config.models.get_mut("remote") {
        model.image_input = image_input;
    }
    let eyes = ModelConfig {
        image_input: true,
        ..config.models["remote"].clone()
    };
    if !image_input {
        config.models.insert("eyes".into(), eyes);
    }
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    let ocr = ocr.map(str::to_owned);
    Kit::with_config(move |host| {
        host.models = Arc::new(models);
        host.attachments.ocr_model = ocr;
    })
    .await
}

/// Waits until `server` has received `count` requests.
async fn requests(server: &ScriptedProvider, count: usize) -> Vec<Value> {
    within("the model's requests", async {
        loop {
            let seen = server.requests();
            if seen.len() >= count {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

fn user_content(request: &Value) -> Value {
    let messages = request["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"].clone()
}

#[tokio::test]
async fn an_image_line_to_a_model_that_sees_images_carries_an_image_url_part() {
    let server = ScriptedProvider::start(vec![Reply::text("A blue picture.")]);
    let kit = kit_with_model(&server, true, None).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Eye", "model": "remote"}))
        .await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&png())}),
        )
        .await;
    let body = json!({"botId": bot.id, "text": "what is this?", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    let seen = requests(&server, 1).await;
    let content = user_content(&seen[0]);
    let parts = content.as_array().expect("content parts");
    assert_eq!(parts[0], json!({"type": "text", "text": "what is this?"}));
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(url.starts_with("data:image/jpeg;base64,"), "{url}");
}

#[tokio::test]
/// Rule #779.
async fn image_as_text_for_a_text_only_model_carries_the_placeholder_and_the_reading_and_the_cache_answers_the_second_time()
 {
    // The first request is the OCR route's reading by `eyes`; the second
    // and third are the text-only Bot's turns.
    let server = ScriptedProvider::start(vec![
        Reply::text("INVOICE 42"),
        Reply::text("Noted."),
        Reply::text("Noted again."),
    ]);
    let kit = kit_with_model(&server, false, None).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&png())}),
        )
        .await;
    let body = json!({"botId": bot.id, "text": "read this", "attachments": [sent["id"]]});
    ada.ok("send", body.clone()).await;
    let seen = requests(&server, 2).await;
    assert!(
        user_content(&seen[0]).is_array(),
        "the reader was sent the image"
    );
    let text = user_content(&seen[1]);
    let text = text.as_str().expect("plain text to a text-only model");
    assert!(
        text.contains("[image: shot.png, not shown to this model; the file is at "),
        "{text}"
    );
    assert!(text.contains("INVOICE 42"), "{text}");
    assert!(kit.home().join("ocr.json").is_file());
    ada.ok("send", body).await;
    let seen = requests(&server, 3).await;
    let again = user_content(&seen[2]).to_string();
    assert!(again.contains("INVOICE 42"), "the cache answered: {again}");
}

#[tokio::test]
async fn tesseract_reads_the_words_of_a_drawn_image_and_the_text_only_model_gets_them() {
    let words = ["QUARTERLY REPORT", "REVENUE 4521"];
    let png = flybot_testkit::picture::words_png(&words, 640, 200, 36.0)
        .expect("the DejaVu font (fonts-dejavu-core) draws the test image");
    assert!(
        std::process::Command::new("tesseract")
            .arg("--version")
            .output()
            .is_ok(),
        "tesseract-ocr is installed by scripts/test"
    );
    let server = ScriptedProvider::start(vec![Reply::text("Got it.")]);
    let mut config = models_config(&server.base_url, None);
    config.models.get_mut("remote").unwrap().image_input = false;
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    let kit = Kit::with_config(move |host| {
        host.models = Arc::new(models);
        host.attachments.ocr_model = Some("tesseract".into());
    })
    .await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "report.png", "data": b64(&png)}),
        )
        .await;
    let body = json!({"botId": bot.id, "text": "summarise", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    let seen = requests(&server, 1).await;
    let text = user_content(&seen[0]).to_string();
    assert!(text.contains("QUARTERLY REPORT"), "{text}");
    assert!(text.contains("REVENUE 4521"), "{text}");
}

#[tokio::test]
/// Rule #50.
async fn a_room_member_who_joined_after_the_line_cannot_fetch_its_attachment() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (a, b) = (kit.as_member(&ada), kit.as_member(&bob));
    let hers = a.bot("Quill").await;
    let his = b.bot("Wren").await;
    let grant = json!({"botId": his.id, "grants": [{"grantee": ada.member_id}]});
    b.ok("set-grants", grant).await;
    let room = a.room("Desk", &[&hers]).await;
    let upload = |name: &'static str| {
        let a = &a;
        async move {
            let body = json!({"name": name, "data": b64(&png())});
            a.ok("attachment-upload", body).await["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let before = upload("before.png").await;
    let body = json!({"roomId": room.id, "text": "the first plan", "attachments": [before]});
    a.ok("send", body).await;
    kit.settled().await;
    let members = json!({"id": room.id, "members": [hers.id, his.id]});
    a.ok("update-room", members).await;
    kit.settled().await;
    let after = upload("after.png").await;
    let body = json!({"roomId": room.id, "text": "the second plan", "attachments": [after]});
    a.ok("send", body).await;
    kit.settled().await;

    let (status, _, _) = b.get_raw(&format!("/api/bot/attachment/{before}")).await;
    assert_eq!(
        status, 404,
        "Bob's window starts after the first line (#50)"
    );
    b.refused("attachment-info", json!({"ids": [before]}), "bot/not-found")
        .await;
    let (status, _, _) = b.get_raw(&format!("/api/bot/attachment/{after}")).await;
    assert_eq!(status, 200, "the second line is inside Bob's window");
    let shown = b.ok("messages", json!({"roomId": room.id})).await;
    let lines = shown["messages"].as_array().unwrap();
    let second = lines
        .iter()
        .find(|l| l["text"] == "the second plan")
        .unwrap();
    assert_eq!(second["attachments"], json!([after]));
    assert!(!shown.to_string().contains(&before));
}

/// A host on `server` with the text-only model `remote` and nobody who
/// can read an image.
async fn kit_without_readers(server: &ScriptedProvider) -> Kit {
    let mut config = models_config(&server.base_url, None);
    config.models.get_mut("remote").unwrap().image_input = false;
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    Kit::with_config(move |host| host.models = Arc::new(models)).await
}

#[tokio::test]
/// Rule #779.
async fn image_placeholder_is_the_same_in_the_chat_and_in_the_group_relay() {
    let server = ScriptedProvider::start(vec![Reply::text("Seen."), Reply::text("Seen too.")]);
    let kit = kit_without_readers(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let id = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&png())}),
        )
        .await["id"]
        .clone();
    ada.ok(
        "send",
        json!({"botId": bot.id, "text": "look", "attachments": [id]}),
    )
    .await;
    let chat = user_content(&requests(&server, 1).await[0]).to_string();
    let sha = kit
        .host
        .store()
        .read(|s| s.attachments[id.as_str().unwrap()].sha256.clone());
    let path = kit
        .home()
        .join("attachments/v1/objects")
        .join(&sha[..2])
        .join(&sha);
    let placeholder = format!(
        "[image: shot.png, not shown to this model; the file is at {}]",
        path.display()
    );
    assert!(chat.contains(&placeholder), "{chat}");
    let room = ada.room("Desk", &[&bot]).await;
    ada.ok(
        "send",
        json!({"roomId": room.id, "text": "look here", "attachments": [id]}),
    )
    .await;
    let seen = requests(&server, 2).await;
    let relay = seen[1].to_string();
    assert!(relay.contains(&placeholder.replace('"', "\\\"")), "{relay}");
}

#[tokio::test]
/// Rule #779.
async fn image_placeholder_names_the_file_only_when_it_stats_as_a_regular_file() {
    let server = ScriptedProvider::start(vec![Reply::text("Seen.")]);
    let kit = kit_without_readers(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let id = ada
        .ok(
            "attachment-upload",
            json!({"name": "gone.png", "data": b64(&png())}),
        )
        .await["id"]
        .clone();
    let sha = kit
        .host
        .store()
        .read(|s| s.attachments[id.as_str().unwrap()].sha256.clone());
    let path = kit
        .home()
        .join("attachments/v1/objects")
        .join(&sha[..2])
        .join(&sha);
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    ada.ok(
        "send",
        json!({"botId": bot.id, "text": "look", "attachments": [id]}),
    )
    .await;
    let chat = user_content(&requests(&server, 1).await[0]).to_string();
    assert!(
        chat.contains("[image: gone.png, not shown to this model]"),
        "{chat}"
    );
    assert!(!chat.contains("the file is at"), "{chat}");
}

#[tokio::test]
/// Rule #779.
async fn nothing_is_copied_into_the_bots_folder() {
    let server = ScriptedProvider::start(vec![Reply::text("Seen.")]);
    let kit = kit_without_readers(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let bytes = png();
    let id = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&bytes)}),
        )
        .await["id"]
        .clone();
    ada.ok(
        "send",
        json!({"botId": bot.id, "text": "look", "attachments": [id]}),
    )
    .await;
    requests(&server, 1).await;
    kit.settled().await;
    let folder = kit.home().join("workspaces").join(&bot.id);
    let copies = files_holding(&folder, &bytes);
    assert!(
        copies.is_empty(),
        "copied into the Bot's folder: {copies:?}"
    );
}

fn files_holding(dir: &std::path::Path, bytes: &[u8]) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                files_holding(&path, bytes)
            } else if std::fs::read(&path).is_ok_and(|b| b == bytes) {
                vec![path]
            } else {
                Vec::new()
            }
        })
        .collect()
}

#[tokio::test]
/// Rule #779.
async fn earlier_image_lines_reach_a_text_only_model_as_the_placeholder_and_reading_when_the_bots_model_changes()
 {
    // 1: `eyes` sees the line's image. 2: the OCR route's reading by
    // `eyes`. 3: the Bot's turn, now on the text-only `remote`.
    let server = ScriptedProvider::start(vec![
        Reply::text("A blue invoice."),
        Reply::text("INVOICE 42"),
        Reply::text("It was invoice 42."),
    ]);
    let kit = kit_with_model(&server, false, None).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada.bot_from(json!({"name": "Seer", "model": "eyes"})).await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&png())}),
        )
        .await;
    let body = json!({"botId": bot.id, "text": "what is this?", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    let seen = requests(&server, 1).await;
    assert!(user_content(&seen[0]).is_array(), "the vision model saw it");
    turn_ended(&ada, &bot.id).await;
    ada.ok("update-bot", json!({"id": bot.id, "model": "remote"}))
        .await;
    ada.ok("send", json!({"botId": bot.id, "text": "what did it say?"}))
        .await;
    let seen = requests(&server, 3).await;
    let turn = &seen[2];
    let messages = turn["messages"].as_array().unwrap();
    assert!(
        messages.iter().all(|m| m["content"].is_string()),
        "no image part reaches the text-only model: {turn}"
    );
    let earlier = messages
        .iter()
        .find(|m| {
            m["role"] == "user" && m["content"].as_str().unwrap().starts_with("what is this?")
        })
        .unwrap_or_else(|| panic!("the earlier line: {turn}"));
    let earlier = earlier["content"].as_str().unwrap();
    assert!(
        earlier.contains("[image: shot.png, not shown to this model; the file is at "),
        "{earlier}"
    );
    assert!(earlier.contains("INVOICE 42"), "{earlier}");
}

#[tokio::test]
/// Rule #779.
async fn a_line_first_sent_to_a_text_only_model_carries_its_image_text_once_on_later_turns() {
    // 1: the OCR route's reading by `eyes`. 2 and 3: the text-only Bot's turns.
    let server = ScriptedProvider::start(vec![
        Reply::text("INVOICE 42"),
        Reply::text("Noted."),
        Reply::text("Still 42."),
    ]);
    let kit = kit_with_model(&server, false, None).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Plain", "model": "remote"}))
        .await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "shot.png", "data": b64(&png())}),
        )
        .await;
    let body = json!({"botId": bot.id, "text": "read this", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    requests(&server, 2).await;
    turn_ended(&ada, &bot.id).await;
    ada.ok("send", json!({"botId": bot.id, "text": "and the total?"}))
        .await;
    let seen = requests(&server, 3).await;
    let messages = seen[2]["messages"].as_array().unwrap();
    let earlier = messages
        .iter()
        .filter_map(|m| m["content"].as_str())
        .find(|c| c.starts_with("read this"))
        .unwrap_or_else(|| panic!("the earlier line: {}", seen[2]));
    assert_eq!(
        earlier.matches("[image: shot.png, not shown").count(),
        1,
        "{earlier}"
    );
    assert_eq!(earlier.matches("INVOICE 42").count(), 1, "{earlier}");
}

/// Waits until the chat of `bot_id` shows a turn's end, so the next line
/// opens a turn of its own (a line into a running turn is acknowledged).
async fn turn_ended(caller: &flybot_testkit::Caller<'_>, bot_id: &str) {
    within("the turn's end", async {
        loop {
            let chat = caller.ok("messages", json!({"botId": bot_id})).await;
            let lines = chat["messages"].as_array().unwrap().clone();
            if lines.iter().any(|l| l["kind"] == "turn-end") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}
