//! The page's sign-in (#48, issue 29): `POST /web/sign-in` trades the
//! owner's token from her sign-in link, or an invitation's code, for a
//! session kept in the HttpOnly cookie (the session's token never reaches
//! the page's scripts); `GET /web/session` tells the page who it is and
//! hands it the CSRF token its writes carry; `POST /web/sign-out` revokes
//! the cookie's session and clears the cookie.

use super::guard::{Credential, check_write, csrf_of, session_cookie};
use crate::actor::Caller;
use crate::endpoints::access::sign_in::{owner_session, redeem};
use crate::endpoints::body::parse;
use crate::host::Host;
use crate::http::{Answer, BODY_LIMIT, admit, caller_of};
use crate::ids::secret_hash;
use axum::body::{Body, to_bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use flybot_core::access::{Actor, enforced};
use flybot_protocol::channel::{AuthRedeem, WebSignIn};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::json;

/// `GET /web/session` → `{signedIn, needsSignIn, singleOwner, openMode,
/// member, csrf}`.
pub async fn session(State(host): State<Host>, headers: HeaderMap) -> Answer {
    let credential = Credential::of(&headers);
    let caller = admit(&host, &headers).await;
    let open_mode = host.config().edge.open_mode;
    let needs_sign_in = !open_mode || host.store().read(enforced);
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
                "openMode": open_mode,
                "member": member,
                "csrf": credential.token().map(csrf_of),
            })
        }
        Caller::Anonymous | Caller::BadToken | Caller::Expired => json!({
            "signedIn": false,
            "needsSignIn": true,
            "singleOwner": false,
            "openMode": open_mode,
            "member": null,
            "csrf": null,
        }),
    }))
}

/// `POST /web/sign-in {token, name?}` or `{code, name}` → `{member, csrf}`
/// and the cookie.
pub async fn sign_in(State(host): State<Host>, body: Body) -> Response {
    let bytes = match to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => return Answer(Err(crate::edge::too_large())).into_response(),
    };
    let request: WebSignIn = match parse(&bytes) {
        Ok(request) => request,
        Err(refusal) => return Answer(Err(refusal)).into_response(),
    };
    let redeemed = match (request.token, request.code) {
        (Some(token), None) => match owner_token_matches(&host, &token) {
            true => owner_session(host.team(), request.name.as_deref()).await,
            false => Err(ApiError::new(
                ErrorCode::Unauthorized,
                "This sign-in link is not this host's; run `flybot token` on the host's machine for the right one.",
            )),
        },
        (None, Some(code)) => {
            let name = request.name.unwrap_or_default();
            redeem(host.team(), AuthRedeem { code, name }).await
        }
        _ => Err(ApiError::invalid(
            "token",
            "Send the owner's token from the sign-in link, or an invitation's code and your name.",
        )),
    };
    match redeemed {
        Ok(redeemed) => {
            let token = redeemed.session.token;
            let answer = json!({"member": redeemed.member, "csrf": csrf_of(&token)});
            with_cookie(Answer(Ok(answer)).into_response(), Some(&token))
        }
        Err(refusal) => Answer(Err(refusal)).into_response(),
    }
}

fn owner_token_matches(host: &Host, token: &str) -> bool {
    host.owner_token_hash() == Some(secret_hash(token.trim()).as_str())
}

/// `POST /web/sign-out` → `{signedOut}`: the session is revoked and the
/// cookie cleared.
pub async fn sign_out(State(host): State<Host>, headers: HeaderMap) -> Response {
    let credential = Credential::of(&headers);
    if let Err(refusal) = check_write(&headers, &credential) {
        return Answer(Err(refusal)).into_response();
    }
    if let Caller::Actor(Actor::Member { session_id, .. }) = caller_of(&host, &headers)
        && session_id != crate::actor::OWNER_TOKEN_SESSION
    {
        let revoked = host
            .team()
            .mutate("sign-out", |change| {
                change.remove_auth_session(&session_id);
                Ok(())
            })
            .await;
        if let Err(refusal) = revoked {
            return Answer(Err(refusal)).into_response();
        }
    }
    with_cookie(Answer(Ok(json!({"signedOut": true}))).into_response(), None)
}

fn with_cookie(mut response: Response, token: Option<&str>) -> Response {
    if let Ok(value) = HeaderValue::from_str(&session_cookie(token)) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}
