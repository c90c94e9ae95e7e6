//! Against a real third-party server with a real model (issue 13): the
//! llama.cpp server serving SmolLM2-135M-Instruct on loopback. A model this
//! small answers poorly, so each test asserts the mechanics (a pass, a
//! streamed non-empty answer, a round with both members' lines, a usage
//! row, a cancel that stops the turn), never the words.

use flybot_agent::session::{AbortedBy, EndReason, SessionEvent};
use flybot_host::events::HostEvent;
use flybot_testkit::llama_server::{LLAMA_MODEL, LlamaServer, start_llama};
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::{Bot, Kit};
use serde_json::json;
use std::time::Duration;
use tokio::sync::broadcast::Receiver;

/// A host whose `remote` model is the real server's, and the server.
async fn real_host() -> Option<(Kit, LlamaServer)> {
    let server = start_llama().await?;
    let mut config = models_config(&server.base_url, None);
    if let Some(model) = config.models.get_mut("remote") {
        model.model = LLAMA_MODEL.to_owned();
        model.context_window = 8192;
        // Short answers keep each test a few seconds on two cores.
        model.max_output_tokens = Some(48);
        model.thinking = Vec::new();
    }
    // A CPU model on a busy machine: give each await room.
    let kit = kit_on(&config).await.patient(Duration::from_secs(180));
    Some((kit, server))
}

async fn bot_on_real_model(kit: &Kit, name: &str) -> Bot {
    kit.anyone()
        .bot_from(json!({"name": name, "model": "remote"}))
        .await
}

/// Awaits the first streamed piece of `bot`'s answer (`text.delta` rides
/// only the bus's every-event channel), within the kit's patient limit.
async fn first_piece(kit: &Kit, events: &mut Receiver<HostEvent>, bot: &Bot) {
    kit.within("the first streamed piece of the answer", async {
        loop {
            if let Ok(HostEvent::TextDelta { session_id, .. }) = events.recv().await
                && session_id == bot.session
            {
                return;
            }
        }
    })
    .await;
}

fn answers(kit: &Kit, bot: &Bot) -> Vec<String> {
    kit.transcript(&bot.session)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::AssistantMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn real_model_test_model_passes() {
    let Some((kit, _server)) = real_host().await else {
        return;
    };
    let bot = bot_on_real_model(&kit, "Ada").await;
    let answer = kit.ok("test-model", json!({"botId": bot.id})).await;
    assert_eq!(answer["test"]["ok"], true, "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn real_model_own_chat_turn_streams_a_non_empty_answer_and_writes_its_usage_row() {
    let Some((kit, _server)) = real_host().await else {
        return;
    };
    let bot = bot_on_real_model(&kit, "Ada").await;
    let mut events = kit.host.team().bus().subscribe_all();
    kit.ok("send", json!({"botId": bot.id, "text": "Say hello."}))
        .await;
    first_piece(&kit, &mut events, &bot).await;
    kit.turns_ended(&bot.session, 1).await;
    // A short reply limit may cut the small model off: either way the
    // turn ended with an answer, not a failure.
    let reasons = kit.end_reasons(&bot.session);
    assert!(
        matches!(
            reasons.as_slice(),
            [EndReason::Completed | EndReason::MaxTokens]
        ),
        "{reasons:?}"
    );
    let said = answers(&kit, &bot).concat();
    assert!(!said.trim().is_empty(), "the answer has words");
    let rows = kit
        .until_some("the usage row", async || {
            let answer = kit.ok("usage", json!({"botId": bot.id})).await;
            let rows = answer["rows"].as_array().cloned().unwrap_or_default();
            (!rows.is_empty()).then_some(rows)
        })
        .await;
    assert_eq!(rows[0]["provider"], "local");
    // llama.cpp's server sends no usage on a stream even when asked: the
    // counts stay unknown (null), never a made-up zero (#903).
    for key in ["inputTokens", "outputTokens"] {
        let count = &rows[0][key];
        assert!(
            count.is_null() || count.as_u64().is_some_and(|n| n > 0),
            "{rows:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn real_model_room_of_two_runs_a_round() {
    let Some((kit, _server)) = real_host().await else {
        return;
    };
    let ada = bot_on_real_model(&kit, "Ada").await;
    let bo = bot_on_real_model(&kit, "Bo").await;
    let room = kit.anyone().room("Pair", &[&ada, &bo]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@all say hi"}))
        .await;
    kit.round_ended(&room).await;
    for bot in [&ada, &bo] {
        let said = kit.said(&room, bot);
        assert_eq!(said.len(), 1, "{} spoke once: {said:?}", bot.name);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn real_model_a_cancel_mid_stream_stops_the_turn() {
    let Some((kit, _server)) = real_host().await else {
        return;
    };
    let bot = bot_on_real_model(&kit, "Ada").await;
    let mut events = kit.host.team().bus().subscribe_all();
    kit.ok(
        "send",
        json!({"botId": bot.id, "text": "Count from one to one hundred in words."}),
    )
    .await;
    first_piece(&kit, &mut events, &bot).await;
    let cancelled = kit.ok("cancel", json!({"botId": bot.id})).await;
    assert_eq!(cancelled["wasRunning"], true, "{cancelled}");
    kit.turns_ended(&bot.session, 1).await;
    assert!(
        matches!(
            kit.end_reasons(&bot.session).as_slice(),
            [EndReason::Aborted {
                by: AbortedBy::User,
                ..
            }]
        ),
        "{:?}",
        kit.end_reasons(&bot.session)
    );
}
