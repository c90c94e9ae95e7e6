//! The provider client keeps its connection to a model server between
//! answers: an answer's body is read to its end after `[DONE]`, so the next
//! request goes on the same connection (no connect, no TLS handshake, on
//! the path to a person's first token).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_agent::model::openai::{KeySource, OpenAiProvider, OpenAiSettings, http_client};
use flybot_agent::model::{ModelProvider, ModelRequest, StreamEvent};
use futures_util::StreamExt;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A server that answers every request with one streamed word, keeps each
/// connection alive, and sends an answer's last chunk a moment after its
/// `[DONE]` (as a server flushing them apart does); counts connections.
fn keep_alive_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || answer_each(stream));
        }
    });
    (format!("http://{address}/v1"), connections)
}

fn answer_each(stream: TcpStream) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    while let Some(length) = read_head(&mut reader) {
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let events = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"hi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ];
        let mut answer = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
        );
        for event in events {
            let data = format!("data: {event}\n\n");
            answer.push_str(&format!("{:x}\r\n{data}\r\n", data.len()));
        }
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
        if writer.write_all(b"0\r\n\r\n").is_err() {
            return;
        }
    }
}

/// A request's head; answers its `Content-Length`, or `None` at the close.
fn read_head(reader: &mut BufReader<TcpStream>) -> Option<usize> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            return Some(length);
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
}

async fn one_answer(provider: &OpenAiProvider) -> String {
    let mut stream = provider.stream(ModelRequest {
        model: "small".into(),
        messages: Vec::new(),
        tools: Vec::new(),
        max_tokens: None,
        thinking: None,
    });
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::TextDelta(delta) => text.push_str(&delta),
            StreamEvent::Done(_) => return text,
            _ => {}
        }
    }
    panic!("the answer ended without its finish");
}

#[tokio::test]
async fn three_answers_in_a_row_go_over_one_connection() {
    let (base_url, connections) = keep_alive_server();
    let provider = OpenAiProvider::new(
        http_client().unwrap(),
        OpenAiSettings {
            provider_name: "local".into(),
            base_url,
            key: KeySource::None,
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    );
    for _ in 0..3 {
        assert_eq!(one_answer(&provider).await, "hi");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}
