//! The page's sign-in (#48): `POST /web/sign-in {code, name}` redeems an
//! invitation and keeps the new session in the HttpOnly cookie (the token
//! never reaches the page's scripts); `GET /web/session` tells the page who
//! it is and hands it the CSRF token its writes carry; `POST /web/sign-out`
//! revokes the cookie's session and clears the cookie.

use super::guard::{Credential, check_write, csrf_of, session_cookie};
use crate::actor::Caller;
use crate::endpoints;
use crate::host::Host;
use crate::http::{Answer, BODY_LIMIT, caller_of};
use axum::body::{Body, to_bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use flybot_core::access::{Actor, enforced};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::{Value, json};

/// `GET /web/session` → `{signedIn, needsSignIn, singleOwner, member, csrf}`.
pub async fn session(State(host): State<Host>, headers: HeaderMap) -> Answer {
    let credential = Credential::of(&headers);
    let caller = caller_of(&host, &headers);
    let needs_sign_in = host.store().read(enforced);
    Answer(Ok(match &caller {
        Caller::Actor(actor) => {
            let member = host.store().read(|state| {
                actor
                    .member_id(state)
                    .and_then(|id| state.members.get(&id))
                    .map(|m| json!({"id": m.id, "name": m.name}))
            });
            json!({
                "signedIn": true,
                "needsSignIn": needs_sign_in,
                "singleOwner": matches!(actor, Actor::SingleOwner),
                "member": member,
                "csrf": credential.token().map(csrf_of),
            })
        }
        Caller::Anonymous | Caller::BadToken => json!({
            "signedIn": false,
            "needsSignIn": true,
            "singleOwner": false,
            "member": null,
            "csrf": null,
        }),
    }))
}

/// `POST /web/sign-in {code, name}` → `{member, csrf}` and the cookie.
pub async fn sign_in(State(host): State<Host>, headers: HeaderMap, body: Body) -> Response {
    if let Err(refusal) = check_write(&headers, &Credential::None) {
        return Answer(Err(refusal)).into_response();
    }
    let bytes = match to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => return Answer(Err(too_large())).into_response(),
    };
    let redeemed = endpoints::call(&host, &Caller::Anonymous, "auth-redeem", &bytes).await;
    let (token, member) = match redeemed {
        Ok(answer) => match token_of(&answer) {
            Some(token) => (token, answer.get("member").cloned().unwrap_or(Value::Null)),
            None => return Answer(Err(no_token())).into_response(),
        },
        Err(refusal) => return Answer(Err(refusal)).into_response(),
    };
    let answer = json!({"member": member, "csrf": csrf_of(&token)});
    with_cookie(Answer(Ok(answer)).into_response(), Some(&token))
}

/// `POST /web/sign-out` → `{signedOut}`: the session is revoked and the
/// cookie cleared.
pub async fn sign_out(State(host): State<Host>, headers: HeaderMap) -> Response {
    let credential = Credential::of(&headers);
    if let Err(refusal) = check_write(&headers, &credential) {
        return Answer(Err(refusal)).into_response();
    }
    let caller = caller_of(&host, &headers);
    if let Caller::Actor(Actor::Member { .. }) = caller
        && let Err(refusal) = endpoints::call(&host, &caller, "auth-revoke", b"{}").await
    {
        return Answer(Err(refusal)).into_response();
    }
    with_cookie(Answer(Ok(json!({"signedOut": true}))).into_response(), None)
}

fn token_of(answer: &Value) -> Option<String> {
    answer
        .pointer("/session/token")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn with_cookie(mut response: Response, token: Option<&str>) -> Response {
    if let Ok(value) = HeaderValue::from_str(&session_cookie(token)) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

fn too_large() -> ApiError {
    ApiError::new(
        ErrorCode::TooLarge,
        "The request body is over 1 MiB; send less at a time.",
    )
    .with("limit", BODY_LIMIT)
}

fn no_token() -> ApiError {
    ApiError::new(
        ErrorCode::Stale,
        "The sign-in made no session; try the invitation again.",
    )
}
