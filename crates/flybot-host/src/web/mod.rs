//! The web page's edge (issue 12): the page's files at `/` and `/assets/*`,
//! embedded in the binary, and the page's sign-in, which keeps the member's
//! session in an HttpOnly cookie and guards every cookie-borne write with a
//! CSRF token (`guard`). The page itself talks to the channel like any
//! client: `POST /api/bot/<endpoint>`, `GET /api/bot/state`, `GET /api/bot/live`.

mod assets;
mod compressed;
pub mod guard;
mod sign_in;

use crate::host::Host;
use axum::Router;
use axum::routing::{get, post};

/// The page's routes, merged into the channel's router.
pub fn routes() -> Router<Host> {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{*path}", get(assets::asset))
        .route("/web/session", get(sign_in::session))
        .route("/web/sign-in", post(sign_in::sign_in))
        .route("/web/sign-out", post(sign_in::sign_out))
}
