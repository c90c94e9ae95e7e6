//! What real OpenAI-compatible providers send and insist on, against a
//! provider scripted frame by frame on loopback (issue 13, "Real
//! providers"): tool calls split across chunks, an index-less provider,
//! DeepSeek's thinking text sent back with the calls it led to, a Bot's
//! thinking level on its requests, one system message and no back-to-back
//! user messages, usage asked for, the overall deadline, and a dropped
//! stream hanging up on the provider.

use flybot_agent::model::openai::{KeySource, OpenAiProvider, OpenAiSettings, http_client};
use flybot_agent::model::{
    ChatMessage, FinishReason, ModelError, ModelProvider, ModelRequest, Role, StreamEvent, ToolCall,
};
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use flybot_testkit::{Kit, within};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::time::Duration;

/// A provider on `server` with a client that has no timers of its own (its
/// read timeout would fire at once on a paused clock); `http_client` first
/// installs the TLS provider every client needs.
fn provider(server: &ScriptedProvider) -> OpenAiProvider {
    http_client().unwrap();
    OpenAiProvider::new(
        reqwest::Client::builder().build().unwrap(),
        OpenAiSettings {
            provider_name: "scripted".into(),
            base_url: server.base_url.clone(),
            key: KeySource::None,
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    )
}

fn ask(text: &str) -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        messages: vec![ChatMessage::text(Role::User, text)],
        tools: Vec::new(),
        max_tokens: None,
        thinking: None,
    }
}

fn calls_of(events: &[Result<StreamEvent, ModelError>]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|event| match event {
            Ok(StreamEvent::ToolCall(call)) => Some(call.clone()),
            _ => None,
        })
        .collect()
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test]
async fn tool_call_arguments_in_pieces_with_the_id_only_on_the_first_chunk() {
    let server = ScriptedProvider::start(vec![Reply::stream(
        &[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a."}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"txt\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"list_files","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ],
        End::Close,
    )]);
    let events: Vec<_> = provider(&server).stream(ask("go")).collect().await;
    assert_eq!(
        calls_of(&events),
        vec![
            call("call_a", "read_file", r#"{"path":"a.txt"}"#),
            call("call_b", "list_files", "{}"),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&Ok(StreamEvent::Done(FinishReason::ToolCalls)))
    );
}

#[tokio::test]
async fn an_index_less_provider_starts_a_call_at_each_new_id() {
    // Some Ollama versions: no `index`, the id on a call's first fragment.
    let server = ScriptedProvider::start(vec![Reply::stream(
        &[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x1","function":{"name":"read_file","arguments":"{\"path\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"b\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x2","function":{"name":"list_files","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        ],
        End::Close,
    )]);
    let events: Vec<_> = provider(&server).stream(ask("go")).collect().await;
    assert_eq!(
        calls_of(&events),
        vec![
            call("x1", "read_file", r#"{"path":"b"}"#),
            call("x2", "list_files", "{}"),
        ]
    );
}

#[tokio::test]
async fn usage_is_asked_for_and_read_when_it_comes_after_the_finish() {
    let server = ScriptedProvider::start(vec![Reply::stream(
        &[
            r#"{"choices":[{"delta":{"content":"hi"}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
            "[DONE]",
        ],
        End::Close,
    )]);
    let events: Vec<_> = provider(&server).stream(ask("go")).collect().await;
    assert_eq!(
        server.requests()[0]["stream_options"]["include_usage"],
        true
    );
    let usage = events.iter().find_map(|event| match event {
        Ok(StreamEvent::Usage(usage)) => Some(*usage),
        _ => None,
    });
    let usage = usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(12), Some(3))
    );
}

/// On real time: a paused clock would also run out the wait for the
/// provider's own thread to see the hang-up.
#[tokio::test]
async fn a_stream_that_stalls_ends_at_the_overall_deadline() {
    let server = ScriptedProvider::start(vec![Reply::stream(
        &[r#"{"choices":[{"delta":{"content":"th"}}]}"#],
        End::Stall,
    )]);
    let provider = provider(&server).with_deadline(Some(Duration::from_millis(100)));
    let events: Vec<_> = provider.stream(ask("go")).collect().await;
    assert_eq!(events.last(), Some(&Err(ModelError::Timeout)));
    within("the provider sees the hang-up", server.hung_up()).await;
}

#[tokio::test]
async fn dropping_a_stream_mid_answer_hangs_up_on_the_provider() {
    let server = ScriptedProvider::start(vec![Reply::stream(
        &[r#"{"choices":[{"delta":{"content":"one"}}]}"#],
        End::Stall,
    )]);
    let provider = provider(&server);
    let mut stream = provider.stream(ask("go"));
    assert_eq!(
        stream.next().await,
        Some(Ok(StreamEvent::TextDelta("one".into())))
    );
    drop(stream);
    within("the provider sees the hang-up", server.hung_up()).await;
}

/// A host whose `remote` model runs on `server`, adjusted by `adjust`.
async fn host_on(
    server: &ScriptedProvider,
    adjust: impl FnOnce(&mut flybot_agent::model::config::ModelConfig),
) -> Kit {
    let mut config = models_config(&server.base_url, None);
    if let Some(model) = config.models.get_mut("remote") {
        adjust(model);
    }
    kit_on(&config).await
}

fn text_reply(text: &str) -> Reply {
    let content = json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]});
    Reply {
        status: 200,
        payloads: vec![content.to_string(), "[DONE]".into()],
        end: End::Close,
    }
}

#[tokio::test]
async fn deepseek_thinking_text_is_sent_back_with_the_calls_it_led_to() {
    let server = ScriptedProvider::start(vec![
        Reply::stream(
            &[
                r#"{"choices":[{"delta":{"reasoning_content":"I should list "}}]}"#,
                r#"{"choices":[{"delta":{"reasoning_content":"the files."}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"list_files","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
                "[DONE]",
            ],
            End::Close,
        ),
        text_reply("There are none."),
    ]);
    let kit = host_on(&server, |_| {}).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "what files?"}))
        .await;
    kit.turns_ended(&bot.session, 1).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let called = assistant_with_calls(&requests[1]);
    assert_eq!(called["reasoning_content"], "I should list the files.");
    assert_eq!(called["tool_calls"][0]["id"], "c1");
    // A provider that never sent thinking text never sees the field.
    assert!(
        requests[0]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("reasoning_content").is_none())
    );
}

fn assistant_with_calls(request: &Value) -> Value {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_bots_thinking_level_reaches_its_requests() {
    let server = ScriptedProvider::start(vec![text_reply("a"), text_reply("b")]);
    let kit = host_on(&server, |_| {}).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote", "thinking": "high"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "think hard"}))
        .await;
    kit.turns_ended(&bot.session, 1).await;
    kit.ok("update-bot", json!({"id": bot.id, "thinking": "least"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "now lightly"}))
        .await;
    kit.turns_ended(&bot.session, 2).await;
    let requests = server.requests();
    assert_eq!(requests[0]["reasoning_effort"], "high");
    assert_eq!(requests[1]["reasoning_effort"], "low");
    assert!(requests[0].get("thinking").is_none());
}

#[tokio::test]
async fn a_model_with_the_thinking_switch_is_switched_off_at_the_least_level() {
    let server = ScriptedProvider::start(vec![text_reply("a"), text_reply("b")]);
    let kit = host_on(&server, |model| model.thinking_switch = true).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote", "thinking": "least"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "quick"}))
        .await;
    kit.turns_ended(&bot.session, 1).await;
    kit.ok("update-bot", json!({"id": bot.id, "thinking": "medium"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "deeper"}))
        .await;
    kit.turns_ended(&bot.session, 2).await;
    let requests = server.requests();
    assert_eq!(requests[0]["thinking"], json!({"type": "disabled"}));
    assert!(requests[0].get("reasoning_effort").is_none());
    assert_eq!(requests[1]["thinking"], json!({"type": "enabled"}));
}

#[tokio::test]
async fn an_unknown_thinking_level_is_refused_and_nothing_is_made() {
    let kit = Kit::new().await;
    let refusal = kit
        .refused(
            "create-bot",
            json!({"name": "Ada", "thinking": "max"}),
            "bot/invalid",
        )
        .await;
    assert!(refusal["error"]["message"].is_string(), "{refusal}");
    let (_, state) = kit.state().await;
    let names: Vec<&str> = state["bots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert!(!names.contains(&"Ada"), "{names:?}");
}

#[tokio::test]
async fn one_system_message_first_and_no_back_to_back_user_messages() {
    // The first turn fails before answering, so its line and the next one
    // would be two user messages in a row.
    let failed = Reply {
        status: 400,
        payloads: vec![r#"{"error":{"code":"invalid_request_error"}}"#.into()],
        end: End::Close,
    };
    let server = ScriptedProvider::start(vec![failed, text_reply("ok")]);
    let kit = host_on(&server, |_| {}).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "first"}))
        .await;
    kit.turns_ended(&bot.session, 1).await;
    kit.ok("send", json!({"botId": bot.id, "text": "second"}))
        .await;
    kit.turns_ended(&bot.session, 2).await;
    let requests = server.requests();
    let roles: Vec<&str> = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user"], "{requests:?}");
    let user = requests[1]["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("first") && user.contains("second"), "{user}");
}
