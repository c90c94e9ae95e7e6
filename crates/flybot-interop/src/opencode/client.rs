//! A small HTTP client for the OpenCode server the driver owns: loopback
//! only (a peer can never choose a URL), no proxy, our own serde values.

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "the OpenCode address {0} is not on loopback; only the driver's own child is spoken to"
    )]
    NotLoopback(String),
    #[error("OpenCode did not answer: {0}")]
    Transport(String),
    #[error("OpenCode answered {status} to {what}")]
    Status { what: &'static str, status: u16 },
    #[error("OpenCode's answer to {0} has an unexpected shape")]
    Shape(&'static str),
}

pub type Result<T> = std::result::Result<T, ClientError>;

/// A session's status as the runtime reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionStatus {
    /// Not working; `raw` is what the runtime showed, for the journal.
    Idle {
        raw: String,
    },
    Busy,
    Retry,
}

impl SessionStatus {
    pub fn is_idle(&self) -> bool {
        matches!(self, SessionStatus::Idle { .. })
    }
}

/// A connection to one `opencode serve`.
#[derive(Clone)]
pub struct OpenCodeClient {
    http: reqwest::Client,
    base: String,
    /// Requests this client (and its clones) sent.
    sent: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// Whether `base` is `http://127.0.0.1:PORT`, `http://[::1]:PORT` or
/// `http://localhost:PORT`.
pub fn is_loopback(base: &str) -> bool {
    let Some(rest) = base.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

fn transport(error: reqwest::Error) -> ClientError {
    ClientError::Transport(error.without_url().to_string())
}

impl OpenCodeClient {
    pub fn new(base: &str) -> Result<OpenCodeClient> {
        let base = base.trim_end_matches('/').to_owned();
        if !is_loopback(&base) {
            return Err(ClientError::NotLoopback(base));
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(transport)?;
        Ok(OpenCodeClient {
            http,
            base,
            sent: Default::default(),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// How many requests this client and its clones sent (the network
    /// guard compares it with what the loopback server received).
    pub fn requests_sent(&self) -> u64 {
        self.sent.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The addresses the base resolves to; a guard asserts all loopback.
    pub fn resolved(&self) -> std::io::Result<Vec<std::net::SocketAddr>> {
        use std::net::ToSocketAddrs;
        let rest = self.base.trim_start_matches("http://");
        let authority = rest.split('/').next().unwrap_or_default();
        Ok(authority.to_socket_addrs()?.collect())
    }

    fn count(&self) {
        self.sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    async fn get(&self, what: &'static str, path: &str) -> Result<reqwest::Response> {
        self.count();
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(transport)?;
        if !response.status().is_success() {
            return Err(ClientError::Status {
                what,
                status: response.status().as_u16(),
            });
        }
        Ok(response)
    }

    async fn post(&self, what: &'static str, path: &str, body: Value) -> Result<Value> {
        self.count();
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .map_err(transport)?;
        let status = response.status();
        if !status.is_success() {
            return Err(ClientError::Status {
                what,
                status: status.as_u16(),
            });
        }
        let bytes = response.bytes().await.map_err(transport)?;
        if bytes.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&bytes).map_err(|_| ClientError::Shape(what))
    }

    /// `GET /doc`: the OpenAPI document's bytes.
    pub async fn doc(&self) -> Result<Vec<u8>> {
        let response = self.get("doc", "/doc").await?;
        Ok(response.bytes().await.map_err(transport)?.to_vec())
    }

    /// `POST /session`: a new session's id.
    pub async fn create_session(&self, title: &str) -> Result<String> {
        let session = self
            .post("session", "/session", json!({"title": title}))
            .await?;
        session["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or(ClientError::Shape("session"))
    }

    /// `POST /session/{id}/prompt_async`: accepted, not answered.
    pub async fn prompt_async(&self, session: &str, text: &str) -> Result<()> {
        self.post(
            "prompt_async",
            &format!("/session/{session}/prompt_async"),
            json!({"parts": [{"type": "text", "text": text}]}),
        )
        .await
        .map(|_| ())
    }

    /// `GET /session/status` (and, when the session is not listed, `GET
    /// /session/{id}`): what the runtime reports for `session`. The pinned
    /// 1.18.33 lists only sessions at work, so an unlisted session is idle
    /// only when the server shows it exists; a session it does not know, or
    /// a status it does not document, is an error, never `idle`.
    pub async fn status(&self, session: &str) -> Result<SessionStatus> {
        let statuses: Value = self
            .get("status", "/session/status")
            .await?
            .json()
            .await
            .map_err(|_| ClientError::Shape("status"))?;
        let Some(statuses) = statuses.as_object() else {
            return Err(ClientError::Shape("status"));
        };
        if let Some(entry) = statuses.get(session) {
            return match entry["type"].as_str() {
                Some("idle") => Ok(SessionStatus::Idle {
                    raw: entry.to_string(),
                }),
                Some("busy") => Ok(SessionStatus::Busy),
                Some("retry") => Ok(SessionStatus::Retry),
                _ => Err(ClientError::Shape("status")),
            };
        }
        let known: Value = self
            .get("session", &format!("/session/{session}"))
            .await?
            .json()
            .await
            .map_err(|_| ClientError::Shape("session"))?;
        if known["id"].as_str() != Some(session) {
            return Err(ClientError::Shape("session"));
        }
        Ok(SessionStatus::Idle {
            raw: format!(
                "{session} not listed in /session/status; GET /session/{session} shows it"
            ),
        })
    }

    /// `GET /session/{id}/message`: the session's history.
    pub async fn messages(&self, session: &str) -> Result<Vec<Value>> {
        let history: Value = self
            .get("history", &format!("/session/{session}/message"))
            .await?
            .json()
            .await
            .map_err(|_| ClientError::Shape("history"))?;
        history
            .as_array()
            .cloned()
            .ok_or(ClientError::Shape("history"))
    }

    /// `POST /session/{id}/abort`: what the server said (not proof).
    pub async fn abort(&self, session: &str) -> Result<bool> {
        let answer = self
            .post("abort", &format!("/session/{session}/abort"), json!({}))
            .await?;
        Ok(answer.as_bool().unwrap_or(false))
    }

    /// `POST /permission/{id}/reply {reply: "reject"}`.
    pub async fn reject_permission(&self, request: &str, message: &str) -> Result<()> {
        self.post(
            "permission reply",
            &format!("/permission/{request}/reply"),
            json!({"reply": "reject", "message": message}),
        )
        .await
        .map(|_| ())
    }

    /// `POST /question/{id}/reject`.
    pub async fn reject_question(&self, request: &str) -> Result<()> {
        self.post(
            "question reject",
            &format!("/question/{request}/reject"),
            json!({}),
        )
        .await
        .map(|_| ())
    }

    /// `GET /event`: the server's events as they come; the receiver ends
    /// when the stream does (SSE is a notification source, not a record).
    pub async fn events(&self) -> Result<mpsc::Receiver<Value>> {
        let response = self.get("event", "/event").await?;
        let (send, receive) = mpsc::channel(64);
        let mut stream = eventsource_stream::Eventsource::eventsource(response.bytes_stream());
        tokio::spawn(async move {
            while let Some(Ok(event)) = stream.next().await {
                let Ok(value) = serde_json::from_str::<Value>(&event.data) else {
                    continue;
                };
                if send.send(value).await.is_err() {
                    return;
                }
            }
        });
        Ok(receive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_spoken_to() {
        assert!(is_loopback("http://127.0.0.1:4096"));
        assert!(is_loopback("http://localhost:1"));
        assert!(!is_loopback("http://10.0.0.2:4096"));
        assert!(!is_loopback("https://example.com"));
        assert!(!is_loopback("http://127.0.0.1.example.com:80"));
        assert!(matches!(
            OpenCodeClient::new("http://192.168.1.4:4096"),
            Err(ClientError::NotLoopback(_))
        ));
    }
}
