//! What every route of the channel takes from its request (issue 29): the
//! admitted caller (a cookie-borne write's CSRF token checked, the caller
//! resolved, a fresh home's first Main Bot made once someone is admitted)
//! and the body, at most 1 MiB (an upload: one file, as JSON or a
//! multipart form, issue 32). The route table (`route_table!`) builds one
//! axum route per endpoint from these.

use crate::actor::Caller;
use crate::edge::{BODY_LIMIT, too_large_at};
use crate::host::Host;
use crate::http::{Answer, admit};
use crate::web::guard::{Credential, check_write};
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use flybot_protocol::ApiError;
use serde_json::Value;
use std::future::Future;

/// The caller of a channel route.
pub struct Admitted(pub Caller);

impl FromRequestParts<Host> for Admitted {
    type Rejection = Answer;

    async fn from_request_parts(parts: &mut Parts, host: &Host) -> Result<Self, Answer> {
        let headers = &parts.headers;
        check_write(headers, &Credential::of(headers)).map_err(|e| Answer(Err(e)))?;
        let caller = admit(host, headers).await;
        // A fresh home gets its first Main Bot whatever the first request
        // is, once a caller is admitted: an anonymous one changes nothing.
        if matches!(caller, Caller::Actor(_)) {
            let model = host.config().models.default_model();
            crate::bootstrap::first_main_bot(host.team(), &model)
                .await
                .map_err(|e| Answer(Err(e)))?;
        }
        Ok(Admitted(caller))
    }
}

/// A route's body: its bytes, refused with `bot/too-large` past 1 MiB.
pub struct RawBody(pub Bytes);

impl FromRequest<Host> for RawBody {
    type Rejection = Answer;

    async fn from_request(request: Request, host: &Host) -> Result<Self, Answer> {
        // An upload's body is one file as base64, or a form whose one file
        // is read as a stream and refused past the limit (issue 32).
        let upload = request.uri().path() == crate::attachments::UPLOAD_ROUTE;
        let limit = if upload {
            if let Some(boundary) = crate::attachments::multipart::form_boundary(&request) {
                let config = &host.config().attachments;
                return crate::attachments::multipart::form_as_upload(request, boundary, config)
                    .await
                    .map(RawBody)
                    .map_err(|e| Answer(Err(e)));
            }
            host.config().attachments.upload_body_limit()
        } else {
            BODY_LIMIT
        };
        axum::body::to_bytes(request.into_body(), limit)
            .await
            .map(RawBody)
            .map_err(|_| Answer(Err(too_large_at(limit))))
    }
}

/// Names the answer type of a route's body, so `?` inside it converts to
/// the channel's refusal.
pub fn answer<F: Future<Output = Result<Value, ApiError>>>(future: F) -> F {
    future
}

/// A family's route table: one `"name" => |host, caller, body| answer;`
/// per endpoint, where `answer` is the endpoint's `Result<Value, ApiError>`
/// (it may use `?` and `.await`; `caller` is `&Caller`, `body` is `&[u8]`).
/// Makes the family's `NAMES` and `routes()`.
macro_rules! route_table {
    ($( $name:literal => |$host:ident, $caller:ident, $body:ident| $answer:expr ;)*) => {
        /// This family's endpoint names, as its route table lists them.
        pub(crate) const NAMES: &[&str] = &[$($name),*];

        /// One route per endpoint of this family.
        pub(crate) fn routes() -> axum::Router<crate::host::Host> {
            use crate::endpoints::extract::{Admitted, RawBody, answer};
            use axum::extract::State;
            axum::Router::new()$(
                .route(
                    concat!("/api/bot/", $name),
                    axum::routing::post(
                        |State($host): State<crate::host::Host>,
                         Admitted($caller): Admitted,
                         RawBody($body): RawBody| async move {
                            #[allow(unused_variables)]
                            let ($caller, $body) = (&$caller, &$body[..]);
                            crate::http::Answer(answer(async { $answer }).await)
                        },
                    ),
                )
            )*
        }
    };
}
pub(crate) use route_table;
