//! A raw Matrix client-server API client with no FlyBot code: a person in
//! a plain Matrix client, or a hostile home forging what FlyBot would send.

use reqwest::Client;
use serde_json::{Value, json};
use std::time::Duration;

pub struct RawMatrix {
    http: Client,
    base: String,
    token: String,
    pub user_id: String,
    since: Option<String>,
    txn: u64,
}

fn esc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl RawMatrix {
    /// Logs `user` in with `password`.
    pub async fn login(base: &str, user: &str, password: &str) -> RawMatrix {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        let body = json!({
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": user},
            "password": password,
        });
        let answer: Value = http
            .post(format!("{base}/_matrix/client/v3/login"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        RawMatrix {
            http,
            base: base.to_owned(),
            token: answer["access_token"].as_str().unwrap().to_owned(),
            user_id: answer["user_id"].as_str().unwrap().to_owned(),
            since: None,
            txn: 0,
        }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/_matrix/client/v3{path}", self.base);
        let mut request = self.http.request(method, url).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request.send().await.unwrap();
        let status = answer.status();
        let body: Value = answer.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {body}");
        body
    }

    /// One sync (held up to a second); answers the batch.
    pub async fn sync(&mut self) -> Value {
        let mut path = "/sync?timeout=1000".to_owned();
        if let Some(since) = &self.since {
            path.push_str(&format!("&since={}", esc(since)));
        }
        let batch = self.call(reqwest::Method::GET, &path, None).await;
        self.since = batch["next_batch"].as_str().map(str::to_owned);
        batch
    }

    /// Syncs until `pick` finds something in a batch.
    pub async fn sync_until<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&Value) -> Option<T>,
    ) -> T {
        for _ in 0..120 {
            let batch = self.sync().await;
            if let Some(found) = pick(&batch) {
                return found;
            }
        }
        panic!("{} never saw: {what}", self.user_id);
    }

    pub async fn join(&self, room: &str) {
        self.call(
            reqwest::Method::POST,
            &format!("/rooms/{}/join", esc(room)),
            Some(json!({})),
        )
        .await;
    }

    pub async fn send(&mut self, room: &str, content: Value) -> String {
        self.txn += 1;
        let path = format!("/rooms/{}/send/m.room.message/raw-{}", esc(room), self.txn);
        let answer = self.call(reqwest::Method::PUT, &path, Some(content)).await;
        answer["event_id"].as_str().unwrap().to_owned()
    }

    pub async fn set_state(&self, room: &str, kind: &str, content: Value) {
        let path = format!("/rooms/{}/state/{}/", esc(room), esc(kind));
        self.call(reqwest::Method::PUT, &path, Some(content)).await;
    }

    /// The room an alias names (issue 34: a link's lobby).
    pub async fn resolve(&self, alias: &str) -> String {
        let path = format!("/directory/room/{}", esc(alias));
        let answer = self.call(reqwest::Method::GET, &path, None).await;
        answer["room_id"].as_str().unwrap().to_owned()
    }

    /// Knocks on a room with `reason` (issue 34: a claim, or a forgery).
    pub async fn knock(&self, room: &str, reason: &str) {
        let path = format!("/knock/{}", esc(room));
        self.call(
            reqwest::Method::POST,
            &path,
            Some(json!({"reason": reason})),
        )
        .await;
    }

    /// Leaves a room (issue 34: a share's Matrix room its maker broke).
    pub async fn leave(&self, room: &str) {
        let path = format!("/rooms/{}/leave", esc(room));
        self.call(reqwest::Method::POST, &path, Some(json!({})))
            .await;
    }

    /// Puts `user` out of `room`: `kick` or `ban` (issue 34: membership is
    /// the server's).
    pub async fn put_out(&self, room: &str, user: &str, how: &str) {
        let path = format!("/rooms/{}/{how}", esc(room));
        let body = json!({"user_id": user, "reason": "test"});
        self.call(reqwest::Method::POST, &path, Some(body)).await;
    }

    /// Sets a state event under `key` (issue 34: a home's own part).
    pub async fn set_state_keyed(&self, room: &str, kind: &str, key: &str, content: Value) {
        let path = format!("/rooms/{}/state/{}/{}", esc(room), esc(kind), esc(key));
        self.call(reqwest::Method::PUT, &path, Some(content)).await;
    }

    /// A room's whole state, as this user may read it.
    pub async fn room_state(&self, room: &str) -> Value {
        let path = format!("/rooms/{}/state", esc(room));
        self.call(reqwest::Method::GET, &path, None).await
    }

    pub async fn create_room(&self, invite: &str, initial_state: Value) -> String {
        let body = json!({
            "preset": "trusted_private_chat",
            "is_direct": true,
            "invite": [invite],
            "initial_state": initial_state,
        });
        let answer = self
            .call(reqwest::Method::POST, "/createRoom", Some(body))
            .await;
        answer["room_id"].as_str().unwrap().to_owned()
    }
}

/// The rooms a batch invites this user to.
pub fn invites(batch: &Value) -> Vec<String> {
    batch["rooms"]["invite"]
        .as_object()
        .map(|rooms| rooms.keys().cloned().collect())
        .unwrap_or_default()
}

/// The messages of a batch in `room`: (sender, content).
pub fn messages(batch: &Value, room: &str) -> Vec<(String, Value)> {
    batch["rooms"]["join"][room]["timeline"]["events"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .filter(|e| e["type"] == "m.room.message")
                .map(|e| {
                    (
                        e["sender"].as_str().unwrap_or("").to_owned(),
                        e["content"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The users a batch shows leaving (or declining an invite to) `room`.
pub fn left(batch: &Value, room: &str) -> Vec<String> {
    batch["rooms"]["join"][room]["timeline"]["events"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .filter(|e| e["type"] == "m.room.member" && e["content"]["membership"] == "leave")
                .filter_map(|e| e["state_key"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
