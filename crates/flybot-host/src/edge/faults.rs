//! The host's own faults at the edge (issue 29): a handler that panicked
//! answers `503 bot/unavailable`, logged once here, never a dropped
//! connection or an internal message; and a body over the limit that
//! tower-http's layer refused answers the channel's own `bot/too-large`
//! envelope rather than its plain text.

use super::BODY_LIMIT;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use flybot_protocol::{ApiError, ErrorCode};
use std::any::Any;

/// The answer for a handler that panicked.
pub fn panic_as_unavailable(panic: Box<dyn Any + Send + 'static>) -> Response<Body> {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic with no message");
    tracing::error!("a request's handler panicked: {what}");
    crate::http::Answer(Err(ApiError::new(
        ErrorCode::Unavailable,
        "FlyBot failed inside while answering this request; nothing was changed by it. Try again, and report it if it happens again.",
    )))
    .into_response()
}

/// Turns the body limit's bare 413 into the channel's envelope.
pub async fn too_large_as_envelope(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let ours = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE || ours {
        return response;
    }
    crate::http::Answer(Err(too_large())).into_response()
}

/// The refusal of a body over the limit.
pub fn too_large() -> ApiError {
    too_large_at(BODY_LIMIT)
}

/// The refusal of a body over `limit` bytes, naming it.
pub fn too_large_at(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::TooLarge,
        format!(
            "The request body is over {}; send less at a time.",
            flybot_core::attachments::shown_size(limit as u64)
        ),
    )
    .with("limit", limit)
}
