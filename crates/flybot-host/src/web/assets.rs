//! The page's files, embedded from `crates/flybot-host/web/` (read from disk
//! in debug builds, so a page edit shows on reload). Each answer carries an
//! ETag from the file's SHA-256, and a matching `If-None-Match` gets a 304.

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "web/"]
struct PageFiles;

/// `GET /`: the page.
pub async fn index(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

/// `GET /assets/<path>`: a script, a style sheet or an image of the page.
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    serve(&path, &headers)
}

fn serve(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = PageFiles::get(path) else {
        return (StatusCode::NOT_FOUND, "There is no such file of the page.").into_response();
    };
    let etag = etag(&file.metadata.sha256_hash());
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|seen| seen.as_bytes() == etag.as_bytes());
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        file.data.into_owned().into_response()
    };
    let answer = response.headers_mut();
    answer.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(mime_of(path)),
    );
    answer.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    answer.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        answer.insert(header::ETAG, value);
    }
    if path == "index.html" {
        answer.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
    }
    response
}

/// The page runs only its own scripts and styles and talks only to its host.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn etag(hash: &[u8; 32]) -> String {
    let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The content type by the file's extension; the page ships only these.
fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}
