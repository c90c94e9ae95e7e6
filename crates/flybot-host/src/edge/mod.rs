//! The host's walls (issue 29): which requests reach a handler at all. The
//! guards are tower layers in front of every route, outermost first:
//! a handler's panic answered as `503 bot/unavailable` (`faults`), the
//! security headers on every answer, the Host allow-list against DNS
//! rebinding (`host_names`), no write from another site's page
//! (`cross_site`), and the 1 MiB body limit. Who the caller is, and what
//! the owner's token and sessions allow, is `crate::actor`'s.

pub mod cross_site;
mod faults;
pub use faults::{too_large, too_large_at};
pub mod host_names;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// The largest request body: 1 MiB.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// How the edge admits requests: the host's sign-in settings.
#[derive(Debug, Clone)]
pub struct EdgeConfig {
    /// `--no-sign-in`: an anonymous caller is the owner while the home has
    /// no other member. Loopback only; `flybot serve` refuses it elsewhere.
    pub open_mode: bool,
    /// Host names beyond loopback this host answers to (`--public-name`,
    /// config.toml's `publicNames`), lower case, without a port.
    pub public_names: Vec<String>,
    /// A session unused this long expires (7 days unless configured).
    pub session_idle_ms: u64,
    /// A session this old expires however much it is used (30 days).
    pub session_max_ms: u64,
}

const DAY_MS: u64 = 24 * 60 * 60 * 1000;

impl Default for EdgeConfig {
    fn default() -> Self {
        EdgeConfig {
            open_mode: false,
            public_names: Vec::new(),
            session_idle_ms: 7 * DAY_MS,
            session_max_ms: 30 * DAY_MS,
        }
    }
}

/// The home's owner token, made (and kept at mode 0600) on its first
/// start: 16 random bytes, as every credential the host makes.
pub fn owner_token(home: &std::path::Path) -> std::io::Result<String> {
    flybot_store::owner_token::read_or_make(home, crate::ids::new_secret)
}

/// Puts the guards in front of every route of `router`.
pub fn guard<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    config: &EdgeConfig,
    upload_limit: usize,
) -> Router<S> {
    let names = host_names::Allowed::new(&config.public_names);
    let body_limit = RequestBodyLimitLayer::new(BODY_LIMIT);
    let upload_body_limit = RequestBodyLimitLayer::new(upload_limit);
    router
        // An upload's body is one file (issue 32); every other body 1 MiB.
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let upload = request.uri().path() == crate::attachments::UPLOAD_ROUTE;
                let limit = if upload {
                    upload_body_limit
                } else {
                    body_limit
                };
                let service = tower::ServiceBuilder::new()
                    .layer(limit)
                    .map_request(|r: axum::http::Request<_>| r.map(axum::body::Body::new))
                    .service(next);
                async move { tower::ServiceExt::oneshot(service, request).await }
            },
        ))
        .layer(axum::middleware::from_fn(faults::too_large_as_envelope))
        .layer(axum::middleware::from_fn(
            cross_site::refuse_cross_site_writes,
        ))
        .layer(axum::middleware::from_fn(move |request, next| {
            host_names::refuse_unknown_host(names.clone(), request, next)
        }))
        .layer(header_layer(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header_layer(header::X_FRAME_OPTIONS, "DENY"))
        // The sign-in link carries the owner's token in its address: no
        // page the host serves tells another site where it came from.
        .layer(header_layer(header::REFERRER_POLICY, "no-referrer"))
        .layer(header_layer(
            HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ))
        .layer(CatchPanicLayer::custom(faults::panic_as_unavailable))
}

fn header_layer(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
}

/// A header map of `pairs`, for the edge's unit tests.
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
    let mut map = axum::http::HeaderMap::new();
    for (key, value) in pairs {
        let value = HeaderValue::from_str(value).unwrap_or(HeaderValue::from_static(""));
        map.append(*key, value);
    }
    map
}
