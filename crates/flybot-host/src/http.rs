//! The HTTP edge: the router, body limits, the actor header, and the answer
//! envelope `{ok: true, ...}` / `{ok: false, error: {code, message, details}}`.
//! Every refusal is a 4xx with the spec's code; nothing here panics on input.

use crate::actor::{Caller, resolve};
use crate::endpoints;
use crate::host::Host;
use crate::web::guard::{Credential, check_write};
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

/// The largest request body: 1 MiB.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// The channel's router; tests drive it with `oneshot`, `serve` binds it.
pub fn app(host: Host) -> Router {
    Router::new()
        .route("/api/bot/state", get(state))
        .route("/api/bot/live", get(crate::live::live))
        .route("/api/bot/{endpoint}", post(endpoint))
        .route(crate::channels::EVENTS_ROUTE, post(channel_event))
        .merge(crate::web::routes())
        .fallback(unknown_path)
        .with_state(host)
}

/// Serves `app(host)` on `listener` until `shutdown` resolves, then stops the
/// host cleanly (snapshot written, lock released).
pub async fn serve(
    host: Host,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stopping = host.clone();
    axum::serve(listener, app(host.clone()))
        .with_graceful_shutdown(async move {
            shutdown.await;
            stopping.begin_stop();
        })
        .await?;
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
                (status, axum::Json(json!({"ok": false, "error": error}))).into_response()
            }
        }
    }
}

/// Reads the session header, else the page's cookie, into a caller.
pub fn caller_of(host: &Host, headers: &HeaderMap) -> Caller {
    let credential = Credential::of(headers);
    host.store()
        .read(|state| resolve(state, credential.token()))
}

async fn state(State(host): State<Host>, headers: HeaderMap) -> Answer {
    let caller = caller_of(&host, &headers);
    Answer(match caller.require() {
        Ok(actor) => {
            crate::view::state_view(
                host.team(),
                host.sessions(),
                host.rooms(),
                host.config(),
                actor,
                host.shared_surfaces(),
            )
            .await
        }
        Err(refusal) => Err(refusal),
    })
}

async fn endpoint(
    State(host): State<Host>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Answer {
    let bytes = match to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return Answer(Err(ApiError::new(
                ErrorCode::TooLarge,
                "The request body is over 1 MiB; send less at a time.",
            )
            .with("limit", BODY_LIMIT)));
        }
    };
    if let Err(refusal) = check_write(&headers, &Credential::of(&headers)) {
        return Answer(Err(refusal));
    }
    // A fresh home gets its first Main Bot whatever the first request is.
    if let Err(refusal) =
        crate::bootstrap::first_main_bot(host.team(), &host.config().default_model).await
    {
        return Answer(Err(refusal));
    }
    let caller = caller_of(&host, &headers);
    Answer(endpoints::call(&host, &caller, &name, &bytes).await)
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
        ReadOnlyReason::Damaged { why } => format!("This home opened read-only: {why}"),
    }
}
