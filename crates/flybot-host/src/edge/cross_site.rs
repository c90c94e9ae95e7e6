//! No write from another site's page (issue 29): every request that is
//! not a read is refused when the browser says it came from another site
//! (`Sec-Fetch-Site`) or its `Origin` names another host than the one it
//! was sent to, whether it carries the sign-in cookie or no credential at
//! all. A direct client such as curl sends neither header and passes; a
//! cookie-borne write must also carry its CSRF token (`web::guard`).

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use flybot_protocol::{ApiError, ErrorCode};

/// Refuses a write from another site's page before any handler runs.
pub async fn refuse_cross_site_writes(request: Request, next: Next) -> Response {
    let reads = matches!(*request.method(), Method::GET | Method::HEAD);
    if !reads && from_another_site(request.headers()) {
        return crate::http::Answer(Err(refusal())).into_response();
    }
    next.run(request).await
}

/// The refusal a cross-site write gets.
pub fn refusal() -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        "This write came from another site's page; FlyBot only takes writes from its own page or a direct client.",
    )
    .with("reason", "cross-site")
}

/// A browser says where a request came from: `Sec-Fetch-Site`, and `Origin`
/// (which must name the host the request was sent to).
pub fn from_another_site(headers: &HeaderMap) -> bool {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if matches!(fetch_site, Some("cross-site" | "same-site")) {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin = origin.to_str().unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    origin_host.is_none() || origin_host != host
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::edge::header_map as headers;

    #[test]
    fn a_page_of_another_site_is_told_apart_and_curl_passes_29() {
        assert!(!from_another_site(&headers(&[])));
        let same = headers(&[
            ("origin", "http://127.0.0.1:7450"),
            ("host", "127.0.0.1:7450"),
        ]);
        assert!(!from_another_site(&same));
        let other = headers(&[
            ("origin", "http://evil.example"),
            ("host", "127.0.0.1:7450"),
        ]);
        assert!(from_another_site(&other));
        let null = headers(&[("origin", "null"), ("host", "127.0.0.1:7450")]);
        assert!(from_another_site(&null));
        assert!(from_another_site(&headers(&[(
            "sec-fetch-site",
            "cross-site"
        )])));
        assert!(from_another_site(&headers(&[(
            "sec-fetch-site",
            "same-site"
        )])));
        assert!(!from_another_site(&headers(&[(
            "sec-fetch-site",
            "same-origin"
        )])));
    }
}
