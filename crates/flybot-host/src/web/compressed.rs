//! The page's text files sent compressed (issue 31): a script, a style
//! sheet or an SVG is compressed once per version of the file (its SHA-256,
//! so a debug build's edited file is compressed again) and per coding, and
//! kept in memory. A browser that takes brotli gets brotli (Chromium sends
//! `br` to `http://127.0.0.1` too; `e2e/bench.js` prints what it gets), one
//! that takes only gzip gets gzip, any other the file as it is.
//! Compressing at the first request rather than at build time keeps the
//! build free of a step and the embedded files readable in debug builds.

use axum::http::{HeaderMap, header};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// A content coding the page's files are sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    /// The `Content-Encoding` value.
    pub(super) fn header(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// What the representation's ETag carries after the file's hash.
    pub(super) fn etag_suffix(self) -> &'static str {
        match self {
            Coding::Brotli => "-br",
            Coding::Gzip => "-gz",
        }
    }
}

/// (path, coding) → (the file's SHA-256, its compressed bytes).
type CacheMap = HashMap<(String, Coding), ([u8; 32], Arc<Vec<u8>>)>;
type Cache = Mutex<CacheMap>;

/// The cache, locked (for a look or an insert, never while compressing).
fn cache() -> MutexGuard<'static, CacheMap> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    (CACHE.get_or_init(Cache::default).lock()).unwrap_or_else(PoisonError::into_inner)
}

/// Whether the file is text worth compressing (the images are compressed
/// already).
pub(super) fn compressible(path: &str) -> bool {
    matches!(
        path.rsplit('.').next().unwrap_or(""),
        "html" | "js" | "css" | "svg" | "json"
    )
}

/// The coding to send: brotli when the request's `Accept-Encoding` takes
/// it (and not at q=0), else gzip on the same terms, else none.
pub(super) fn chosen(headers: &HeaderMap) -> Option<Coding> {
    let accept = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())?;
    let takes = |wanted: &str| {
        accept.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                let p = p.replace(' ', "");
                p == "q=0" || p == "q=0.0"
            });
            (name.eq_ignore_ascii_case(wanted) || name == "*") && !refused
        })
    };
    if takes("br") {
        Some(Coding::Brotli)
    } else if takes("gzip") {
        Some(Coding::Gzip)
    } else {
        None
    }
}

/// The file's bytes in `coding`, compressed now if this version was not yet.
pub(super) fn compressed(
    path: &str,
    coding: Coding,
    hash: [u8; 32],
    data: &[u8],
) -> std::io::Result<Arc<Vec<u8>>> {
    let key = (path.to_owned(), coding);
    let kept = cache().get(&key).cloned();
    if let Some((known, bytes)) = kept
        && known == hash
    {
        return Ok(bytes);
    }
    // Compressed outside the cache's lock, so the page's first requests
    // compress their files side by side; two at once for one file both
    // compress it, and the later keeps its bytes.
    let bytes = Arc::new(match coding {
        Coding::Brotli => brotli_of(data)?,
        Coding::Gzip => {
            let mut encoder =
                GzEncoder::new(Vec::with_capacity(data.len() / 3), Compression::best());
            encoder.write_all(data)?;
            encoder.finish()?
        }
    });
    cache().insert(key, (hash, bytes.clone()));
    Ok(bytes)
}

/// Brotli's quality: its best in a release build, which compresses each
/// file once in its life. A debug build reads the page from disk, so an
/// edit shows on reload, and the browser tests start a host per test: at
/// 11 each of those hosts spent about 2.5 s of CPU compressing the page's
/// 345 KB of scripts, on a CI machine whose two cores the tests keep busy
/// (issue 38).
const BROTLI_QUALITY: i32 = if cfg!(debug_assertions) { 5 } else { 11 };

/// Brotli at `BROTLI_QUALITY` with a window that holds the largest file.
fn brotli_of(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn coding(value: &str) -> Option<Coding> {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        chosen(&headers)
    }

    #[test]
    fn brotli_goes_where_it_is_taken_then_gzip_then_nothing() {
        // What Debian's Chromium sends to http://127.0.0.1 (issue 31).
        assert_eq!(coding("gzip, deflate, br, zstd"), Some(Coding::Brotli));
        assert_eq!(coding("br;q=1.0, gzip;q=0.8"), Some(Coding::Brotli));
        assert_eq!(coding("*"), Some(Coding::Brotli));
        assert_eq!(coding("br;q=0, gzip"), Some(Coding::Gzip));
        assert_eq!(coding("gzip, deflate"), Some(Coding::Gzip));
        assert_eq!(coding("gzip;q=0"), None);
        assert_eq!(coding("deflate"), None);
        assert_eq!(coding("identity"), None);
        assert_eq!(chosen(&HeaderMap::new()), None);
    }

    #[test]
    fn a_new_version_of_a_file_is_compressed_again() {
        for c in [Coding::Brotli, Coding::Gzip] {
            let first = compressed("t.js", c, [1; 32], b"let a = 1;").unwrap();
            let again = compressed("t.js", c, [1; 32], b"ignored: same version").unwrap();
            assert!(Arc::ptr_eq(&first, &again));
            let edited = compressed("t.js", c, [2; 32], b"let a = 2;").unwrap();
            assert!(!Arc::ptr_eq(&first, &edited));
        }
    }

    #[test]
    fn brotli_bytes_decompress_to_the_file() {
        let text = "export const x = 1;\n".repeat(200);
        let bytes = compressed("b.js", Coding::Brotli, [3; 32], text.as_bytes()).unwrap();
        assert!(bytes.len() < text.len() / 10);
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &bytes[..], &mut out).unwrap();
        assert_eq!(out, text.as_bytes());
    }
}
