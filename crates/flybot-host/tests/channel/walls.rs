//! The host's walls (issue 29), tried as an attacker would: a page reached
//! through DNS rebinding, a write from another site, an anonymous caller
//! after everyone signed out, a session past its time. Each refusal leaves
//! the home as it was.

use axum::body::{Body, to_bytes};
use axum::http::Request;
use flybot_testkit::Kit;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Sends `request` through the host's router; answers (status, headers, body).
async fn send(kit: &Kit, request: Request<Body>) -> (u16, axum::http::HeaderMap, Value) {
    let response = kit.router().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, headers, body)
}

fn post(path: &str, host: &str) -> axum::http::request::Builder {
    Request::post(path)
        .header("host", host)
        .header("content-type", "application/json")
}

/// Every door of the host, as (method, path).
fn every_door() -> Vec<(&'static str, String)> {
    let mut doors: Vec<(&'static str, String)> = flybot_host::endpoint_names()
        .into_iter()
        .map(|name| ("POST", format!("/api/bot/{name}")))
        .collect();
    for path in [
        "/",
        "/assets/app.css",
        "/api/bot/state",
        "/api/bot/live",
        "/web/session",
    ] {
        doors.push(("GET", path.to_owned()));
    }
    for path in [
        "/web/sign-in",
        "/web/sign-out",
        "/connectors/x/events",
        "/api/bot/no-such",
    ] {
        doors.push(("POST", path.to_owned()));
    }
    doors
}

async fn every_door_refuses_a_foreign_host(kit: &Kit, token: Option<&str>) {
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    for (method, path) in every_door() {
        let mut request = Request::builder()
            .method(method)
            .uri(&path)
            .header("host", "attacker.example:7450")
            .header("origin", "http://attacker.example:7450");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let body = Body::from(json!({"token": kit.owner_token(), "name": "x"}).to_string());
        let (status, _, answer) = send(kit, request.body(body).unwrap()).await;
        assert_eq!(status, 421, "{method} {path}: {answer}");
        assert_eq!(
            answer["error"]["details"]["reason"], "unknown-host",
            "{path}"
        );
    }
    assert!(
        before == kit.fingerprint().await,
        "a refused Host changed the home"
    );
}

#[tokio::test]
async fn rebinding_every_door_with_a_foreign_host_is_refused_on_a_fresh_host_29() {
    let kit = Kit::new().await;
    // Even the owner's own token does not pass a Host that is not ours.
    every_door_refuses_a_foreign_host(&kit, None).await;
    every_door_refuses_a_foreign_host(&kit, Some(kit.owner_token())).await;
}

#[tokio::test]
async fn rebinding_every_door_with_a_foreign_host_is_refused_once_signed_in_29() {
    let kit = Kit::new().await;
    let [ada, _bob] = kit.members(["Ada", "Bob"]).await;
    every_door_refuses_a_foreign_host(&kit, Some(&ada.token)).await;
}

#[tokio::test]
async fn loopback_names_are_answered_29() {
    let kit = Kit::new().await;
    for host in ["127.0.0.1:7450", "localhost:7450", "[::1]:7450"] {
        let request = Request::get("/web/session").header("host", host);
        let (status, _, _) = send(&kit, request.body(Body::empty()).unwrap()).await;
        assert_eq!(status, 200, "{host}");
    }
}

#[tokio::test]
async fn a_configured_public_name_is_answered_29() {
    let kit = Kit::with_config(|c| c.edge.public_names = vec!["flybot.lan".into()]).await;
    let request = Request::get("/web/session").header("host", "FlyBot.lan:7450");
    assert_eq!(
        send(&kit, request.body(Body::empty()).unwrap()).await.0,
        200
    );
    let request = Request::get("/web/session").header("host", "other.lan:7450");
    assert_eq!(
        send(&kit, request.body(Body::empty()).unwrap()).await.0,
        421
    );
}

#[tokio::test]
async fn a_cross_site_write_is_refused_with_and_without_a_cookie_29() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let body = json!({"name": "Planted"}).to_string();
    let cookie = format!("flybot_session={}", ada.token);
    let tries: Vec<Vec<(&str, String)>> = vec![
        vec![("origin", "http://attacker.example".into())],
        vec![
            ("origin", "http://attacker.example".into()),
            ("cookie", cookie.clone()),
        ],
        vec![("sec-fetch-site", "cross-site".into())],
        vec![
            ("sec-fetch-site", "cross-site".into()),
            ("cookie", cookie.clone()),
        ],
        vec![
            ("origin", "null".into()),
            ("authorization", format!("Bearer {}", kit.owner_token())),
        ],
    ];
    for headers in tries {
        let mut request = post("/api/bot/create-bot", "127.0.0.1:7450");
        for (name, value) in &headers {
            request = request.header(*name, value);
        }
        let (status, _, answer) = send(&kit, request.body(Body::from(body.clone())).unwrap()).await;
        assert_eq!(status, 403, "{headers:?}: {answer}");
        assert_eq!(answer["error"]["details"]["reason"], "cross-site");
    }
    // The sign-in door is a write too: another site cannot sign a browser in.
    let request =
        post("/web/sign-in", "127.0.0.1:7450").header("origin", "http://attacker.example");
    let sign_in = json!({"token": kit.owner_token()}).to_string();
    let (status, headers, _) = send(&kit, request.body(Body::from(sign_in)).unwrap()).await;
    assert_eq!(status, 403);
    assert!(headers.get("set-cookie").is_none());
    assert!(
        before == kit.fingerprint().await,
        "a cross-site write changed the home"
    );
}

#[tokio::test]
async fn every_answer_carries_the_security_headers_29() {
    let kit = Kit::new().await;
    for path in ["/", "/api/bot/state", "/web/session", "/api/bot/no-such"] {
        let request = Request::get(path).header("host", "127.0.0.1:7450");
        let (_, headers, _) = send(&kit, request.body(Body::empty()).unwrap()).await;
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
    }
}

#[tokio::test]
async fn a_fresh_host_answers_nobody_without_the_owner_token_29() {
    let kit = Kit::new().await;
    kit.state().await;
    let nobody = kit.anonymous();
    let (status, answer) = nobody.state().await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (401, Some("bot/unauthorized"))
    );
    nobody
        .refused("auth-invite", json!({}), "bot/unauthorized")
        .await;
    nobody
        .refused(
            "connector-connect",
            json!({"name": "x", "command": ["sh"]}),
            "bot/unauthorized",
        )
        .await;
    nobody
        .refused("create-bot", json!({"name": "X"}), "bot/unauthorized")
        .await;
    // A guessed token is no better than none.
    kit.with_token(Some("AAAAAAAAAAAAAAAAAAAAAA"))
        .refused("create-bot", json!({"name": "X"}), "bot/unauthorized")
        .await;
}

#[tokio::test]
async fn takeover_after_every_member_signs_out_anonymous_calls_read_and_change_nothing_29() {
    let kit = Kit::new().await;
    let [ada, bob] = kit.members(["Ada", "Bob"]).await;
    let secret_bot = kit
        .as_member(&ada)
        .ok(
            "create-bot",
            json!({"name": "Quill", "instructions": "Ada's private brief."}),
        )
        .await["bot"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.as_member(&bob).ok("auth-revoke", json!({})).await;
    kit.as_member(&ada).ok("auth-revoke", json!({})).await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let nobody = kit.anonymous();
    let (status, view) = nobody.state().await;
    assert_eq!(status, 401);
    assert!(!view.to_string().contains("private brief"));
    for (endpoint, body) in [
        ("auth-invite", json!({})),
        ("auth-whoami", json!({})),
        (
            "update-bot",
            json!({"id": secret_bot, "instructions": "mine now"}),
        ),
        ("memory", json!({"botId": secret_bot})),
        ("connector-connect", json!({"name": "x", "command": ["sh"]})),
    ] {
        let (status, answer) = nobody.post(endpoint, body).await;
        assert_eq!(status, 401, "{endpoint}: {answer}");
    }
    let request = Request::get("/web/session").header("host", "127.0.0.1:7450");
    let (_, _, session) = send(&kit, request.body(Body::empty()).unwrap()).await;
    assert_eq!(session["signedIn"], false);
    assert!(
        before == kit.fingerprint().await,
        "an anonymous caller changed the home"
    );
}

#[tokio::test]
async fn the_page_trades_the_owner_token_for_a_cookie_and_a_wrong_token_gets_nothing_29() {
    let kit = Kit::new().await;
    let wrong = post("/web/sign-in", "127.0.0.1:7450")
        .body(Body::from(
            json!({"token": "AAAAAAAAAAAAAAAAAAAAAA"}).to_string(),
        ))
        .unwrap();
    let (status, headers, answer) = send(&kit, wrong).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (401, Some("bot/unauthorized"))
    );
    assert!(headers.get("set-cookie").is_none());
    let owner = kit.owner("Ada").await;
    let who = kit.as_member(&owner).ok("auth-whoami", json!({})).await;
    assert_eq!(who["member"]["name"], "Ada");
    // The owner token is never taken from a cookie: only a session is.
    let request = Request::get("/api/bot/state")
        .header("host", "127.0.0.1:7450")
        .header("cookie", format!("flybot_session={}", kit.owner_token()));
    assert_eq!(
        send(&kit, request.body(Body::empty()).unwrap()).await.0,
        401
    );
}

#[tokio::test]
async fn an_invitation_never_names_the_owner_29() {
    let kit = Kit::new().await;
    kit.state().await;
    let invite = kit.ok("auth-invite", json!({})).await;
    assert_eq!(invite["invitation"]["memberId"], Value::Null);
    let code = invite["invitation"]["code"].as_str().unwrap();
    let guest = kit.redeem(code, "Guest").await;
    let owner_id = kit.anyone().ok("auth-whoami", json!({})).await["member"]["id"].clone();
    assert_ne!(json!(guest.member_id), owner_id);
    // The guest is a member of her own: the owner's Chief is not hers.
    let view = kit.as_member(&guest).state().await.1;
    assert_eq!(view["bots"].as_array().map(Vec::len), Some(0), "{view}");
}

#[tokio::test]
async fn open_mode_admits_nobody_as_the_owner_only_while_she_is_alone_29() {
    let kit = Kit::with_config(|c| c.edge.open_mode = true).await;
    let nobody = kit.anonymous();
    nobody.ok("create-bot", json!({"name": "Script"})).await;
    let invite = kit.ok("auth-invite", json!({"name": "Bob"})).await;
    kit.redeem(invite["invitation"]["code"].as_str().unwrap(), "Bob")
        .await;
    nobody
        .refused("create-bot", json!({"name": "X"}), "bot/unauthorized")
        .await;
    assert_eq!(nobody.state().await.0, 401);
}

#[tokio::test]
async fn sessions_are_listed_to_their_member_only_and_revoked_from_settings_29() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada_again = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let listed = kit.as_member(&ada).ok("auth-sessions", json!({})).await;
    let ids: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&ada.session_id.as_str()) && ids.contains(&ada_again.session_id.as_str()));
    assert!(!listed.to_string().contains(&bob.session_id));
    assert!(
        !listed.to_string().contains(&ada.token),
        "a token in the list"
    );
    // Bob cannot sign Ada out, and is not told her session exists.
    kit.as_member(&bob)
        .refused(
            "auth-revoke",
            json!({"sessionId": ada.session_id}),
            "bot/not-found",
        )
        .await;
    kit.as_member(&ada)
        .ok("auth-revoke", json!({"sessionId": ada_again.session_id}))
        .await;
    kit.as_member(&ada_again)
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
    kit.as_member(&ada).ok("auth-whoami", json!({})).await;
}

#[tokio::test(start_paused = true)]
async fn a_session_expires_when_idle_and_at_its_age_however_used_29() {
    let kit = Kit::on_tokio_clock().await;
    let ada = kit.owner("Ada").await;
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    // A change's time is strictly later than every earlier change's, so on
    // a clock that stands still a session's stamps run a few milliseconds
    // ahead of it: each limit is crossed by a minute, not met to the
    // millisecond.
    let minute = std::time::Duration::from_secs(60);
    // Used every six days, it outlives the seven-day idle limit...
    for _ in 0..4 {
        tokio::time::advance(6 * day).await;
        kit.as_member(&ada).ok("auth-whoami", json!({})).await;
    }
    // ...but not its thirtieth day, six days after its last use.
    tokio::time::advance(6 * day + minute).await;
    let answer = kit
        .as_member(&ada)
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    // A session left alone for seven days expires too.
    let fresh = kit.owner("Ada").await;
    tokio::time::advance(7 * day + minute).await;
    kit.as_member(&fresh)
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
    // The owner's token does not expire: she signs in again with her link.
    kit.ok("auth-whoami", json!({})).await;
}

#[tokio::test]
async fn a_home_the_disk_stopped_writing_answers_503_unavailable_and_input_never_does_29() {
    use flybot_store::faults::DiskFault;
    let home = tempfile::tempdir().unwrap();
    let options = flybot_store::StoreOptions::default();
    let faults = options.faults.clone();
    let store = flybot_store::Store::open(home.path(), options).unwrap();
    let config = flybot_host::HostConfig::new(home.path().to_owned());
    let kit = Kit::around(flybot_host::Host::open(store, config).await, home);
    kit.state().await;
    faults.arm(DiskFault::RefuseWrite);
    let (status, answer) = kit.post("create-bot", json!({"name": "Lost"})).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (503, Some("bot/unavailable")),
        "{answer}"
    );
    // The home only reads now, and says so as a fault of the host.
    let (status, answer) = kit.post("create-bot", json!({"name": "Again"})).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (503, Some("bot/unavailable"))
    );
    let (status, view) = kit.state().await;
    assert_eq!(status, 200);
    assert!(!view.to_string().contains("Lost"));
}
