//! The few Matrix client-server calls FlyBot makes (issue 33), as plain
//! serde types over the host's own reqwest: log in (asking for a refresh
//! token), refresh, who am I, the `/sync` long poll, make a room, join,
//! leave, send a message with a transaction id, set a state event. Errors say what failed without the server's body (which
//! a hostile homeserver controls) beyond its `errcode`.

use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long the homeserver holds a `/sync` with nothing new.
pub const SYNC_HOLD_MS: u64 = 10_000;

/// A call that did not succeed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MatrixError {
    /// The homeserver could not be reached, or answered 5xx or 429: retry.
    #[error("the homeserver could not be reached ({0})")]
    Unreachable(String),
    /// The token is no longer good (`M_UNKNOWN_TOKEN`, `M_MISSING_TOKEN`).
    #[error("the homeserver signed this home out")]
    SignedOut,
    /// Any other refusal: retrying will not help.
    #[error("the homeserver refused ({0})")]
    Refused(String),
}

impl MatrixError {
    /// Whether a later try may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, MatrixError::Unreachable(_))
    }
}

/// One homeserver, one access token.
#[derive(Clone)]
pub struct Matrix {
    http: reqwest::Client,
    base: String,
    token: String,
}

#[derive(Debug, Deserialize)]
pub struct LoggedIn {
    pub user_id: String,
    pub access_token: String,
    #[serde(default)]
    pub device_id: Option<String>,
    /// Given when the homeserver's tokens expire: the way to a new one.
    #[serde(default)]
    pub refresh_token: Option<String>,
}

/// `POST /refresh`'s answer: a new access token, and the next refresh
/// token (the one used is spent).
#[derive(Debug, Deserialize)]
pub struct Refreshed {
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct WhoAmI {
    pub user_id: String,
    #[serde(default)]
    pub device_id: Option<String>,
}

/// A room event as `/sync` gives it.
#[derive(Debug, Clone, Deserialize)]
pub struct RoomEvent {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub event_id: String,
    pub sender: String,
    #[serde(default)]
    pub content: Value,
    #[serde(default)]
    pub state_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Events {
    #[serde(default)]
    pub events: Vec<RoomEvent>,
}

#[derive(Debug, Default, Deserialize)]
pub struct JoinedRoom {
    #[serde(default)]
    pub state: Events,
    #[serde(default)]
    pub timeline: Events,
}

#[derive(Debug, Default, Deserialize)]
pub struct InvitedRoom {
    #[serde(default)]
    pub invite_state: Events,
}

#[derive(Debug, Default, Deserialize)]
pub struct Rooms {
    #[serde(default)]
    pub join: BTreeMap<String, JoinedRoom>,
    #[serde(default)]
    pub invite: BTreeMap<String, InvitedRoom>,
    /// Rooms this home left, or was kicked or banned from, since the last
    /// batch, with the events up to its leave (issue 34: a kick or ban).
    #[serde(default)]
    pub leave: BTreeMap<String, JoinedRoom>,
}

#[derive(Debug, Deserialize)]
pub struct SyncBatch {
    pub next_batch: String,
    #[serde(default)]
    pub rooms: Rooms,
}

/// A path segment escaped for a URL (room ids hold `!` and `:`).
/// Who made a room: the sender of its create event, among its state.
pub fn room_creator(events: &[Value]) -> Option<String> {
    events
        .iter()
        .find(|e| e["type"] == "m.room.create")
        .and_then(|e| e["sender"].as_str())
        .map(str::to_owned)
}

pub fn segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A client with the host's TLS provider and a timeout above the sync hold.
pub fn http_client() -> Option<reqwest::Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_millis(SYNC_HOLD_MS + 20_000))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .inspect_err(|e| tracing::warn!("Bot Social is off: no HTTP client ({e})"))
        .ok()
}

async fn answer<T: serde::de::DeserializeOwned>(
    sent: Result<reqwest::Response, reqwest::Error>,
) -> Result<T, MatrixError> {
    let response = sent.map_err(|e| MatrixError::Unreachable(e.without_url().to_string()))?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if status.is_success() {
        return serde_json::from_value(body)
            .map_err(|e| MatrixError::Refused(format!("an answer of an unknown shape: {e}")));
    }
    let code: String = body
        .get("errcode")
        .and_then(Value::as_str)
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(64)
        .collect();
    if status.as_u16() == 429 {
        // Issue 34 (#1161): how long the homeserver asks us to wait.
        let wait = body.get("retry_after_ms").and_then(Value::as_u64);
        return Err(MatrixError::Unreachable(match wait {
            Some(ms) => format!("HTTP {status} retry_after_ms={ms}"),
            None => format!("HTTP {status}"),
        }));
    }
    if status.is_server_error() {
        return Err(MatrixError::Unreachable(format!("HTTP {status}")));
    }
    if code == "M_UNKNOWN_TOKEN" || code == "M_MISSING_TOKEN" {
        return Err(MatrixError::SignedOut);
    }
    Err(MatrixError::Refused(format!("HTTP {status} {code}")))
}

/// `POST /login` with a password: the account's token.
pub async fn login(
    http: &reqwest::Client,
    base: &str,
    user: &str,
    password: &str,
) -> Result<LoggedIn, MatrixError> {
    let body = json!({
        "type": "m.login.password",
        "identifier": {"type": "m.id.user", "user": user},
        "password": password,
        "initial_device_display_name": "FlyBot home",
        "refresh_token": true,
    });
    let url = format!("{base}/_matrix/client/v3/login");
    answer(http.post(url).json(&body).send().await).await
}

/// `POST /refresh`: trades a refresh token for a new access token, when
/// the homeserver signed the old one out as expired (soft logout).
pub async fn refresh(
    http: &reqwest::Client,
    base: &str,
    refresh_token: &str,
) -> Result<Refreshed, MatrixError> {
    let body = json!({"refresh_token": refresh_token});
    let url = format!("{}/_matrix/client/v3/refresh", base.trim_end_matches('/'));
    answer(http.post(url).json(&body).send().await).await
}

impl Matrix {
    pub fn new(http: reqwest::Client, base: &str, token: &str) -> Matrix {
        Matrix {
            http,
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        }
    }

    /// The access token this client calls with.
    pub fn token(&self) -> &str {
        &self.token
    }

    fn url(&self, path: &str) -> String {
        format!("{}/_matrix/client/v3{path}", self.base)
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, MatrixError> {
        let sent = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.token)
            .send()
            .await;
        answer(sent).await
    }

    async fn put<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
    ) -> Result<T, MatrixError> {
        self.send_json(reqwest::Method::PUT, path, body).await
    }

    async fn post<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
    ) -> Result<T, MatrixError> {
        self.send_json(reqwest::Method::POST, path, body).await
    }

    /// One authenticated call with a JSON body.
    async fn send_json<T: serde::de::DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &Value,
    ) -> Result<T, MatrixError> {
        let sent = self
            .http
            .request(method, self.url(path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await;
        answer(sent).await
    }

    /// Any other client-server call, answered as JSON (issue 34's invite
    /// links: a lobby's state, its aliases, a knock, a kick).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, MatrixError> {
        match body {
            Some(body) => self.send_json(method, path, body).await,
            None => {
                let sent = (self.http.request(method, self.url(path)))
                    .bearer_auth(&self.token)
                    .send()
                    .await;
                answer(sent).await
            }
        }
    }

    /// The room's whole state, as the homeserver holds it.
    pub async fn room_state(&self, room_id: &str) -> Result<Vec<Value>, MatrixError> {
        let path = format!("/rooms/{}/state", segment(room_id));
        let events = self.call(reqwest::Method::GET, &path, None).await?;
        Ok(events.as_array().cloned().unwrap_or_default())
    }

    pub async fn whoami(&self) -> Result<WhoAmI, MatrixError> {
        self.get("/account/whoami").await
    }

    /// One `/sync` from `since` (none: the first), held up to `hold_ms`.
    pub async fn sync(&self, since: Option<&str>, hold_ms: u64) -> Result<SyncBatch, MatrixError> {
        let mut path = format!("/sync?timeout={hold_ms}");
        if let Some(since) = since {
            path.push_str(&format!("&since={}", segment(since)));
        }
        self.get(&path).await
    }

    /// Makes a private room with `invite`, marked by `initial_state`.
    pub async fn create_room(
        &self,
        name: &str,
        invite: &str,
        initial_state: Vec<Value>,
    ) -> Result<String, MatrixError> {
        #[derive(Deserialize)]
        struct Made {
            room_id: String,
        }
        let body = json!({
            "preset": "trusted_private_chat",
            "is_direct": true,
            "name": name,
            "invite": [invite],
            "initial_state": initial_state,
        });
        let made: Made = self.post("/createRoom", &body).await?;
        Ok(made.room_id)
    }

    pub async fn join(&self, room_id: &str) -> Result<(), MatrixError> {
        let _: Value = self
            .post(&format!("/rooms/{}/join", segment(room_id)), &json!({}))
            .await?;
        Ok(())
    }

    /// Invites `user` into a room this home is in (issue 34: a shared
    /// room gains a Bot of another friend's home).
    pub async fn invite(&self, room_id: &str, user: &str) -> Result<(), MatrixError> {
        let body = json!({"user_id": user});
        let _: Value = self
            .post(&format!("/rooms/{}/invite", segment(room_id)), &body)
            .await?;
        Ok(())
    }

    /// Leaves (or declines the invite of) a room.
    pub async fn leave(&self, room_id: &str) -> Result<(), MatrixError> {
        let _: Value = self
            .post(&format!("/rooms/{}/leave", segment(room_id)), &json!({}))
            .await?;
        Ok(())
    }

    /// Sends a message under transaction id `txn`: the homeserver answers
    /// the same event for the same `txn`, so a retry never sends twice.
    pub async fn send(
        &self,
        room_id: &str,
        txn: &str,
        content: &Value,
    ) -> Result<String, MatrixError> {
        #[derive(Deserialize)]
        struct Sent {
            event_id: String,
        }
        let path = format!(
            "/rooms/{}/send/m.room.message/{}",
            segment(room_id),
            segment(txn)
        );
        let sent: Sent = self.put(&path, content).await?;
        Ok(sent.event_id)
    }

    /// Sets the room's state event of `kind` (state key empty).
    pub async fn set_state(
        &self,
        room_id: &str,
        kind: &str,
        content: &Value,
    ) -> Result<(), MatrixError> {
        let path = format!("/rooms/{}/state/{}/", segment(room_id), segment(kind));
        let _: Value = self.put(&path, content).await?;
        Ok(())
    }

    /// Makes a room from a whole `/createRoom` body (issue 34: a
    /// face-to-face room, public by its alias); answers its id.
    pub async fn create_room_from(&self, body: &Value) -> Result<String, MatrixError> {
        #[derive(Deserialize)]
        struct Made {
            room_id: String,
        }
        let made: Made = self.post("/createRoom", body).await?;
        Ok(made.room_id)
    }

    /// Joins a room by its id or an alias (`#name:server`); answers its id.
    pub async fn join_by(&self, room_or_alias: &str) -> Result<String, MatrixError> {
        #[derive(Deserialize)]
        struct Joined {
            room_id: String,
        }
        let path = format!("/join/{}", segment(room_or_alias));
        let joined: Joined = self.post(&path, &json!({})).await?;
        Ok(joined.room_id)
    }

    /// Sets the room's state event of `kind` under `state_key`.
    pub async fn set_state_keyed(
        &self,
        room_id: &str,
        kind: &str,
        state_key: &str,
        content: &Value,
    ) -> Result<(), MatrixError> {
        let path = format!(
            "/rooms/{}/state/{}/{}",
            segment(room_id),
            segment(kind),
            segment(state_key)
        );
        let _: Value = self.put(&path, content).await?;
        Ok(())
    }
}
