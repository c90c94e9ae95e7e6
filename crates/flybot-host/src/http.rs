//! The HTTP edge: the router behind the edge's guards (`crate::edge`), the
//! caller, and the answer envelope `{ok: true, ...}` / `{ok: false, error:
//! {code, message, details}}`. Every refusal is a 4xx with the spec's code;
//! the one 5xx is `bot/unavailable`, a fault of the host, logged once here.

use crate::actor::{Admission, Caller, resolve, touch_due};
pub use crate::edge::BODY_LIMIT;
use crate::endpoints;
use crate::host::Host;
use crate::web::guard::Credential;
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::ReadOnlyReason;
use serde_json::{Value, json};
use std::future::Future;
use tokio::net::TcpListener;

/// The channel's router; tests drive it with `oneshot`, `serve` binds it.
pub fn app(host: Host) -> Router {
    let routes = Router::new()
        .route("/api/bot/state", get(state))
        .route("/api/bot/live", get(crate::live::live))
        .merge(endpoints::routes())
        .route(crate::channels::EVENTS_ROUTE, post(channel_event))
        .merge(crate::web::routes())
        .fallback(unknown_path);
    let upload_limit = host.config().attachments.upload_body_limit();
    crate::edge::guard(routes, &host.config().edge, upload_limit).with_state(host)
}

/// How long open connections (a page's live stream) may keep a stopping
/// host waiting before they are closed (issue 40).
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Serves `app(host)` on `listener` until `shutdown` resolves, then stops the
/// host cleanly (snapshot written, lock released). Connections still open
/// `STOP_GRACE` after the signal are closed, so a stop is bounded.
pub async fn serve(
    host: Host,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stopping = host.clone();
    let signalled = std::sync::Arc::new(tokio::sync::Notify::new());
    let notify = signalled.clone();
    let server = axum::serve(listener, app(host.clone())).with_graceful_shutdown(async move {
        shutdown.await;
        stopping.begin_stop();
        notify.notify_one();
    });
    let grace = async move {
        signalled.notified().await;
        tokio::time::sleep(STOP_GRACE).await;
    };
    tokio::select! {
        served = server => served?,
        () = grace => tracing::info!("connections still open {STOP_GRACE:?} after the stop signal were closed"),
    }
    host.shut_down().await.map_err(std::io::Error::other)
}

/// An answer: `{ok: true, ...fields}` or the refusal envelope.
pub struct Answer(pub Result<Value, ApiError>);

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        match self.0 {
            Ok(Value::Object(fields)) => {
                let mut answer = serde_json::Map::with_capacity(fields.len() + 1);
                answer.insert("ok".into(), Value::Bool(true));
                answer.extend(fields);
                axum::Json(Value::Object(answer)).into_response()
            }
            Ok(other) => axum::Json(json!({"ok": true, "value": other})).into_response(),
            Err(error) => {
                let status = StatusCode::from_u16(error.code.http_status())
                    .unwrap_or(StatusCode::BAD_REQUEST);
                if status.is_server_error() {
                    tracing::error!("answered {status}: {}", error.message);
                }
                (status, axum::Json(json!({"ok": false, "error": error}))).into_response()
            }
        }
    }
}

/// Reads the request's credential (bearer, session header, else the
/// page's cookie) into a caller.
pub fn caller_of(host: &Host, headers: &HeaderMap) -> Caller {
    let credential = Credential::of(headers);
    let admission = Admission {
        owner_token_hash: host.owner_token_hash(),
        edge: &host.config().edge,
        now_ms: host.store().clock_ms(),
    };
    host.store()
        .read(|state| resolve(state, &credential, &admission))
}

/// `caller_of`, and a session's use recorded when its `lastSeenAt` is
/// due (issue 29: an idle session expires). The record is best effort: a
/// home that cannot write still answers the call.
pub async fn admit(host: &Host, headers: &HeaderMap) -> Caller {
    let caller = caller_of(host, headers);
    if let Caller::Actor(flybot_core::access::Actor::Member { session_id, .. }) = &caller {
        let (edge, now) = (&host.config().edge, host.store().clock_ms());
        let due = host.store().read(|state| {
            state
                .auth_sessions
                .get(session_id)
                .filter(|s| touch_due(s, edge, now))
                .cloned()
        });
        if let Some(session) = due {
            let member_id = session.member_id.clone();
            let touched = host
                .team()
                .mutate(&member_id, |change| {
                    let seen = flybot_protocol::state::AuthSession {
                        last_seen_at: Some(now),
                        ..session
                    };
                    change.put_auth_session(&seen);
                    Ok(())
                })
                .await;
            if let Err(e) = touched {
                tracing::warn!("a session's use could not be recorded: {}", e.message);
            }
        }
    }
    caller
}

/// `GET /api/bot/state`: the view's bytes as written, envelope included
/// (`view::state_view_bytes`); a refusal is the usual envelope.
async fn state(State(host): State<Host>, headers: HeaderMap) -> Response {
    let caller = admit(&host, &headers).await;
    let actor = match caller.require() {
        Ok(actor) => actor,
        Err(refusal) => return Answer(Err(refusal)).into_response(),
    };
    let bytes = crate::view::state_view_bytes(
        host.team(),
        host.sessions(),
        host.rooms(),
        host.config(),
        actor,
        host.shared_surfaces(),
    )
    .await;
    match bytes {
        Ok(bytes) => (
            [(
                axum::http::header::CONTENT_TYPE,
                axum::http::HeaderValue::from_static("application/json"),
            )],
            bytes,
        )
            .into_response(),
        Err(refusal) => Answer(Err(refusal)).into_response(),
    }
}

/// A channel's event callback (#1266): Feishu's server posts it, with no
/// member session; the channel checks the event's own verification token.
/// The check's answer is the bare `{challenge}` Feishu asks for.
async fn channel_event(State(host): State<Host>, Path(id): Path<String>, body: Body) -> Response {
    let Ok(bytes) = to_bytes(body, BODY_LIMIT).await else {
        return Answer(Err(ApiError::new(
            ErrorCode::TooLarge,
            "The event body is over 1 MiB.",
        )))
        .into_response();
    };
    match host.channels().inbound(&id, &bytes).await {
        Ok(answer) if answer.get("challenge").is_some() => axum::Json(answer).into_response(),
        other => Answer(other).into_response(),
    }
}

async fn unknown_path() -> Answer {
    Answer(Err(ApiError::new(
        ErrorCode::UnknownEndpoint,
        "There is nothing here; the page is at /, and the channel is POST /api/bot/<endpoint>, GET /api/bot/state and GET /api/bot/live.",
    )))
}

/// The sentence a read-only host shows, in the view and on a refused write.
pub fn read_only_sentence(reason: &ReadOnlyReason) -> String {
    match reason {
        ReadOnlyReason::OtherWriter { pid, host } => {
            format!(
                "Another FlyBot (pid {pid} on {host}) is saving this team; this one only reads."
            )
        }
        ReadOnlyReason::Damaged { why } => {
            format!("This home cannot be written and only reads now: {why}")
        }
        ReadOnlyReason::Standby { holder } => {
            format!("This FlyBot is a standby: {holder} saves this team; this one only reads.")
        }
    }
}
