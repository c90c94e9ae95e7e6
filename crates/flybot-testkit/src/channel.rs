//! The channel as a member uses it: `POST /api/bot/<endpoint>` and `GET
//! /api/bot/state` through the host's router with `oneshot`, with or without
//! a member's session token, and the refusal check every refusal test makes
//! (the code, and a home that did not move).

use crate::Kit;
use axum::body::{Body, to_bytes};
use axum::http::Request;
use serde_json::{Value, json};
use tower::ServiceExt;

/// A signed-in member: its session token and ids.
#[derive(Debug, Clone)]
pub struct Member {
    pub token: String,
    pub session_id: String,
    pub member_id: String,
}

/// Someone calling the channel: the owner with her token, a member's
/// session token, a raw token, or nobody at all.
#[derive(Clone, Copy)]
pub struct Caller<'k> {
    kit: &'k Kit,
    token: Option<&'k str>,
}

/// What `fingerprint` compares: the journal's and the snapshot's bytes, the
/// revision and the team in memory.
type Fingerprint = (Vec<u8>, Vec<u8>, u64, String);

impl Kit {
    /// Calls as the home's owner, with the owner token `flybot serve`
    /// prints (issue 29): the home's one person, or, once it has other
    /// members, the owner scoped to her own things.
    pub fn anyone(&self) -> Caller<'_> {
        self.with_token(Some(&self.owner_token))
    }

    /// Calls with no credential at all.
    pub fn anonymous(&self) -> Caller<'_> {
        self.with_token(None)
    }

    /// Calls as `member`.
    pub fn as_member<'k>(&'k self, member: &'k Member) -> Caller<'k> {
        self.with_token(Some(&member.token))
    }

    /// Calls with `token` as the session header, whatever it is, or with
    /// none.
    pub fn with_token<'k>(&'k self, token: Option<&'k str>) -> Caller<'k> {
        Caller { kit: self, token }
    }

    /// `anyone().ok(..)`: calls and expects success; answers the body.
    pub async fn ok(&self, endpoint: &str, body: Value) -> Value {
        self.anyone().ok(endpoint, body).await
    }

    /// `anyone().post(..)`: answers (status, body).
    pub async fn post(&self, endpoint: &str, body: Value) -> (u16, Value) {
        self.anyone().post(endpoint, body).await
    }

    /// `anyone().post_bytes(..)`.
    pub async fn post_bytes(&self, endpoint: &str, body: Vec<u8>) -> (u16, Value) {
        self.anyone().post_bytes(endpoint, body).await
    }

    /// `anyone().refused(..)`.
    pub async fn refused(&self, endpoint: &str, body: Value, code: &str) -> Value {
        self.anyone().refused(endpoint, body, code).await
    }

    /// `anyone().state()`.
    pub async fn state(&self) -> (u16, Value) {
        self.anyone().state().await
    }

    /// The owner signs in as the page does, trading her token for a
    /// session of her own, and goes by `name`.
    pub async fn owner(&self, name: &str) -> Member {
        let body = json!({"token": self.owner_token(), "name": name});
        let request = Request::post("/web/sign-in")
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let response = self.router().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200, "the owner's sign-in was refused");
        let cookie = response.headers()["set-cookie"].to_str().unwrap();
        let token = cookie
            .strip_prefix("flybot_session=")
            .and_then(|rest| rest.split(';').next())
            .unwrap()
            .to_owned();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        let me = self
            .with_token(Some(&token))
            .ok("auth-whoami", json!({}))
            .await;
        Member {
            token: token.clone(),
            session_id: me["session"]["id"].as_str().unwrap().to_owned(),
            member_id: answer["member"]["id"].as_str().unwrap().to_owned(),
        }
    }

    /// The first name signs in as the host owner and invites the others,
    /// who sign in too.
    pub async fn members<const N: usize>(&self, names: [&str; N]) -> [Member; N] {
        let owner = self.owner(names[0]).await;
        let mut members = vec![owner.clone()];
        for name in &names[1..] {
            members.push(self.as_member(&owner).invite(name).await);
        }
        members.try_into().unwrap()
    }

    /// Redeems an invitation code as `name`.
    pub async fn redeem(&self, code: &str, name: &str) -> Member {
        let answer = self
            .ok("auth-redeem", json!({"code": code, "name": name}))
            .await;
        let text = |v: &Value| v.as_str().unwrap().to_owned();
        Member {
            token: text(&answer["session"]["token"]),
            session_id: text(&answer["session"]["id"]),
            member_id: text(&answer["member"]["id"]),
        }
    }

    /// The bytes of the journal and the snapshot, the revision and the team,
    /// once every accepted change is on disk.
    pub async fn fingerprint(&self) -> Fingerprint {
        let store = self.host.store();
        store.saves_settled().await;
        let read = |name: &str| std::fs::read(self.home().join(name)).unwrap_or_default();
        let team = store.read(|state| serde_json::to_string(state).unwrap());
        (
            read("journal.jsonl"),
            read("state.json"),
            store.revision(),
            team,
        )
    }
}

impl<'k> Caller<'k> {
    /// POSTs raw bytes to an endpoint; answers (status, body).
    pub async fn post_bytes(&self, endpoint: &str, body: Vec<u8>) -> (u16, Value) {
        let request = self.request(Request::post(format!("/api/bot/{endpoint}")));
        self.send(request.body(Body::from(body)).unwrap()).await
    }

    /// POSTs `body` to an endpoint; answers (status, body).
    pub async fn post(&self, endpoint: &str, body: Value) -> (u16, Value) {
        self.post_bytes(endpoint, serde_json::to_vec(&body).unwrap())
            .await
    }

    /// Calls and expects success; answers the body.
    pub async fn ok(&self, endpoint: &str, body: Value) -> Value {
        let (status, answer) = self.post(endpoint, body).await;
        assert_eq!(status, 200, "{endpoint}: {answer}");
        assert_eq!(answer["ok"], true);
        answer
    }

    /// Calls, expects the refusal `code`, and checks that nothing changed:
    /// the journal, the snapshot, the revision and the team in memory.
    pub async fn refused(&self, endpoint: &str, body: Value, code: &str) -> Value {
        // The snapshot due for earlier changes is written first: the store's
        // housekeeping would otherwise rewrite it (and trim the journal) in
        // the middle of the check, a move that is not the refusal's.
        self.kit.host.store().snapshot_now().await.unwrap();
        let before = self.kit.fingerprint().await;
        let (status, answer) = self.post(endpoint, body).await;
        assert!(
            (400..500).contains(&status),
            "{endpoint}: status {status} {answer}"
        );
        assert_eq!(answer["ok"], false, "{endpoint}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{endpoint}: {answer}");
        assert!(!answer["error"]["message"].as_str().unwrap().is_empty());
        let after = self.kit.fingerprint().await;
        assert!(before == after, "{endpoint}: a refusal changed the home");
        answer
    }

    /// GETs `path`; answers (status, headers, bytes) as they came.
    pub async fn get_raw(&self, path: &str) -> (u16, axum::http::HeaderMap, Vec<u8>) {
        let request = self
            .request(Request::get(path))
            .body(Body::empty())
            .unwrap();
        let response = self.kit.router().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, headers, bytes.to_vec())
    }

    /// The state view; answers (status, body).
    pub async fn state(&self) -> (u16, Value) {
        let request = self.request(Request::get("/api/bot/state"));
        self.send(request.body(Body::empty()).unwrap()).await
    }

    /// Invites `name`, who redeems the code at once.
    pub async fn invite(&self, name: &str) -> Member {
        let invite = self.ok("auth-invite", json!({"name": name})).await;
        let code = invite["invitation"]["code"].as_str().unwrap();
        self.kit.redeem(code, name).await
    }

    fn request(&self, request: axum::http::request::Builder) -> axum::http::request::Builder {
        match self.token {
            Some(token) => request.header("authorization", format!("Bearer {token}")),
            None => request,
        }
    }

    async fn send(&self, request: Request<Body>) -> (u16, Value) {
        let response = self.kit.router().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    /// The kit this caller calls.
    pub fn kit(&self) -> &'k Kit {
        self.kit
    }

    /// The session token this caller sends, if any.
    pub fn token(&self) -> Option<&'k str> {
        self.token
    }
}
