//! The page's files, embedded from `crates/flybot-host/web/` (read from disk
//! in debug builds, so a page edit shows on reload). Each answer carries an
//! ETag from the file's SHA-256, and a matching `If-None-Match` gets a 304.
//! A text file goes compressed (brotli, else gzip) to a browser that takes
//! it, with its own ETag and `Vary: Accept-Encoding`.

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "web/"]
struct PageFiles;

/// `GET /`: the page.
pub async fn index(headers: HeaderMap) -> Response {
    serve_off_the_runtime("index.html".to_owned(), headers).await
}

/// `GET /assets/<path>`: a script, a style sheet or an image of the page.
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    serve_off_the_runtime(path, headers).await
}

/// A file's first compression takes a release build up to a few hundred
/// milliseconds (brotli 11 on the largest script), so files are served
/// from a blocking thread: the runtime's workers go on with the live
/// streams and the channel meanwhile.
async fn serve_off_the_runtime(path: String, headers: HeaderMap) -> Response {
    tokio::task::spawn_blocking(move || serve(&path, &headers))
        .await
        .unwrap_or_else(|_| {
            (StatusCode::SERVICE_UNAVAILABLE, "The host is stopping.").into_response()
        })
}

fn serve(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = PageFiles::get(path) else {
        return (StatusCode::NOT_FOUND, "There is no such file of the page.").into_response();
    };
    let hash = file.metadata.sha256_hash();
    let compressible = super::compressed::compressible(path);
    // Compressing into memory does not fail but for want of memory; the
    // file then goes as it is.
    let coded = compressible
        .then(|| super::compressed::chosen(headers))
        .flatten()
        .and_then(|coding| {
            super::compressed::compressed(path, coding, hash, &file.data)
                .map(|bytes| (coding, bytes))
                .map_err(|e| tracing::warn!("the page's {path} was sent uncompressed: {e}"))
                .ok()
        });
    let etag = etag(&hash, coded.as_ref().map(|(coding, _)| *coding));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|seen| seen.as_bytes() == etag.as_bytes());
    let mut response = match coded {
        _ if fresh => StatusCode::NOT_MODIFIED.into_response(),
        Some((coding, bytes)) => {
            let mut response = bytes.as_ref().clone().into_response();
            response.headers_mut().insert(
                header::CONTENT_ENCODING,
                HeaderValue::from_static(coding.header()),
            );
            response
        }
        None => file.data.into_owned().into_response(),
    };
    let answer = response.headers_mut();
    if compressible {
        answer.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
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

/// The file's ETag; each compressed form is another representation, with
/// its own.
fn etag(hash: &[u8; 32], coding: Option<super::compressed::Coding>) -> String {
    let hex = flybot_core::hex::lower_hex(&hash[..12]);
    let coding = coding.map_or("", super::compressed::Coding::etag_suffix);
    format!("\"{hex}{coding}\"")
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
