//! The page's edge (issue 12): the page's files served from the binary,
//! the page's sign-in keeping the session in an HttpOnly cookie, and the
//! guards on a write: the CSRF token for a cookie, no write from another
//! site's page. A refused write leaves the home as it was.

use axum::body::{Body, to_bytes};
use axum::http::{Request, Response, header};
use flybot_testkit::Kit;
use serde_json::{Value, json};
use tower::ServiceExt;

async fn send(kit: &Kit, request: Request<Body>) -> Response<Body> {
    kit.router().oneshot(request).await.unwrap()
}

async fn json_of(response: Response<Body>) -> (u16, Value) {
    let status = response.status().as_u16();
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn header_of(response: &Response<Body>, name: header::HeaderName) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// Signs in on the page with a fresh invitation; answers (cookie, csrf).
async fn page_sign_in(kit: &Kit, code: &str, name: &str) -> (String, String) {
    let request = Request::post("/web/sign-in")
        .header("origin", "http://127.0.0.1:7450")
        .header("host", "127.0.0.1:7450")
        .body(Body::from(json!({"code": code, "name": name}).to_string()))
        .unwrap();
    let response = send(kit, request).await;
    let cookie = header_of(&response, header::SET_COOKIE);
    let (status, answer) = json_of(response).await;
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer.get("session").is_none(),
        "the token stays off the page: {answer}"
    );
    let pair = cookie.split(';').next().unwrap().to_owned();
    (pair, answer["csrf"].as_str().unwrap().to_owned())
}

fn create_bot(cookie: &str, csrf: Option<&str>, origin: Option<&str>) -> Request<Body> {
    let mut request = Request::post("/api/bot/create-bot").header("cookie", cookie);
    if let Some(csrf) = csrf {
        request = request.header("x-flybot-csrf", csrf);
    }
    if let Some(origin) = origin {
        request = request
            .header("origin", origin)
            .header("host", "127.0.0.1:7450");
    }
    request
        .body(Body::from(json!({"name": "Ada"}).to_string()))
        .unwrap()
}

#[tokio::test]
async fn a_fresh_host_serves_its_page_at_the_root() {
    let kit = Kit::new().await;
    let response = send(&kit, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(response.status(), 200);
    assert!(header_of(&response, header::CONTENT_TYPE).starts_with("text/html"));
    assert!(header_of(&response, header::CONTENT_SECURITY_POLICY).contains("default-src 'self'"));
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let html = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(html.contains(r#"src="/assets/js/main.js""#), "{html}");
}

#[tokio::test]
/// Rule #304.
async fn a_script_is_served_with_its_type_and_a_matching_etag_gets() {
    let kit = Kit::new().await;
    let get = || Request::get("/assets/js/api.js");
    let response = send(&kit, get().body(Body::empty()).unwrap()).await;
    assert_eq!(response.status(), 200);
    assert!(header_of(&response, header::CONTENT_TYPE).starts_with("text/javascript"));
    let etag = header_of(&response, header::ETAG);
    assert!(!etag.is_empty());
    let again = get()
        .header("if-none-match", &etag)
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&kit, again).await.status(), 304);
    let missing = Request::get("/assets/js/none.js")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&kit, missing).await.status(), 404);
}

/// Issue 31: a browser that takes brotli (Chromium does, on loopback too)
/// gets a script in brotli, one that takes only gzip gets it gzipped (the
/// same bytes once decoded), each under its own ETag; one that takes
/// neither gets it as it is.
#[tokio::test]
async fn a_script_goes_brotli_or_gzipped_to_a_browser_that_takes_it_and_as_it_is_otherwise_31() {
    use std::io::Read;
    let kit = Kit::new().await;
    let get = |coding: Option<&str>| {
        let mut request = Request::get("/assets/js/main.js");
        if let Some(coding) = coding {
            request = request.header("accept-encoding", coding);
        }
        request.body(Body::empty()).unwrap()
    };
    let plain = send(&kit, get(None)).await;
    assert_eq!(header_of(&plain, header::CONTENT_ENCODING), "");
    assert_eq!(header_of(&plain, header::VARY), "accept-encoding");
    let plain_etag = header_of(&plain, header::ETAG);
    let plain = to_bytes(plain.into_body(), usize::MAX).await.unwrap();
    let brotli = send(&kit, get(Some("gzip, deflate, br, zstd"))).await;
    assert_eq!(header_of(&brotli, header::CONTENT_ENCODING), "br");
    assert_eq!(header_of(&brotli, header::VARY), "accept-encoding");
    let brotli_etag = header_of(&brotli, header::ETAG);
    assert_ne!(brotli_etag, plain_etag);
    let brotli = to_bytes(brotli.into_body(), usize::MAX).await.unwrap();
    let mut decoded = Vec::new();
    brotli::BrotliDecompress(&mut &brotli[..], &mut decoded).unwrap();
    assert_eq!(decoded, plain.to_vec());
    let zipped = send(&kit, get(Some("gzip, deflate"))).await;
    assert_eq!(header_of(&zipped, header::CONTENT_ENCODING), "gzip");
    assert!(header_of(&zipped, header::CONTENT_TYPE).starts_with("text/javascript"));
    let zipped_etag = header_of(&zipped, header::ETAG);
    assert_ne!(zipped_etag, plain_etag);
    assert_ne!(zipped_etag, brotli_etag);
    let zipped = to_bytes(zipped.into_body(), usize::MAX).await.unwrap();
    assert!(brotli.len() < zipped.len() && zipped.len() < plain.len());
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_end(&mut inflated)
        .unwrap();
    assert_eq!(inflated, plain.to_vec());
    let again = Request::get("/assets/js/main.js")
        .header("accept-encoding", "gzip")
        .header("if-none-match", &zipped_etag)
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&kit, again).await.status(), 304);
    let refused = send(&kit, get(Some("br;q=0, gzip;q=0, identity"))).await;
    assert_eq!(header_of(&refused, header::CONTENT_ENCODING), "");
}

#[tokio::test]
/// Rule #48.
async fn the_page_signs_in_with_an_httponly_strict_cookie() {
    let kit = Kit::new().await;
    let invite = kit.ok("auth-invite", json!({})).await;
    let code = invite["invitation"]["code"].as_str().unwrap();
    let request = Request::post("/web/sign-in")
        .body(Body::from(
            json!({"code": code, "name": "Olga"}).to_string(),
        ))
        .unwrap();
    let response = send(&kit, request).await;
    let cookie = header_of(&response, header::SET_COOKIE);
    assert!(cookie.starts_with("flybot_session="), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let state = Request::get("/api/bot/state").header("cookie", pair);
    let (status, view) = json_of(send(&kit, state.body(Body::empty()).unwrap()).await).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["actor"]["singleOwner"], false);
    // Without the cookie, the host that now has a member asks to sign in.
    let bare = Request::get("/web/session").body(Body::empty()).unwrap();
    let (_, session) = json_of(send(&kit, bare).await).await;
    assert_eq!(session["signedIn"], false);
}

#[tokio::test]
async fn a_cookie_write_without_the_csrf_token_is_refused_and_changes_nothing() {
    let kit = Kit::new().await;
    let invite = kit.ok("auth-invite", json!({})).await;
    let (cookie, csrf) =
        page_sign_in(&kit, invite["invitation"]["code"].as_str().unwrap(), "Olga").await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let (status, refused) = json_of(send(&kit, create_bot(&cookie, None, None)).await).await;
    assert_eq!(status, 403);
    assert_eq!(refused["error"]["code"], "bot/forbidden");
    assert_eq!(refused["error"]["details"]["reason"], "csrf");
    let wrong = create_bot(&cookie, Some("0123"), None);
    assert_eq!(send(&kit, wrong).await.status(), 403);
    assert!(
        before == kit.fingerprint().await,
        "a refused write changed the home"
    );
    let (status, made) = json_of(send(&kit, create_bot(&cookie, Some(&csrf), None)).await).await;
    assert_eq!(status, 200, "{made}");
    assert_eq!(made["bot"]["name"], "Ada");
}

#[tokio::test]
async fn a_write_from_another_sites_page_is_refused_even_on_a_single_owner_host() {
    let kit = Kit::new().await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let request = Request::post("/api/bot/create-bot")
        .header("origin", "http://evil.example")
        .header("host", "127.0.0.1:7450")
        .body(Body::from(json!({"name": "Mallory"}).to_string()))
        .unwrap();
    let (status, refused) = json_of(send(&kit, request).await).await;
    assert_eq!(status, 403);
    assert_eq!(refused["error"]["details"]["reason"], "cross-site");
    assert!(
        before == kit.fingerprint().await,
        "a refused write changed the home"
    );
}

#[tokio::test]
async fn signing_out_revokes_the_session_and_clears_the_cookie() {
    let kit = Kit::new().await;
    let invite = kit.ok("auth-invite", json!({})).await;
    let (cookie, csrf) =
        page_sign_in(&kit, invite["invitation"]["code"].as_str().unwrap(), "Olga").await;
    let out = Request::post("/web/sign-out")
        .header("cookie", &cookie)
        .header("x-flybot-csrf", &csrf)
        .body(Body::empty())
        .unwrap();
    let response = send(&kit, out).await;
    assert!(header_of(&response, header::SET_COOKIE).contains("Max-Age=0"));
    assert_eq!(response.status(), 200);
    let state = Request::get("/api/bot/state").header("cookie", &cookie);
    let (status, view) = json_of(send(&kit, state.body(Body::empty()).unwrap()).await).await;
    assert_eq!(status, 401, "{view}");
}

#[tokio::test]
async fn the_state_view_names_the_configured_models_for_the_pages_picker() {
    let kit = Kit::new().await;
    let (_, view) = kit.state().await;
    assert_eq!(view["model"]["names"], json!(["mock"]));
    assert_eq!(view["model"]["default"], "mock");
}
