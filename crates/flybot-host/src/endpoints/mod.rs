//! The channel's endpoints, one axum route each (issue 29): each family's
//! route table (`route_table!`) lists its endpoints, and every route takes
//! the admitted caller and the body (`extract`). An endpoint parses its
//! body into a typed request, checks who may call it, and makes its change
//! through the service it is handed (never the whole host); it answers the
//! record it made or changed. The tables are the allow-list: a name no
//! table lists answers `bot/unknown-endpoint`.

pub(crate) mod access;
mod approvals;
mod attachments;
pub(crate) mod body;
mod chat;
mod connectors;
mod conversations;
pub(crate) mod extract;
mod face_rooms;
mod host;
mod invite_links;
mod memory;
mod people;
mod roster;
mod schedules;
mod shared_rooms;
mod social;
pub(crate) mod tasks;
mod work;
mod workflow;

use axum::Router;
use axum::extract::Path;
use flybot_protocol::{ApiError, ErrorCode};
pub use roster::bots::insert_new_bot;
use serde_json::Value;

/// Every endpoint's route, and `bot/unknown-endpoint` for any other name.
pub fn routes() -> Router<crate::host::Host> {
    Router::new()
        .merge(people::routes())
        .merge(work::routes())
        .merge(schedules::routes())
        .merge(connectors::routes())
        .merge(conversations::routes())
        .merge(attachments::routes())
        .merge(social::routes())
        .merge(shared_rooms::routes())
        .merge(invite_links::routes())
        .merge(face_rooms::routes())
        .merge(crate::attachments::download::routes())
        .route(
            "/api/bot/{endpoint}",
            axum::routing::post(|Path(name): Path<String>| async move {
                crate::http::Answer(Err(unknown(&name)))
            }),
        )
}

/// Every endpoint's name, as the route tables list them.
pub fn endpoint_names() -> Vec<&'static str> {
    [
        people::NAMES,
        work::NAMES,
        schedules::NAMES,
        connectors::NAMES,
        conversations::NAMES,
        attachments::NAMES,
        social::NAMES,
        shared_rooms::NAMES,
        invite_links::NAMES,
        face_rooms::NAMES,
    ]
    .concat()
}

/// What an endpoint answers.
type Answer = Result<Value, ApiError>;

/// A handler's typed answer as the envelope's fields.
fn typed<T: serde::Serialize>(answer: Result<T, ApiError>) -> Answer {
    answer.and_then(|answer| {
        serde_json::to_value(answer).map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("The answer could not be written as JSON ({e}); try again."),
            )
        })
    })
}

fn unknown(endpoint: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownEndpoint,
        format!(
            "There is no endpoint named {}; check the spelling.",
            printable(endpoint)
        ),
    )
    .with("endpoint", printable(endpoint))
}

/// An endpoint name as it may be echoed back: short and printable.
fn printable(name: &str) -> String {
    name.chars().filter(|c| !c.is_control()).take(64).collect()
}
