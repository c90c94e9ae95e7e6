//! "The runner fails on any unexpected network call": the offline matrix's
//! guard. The OpenCode client resolves to loopback only and every request
//! it sends is one the loopback fake served; the egress trap the real
//! child's proxy variables point at records and refuses every connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::egress::EgressTrap;
use flybot_interop::opencode::fake::{FakeGaps, FakeOpenCode, FakeStep, fake_doc_digest};
use flybot_interop::opencode::{DriverSession, OpenCodeClient, check_doc_against};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn network_guard_every_client_request_reaches_the_loopback_fake() {
    let gaps = FakeGaps::default();
    let fake = FakeOpenCode::new(
        vec![FakeStep::Reply {
            text: "DONE.".into(),
        }],
        gaps.clone(),
        std::env::temp_dir(),
    );
    let base = fake.clone().serve().await.unwrap();
    let client = OpenCodeClient::new(&base).unwrap();
    let addrs = client.resolved().unwrap();
    assert!(
        !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback()),
        "{addrs:?}"
    );
    let check = check_doc_against(&client.doc().await.unwrap(), &fake_doc_digest(&gaps));
    let session = DriverSession::open(client.clone(), check, "task-1")
        .await
        .unwrap();
    let (_stop, mut stop) = tokio::sync::watch::channel(false);
    session
        .turn("Fix it", &mut stop, Duration::from_secs(20))
        .await;
    assert!(client.requests_sent() > 3);
    assert_eq!(
        client.requests_sent(),
        fake.requests(),
        "no request went anywhere else"
    );
    // And any other address is refused before a connection is made.
    assert!(OpenCodeClient::new("http://192.0.2.1:4096").is_err());
    assert!(OpenCodeClient::new("https://example.com").is_err());
}

#[tokio::test]
async fn network_guard_the_egress_trap_records_and_refuses_every_connection() {
    let trap = EgressTrap::start().await.unwrap();
    assert!(trap.url().starts_with("http://127.0.0.1:"));
    assert!(trap.attempts().is_empty());
    let address = trap.url().trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    stream
        .write_all(b"CONNECT models.example:443 HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    for _ in 0..50 {
        if !trap.attempts().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let attempts = trap.attempts();
    assert_eq!(
        attempts,
        vec!["CONNECT models.example:443 HTTP/1.1".to_owned()]
    );
}
