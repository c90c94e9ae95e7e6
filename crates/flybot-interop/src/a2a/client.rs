//! A small JSON-RPC client for the one A2A agent a driver owns: loopback
//! only (the agent's card cannot send FlyBot elsewhere), no proxy, every
//! answer read with a byte bound before it is parsed, every stream held to
//! a byte and an event bound.

use super::wire::{PROTOCOL_VERSION, SendResult, StreamEvent, Task};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;

/// Largest agent card read.
pub const CARD_BYTES: usize = 64 * 1024;
/// Largest JSON-RPC answer read (a task with its history and artifacts).
pub const ANSWER_BYTES: usize = 256 * 1024;
/// Largest stream read in one call, all events together.
pub const STREAM_BYTES: usize = 1024 * 1024;
/// Most events taken from one stream (the contract's twelve progress
/// events, with room for the task, artifacts and the final status).
pub const STREAM_EVENTS: usize = 32;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum A2aError {
    #[error(
        "the A2A address {0} is not http://127.0.0.1:PORT; only the driver's own agent is spoken to"
    )]
    NotLoopback(String),
    #[error("the A2A agent did not answer: {0}")]
    Transport(String),
    #[error("the A2A agent answered HTTP {status} to {what}")]
    Status { what: &'static str, status: u16 },
    #[error("the A2A agent's answer to {what} is over {limit} bytes; it was not read further")]
    TooLarge { what: &'static str, limit: usize },
    #[error("the A2A agent's answer to {what} has an unexpected shape: {detail}")]
    Shape { what: &'static str, detail: String },
    #[error("the A2A agent refused {what}: error {code}, {message}")]
    Remote {
        what: &'static str,
        code: i64,
        message: String,
    },
}

impl A2aError {
    /// Whether the call's effect is unknown (it may have happened): the
    /// connection broke. An answer over its bound is the agent's known
    /// misbehaviour, not an ambiguity.
    pub fn ambiguous(&self) -> bool {
        matches!(self, A2aError::Transport(_))
    }
}

pub type Result<T> = std::result::Result<T, A2aError>;

/// `base` as `http://127.0.0.1:PORT` (or `[::1]`), nothing after the port.
pub fn loopback_base(base: &str) -> Result<String> {
    let trimmed = base.trim_end_matches('/');
    let refuse = || A2aError::NotLoopback(printable(trimmed, 120));
    let rest = trimmed.strip_prefix("http://").ok_or_else(refuse)?;
    let (host, port) = rest.rsplit_once(':').ok_or_else(refuse)?;
    if !matches!(host, "127.0.0.1" | "[::1]") || port.parse::<u16>().map_or(true, |p| p == 0) {
        return Err(refuse());
    }
    Ok(trimmed.to_owned())
}

/// `text` cut to `chars` characters with control characters dropped: an
/// agent's words on their way into a report or a log.
pub fn printable(text: &str, chars: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(chars)
        .collect()
}

fn transport(error: reqwest::Error) -> A2aError {
    A2aError::Transport(error.without_url().to_string())
}

/// The body of `response`, refused past `limit` bytes.
async fn bounded(
    mut response: reqwest::Response,
    what: &'static str,
    limit: usize,
) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(transport)? {
        if body.len() + chunk.len() > limit {
            return Err(A2aError::TooLarge { what, limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A JSON-RPC answer's result as `T`, or the agent's error.
fn result_of<T: DeserializeOwned>(what: &'static str, answer: Value) -> Result<T> {
    if let Some(error) = answer.get("error") {
        return Err(A2aError::Remote {
            what,
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: printable(
                error.get("message").and_then(Value::as_str).unwrap_or(""),
                200,
            ),
        });
    }
    let result = answer
        .get("result")
        .cloned()
        .ok_or_else(|| A2aError::Shape {
            what,
            detail: "neither result nor error".to_owned(),
        })?;
    serde_json::from_value(result).map_err(|e| A2aError::Shape {
        what,
        detail: printable(&e.to_string(), 200),
    })
}

/// A connection to one A2A agent's JSON-RPC interface.
#[derive(Clone)]
pub struct A2aClient {
    http: reqwest::Client,
    base: String,
    sent: Arc<AtomicU64>,
    ids: Arc<AtomicU64>,
}

impl A2aClient {
    pub fn new(base: &str) -> Result<A2aClient> {
        let base = loopback_base(base)?;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(transport)?;
        Ok(A2aClient {
            http,
            base,
            sent: Default::default(),
            ids: Default::default(),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// How many requests this client and its clones sent.
    pub fn requests_sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// The agent card's bytes, as served at the well-known path.
    pub async fn card_bytes(&self) -> Result<Vec<u8>> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        let response = self
            .http
            .get(format!("{}/.well-known/agent-card.json", self.base))
            .send()
            .await
            .map_err(transport)?;
        if !response.status().is_success() {
            return Err(A2aError::Status {
                what: "the agent card",
                status: response.status().as_u16(),
            });
        }
        bounded(response, "the agent card", CARD_BYTES).await
    }

    fn request(&self, method: &str, params: Value) -> reqwest::RequestBuilder {
        self.sent.fetch_add(1, Ordering::SeqCst);
        let id = self.ids.fetch_add(1, Ordering::SeqCst) + 1;
        self.http
            .post(format!("{}/", self.base))
            .header("A2A-Version", PROTOCOL_VERSION)
            .json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    async fn call<T: DeserializeOwned>(
        &self,
        what: &'static str,
        method: &str,
        params: Value,
    ) -> Result<T> {
        let response = self
            .request(method, params)
            .send()
            .await
            .map_err(transport)?;
        if !response.status().is_success() {
            return Err(A2aError::Status {
                what,
                status: response.status().as_u16(),
            });
        }
        let body = bounded(response, what, ANSWER_BYTES).await?;
        let answer: Value = serde_json::from_slice(&body).map_err(|e| A2aError::Shape {
            what,
            detail: printable(&e.to_string(), 200),
        })?;
        result_of(what, answer)
    }

    /// `SendMessage`: the task (or plain message) the agent answers with.
    pub async fn send_message(&self, message: Value) -> Result<SendResult> {
        self.call("SendMessage", "SendMessage", json!({"message": message}))
            .await
    }

    /// `GetTask`: the task's record.
    pub async fn get_task(&self, task_id: &str) -> Result<Task> {
        self.call("GetTask", "GetTask", json!({"id": task_id}))
            .await
    }

    /// `ListTasks`: the ids of the tasks the agent holds (its first page;
    /// the evidence that a refused request started nothing there).
    pub async fn list_task_ids(&self) -> Result<Vec<String>> {
        #[derive(serde::Deserialize)]
        struct Listed {
            #[serde(default)]
            tasks: Vec<Task>,
        }
        let listed: Listed = self.call("ListTasks", "ListTasks", json!({})).await?;
        Ok(listed.tasks.into_iter().map(|t| t.id).collect())
    }

    /// `CancelTask`: what the agent answers (taken, not proof of a stop).
    pub async fn cancel_task(&self, task_id: &str) -> Result<Task> {
        self.call("CancelTask", "CancelTask", json!({"id": task_id}))
            .await
    }

    /// `SendStreamingMessage`: its events as they come, each parsed and
    /// bounded; the channel closes when the stream ends, after an error,
    /// or past `STREAM_BYTES` / `STREAM_EVENTS` (with an error last).
    pub async fn stream_message(
        &self,
        message: Value,
    ) -> Result<mpsc::Receiver<Result<StreamEvent>>> {
        const WHAT: &str = "SendStreamingMessage";
        let response = self
            .request(WHAT, json!({"message": message}))
            .header("Accept", "text/event-stream")
            .send()
            .await
            .map_err(transport)?;
        if !response.status().is_success() {
            return Err(A2aError::Status {
                what: WHAT,
                status: response.status().as_u16(),
            });
        }
        let is_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_stream {
            // The agent refused before streaming: a JSON-RPC error.
            let body = bounded(response, WHAT, ANSWER_BYTES).await?;
            let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            return Err(match result_of::<Value>(WHAT, answer) {
                Err(e) => e,
                Ok(_) => A2aError::Shape {
                    what: WHAT,
                    detail: "a JSON answer where a stream was asked".to_owned(),
                },
            });
        }
        let (tx, rx) = mpsc::channel(STREAM_EVENTS);
        tokio::spawn(forward_events(response, tx));
        Ok(rx)
    }
}

/// Reads the stream into `tx` within its bounds.
async fn forward_events(response: reqwest::Response, tx: mpsc::Sender<Result<StreamEvent>>) {
    use eventsource_stream::Eventsource;
    const WHAT: &str = "SendStreamingMessage";
    let read = Arc::new(AtomicU64::new(0));
    let counted = read.clone();
    let bytes = response.bytes_stream().map(move |chunk| {
        if let Ok(chunk) = &chunk {
            counted.fetch_add(chunk.len() as u64, Ordering::SeqCst);
        }
        chunk
    });
    let mut events = bytes.eventsource();
    let mut taken = 0usize;
    while let Some(event) = events.next().await {
        if read.load(Ordering::SeqCst) > STREAM_BYTES as u64 || taken >= STREAM_EVENTS {
            let limit = if taken >= STREAM_EVENTS {
                STREAM_EVENTS
            } else {
                STREAM_BYTES
            };
            let _ = tx.send(Err(A2aError::TooLarge { what: WHAT, limit })).await;
            return;
        }
        let parsed = match event {
            Ok(event) => serde_json::from_str::<Value>(&event.data)
                .map_err(|e| A2aError::Shape {
                    what: WHAT,
                    detail: printable(&e.to_string(), 200),
                })
                .and_then(|answer| result_of::<StreamEvent>(WHAT, answer)),
            Err(e) => Err(A2aError::Transport(printable(&e.to_string(), 200))),
        };
        taken += 1;
        let stop = parsed.is_err();
        if tx.send(parsed).await.is_err() || stop {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_numeric_loopback_address_is_spoken_to() {
        assert_eq!(
            loopback_base("http://127.0.0.1:4100/").unwrap(),
            "http://127.0.0.1:4100"
        );
        assert!(loopback_base("http://[::1]:4100").is_ok());
        for hostile in [
            "http://localhost.example.com:80",
            "http://127.0.0.1.nip.io:80",
            "http://user@127.0.0.1:80",
            "https://127.0.0.1:80",
            "http://10.0.0.1:80",
            "http://127.0.0.1:0",
            "http://127.0.0.1:80/elsewhere",
            "http://127.0.0.1",
        ] {
            assert!(
                matches!(loopback_base(hostile), Err(A2aError::NotLoopback(_))),
                "{hostile}"
            );
        }
    }

    #[test]
    fn an_agents_error_is_kept_short_and_printable() {
        let answer = json!({"error": {"code": -32001, "message": format!("bad\u{1b}[31m{}", "x".repeat(500))}});
        let Err(A2aError::Remote { code, message, .. }) = result_of::<Value>("GetTask", answer)
        else {
            panic!("an error answer must be an error");
        };
        assert_eq!(code, -32001);
        assert_eq!(message.chars().count(), 200);
        assert!(!message.contains('\u{1b}'));
    }

    #[test]
    fn an_answer_with_neither_result_nor_error_is_a_shape_error() {
        assert!(matches!(
            result_of::<Value>("GetTask", json!({"jsonrpc": "2.0"})),
            Err(A2aError::Shape { .. })
        ));
    }
}
