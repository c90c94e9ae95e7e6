//! The page's text files sent gzipped (issue 31): a script, a style sheet
//! or an SVG is compressed once per version of the file (its SHA-256, so a
//! debug build's edited file is compressed again) and kept in memory; a
//! browser that accepts gzip gets those bytes, any other the file as it is.
//! Compressing at the first request rather than at build time keeps the
//! build free of a step and the embedded files readable in debug builds;
//! the whole page is a few hundred KiB, compressed in a few milliseconds.

use axum::http::{HeaderMap, header};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// path → (the file's SHA-256, its gzipped bytes).
type Cache = Mutex<HashMap<String, ([u8; 32], Arc<Vec<u8>>)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Cache::default)
}

/// Whether the file is text worth compressing (the images are compressed
/// already).
pub(super) fn compressible(path: &str) -> bool {
    matches!(
        path.rsplit('.').next().unwrap_or(""),
        "html" | "js" | "css" | "svg" | "json"
    )
}

/// Whether the request's `Accept-Encoding` takes gzip (and not at q=0).
pub(super) fn accepted(headers: &HeaderMap) -> bool {
    let Some(accept) = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    accept.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        let refused = parts.any(|p| p.replace(' ', "") == "q=0" || p.replace(' ', "") == "q=0.0");
        (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
    })
}

/// The file's gzipped bytes, compressed now if this version was not yet.
pub(super) fn gzipped(path: &str, hash: [u8; 32], data: &[u8]) -> std::io::Result<Arc<Vec<u8>>> {
    let mut cache = cache().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((known, bytes)) = cache.get(path)
        && *known == hash
    {
        return Ok(bytes.clone());
    }
    let mut encoder = GzEncoder::new(Vec::with_capacity(data.len() / 3), Compression::best());
    encoder.write_all(data)?;
    let bytes = Arc::new(encoder.finish()?);
    cache.insert(path.to_owned(), (hash, bytes.clone()));
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn takes(value: &str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        accepted(&headers)
    }

    #[test]
    fn gzip_is_sent_only_to_a_browser_that_takes_it() {
        assert!(takes("gzip, deflate, br, zstd"));
        assert!(takes("br;q=1.0, gzip;q=0.8"));
        assert!(takes("*"));
        assert!(!takes("gzip;q=0"));
        assert!(!takes("br, deflate"));
        assert!(!takes("identity"));
        assert!(!accepted(&HeaderMap::new()));
    }

    #[test]
    fn a_new_version_of_a_file_is_compressed_again() {
        let first = gzipped("t.js", [1; 32], b"let a = 1;").unwrap();
        let again = gzipped("t.js", [1; 32], b"ignored: same version").unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let edited = gzipped("t.js", [2; 32], b"let a = 2;").unwrap();
        assert!(!Arc::ptr_eq(&first, &edited));
    }
}
