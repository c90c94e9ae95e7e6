//! `GET /api/bot/attachment/{id}` and `.../thumbnail` (issue 32): the bytes
//! for a caller the line lets read them (`may_read`), anyone else answered
//! as if the attachment did not exist. Every answer is a download with the
//! sniffed type and `nosniff`: nothing uploaded is ever shown as a page or
//! run, and text is `text/plain` whatever it holds. A thumbnail is a PNG
//! the host drew itself.

use crate::host::Host;
use crate::http::{Answer, admit};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use flybot_core::access::Actor;
use flybot_core::attachments::may_read;
use flybot_protocol::ApiError;
use flybot_protocol::attachment::{Attachment, AttachmentKind};
use flybot_protocol::state::TeamState;

/// The download route and the thumbnail route.
pub fn routes() -> axum::Router<Host> {
    axum::Router::new()
        .route("/api/bot/attachment/{id}", axum::routing::get(file))
        .route(
            "/api/bot/attachment/{id}/thumbnail",
            axum::routing::get(thumbnail),
        )
}

/// The attachment `id` if `actor` may read it; `bot/not-found` otherwise,
/// the same answer as an id that names nothing.
pub fn readable(state: &TeamState, actor: &Actor, id: &str) -> Result<Attachment, ApiError> {
    let member = actor.member_id(state).unwrap_or_default();
    state
        .attachments
        .get(id)
        .filter(|a| may_read(state, &member, a))
        .cloned()
        .ok_or_else(|| ApiError::not_found("attachment", id))
}

async fn file(State(host): State<Host>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    match load(&host, &headers, &id).await {
        Ok((record, bytes)) => served(bytes, &record.mime, &record.name),
        Err(refusal) => Answer(Err(refusal)).into_response(),
    }
}

async fn thumbnail(
    State(host): State<Host>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let answer = load(&host, &headers, &id)
        .await
        .and_then(|(record, bytes)| {
            let small = (record.kind == AttachmentKind::Image)
                .then(|| super::picture::thumbnail(&bytes))
                .flatten();
            small
                .ok_or_else(|| {
                    ApiError::not_found("thumbnail", &id).with(
                        "reason",
                        "This attachment is not a picture the host can draw.",
                    )
                })
                .map(|png| (record, png))
        });
    match answer {
        Ok((record, png)) => served(png, "image/png", &format!("{}.thumbnail.png", record.name)),
        Err(refusal) => Answer(Err(refusal)).into_response(),
    }
}

async fn load(
    host: &Host,
    headers: &HeaderMap,
    id: &str,
) -> Result<(Attachment, Vec<u8>), ApiError> {
    let caller = admit(host, headers).await;
    let actor = caller.require()?;
    let record = host.store().read(|state| readable(state, actor, id))?;
    let home = host.config().home.clone();
    let sha = record.sha256.clone();
    let bytes =
        tokio::task::spawn_blocking(move || flybot_store::attachments::read_object(&home, &sha))
            .await
            .ok()
            .and_then(Result::ok)
            .ok_or_else(|| {
                tracing::error!("the object of attachment {id} could not be read");
                ApiError::new(
                    flybot_protocol::ErrorCode::Unavailable,
                    "The file could not be read on this host; try again.",
                )
            })?;
    Ok((record, bytes))
}

/// `bytes` as a download of type `mime` named `name`.
fn served(bytes: Vec<u8>, mime: &str, name: &str) -> Response {
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    let kind =
        HeaderValue::from_str(mime).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    headers.insert(header::CONTENT_TYPE, kind);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=3600"),
    );
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{ascii}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}
