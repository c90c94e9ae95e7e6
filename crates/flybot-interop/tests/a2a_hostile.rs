//! Attack tests for the A2A driver (issue 37): a scripted hostile A2A
//! server on loopback (a mock, named as such) sends what a real agent must
//! never be trusted not to: an oversized card, a card pointing elsewhere, a
//! flood of events, events for another task, a state the protocol does not
//! list, an error with terminal escapes. Each ends the turn with a refusal a
//! person can read, and nothing the mock sent is taken as a result.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::a2a::{A2aClient, A2aError, A2aSession, card};
use flybot_interop::opencode::TurnEnd;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The mock's answers: the card (with `{base}` replaced) and the body of
/// every JSON-RPC call (an SSE body when it starts with `data:`).
struct MockAgent {
    card: String,
    rpc: String,
}

async fn serve(mock: MockAgent) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = mock.card.replace("{base}", &base);
    let rpc = mock.rpc;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (card, rpc) = (card.clone(), rpc.clone());
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                }
                let head = String::from_utf8_lossy(&request).to_string();
                let (body, kind) = if head.starts_with("GET") {
                    (card, "application/json")
                } else if rpc.starts_with("data:") {
                    (rpc, "text/event-stream")
                } else {
                    (rpc, "application/json")
                };
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    base
}

fn good_card() -> String {
    r#"{"name":"mock","version":"1","supportedInterfaces":[{"url":"{base}/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true}}"#.to_owned()
}

fn event(task: &str, state: &str) -> String {
    format!(
        "data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"statusUpdate\":{{\"taskId\":\"{task}\",\"contextId\":\"flybot-t\",\"status\":{{\"state\":\"{state}\"}}}}}}}}\n\n"
    )
}

async fn turn_against(rpc: String) -> TurnEnd {
    let base = serve(MockAgent {
        card: good_card(),
        rpc,
    })
    .await;
    let client = A2aClient::new(&base).unwrap();
    let checked = card::fetch(&client).await.unwrap();
    let mut session = A2aSession::open(client, checked, "flybot-t".to_owned());
    let (_keep, mut stop) = tokio::sync::watch::channel(false);
    session
        .turn("do it", "m1", &mut stop, Duration::from_secs(10))
        .await
}

#[tokio::test]
async fn an_oversized_card_is_not_read_past_its_bound() {
    let base = serve(MockAgent {
        card: format!("{{\"name\":\"{}\"}}", "x".repeat(100 * 1024)),
        rpc: String::new(),
    })
    .await;
    let refused = card::fetch(&A2aClient::new(&base).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, A2aError::TooLarge { limit: 65536, .. }),
        "{refused}"
    );
}

#[tokio::test]
async fn a_card_that_points_elsewhere_is_refused_before_any_message() {
    let base = serve(MockAgent {
        card: good_card().replace("{base}", "http://127.0.0.1:9"),
        rpc: String::new(),
    })
    .await;
    let refused = card::fetch(&A2aClient::new(&base).unwrap())
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("not at"), "{refused}");
}

#[tokio::test]
async fn a_flood_of_events_ends_the_turn_at_the_event_bound() {
    let end = turn_against(event("t1", "TASK_STATE_WORKING").repeat(40)).await;
    let TurnEnd::Failed { detail } = end else {
        panic!("a flood must be a refusal, got {end:?}");
    };
    assert!(detail.contains("over 32"), "{detail}");
}

#[tokio::test]
async fn an_event_for_another_task_is_refused_and_nothing_is_taken() {
    let rpc = format!(
        "{}{}",
        event("t1", "TASK_STATE_WORKING"),
        event("t2", "TASK_STATE_COMPLETED")
    );
    let end = turn_against(rpc).await;
    let TurnEnd::Failed { detail } = end else {
        panic!("cross-talk must be a refusal, got {end:?}");
    };
    assert!(detail.contains("not this one"), "{detail}");
}

#[tokio::test]
async fn a_state_the_protocol_does_not_list_is_refused_not_guessed() {
    let end = turn_against(event("t1", "TASK_STATE_DONE_TRUST_ME")).await;
    assert!(
        matches!(&end, TurnEnd::Failed { detail } if detail.contains("unexpected shape")),
        "{end:?}"
    );
}

#[tokio::test]
async fn an_agents_error_reaches_the_turn_short_and_without_escapes() {
    let rpc = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{{\"code\":-32000,\"message\":\"\\u001b[2Jboom{}\"}}}}",
        "y".repeat(1000)
    );
    let end = turn_against(rpc).await;
    let TurnEnd::Failed { detail } = end else {
        panic!("an error must be a refusal, got {end:?}");
    };
    assert!(!detail.contains('\u{1b}') && detail.len() < 400, "{detail}");
}
