//! The OpenAI-compatible client, run for real over HTTP against the mock
//! model server: text, DeepSeek reasoning, tool calls, usage, and each
//! failure class with its retry policy (#1308) on a paused clock.

use flybot_agent::model::openai::{KeySource, OpenAiProvider, OpenAiSettings, http_client};
use flybot_agent::model::retry::Retrying;
use flybot_agent::model::{
    ChatMessage, FinishReason, ModelError, ModelProvider, ModelRequest, Role, StreamEvent,
    ToolCall, ToolSpec, Usage,
};
use flybot_testkit::mock_server::MockServer;
use futures_util::StreamExt;
use serde_json::json;

fn provider(server: &MockServer, http: reqwest::Client) -> OpenAiProvider {
    OpenAiProvider::new(
        http,
        OpenAiSettings {
            provider_name: "local".into(),
            base_url: server.base_url.clone(),
            key: KeySource::Value("sk-test".into()),
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    )
}

/// A client with no timers of its own, for a paused clock (its read timeout
/// would fire at once there).
fn untimed_client() -> reqwest::Client {
    http_client().unwrap();
    reqwest::Client::builder().build().unwrap()
}

fn user(text: &str) -> ModelRequest {
    ModelRequest {
        model: "mock".into(),
        messages: vec![ChatMessage::text(Role::User, text)],
        tools: vec![ToolSpec {
            name: "get_weather".into(),
            description: "The weather in a city.".into(),
            parameters: json!({"type": "object", "properties": {}, "required": []}).into(),
        }],
        max_tokens: None,
        thinking: None,
    }
}

async fn run(
    provider: &impl ModelProvider,
    request: ModelRequest,
) -> Vec<Result<StreamEvent, ModelError>> {
    provider.stream(request).collect().await
}

/// The text of the deltas, and the other events.
fn split(
    events: Vec<Result<StreamEvent, ModelError>>,
) -> (String, Vec<Result<StreamEvent, ModelError>>) {
    let mut text = String::new();
    let mut rest = Vec::new();
    for event in events {
        match event {
            Ok(StreamEvent::TextDelta(delta)) => text.push_str(&delta),
            other => rest.push(other),
        }
    }
    (text, rest)
}

#[tokio::test]
async fn the_offline_answer_streams_with_usage() {
    let server = MockServer::start("");
    let events = run(&provider(&server, http_client().unwrap()), user("hello")).await;
    let (text, rest) = split(events);
    assert!(
        text.starts_with("(mock model) I received: hello."),
        "{text}"
    );
    assert_eq!(
        rest,
        vec![
            Ok(StreamEvent::Usage(Usage {
                input_tokens: Some(2),
                output_tokens: Some(text.chars().count().div_ceil(4) as u64),
                cached_tokens: None,
                reasoning_tokens: None,
            })),
            Ok(StreamEvent::Done(FinishReason::Stop)),
        ]
    );
}

#[tokio::test]
async fn tool_calls_and_reasoning_content_arrive_whole() {
    let server = MockServer::start(
        r#"[{"when": {"userContains": "weather"}, "reply": {
            "reasoning": "They want the weather.",
            "toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}},
                          {"id": "fixed", "name": "get_weather", "arguments": {"city": "Oslo"}}]}}]"#,
    );
    let events = run(&provider(&server, http_client().unwrap()), user("weather?")).await;
    assert_eq!(
        events[0],
        Ok(StreamEvent::ReasoningDelta("They want the weather.".into()))
    );
    assert_eq!(
        events[1..3],
        [
            Ok(StreamEvent::ToolCall(ToolCall {
                id: "call_0_0".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            })),
            Ok(StreamEvent::ToolCall(ToolCall {
                id: "fixed".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Oslo"}"#.into(),
            })),
        ]
    );
    let Ok(StreamEvent::Usage(usage)) = &events[3] else {
        panic!("{events:?}")
    };
    assert_eq!(usage.reasoning_tokens, Some(6));
    assert_eq!(events[4], Ok(StreamEvent::Done(FinishReason::ToolCalls)));
    assert_eq!(events.len(), 5);
}

#[tokio::test]
async fn absent_usage_stays_unknown_never_zero() {
    let server = MockServer::start(r#"[{"reply": {"text": "hi", "noUsage": true}}]"#);
    let (text, rest) = split(run(&provider(&server, http_client().unwrap()), user("x")).await);
    assert_eq!(text, "hi");
    assert_eq!(
        rest,
        vec![
            Ok(StreamEvent::Usage(Usage::default())),
            Ok(StreamEvent::Done(FinishReason::Stop)),
        ]
    );
}

#[tokio::test]
async fn a_stream_cut_midway_is_a_transport_failure() {
    let server = MockServer::start(
        r#"[{"reply": {"text": "a long answer", "deltaChars": 2, "cutAfter": 3}}]"#,
    );
    let (text, rest) = split(run(&provider(&server, http_client().unwrap()), user("x")).await);
    assert_eq!(text, "a long");
    assert!(
        matches!(rest.as_slice(), [Err(ModelError::Transport(_))]),
        "{rest:?}"
    );
}

#[tokio::test]
async fn auth_budget_and_other_refusals_by_status_and_code() {
    let server = MockServer::start(
        r#"[{"when": {"userEquals": "401"}, "fail": {"status": 401, "code": "invalid_api_key"}},
            {"when": {"userEquals": "403"}, "fail": {"status": 403}},
            {"when": {"userEquals": "quota"}, "fail": {"status": 429, "code": "insufficient_quota"}},
            {"when": {"userEquals": "400"}, "fail": {"status": 400, "code": "context_length_exceeded"}}]"#,
    );
    let client = provider(&server, http_client().unwrap());
    assert_eq!(run(&client, user("401")).await, vec![Err(ModelError::Auth)]);
    assert_eq!(run(&client, user("403")).await, vec![Err(ModelError::Auth)]);
    assert_eq!(
        run(&client, user("quota")).await,
        vec![Err(ModelError::Budget)]
    );
    assert_eq!(
        run(&client, user("400")).await,
        vec![Err(ModelError::Provider {
            status: 400,
            code: Some("context_length_exceeded".into())
        })]
    );
}

#[tokio::test]
async fn a_missing_key_makes_no_request() {
    // Nothing listens on port 9: a request would be a transport failure.
    let client = OpenAiProvider::new(
        http_client().unwrap(),
        OpenAiSettings {
            provider_name: "deepseek".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            key: KeySource::Env("FLYBOT_TEST_KEY_NEVER_SET".into()),
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    );
    assert_eq!(
        run(&client, user("x")).await,
        vec![Err(ModelError::MissingKey)]
    );
}

#[tokio::test(start_paused = true)]
async fn a_429_is_asked_again_then_answers() {
    let server = MockServer::start(
        r#"[{"times": 2, "fail": {"status": 429, "code": "rate_limit_exceeded", "type": "requests"}},
            {"reply": {"text": "finally"}}]"#,
    );
    let retrying = Retrying::new(provider(&server, untimed_client()).with_deadline(None));
    let (text, rest) = split(run(&retrying, user("x")).await);
    assert_eq!(text, "finally");
    assert_eq!(
        rest.last(),
        Some(&Ok(StreamEvent::Done(FinishReason::Stop)))
    );
}

#[tokio::test(start_paused = true)]
async fn a_429_that_outlasts_the_backoff_ends_once_with_the_count() {
    let server = MockServer::start(r#"[{"fail": {"status": 429}}]"#);
    let retrying = Retrying::new(provider(&server, untimed_client()).with_deadline(None));
    assert_eq!(
        run(&retrying, user("x")).await,
        vec![Err(ModelError::RateLimitExhausted { attempts: 4 })]
    );
}

#[tokio::test(start_paused = true)]
async fn a_402_is_not_asked_again() {
    let server = MockServer::start(
        r#"[{"times": 1, "fail": {"status": 402, "code": "budget_exceeded"}}, {"reply": {"text": "second call"}}]"#,
    );
    let retrying = Retrying::new(provider(&server, untimed_client()).with_deadline(None));
    assert_eq!(
        run(&retrying, user("x")).await,
        vec![Err(ModelError::Budget)]
    );
}

/// A provider that starts a stream and then drops the connection mid-chunk.
fn breaking_provider() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        // Read the whole request (headers, then Content-Length bytes).
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let read = socket.read(&mut buffer).unwrap();
            request.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&request).to_lowercase();
            if let Some(end) = text.find("\r\n\r\n") {
                let length: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if request.len() >= end + 4 + length {
                    break;
                }
            }
        }
        let event = "data: {\"choices\":[{\"delta\":{\"content\":\"half\"}}]}\n\n";
        write!(
            socket,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{event}\r\n5\r\ndata:",
            event.len()
        )
        .unwrap();
        socket.flush().unwrap();
        // Dropping the socket here breaks the chunked body off.
    });
    url
}

#[tokio::test]
async fn a_connection_broken_mid_stream_is_a_transport_failure() {
    let client = OpenAiProvider::new(
        http_client().unwrap(),
        OpenAiSettings {
            provider_name: "local".into(),
            base_url: breaking_provider(),
            key: KeySource::None,
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    );
    let (text, rest) = split(run(&client, user("x")).await);
    assert_eq!(text, "half");
    assert!(
        matches!(rest.as_slice(), [Err(ModelError::Transport(_))]),
        "{rest:?}"
    );
}
