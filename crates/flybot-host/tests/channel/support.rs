//! A host on a temporary home, driven through its router with `oneshot`.
#![allow(dead_code)]

use axum::body::{Body, to_bytes};
use axum::http::Request;
use flybot_host::{Host, HostConfig, app};
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt;

pub struct TestHost {
    pub host: Host,
    pub dir: TempDir,
}

impl TestHost {
    pub fn new() -> Self {
        TestHost::with_config(|_| {})
    }

    /// A host whose config `adjust` changes first (its models, its OpenCode).
    pub fn with_config(adjust: impl FnOnce(&mut HostConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
        let mut config = HostConfig::new(dir.path().to_owned());
        adjust(&mut config);
        let host = Host::new(store, config);
        TestHost { host, dir }
    }

    /// POSTs raw bytes to an endpoint; answers (status, body).
    pub async fn raw(&self, token: Option<&str>, endpoint: &str, body: Vec<u8>) -> (u16, Value) {
        let mut request = Request::post(format!("/api/bot/{endpoint}"));
        if let Some(token) = token {
            request = request.header("x-flybot-member-session", token);
        }
        let response = app(self.host.clone())
            .oneshot(request.body(Body::from(body)).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    pub async fn call(&self, token: Option<&str>, endpoint: &str, body: Value) -> (u16, Value) {
        self.raw(token, endpoint, serde_json::to_vec(&body).unwrap())
            .await
    }

    /// Calls and expects success; answers the body.
    pub async fn ok(&self, token: Option<&str>, endpoint: &str, body: Value) -> Value {
        let (status, answer) = self.call(token, endpoint, body).await;
        assert_eq!(status, 200, "{endpoint}: {answer}");
        assert_eq!(answer["ok"], true);
        answer
    }

    pub async fn state(&self, token: Option<&str>) -> (u16, Value) {
        let mut request = Request::get("/api/bot/state");
        if let Some(token) = token {
            request = request.header("x-flybot-member-session", token);
        }
        let response = app(self.host.clone())
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    /// The bytes of the journal and the snapshot, and the revision.
    pub async fn fingerprint(&self) -> (Vec<u8>, Vec<u8>, u64, String) {
        self.host.store().saves_settled().await;
        // The snapshot made current first, so a timed snapshot catching up
        // with an earlier change between two fingerprints is no change.
        self.host.store().snapshot_now().await.unwrap();
        let read = |name: &str| std::fs::read(self.dir.path().join(name)).unwrap_or_default();
        let team = self
            .host
            .store()
            .read(|state| serde_json::to_string(state).unwrap());
        (
            read("journal.jsonl"),
            read("state.json"),
            self.host.store().revision(),
            team,
        )
    }

    /// Calls, expects the refusal `code`, and checks that nothing changed:
    /// the journal, the snapshot, the revision and the team in memory.
    pub async fn refused(
        &self,
        token: Option<&str>,
        endpoint: &str,
        body: Value,
        code: &str,
    ) -> Value {
        let before = self.fingerprint().await;
        let (status, answer) = self.call(token, endpoint, body).await;
        assert!(
            (400..500).contains(&status),
            "{endpoint}: status {status} {answer}"
        );
        assert_eq!(answer["ok"], false, "{endpoint}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{endpoint}: {answer}");
        assert!(!answer["error"]["message"].as_str().unwrap().is_empty());
        let after = self.fingerprint().await;
        assert!(before == after, "{endpoint}: a refusal changed the home");
        answer
    }

    /// Makes the bootstrap invite and redeems it: the host owner signs in.
    pub async fn sign_in_owner(&self, name: &str) -> Session {
        let invite = self.ok(None, "auth-invite", json!({})).await;
        let code = invite["invitation"]["code"].as_str().unwrap().to_owned();
        self.redeem(&code, name).await
    }

    /// A signed-in member invites a new member, who redeems the code.
    pub async fn invite_member(&self, inviter: &str, name: &str) -> Session {
        let invite = self
            .ok(Some(inviter), "auth-invite", json!({"name": name}))
            .await;
        let code = invite["invitation"]["code"].as_str().unwrap().to_owned();
        self.redeem(&code, name).await
    }

    pub async fn redeem(&self, code: &str, name: &str) -> Session {
        let answer = self
            .ok(None, "auth-redeem", json!({"code": code, "name": name}))
            .await;
        Session {
            token: answer["session"]["token"].as_str().unwrap().to_owned(),
            session_id: answer["session"]["id"].as_str().unwrap().to_owned(),
            member_id: answer["member"]["id"].as_str().unwrap().to_owned(),
        }
    }

    pub async fn create_bot(&self, token: Option<&str>, name: &str) -> String {
        let answer = self.ok(token, "create-bot", json!({"name": name})).await;
        answer["bot"]["id"].as_str().unwrap().to_owned()
    }
}

pub struct Session {
    pub token: String,
    pub session_id: String,
    pub member_id: String,
}
